"""Moves both ways between the board and lidraughts (boardctl.online.moves), checked on real
games against pydraughts 0.6.7 (``li_api_move``: one request per step; ``li_one_move``: a
game's entry), the client library of lidraughts' bot (lidraughts-bot's ``make_move`` posts
each ``li_api_move`` part).

pydraughts numbers 8x8 squares from a1 (1 = a1, 2 = c1 ... 32 = h8); lidraughts numbers them
as PDN does (``Pos64``: field ``4(y-1)+x``, ``alg2pos``: 1 = b8, 29 = a1, 32 = g1; Russian
starts ``W:W21-32:B1-12``), as the board does: so on 8x8 pydraughts' squares are renumbered
before they are compared, and the board's squares go to lidraughts unchanged."""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path

import pytest

from boardctl.online.errors import ProtocolError
from boardctl.online.moves import MovesReader, li_route, li_steps, read_move
from firmware.pdn import read_games
from firmware.rules.position import Move, Position
from firmware.rules.sets import RuleSet, find_rules

draughts = pytest.importorskip("draughts")
if getattr(draughts, "__version__", "") != "0.6.7":
    pytest.skip("the oracle is pydraughts 0.6.7", allow_module_level=True)

GAMES = Path(__file__).resolve().parents[1] / "data" / "pdn"
FILES = ["international-world-championship-2003.pdn", "international-dutch-championship-2003.pdn",
         "international-candidates-1995.pdn", "russian-ussr-championship-1947.pdn"]


def pydraughts_square(rules: RuleSet) -> Callable[[int], int]:
    """pydraughts' square number -> the board's (and lidraughts')."""
    if rules.size == 10:
        return lambda n: n
    g = rules.geometry

    def convert(n: int) -> int:
        rank, k = divmod(n - 1, 4)
        return g.number(f"{chr(ord('a') + 2 * k + rank % 2)}{rank + 1}")

    return convert


def lidraughts_field(rules: RuleSet, field: int) -> str:
    """lidraughts' Pos64: the algebraic name of a field (x, y from its number)."""
    x, y = (field - 1) % 4 + 1, (field - 1) // 4 + 1
    alg_y = 9 - y
    alg_x = x * 2 - alg_y % 2
    return f"{chr(96 + alg_x)}{alg_y}"


def test_the_board_numbers_8x8_as_lidraughts_does() -> None:
    rules = find_rules("russian")
    assert [rules.geometry.number(lidraughts_field(rules, f)) for f in range(1, 33)] \
        == list(range(1, 33))
    assert (lidraughts_field(rules, 1), lidraughts_field(rules, 29),
            lidraughts_field(rules, 32)) == ("b8", "a1", "g1")
    # lidraughts' Russian start: W:W21,...,32:B1,...,12 (variant/Russian.scala)
    start = Position.start(rules)
    assert start.squares_of(start.turn) == frozenset(range(21, 33))


def interesting_plies(name: str) -> list[tuple[Position, Move]]:
    """Every king capture, the captures of several pieces (at most 25 a file), and a sample
    of the rest: the positions before them and the moves."""
    rng = random.Random(name)
    kings: list[tuple[Position, Move]] = []
    multi: list[tuple[Position, Move]] = []
    rest: list[tuple[Position, Move]] = []
    for game in read_games((GAMES / name).read_text(encoding="utf-8"), name):
        replayed = game.replay()
        position = replayed.start
        for move in replayed.moves:
            piece = position.piece_at(move.start)
            assert piece is not None
            if piece.king and move.captured:
                kings.append((position, move))
            elif len(move.captured) > 1:
                multi.append((position, move))
            elif rng.random() < 0.004:
                rest.append((position, move))
            position = position.play(move)
    return kings + multi[:25] + rest


