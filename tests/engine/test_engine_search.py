"""The built-in engine's search (firmware.engine): legal moves under every rule set, wins found,
the draw rules respected, levels, the bounded table, the time budget."""

from __future__ import annotations

import itertools

import pytest

from firmware.engine.common import Limits, TranspositionTable, draw_horizons, tt_entries
from firmware.engine.hub import parse_move
from firmware.engine.levels import find_level
from firmware.engine.scores import WIN_IN_MAX
from firmware.engine.search import Engine, EngineError
from firmware.engine.timing import budget
from firmware.errors import BoardError
from firmware.rules.game import Game
from firmware.rules.position import Position
from firmware.rules.sets import RULESETS


class FakeClock:
    """A clock that moves on by ``step`` seconds at each reading."""

    def __init__(self, step: float = 0.0) -> None:
        self.now = 0.0
        self.step = step

    def __call__(self) -> float:
        self.now += self.step
        return self.now


@pytest.mark.parametrize("name", sorted(RULESETS))
def test_a_few_moves_of_every_rule_set_are_legal(name: str) -> None:
    game = Game(name)
    engines = {1: Engine(name, level=1, seed=1), 10: Engine(name, level=10, seed=2)}
    for ply in range(12):
        if game.outcome() is not None:
            break
        result = engines[10 if ply % 2 else 1].search(game, Limits(depth=3), FakeClock())
        assert result.move in game.position.legal_moves()
        game.push(result.move)
    assert len(game.moves) >= 10


def test_a_winning_capture_is_found_at_every_level() -> None:
    # White takes the last black piece with 28x8 (over 23, 13) ... or loses it with a quiet move.
    for level in (1, 5, 10):
        game = Game("international", Position.from_fen("international", "W:W28,38:B23,13"))
        result = Engine("international", level=level, seed=level).search(
            game, Limits(depth=4), FakeClock())
        assert result.move.captured == (23, 13) and result.score > WIN_IN_MAX  # a win announced


def _shuffled(fen: str) -> Game:
    """White king 46-41-46 and black king 1-7-1-7, then 46-41-46 again: black to move, and
    7-1 would bring the position back a third time (a draw, 003 6.1)."""
    game = Game("international", Position.from_fen("international", fen))
    for text in ("46-41", "1-7", "41-46", "7-1", "46-41", "1-7", "41-46"):
        game.push(parse_move(game.position, text))
    return game


def test_the_side_ahead_does_not_repeat_into_a_draw() -> None:
    game = _shuffled("W:WK46:BK1,16,17,18")
    result = Engine("international", seed=3).search(game, Limits(depth=4), FakeClock())
    assert str(result.move) != "7-1"
    game.push(result.move)
    assert game.outcome() is None


def test_the_side_behind_takes_the_repetition_draw() -> None:
    game = _shuffled("W:WK46,31,32,33:BK1")
    result = Engine("international", seed=3).search(game, Limits(depth=4), FakeClock())
    assert str(result.move) == "7-1" and abs(result.score) < 10  # 0, and the root jitter
    game.push(result.move)
    assert game.outcome() is not None and game.outcome().winner is None  # type: ignore[union-attr]


def test_draw_horizons_read_the_games_counts() -> None:
    # 3 kings against a lone king (003 6.3): drawn when both have made 16 more moves.
    game = Game("international", Position.from_fen("international", "W:WK46,K47,K48:BK5"))
    assert draw_horizons(game) == ((31, 0),)
    game = Game("home")
    assert draw_horizons(game) == ((29, 1),)  # 15 moves without capture (002)


def test_stop_at_once_still_gives_a_legal_move() -> None:
    game = Game("international")
    result = Engine("international").search(game, Limits(), FakeClock(), stop=lambda: True)
    assert result.move in game.position.legal_moves()


def test_the_hard_limit_stops_the_search() -> None:
    game = Game("international")
    clock = FakeClock(step=0.05)  # every reading (one each 1024 nodes) is 50 ms later
    result = Engine("international").search(game, Limits(soft=1000, hard=0.5), clock)
    assert result.move in game.position.legal_moves()
    assert result.elapsed < 1.0 and result.nodes < 1024 * 20


def test_a_finished_game_is_refused() -> None:
    game = Game("russian", Position.from_fen("russian", "B:Wc3:B"))
    with pytest.raises(EngineError):
        Engine("russian").search(game, Limits(depth=2), FakeClock())


def test_levels_vary_and_the_seed_repeats() -> None:
    def first_moves(seed: int, level: int) -> list[str]:
        game = Game("russian")
        engine = Engine("russian", level=level, seed=seed)
        out = []
        for _ in range(4):
            move = engine.search(game, Limits(depth=3), FakeClock()).move
            out.append(str(move))
            game.push(move)
        return out

    assert first_moves(7, 3) == first_moves(7, 3)
    assert len({tuple(first_moves(seed, 3)) for seed in range(6)}) > 1
    full = Engine("russian", level=10)
    assert full.jitter(Position.start("russian")) > 0  # the opening varies
    assert full.jitter(Position.from_fen("russian", "W:WKc1,e3:Bb6,d6")) == 0  # the endgame not
    assert Engine("russian", level=1).jitter(Position.from_fen("russian", "W:WKc1:Bb6")) > 0
    assert find_level("beginner").max_depth == 1 and find_level("full").max_depth is None
    for bad in ("0", "11", "grandmaster", "", "1" * 50):
        with pytest.raises(BoardError):
            find_level(bad)


def test_the_level_names_an_error_lists_are_those_the_help_tells() -> None:
    """Issue 36: the error listed ``max``, which no help did."""
    import subprocess
    import sys

    with pytest.raises(BoardError) as err:
        find_level("grandmaster")
    names = str(err.value).split("1-10 or ")[1].rstrip(")").split(", ")
    assert names == ["beginner", "easy", "medium", "hard", "full"]
    for command in (["play"], ["run"], ["engine"]):
        out = subprocess.run([sys.executable, "-m", "boardctl", *command, "--help"],
                             capture_output=True, text=True, timeout=60).stdout
        text = " ".join(out.split())
        assert all(name in text for name in names) and "max" not in text.replace("max-", "")


def test_the_table_is_bounded() -> None:
    table = TranspositionTable(2048)
    for key in range(100_000):
        table.put(key, (1, 0, 0, None))
    assert len(table) <= 2048
    assert table.get(99_999) is not None and table.get(0) is None
    assert tt_entries(64) * 322 <= 64 * 1024 * 1024  # 322 bytes an entry, measured


def test_time_budget() -> None:
    fixed = budget(move_time=2.0)
    assert fixed.hard == 2.0 and fixed.soft < fixed.hard
    sudden = budget(remaining=300.0)
    assert 5 < sudden.soft < 15 and sudden.hard <= 300 / 3
    fischer = budget(remaining=60.0, increment=5.0)
    assert fischer.soft > budget(remaining=60.0).soft
    control = budget(remaining=100.0, moves_to_go=4)
    assert 15 < control.soft <= control.hard <= 95
    low = budget(remaining=0.1)
    assert 0 < low.soft <= low.hard <= 0.1
    for remaining, inc, togo in itertools.product((0.0, 0.5, 10, 3600), (0, 2), (None, 1, 40)):
        b = budget(remaining=remaining, increment=inc, moves_to_go=togo)
        assert 0 < b.soft <= b.hard
        assert b.hard <= max(remaining * 0.95, 0.01)
    with pytest.raises(ValueError):
        budget()
