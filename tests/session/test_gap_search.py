"""firmware.session.gap: the legal sequences from a journal's position to the occupancy the
sensors report (issue 30): table cases (flying-king captures, promotion, several candidates,
none, the node budget) and a property over random games: the plies really played are always
among the candidates, and every candidate is legal and ends on the sensed occupancy."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.records_helpers import shapes

from firmware.errors import BoardError
from firmware.formats.events import NS, Lift, Pause, Place, Press, Recovered, Start
from firmware.rules.notation import parse_move
from firmware.rules.position import Position
from firmware.session.gap import find_gap, plies_text
from firmware.session.session import BoardSession


def after(position: Position, texts: list[str]) -> Position:
    for text in texts:
        position = position.play(parse_move(position, text))
    return position


@pytest.mark.parametrize(("rules", "fen", "played"), [
    ("international", None, ["32-28", "19-23", "28x19", "14x23"]),  # captures both ways
    ("international", None, ["32-28"]),
    ("international", "W:WK46:B37,28,19,10,3", ["46x5"]),  # a flying king's capture of four
    ("international", "W:W6:B40", ["6-1", "40-45"]),  # a promotion
    ("russian", None, ["c3-d4", "f6-e5", "d4:f6", "g7:e5"]),
    ("brazilian", "W:WK29:B25,18,11", ["a1:g7"]),  # the flying king in 8x8 lands short
])
def test_the_one_sequence_that_leads_there(rules: str, fen: str | None,
                                           played: list[str]) -> None:
    start = Position.from_fen(rules, fen) if fen else Position.start(rules)
    end = after(start, played)
    gap = find_gap(start, end.occupied())
    found = gap.unique
    assert found is not None, [plies_text(start, c.moves) for c in gap.candidates]
    assert plies_text(start, found.moves) == played
    assert found.position == end  # kings and sides included: a man promoted is a king


def test_routes_over_the_same_pieces_are_one_candidate() -> None:
    # A king that can take the same pieces round a ring either way, ending on the same
    # square (35x8x26x37x23x45, 35x19x37x26x12x45): the board changes the same way, the game
    # goes on the same.
    start = Position.from_fen("international", "W:WK35:B31,41,32,21,40,30")
    routes: dict[tuple, list] = {}
    for move in start.legal_moves():
        routes.setdefault(move.key, []).append(move)
    key, same = max(routes.items(), key=lambda kv: len(kv[1]))
    assert len(same) == 2
    end = start.play(same[0])
    gap = find_gap(start, end.occupied(), 1)
    assert len(gap.candidates) == 1 and gap.unique is not None
    assert gap.unique.moves[0].key == key


def test_kings_that_can_go_and_come_back_are_several_answers() -> None:
    # White's king 46-5 in one ply, or 46-10 and on to 5 while Black's king goes and returns:
    # the sensors cannot tell one ply from four.
    start = Position.from_fen("international", "W:WK46:BK3")
    end = after(start, ["46-5"])
    gap = find_gap(start, end.occupied(), 4)
    assert gap.unique is None
    found = [plies_text(start, c.moves) for c in gap.candidates]
    assert found[0] == ["46-5"]  # shortest first
    assert ["46-10", "3-8", "10-5", "8-3"] in found
    assert all(len(c) in (1, 4) for c in found)
    # With a bound of one ply, the same board has one answer.
    assert find_gap(start, end.occupied(), 1).unique is not None


@pytest.mark.parametrize("change", ["added", "removed", "light-ish", "too far"])
def test_boards_no_legal_sequence_explains(change: str) -> None:
    start = Position.start("international")
    occupied = set(after(start, ["32-28", "19-23"]).occupied())
    if change == "added":
        occupied.add(25)  # a piece from nowhere
    elif change == "removed":
        occupied.discard(46)  # a piece gone without a capture
    elif change == "light-ish":
        occupied = set(start.occupied()) - {31} | {26, 27}  # one man on two squares
    else:
        occupied = set(after(start, ["32-28", "19-23", "28x19", "14x23", "37-32"]).occupied())
    gap = find_gap(start, occupied, 4)
    assert gap.candidates == [] and gap.unique is None and not gap.exhausted


def test_no_gap_and_the_budget() -> None:
    start = Position.start("international")
    assert find_gap(start, start.occupied()).candidates == []  # the board agrees
    end = after(start, ["32-28", "19-23", "28x19", "14x23"])
    cut = find_gap(start, end.occupied(), 4, max_nodes=50)
    assert cut.exhausted and cut.unique is None and cut.nodes == 50


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10_000), rules=st.sampled_from(["international", "russian"]),
       opening=st.integers(0, 30), plies=st.integers(1, 3))
def test_the_plies_played_are_always_found(seed: int, rules: str, opening: int,
                                            plies: int) -> None:
    rng = random.Random(seed)
    start = Position.start(rules)
    for _ in range(opening):  # somewhere in a random game
        moves = start.legal_moves()
        if not moves:
            return
        start = start.play(rng.choice(moves))
    end, played = start, []
    for _ in range(plies):
        moves = end.legal_moves()
        if not moves:
            break
        move = rng.choice(moves)
        played.append(move.key)
        end = end.play(move)
    if not played:
        return
    gap = find_gap(start, end.occupied(), plies)
    if end.occupied() == start.occupied():
        assert gap.candidates == []
        return
    assert not gap.exhausted
    assert tuple(played) in [tuple(m.key for m in c.moves) for c in gap.candidates]
    for cand in gap.candidates:
        position = start
        for move in cand.moves:
            assert move in position.legal_moves()
            position = position.play(move)
        assert position == cand.position and position.occupied() == end.occupied()
    if gap.unique is not None:
        assert tuple(m.key for m in gap.unique.moves) == tuple(played)


def test_a_recovered_event_plays_the_plies_without_a_press() -> None:
    """The session's ``recovered`` event: the plies on the record with the clocks as they
    stand (paused), the turn and each side's move count on; the referee then follows the
    board as the sensors report it, with nothing to restore."""
    session = BoardSession("international", "300+5")
    geo = session.rules.geometry
    session.handle(Start(0))
    t = NS
    session.handle(Lift(t, geo.algebraic(32)))
    session.handle(Place(t + NS // 10, geo.algebraic(28)))
    session.tick(t + NS)
    session.handle(Press(t + NS, "white"))
    session.handle(Pause(2 * NS))
    before = session.status(2 * NS)["clock"]
    board = set(session.referee.board())
    records = shapes(session.handle(Recovered(3 * NS, ("19-23", "28x19", "14x23"))))
    assert [r["move"] for r in records if r["type"] == "move"] == ["19-23", "28x19", "14x23"]
    assert all(r["clock"] == before for r in records if r["type"] == "move")
    assert session.position.turn.value == "white"
    clock = session.clock
    assert clock is not None and clock.running is None
    sides = (session.position.turn, session.position.turn.other)
    assert {s.value: clock.moves_made(s) for s in sides} == {"white": 2, "black": 2}
    now = set(session.position.occupied())
    for sq in sorted(board - now):
        session.handle(Lift(4 * NS, geo.algebraic(sq)))
    for sq in sorted(now - board):
        session.handle(Place(4 * NS, geo.algebraic(sq)))
    session.tick(6 * NS)
    assert session.leds() == {} and len(session.moves) == 4
    with pytest.raises(BoardError, match="not legal"):
        session.handle(Recovered(7 * NS, ("46-41",)))
    assert len(session.moves) == 4