@pytest.mark.parametrize("name", FILES)
def test_moves_agree_with_pydraughts_on_real_games(name: str) -> None:
    plies = interesting_plies(name)
    rules = plies[0][0].rules
    variant = "standard" if rules.size == 10 else "russian"
    convert = pydraughts_square(rules)
    kings = multi = 0
    for position, move in plies:
        board = draughts.Board(variant=variant, fen=position.fen())
        theirs = [m for m in board.legal_moves()
                  if (convert(m.steps_move[0]), convert(m.steps_move[-1]),
                      frozenset(convert(c) for c in m.captures if c)) == move.key]
        assert theirs, (position.fen(), str(move))
        one = {"".join(f"{convert(int(t.li_one_move[i:i + 2])):02d}"
                       for i in range(0, len(t.li_one_move), 2)) for t in theirs}
        api = {tuple(f"{convert(int(s[:2])):02d}{convert(int(s[2:])):02d}"
                     for s in t.li_api_move) for t in theirs}
        assert li_route(move) in one, (position.fen(), str(move), one)
        assert li_steps(move) in api
        for form in one:  # what pydraughts writes, the board reads as the same move
            assert read_move(position, form).key == move.key
        for steps in api:
            played = MovesReader(position).read(" ".join(steps))
            assert [m.key for m in played.plies] == [move.key] and not played.pending
        piece = position.piece_at(move.start)
        kings += bool(piece and piece.king)
        multi += len(move.captured) > 1
    assert multi > 0 and kings > 0  # the real games hold both kinds


def test_a_game_reads_in_either_form_and_both_mixed() -> None:
    name = FILES[0]
    game = next(read_games((GAMES / name).read_text(encoding="utf-8"), name)).replay()
    whole = " ".join(li_route(m) for m in game.moves)
    steps = " ".join(" ".join(li_steps(m)) for m in game.moves)
    mixed = " ".join(" ".join(li_steps(m)) if i % 2 else li_route(m)
                     for i, m in enumerate(game.moves))
    for text in (whole, steps, mixed):
        read = MovesReader(game.start).read(text)
        assert [m.key for m in read.plies] == [m.key for m in game.moves]
        assert read.pending == () and read.position == game.position


def test_the_api_documentation_example_replays() -> None:
    read = MovesReader(Position.start("international")).read("3227 1722 3832 1924 4338 2430 "
                                                             "3425")
    assert [str(m) for m in read.plies] == ["32-27", "17-22", "38-32", "19-24", "43-38",
                                             "24-30", "34x25"]


def test_a_capture_under_way_is_pending_until_its_last_step() -> None:
    p = Position.from_fen("international", "W:WK46,50:B37,19,3")
    reader = MovesReader(p)
    assert reader.read("4628").pending == (46, 28)  # a king may land anywhere behind
    done = reader.read("4628 2810")
    assert [(m.route, m.captured) for m in done.plies] == [((46, 32, 10), (37, 19))]
    assert read_move(p, "462805").key == (46, 5, frozenset({37, 19}))


@pytest.mark.parametrize("moves, why", [
    ("3227 3227", "not a legal move"),
    ("32x27", "two-digit squares"),
    ("322", "two-digit squares"),
    ("3", "two-digit squares"),
    ("32" * 30, "two-digit squares"),
    ("3229", "not a legal move"),
])
def test_moves_that_do_not_replay_are_a_protocol_error(moves: str, why: str) -> None:
    with pytest.raises(ProtocolError, match=why):
        MovesReader(Position.start("international")).read(moves)


def test_a_step_that_does_not_carry_on_the_capture_is_refused() -> None:
    p = Position.from_fen("international", "W:WK46,50:B37,19,3")
    with pytest.raises(ProtocolError, match="does not carry on"):
        MovesReader(p).read("4628 5045")


def test_a_new_state_costs_only_its_new_entries() -> None:
    reader = MovesReader(Position.start("international"))
    first = reader.read("3227 1722")
    second = reader.read("3227 1722 3832")
    assert second.plies[:2] == first.plies and len(second.plies) == 3
    assert len(reader.read("3227").plies) == 1  # shorter: read again from the start
