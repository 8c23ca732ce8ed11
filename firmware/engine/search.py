"""The built-in engine: ``Engine.search(game, limits, clock, stop)`` -> the move to play.

Alpha-beta with iterative deepening (firmware.engine.tree), a bounded transposition table,
quiescence over capture sequences, move ordering, an evaluation for 8x8 and 10x10
(firmware.engine.evaluate), the game's draw rules, levels (firmware.engine.levels) and a seeded
random choice among near-equal moves at the root; an opening book (firmware.engine.book) and a
time plan for a person waiting at the board (firmware.engine.timing). Pure: the clock is
passed in.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from firmware.engine.book import book_for
from firmware.engine.common import (
    DEFAULT_TT_MIB,
    MAX_LINES,
    Info,
    Limits,
    Result,
    TranspositionTable,
    tt_entries,
)
from firmware.engine.levels import DEFAULT_LEVEL, LEVELS, Level
from firmware.engine.timing import for_position
from firmware.engine.tree import Tree
from firmware.errors import BoardError
from firmware.rules.game import Game
from firmware.rules.position import Move, Position
from firmware.rules.sets import RuleSet

#: The depth of the search that scores a position a book move is played in.
BOOK_SCORE_DEPTH = 4


class EngineError(BoardError):
    """The engine cannot search: no legal move, a finished game, a bad setting."""


class Engine:
    """The built-in engine for one rule set. ``level`` 1-10 (levels.py), ``tt_mib`` the
    transposition table's size, ``seed`` for the root's random choice among near-equal moves."""

    def __init__(self, rules: str | RuleSet, level: int = DEFAULT_LEVEL,
                 tt_mib: float = DEFAULT_TT_MIB, seed: int | None = None) -> None:
        start = Position.start(rules)
        self.rules = start.rules
        self.full = len(start.pieces())
        if level not in LEVELS:
            raise EngineError(f"unknown level {level!r} (1-10)")
        if not 0 < tt_mib <= 4096:
            raise EngineError(f"transposition table size {tt_mib} MiB out of 1-4096")
        self.level: Level = LEVELS[level]
        self.tt = TranspositionTable(tt_entries(tt_mib))
        self.rng = random.Random(seed)
        self.nodes = 0
        if self.level.book:
            book_for(self.rules)  # loaded with the engine, not at its first move

    def set_level(self, level: int) -> None:
        if level not in LEVELS:
            raise EngineError(f"unknown level {level!r} (1-10)")
        self.level = LEVELS[level]

    def new_game(self) -> None:
        """Forget what earlier searches learnt (Hub ``new-game``)."""
        self.tt.clear()

    def search(
        self,
        game: Game,
        limits: Limits,
        clock: Callable[[], float],
        stop: Callable[[], bool] = lambda: False,
        on_info: Callable[[Info], None] | None = None,
        *,
        lines: int = 1,
        analyse: bool = False,
    ) -> Result:
        """The move to play in ``game.position``. EngineError if the game has ended or the
        side to move has no legal move. The move is always one of the position's legal
        moves, even when stopped at once (then the first iteration's, or the first move).
        ``lines``: score that many moves exactly (the best and its alternatives, at most
        MAX_LINES: ``Info.lines``); ``analyse``: the position is studied, not played (Hub's
        ``go analyze``): no book, no random bonus, a single legal move searched on."""
        position = game.position
        if game.outcome() is not None:
            raise EngineError("the game has ended: there is no move to search")
        if position.rules != self.rules:
            raise EngineError(f"a {position.rules.name} game for a {self.rules.name} engine")
        moves = position.legal_moves()
        if not moves:
            raise EngineError("the side to move has no legal move")
        if not 1 <= lines <= MAX_LINES:
            raise EngineError(f"lines {lines} out of 1-{MAX_LINES}")
        if limits.soft is not None and self.level.book and not analyse:
            book = book_for(self.rules)
            move = book.pick(position, self.rng) if book is not None else None
            if move is not None:
                return self._book_move(game, move, clock, stop, on_info)
        limits = for_position(limits, self.level.seconds, self.pieces_off(position),
                              bool(position.bitboards[2]))
        jitter = 0 if analyse else self.jitter(position)
        tree = Tree(self.tt, self.rng, jitter, None if analyse else self.level.max_depth,
                    game, limits, clock, stop, on_info, lines=lines, analyse=analyse)
        result = tree.run()
        self.nodes = result.nodes
        return result

    def _book_move(self, game: Game, move: Move, clock: Callable[[], float],
                   stop: Callable[[], bool], on_info: Callable[[Info], None] | None) -> Result:
        """A book move, with the score of a shallow search of the position (what a draw
        offer is answered by)."""
        t0 = clock()
        shallow = Tree(self.tt, self.rng, 0, BOOK_SCORE_DEPTH, game,
                       Limits(depth=BOOK_SCORE_DEPTH), clock, stop, None).run()
        self.nodes = shallow.nodes
        elapsed = clock() - t0
        if on_info is not None:
            on_info(Info(0, shallow.score, shallow.nodes, elapsed, (move,)))
        return Result(move, shallow.score, 0, shallow.nodes, elapsed, (move,))

    def jitter(self, position: Position) -> int:
        """The size of the random root bonus in ``position`` (levels.py)."""
        lv = self.level
        if lv.opening_pieces_off is None:
            return lv.jitter
        kings = position.bitboards[2]
        return lv.jitter if not kings and self.pieces_off(position) <= lv.opening_pieces_off \
            else 0

    def pieces_off(self, position: Position) -> int:
        """How many pieces have left the board since the start."""
        white, black, _ = position.bitboards
        return self.full - (white | black).bit_count()


