"""The seeds' capture examples performed in every legitimate order (000 4.9, 4.11, 003 4.16):
every route, every order of lifting the captured pieces, with and without setting the piece
down on each landing square, with a clock (press) and without (settle time)."""

from __future__ import annotations

import itertools
import random

import pytest
from support.records_helpers import FeedShapedSession as BoardSession  # records as feed lines

from firmware.formats.events import Event, Press, Start
from firmware.referee import MoveCommitted, Referee
from firmware.rules.position import Move, Position
from firmware.rules.sets import Side
from firmware.session.handling import CAPTURE_FIRST_RULES, MS, Hand, S, Style, perform

EXAMPLES = [
    ("russian", "W:WKd2:Bb6,d6,f4,f6,g7"),  # 000 diagram 4: one king, three routes
    ("international64", "W:WKd2:Bb6,d6,f4,f6,g7"),  # 004 majority capture on 64 squares
    ("russian", "B:Wc3,d4,e3,f2,f4:BKa5,d6,e7"),  # 004 §14 example 1: captured pieces block
    ("russian", "W:WKe1:Bc3,b6,c5,d6,e5,e7"),  # 004 §14 example 2
    ("russian", "B:Wa1,b2,b4,d2,d4,f2,f4:Ba5,c5,c7,e7,g7"),  # 004 §14 example 3: crowned
    ("brazilian", "B:Wa1,b2,b4,d2,d4,f2,f4:Ba5,c5,c7,e7,g7"),  # ... stays a man (000 4.16.2)
    ("international", "W:WK42:B11,12,13,29,30,40"),  # 004 §29: king 42, two routes
    ("international1953", "B:W21,32,33,37,43:BK8,10,19,22"),  # 004 §29 example 5
    ("international1953", "W:WK48:B18,21,27,28,37"),  # 004 §29 example 6
    ("international", "W:W28:B23"),  # 003 4.16: a single man, may come off first
    ("international64", "W:Wc3:Bd4"),  # 001 follows 003 4.16
    ("russian", "W:We3:Bd4,f4,d6,f6"),  # a man's round trip: ends where it started
    ("international", "W:W47:B41,42,31,32"),  # the same on 100 squares
]


def orders(captured: tuple[int, ...], limit: int = 12) -> list[tuple[int, ...]]:
    """Every order of lifting the captured pieces (capture order and its reverse always)."""
    perms = list(itertools.permutations(captured))
    if len(perms) <= limit:
        return perms
    rng = random.Random(len(captured))
    return [captured, captured[::-1], *rng.sample(perms, limit - 2)]


def events_for(position: Position, move: Move, seed: int, *, removal: tuple[int, ...],
               touch: bool, first: bool, clocked: bool) -> list[Event]:  # fmt: skip
    hand = Hand(position.rules.size, random.Random(seed), 0, Style(bounce=0.5, slide=0.5))
    hand.events.append(Start(0))
    perform(position, move, hand, clocked=clocked, removal=removal, touch=touch,
            capture_first=first)  # fmt: skip
    hand.wait(200 * MS, 400 * MS)
    if clocked:
        hand.events.append(Press(hand.t, position.turn.value))
    else:
        hand.wait(2 * S, 3 * S)
    return hand.events


def committed(position: Position, events: list[Event], clocked: bool) -> list[Move]:
    referee = Referee(position.rules, position, clocked=clocked)
    out = []
    for e in events:
        if e.type == "lift":
            out += referee.lift(e.square, e.at)  # type: ignore[attr-defined]
        elif e.type == "place":
            out += referee.place(e.square, e.at)  # type: ignore[attr-defined]
        elif e.type == "press":
            out += referee.press(Side(e.side), e.at)  # type: ignore[attr-defined]
    out += referee.finish(events[-1].at)
    assert not [d for d in out if not isinstance(d, MoveCommitted)], out
    return [d.move for d in out if isinstance(d, MoveCommitted)]


@pytest.mark.parametrize(("rules", "fen"), EXAMPLES)
def test_every_route_every_order(rules: str, fen: str) -> None:
    position = Position.from_fen(rules, fen)
    moves = [m for m in position.legal_moves() if m.is_capture]
    assert moves
    seed = 0
    for move in moves:
        allowed = (len(move.captured) == 1 and rules in CAPTURE_FIRST_RULES
                   and not position.piece_at(move.start).king)  # type: ignore[union-attr]  # fmt: skip
        for removal in orders(move.captured):
            for touch, first, clocked in itertools.product(
                (True, False), (False, True) if allowed else (False,), (True, False)
            ):
                seed += 1
                events = events_for(position, move, seed, removal=removal, touch=touch,
                                    first=first, clocked=clocked)  # fmt: skip
                got = committed(position, events, clocked)
                assert len(got) == 1, (move, removal, touch, first, clocked)
                assert got[0].key == move.key
                if touch:
                    assert got[0] == move, (move, got[0])


def test_capture_without_landings_chooses_the_first_route() -> None:
    """Same pieces in another order and no landing touched: the first route (legal_moves order)
    is recorded; the text is unambiguous either way."""
    position = Position.from_fen("russian", "W:We3:Bd4,f4,d6,f6")
    by_key: dict[tuple, list[Move]] = {}
    for m in position.legal_moves():
        by_key.setdefault(m.key, []).append(m)
    twins = next(ms for ms in by_key.values() if len(ms) > 1)
    for m in twins:
        events = events_for(position, m, 1, removal=m.captured, touch=False, first=False,
                            clocked=True)  # fmt: skip
        assert committed(position, events, True) == [twins[0]]


def test_pdn_names_the_pieces_taken() -> None:
    """Same start and end, different pieces taken: told apart, written with the route."""
    position = Position.from_fen("russian", "W:WKd2:Bb6,d6,f4,f6,g7")
    keys: dict[tuple[int, int], set[frozenset[int]]] = {}
    for m in position.legal_moves():
        keys.setdefault((m.start, m.end), set()).add(frozenset(m.captured))
    (start, end), _ = next((k, v) for k, v in keys.items() if len(v) > 1)
    texts = set()
    for m in position.legal_moves():
        if (m.start, m.end) != (start, end):
            continue
        events = events_for(position, m, 3, removal=m.captured, touch=True, first=False,
                            clocked=True)  # fmt: skip
        session = BoardSession("russian", "600", position.fen())
        records = [r for e in events for r in session.handle(e)]
        moves = [r for r in records if r["type"] == "move"]
        assert len(moves) == 1 and moves[0]["fen"] == position.play(m).fen()
        texts.add(moves[0]["move"])
    assert len(texts) == len({frozenset(m.captured) for m in position.legal_moves()
                              if (m.start, m.end) == (start, end)})  # fmt: skip
    assert all(t.count(":") + t.count("x") > 1 for t in texts)
