"""Shared pieces of the search (limits, results, the transposition table, draw horizons);
see firmware.engine.search for the engine.

Alpha-beta search on the rules' bitboards: iterative deepening, a bounded transposition
table, quiescence over capture sequences, move ordering (the table's move, killers, history).

Pure: the clock is a function passed in, and so is the stop request; nothing is printed.

Moves inside the search are keys ``(from bit, to bit, captured mask, promotes)`` as
``firmware.rules._movegen`` enumerates them: the routes that take the same pieces in another
order are one move to the search. At the root each key is matched with a route of
``Position.legal_moves()``, so what comes out is a firmware ``Move``.

Draws: a position repeated on the path (or in the game before it, since the last capture or
man move) scores 0; so does a node where a draw rule of the game (firmware.rules.game: king
moves without capture, lone-king counts, ...) runs out before anything the rule counts as a
change happened. At the root every move is also played on the ``Game`` itself, so a move that
ends the game by a draw rule scores exactly 0.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from firmware.engine.scores import WIN as WIN
from firmware.engine.scores import WIN_IN_MAX as WIN_IN_MAX
from firmware.rules import _movegen as mg
from firmware.rules.game import Game
from firmware.rules.position import Move

MAX_PLY = 100
#: Bytes one table entry costs in CPython (key int, value tuple, its move tuple, dict slot):
#: 322 measured with tracemalloc on CPython 3.11 x86-64 (benchmarks/bench_engine.py), rounded up.
ENTRY_BYTES = 330
DEFAULT_TT_MIB = 64

EXACT, LOWER, UPPER = 0, 1, 2
#: What resets a draw count: a capture, a man's move, a crowning.
CAPTURE, MAN_MOVE, CROWNING = 1, 2, 4
#: Draw-rule paragraphs whose count a capture does not restart (firmware.rules.game).
NOT_RESTARTED = frozenset({"003 6.3", "003 6.4", "001 6.3"})

Key = tuple[int, int, int, bool]


class _Stopped(Exception):
    pass


@dataclass(frozen=True, slots=True)
class Limits:
    """When to stop: ``depth`` (plies), ``soft`` (seconds: start no iteration after it),
    ``hard`` (seconds: stop at once). None: no such limit. ``clocked``: the times are a plan
    from the engine's clock, which the engine may shorten (firmware.engine.timing)."""

    depth: int | None = None
    soft: float | None = None
    hard: float | None = None
    clocked: bool = False


#: The most lines a search gives (``multipv``: the best move and its alternatives).
MAX_LINES = 5


@dataclass(frozen=True, slots=True)
class Line:
    """One line of a search: its score (firmware.engine.scores) and its moves, the root move
    first."""

    score: int
    pv: tuple[Move, ...]


@dataclass(frozen=True, slots=True)
class Info:
    """One finished iteration: the best line (``score``, ``pv``) and, when more were asked
    for, every line best first (``lines[0]`` the best's; empty when one was asked for)."""

    depth: int
    score: int  # hundredths of a man, for the side to move
    nodes: int
    elapsed: float
    pv: tuple[Move, ...] = ()
    lines: tuple[Line, ...] = ()


@dataclass(frozen=True, slots=True)
class Result:
    move: Move
    score: int
    depth: int
    nodes: int
    elapsed: float
    pv: tuple[Move, ...] = field(default_factory=tuple)
    lines: tuple[Line, ...] = ()


def tt_entries(mib: float) -> int:
    """Entries a table of ``mib`` MiB holds (two generations of half the size each)."""
    return max(1024, int(mib * 1024 * 1024 / ENTRY_BYTES))


class TranspositionTable:
    """A bounded table: two generations; when the new one fills, it becomes the old one and
    the old one is dropped, so at most ``entries`` are held."""

    def __init__(self, entries: int) -> None:
        self.half = max(512, entries // 2)
        self.new: dict[int, tuple[int, int, int, Key | None]] = {}
        self.old: dict[int, tuple[int, int, int, Key | None]] = {}

    def get(self, key: int) -> tuple[int, int, int, Key | None] | None:
        hit = self.new.get(key)
        if hit is None:
            hit = self.old.get(key)
        return hit

    def put(self, key: int, entry: tuple[int, int, int, Key | None]) -> None:
        new = self.new
        if len(new) >= self.half and key not in new:
            self.old = new
            self.new = new = {}
        new[key] = entry

    def clear(self) -> None:
        self.new = {}
        self.old = {}

    def __len__(self) -> int:
        return len(self.new) + len(self.old)


def draw_horizons(game: Game) -> tuple[tuple[int, int], ...]:
    """The game's running draw counts as (plies from now until the draw, what restarts it)."""
    turn = game.position.turn
    out = []
    for c in game.draw_counters():
        if c.name.startswith("threefold"):
            continue  # repetition is found on the path
        plies = max(0, 2 * c.moves_left - (1 if c.side is None or c.side is turn else 0))
        if "king moves" in c.name:
            reset = CAPTURE | MAN_MOVE
        elif "without capture" in c.name:
            reset = CAPTURE
        elif c.rule in NOT_RESTARTED:
            reset = 0
        else:
            reset = CAPTURE | CROWNING
        out.append((plies, reset))
    return tuple(out)




def key_of(move: Move, size: int) -> tuple[int, int, int]:
    """(from bit, to bit, captured mask) of a firmware Move."""
    bit = mg.tables(size).bit
    mask = 0
    for sq in move.captured:
        mask |= bit[sq]
    return bit[move.start], bit[move.end], mask
