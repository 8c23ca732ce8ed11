"""8x8 square numbers on the wire (issue 41): lidraughts' own (``Pos64``: 1 = b8, the board's
PDN numbering) by default; pydraughts' (1 = a1, 2 = c1 ... 32 = h8) found when a game's moves
replay only under it (``auto``), or chosen (``--online-numbering a1``). A real Russian game
written both ways."""

from __future__ import annotations

from pathlib import Path

import pytest

from boardctl.online.errors import OnlineError, ProtocolError
from boardctl.online.moves import MovesReader, Numbering, li_route, li_steps
from firmware.pdn import read_games
from firmware.rules.position import Move, Position
from firmware.rules.sets import find_rules

RULES = find_rules("russian")
GAME = Path(__file__).resolve().parents[1] / "data" / "pdn" / "russian-ussr-championship-1947.pdn"


def moves(n: int = 30) -> list[Move]:
    game = next(iter(read_games(GAME.read_text(encoding="utf-8"), GAME.name)))
    return list(game.replay().moves[:n])


def test_the_two_numberings_of_8x8() -> None:
    a1 = Numbering(RULES, "a1")
    alg = RULES.geometry.algebraic
    # pydraughts' 1 is a1, 2 c1, 5 b2, 32 h8; the board's (PDN) 29 is a1, 1 b8
    assert {alg(a1.from_server(k)) for k in (1, 2, 5, 32)} == {"a1", "c1", "b2", "h8"}
    assert [a1.to_server(sq) for sq in (29, 1, 32)] == [1, 29, 4]
    assert all(a1.from_server(a1.to_server(sq)) == sq for sq in range(1, 33))
    own = Numbering(RULES, "auto")
    assert [own.to_server(sq) for sq in (29, 1)] == [29, 1]  # lidraughts' own: unchanged
    with pytest.raises(OnlineError, match="numbering"):
        Numbering(RULES, "h8")


def test_auto_finds_a_server_numbering_from_a1() -> None:
    game = moves()
    wire = " ".join(li_route(m, Numbering(RULES, "a1")) for m in game)
    with pytest.raises(ProtocolError):  # lidraughts' own numbering: not a legal game
        MovesReader(Position.start(RULES), Numbering(RULES, "lidraughts")).read(wire)
    numbering = Numbering(RULES, "auto")
    reader = MovesReader(Position.start(RULES), numbering)
    first = " ".join(wire.split()[:1])
    assert [m.key for m in reader.read(first).plies] == [game[0].key]  # the first move tells
    assert numbering.a1 and not numbering.auto
    assert [m.key for m in reader.read(wire).plies] == [m.key for m in game]
    # the board's moves go out numbered as the server's came in
    assert li_route(game[1], numbering) == wire.split()[1]
    steps = li_steps(game[1], numbering)
    assert steps[0][:2] == wire.split()[1][:2] and steps[-1][-2:] == wire.split()[1][-2:]


def test_auto_keeps_lidraughts_own_numbering() -> None:
    game = moves()
    wire = " ".join(li_route(m) for m in game)
    numbering = Numbering(RULES, "auto")
    done = MovesReader(Position.start(RULES), numbering).read(wire)
    assert [m.key for m in done.plies] == [m.key for m in game]
    assert not numbering.a1 and numbering.auto
    assert Numbering(find_rules("international"), "a1").to_server(46) == 46  # 10x10: one way
