"""What the engine makes a person wait (issue 36 item 2): a plan from the clock shortened to
what the level costs and, in the opening, to a second; the opening book answered at once; no
iteration started that would end past the plan. Time is an injected clock that moves on at
each reading; the engine process is the real one."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from boardctl.engine.client import EngineClient, ThinkRequest, parse_engine
from firmware.engine.book import BOOK_OF, book_for
from firmware.engine.common import Limits
from firmware.engine.hub import parse_move, position_text
from firmware.engine.levels import LEVELS
from firmware.engine.search import Engine
from firmware.engine.timing import HARD_FACTOR, OPENING_SECONDS, budget, for_position
from firmware.engine.tree import Tree
from firmware.rules.game import Game
from firmware.rules.position import Position

ROOT = Path(__file__).resolve().parents[2]
#: A middle game (10 pieces off each side, no king): no opening, no book.
MIDDLE = {"international": "W:W25,27,28,30,32,33,34,35,37,38:B12,13,14,16,17,18,19,21,22,26",
          "russian": "W:Wa1,c3,e3,g3,b2,f2:Bb6,d6,h6,a7,e7,g7"}


class SteppingClock:
    """Seconds that move on by ``step`` at each reading (the search reads its clock every
    1024 nodes and at each iteration)."""

    def __init__(self, step: float) -> None:
        self.now = 0.0
        self.step = step

    def __call__(self) -> float:
        self.now += self.step
        return self.now


def test_a_plan_from_the_clock_costs_at_most_what_the_level_says() -> None:
    plan = budget(remaining=900.0, increment=5.0)  # a rapid game: 25 s a move before issue 36
    assert 20 < plan.soft < 30
    for number, level in LEVELS.items():
        most = level.seconds if level.seconds is not None else plan.soft
        middle = for_position(plan.limits(), level.seconds, pieces_off=12, kings=False)
        assert middle.soft is not None and middle.hard is not None
        assert middle.soft <= most and middle.hard <= most * HARD_FACTOR, number
        opening = for_position(plan.limits(), level.seconds, pieces_off=2, kings=False)
        assert opening.soft is not None and opening.soft <= OPENING_SECONDS
        king = for_position(plan.limits(), level.seconds, pieces_off=2, kings=True)
        assert king.soft == middle.soft  # a king on the board: no opening any more
    asked = Limits(soft=5.5, hard=10.0)  # a fixed time a move (move-time): as asked
    assert for_position(asked, 0.5, pieces_off=0, kings=False) == asked
    assert for_position(Limits(depth=6), 0.5, 0, False) == Limits(depth=6)
    short = budget(remaining=3.0).limits()  # the clock's plan below the level's: kept
    assert for_position(short, 8.0, 12, False) == short


@pytest.mark.parametrize("rules", sorted(MIDDLE))
@pytest.mark.parametrize("level", [8, 10])
def test_a_search_from_the_clock_ends_within_the_level_s_time(rules: str, level: int) -> None:
    game = Game(rules, Position.from_fen(rules, MIDDLE[rules]))
    limits = budget(remaining=600.0, increment=5.0).limits()  # 600+5: 40-46 s a move before
    clock = SteppingClock(0.25)  # a quarter of a second a reading: a few thousand nodes
    result = Engine(rules, level, tt_mib=8, seed=1).search(game, limits, clock)
    seconds = LEVELS[level].seconds
    assert seconds is not None and result.elapsed <= seconds * HARD_FACTOR + 0.5
    assert result.move in game.position.legal_moves()


def test_no_iteration_starts_that_would_end_past_the_plan() -> None:
    game = Game("russian")
    clocked = Tree(Engine("russian").tt, random.Random(1), 0, None, game,
                   Limits(soft=1.0, hard=1.5, clocked=True), SteppingClock(0.0),
                   lambda: False, None)
    assert clocked._next_too_long(0.5, (0.1, 0.3))  # 3 times the last: ends at 1.4 > 1.0
    assert not clocked._next_too_long(0.5, (0.1, 0.15))  # twice at least: 0.8
    fixed = Tree(Engine("russian").tt, random.Random(1), 0, None, game,
                 Limits(soft=0.55, hard=1.0), SteppingClock(0.0), lambda: False, None)
    assert not fixed._next_too_long(0.5, (0.05, 0.1))  # a move time: up to its hard limit
    assert fixed._next_too_long(0.5, (0.1, 0.3))


@pytest.mark.parametrize("rules", sorted(BOOK_OF))
def test_the_opening_comes_from_the_book_at_once(rules: str) -> None:
    book = book_for(rules)
    assert book is not None and len(book) > 500
    start = Position.start(rules)
    played = book.moves(start)
    assert sum(played.values()) >= 90  # every game of the collection begins there
    limits = budget(remaining=600.0, increment=5.0).limits()
    engine = Engine(rules, 10, tt_mib=8, seed=3)
    result = engine.search(Game(rules), limits, SteppingClock(0.001))
    assert result.depth == 0 and result.move in [parse_move(start, m) for m in played]
    weak = Engine(rules, 1, tt_mib=8, seed=3).search(Game(rules), limits, SteppingClock(0.001))
    assert weak.depth >= 1  # a beginner plays his own moves
    analysis = engine.search(Game(rules), Limits(depth=2), SteppingClock(0.001))
    assert analysis.depth == 2  # a search to a depth is not the book's


def test_every_book_move_is_legal_where_the_book_has_it() -> None:
    for rules in ("international", "russian"):
        book = book_for(rules)
        assert book is not None
        for text in book.positions:
            position = Position.from_fen(rules, _fen(text))
            assert position_text(position) == text
            for move in book.moves(position):
                parse_move(position, move)  # HubError if not legal


def test_the_book_is_what_the_bookmaker_makes_of_the_collection() -> None:
    from boardctl.engine.bookmaker import module_text

    files = sorted((ROOT / "tests" / "data" / "pdn").glob("*.pdn"))
    made = module_text(files)
    assert made == (ROOT / "firmware" / "engine" / "openings.py").read_text()


def test_the_engine_process_answers_the_opening_from_the_book() -> None:
    """As the service asks it: the clock's reading; the reply carries no search at all."""
    client = EngineClient(parse_engine("builtin", "russian", "10"), grace=15.0)
    try:
        game = Game("russian")
        client.think(ThinkRequest(game, remaining=600.0, increment=5.0))
        reply = client.replies.get(timeout=60)
        book = book_for("russian")
        assert book is not None and reply.move is not None
        assert reply.move in [parse_move(game.position, m) for m in book.moves(game.position)]
        assert reply.info.get("depth") == "0"
    finally:
        client.close()


def _fen(text: str) -> str:
    """A Hub position as a numbered FEN."""
    white = [str(i) if c == "w" else f"K{i}" for i, c in enumerate(text[1:], 1) if c in "wW"]
    black = [str(i) if c == "b" else f"K{i}" for i, c in enumerate(text[1:], 1) if c in "bB"]
    return f"{text[0]}:W{','.join(white)}:B{','.join(black)}"
