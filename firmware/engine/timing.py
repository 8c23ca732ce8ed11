"""How long to think: a pure function of the game's clock, the level and the game's stage (no
clock is read here).

The engine plays a person waiting at the board, not another engine: it spends a small share
of its clock and plays within what its level costs, so that a person rarely waits more than a
few seconds, even when the clock would allow a minute.

``budget`` turns the engine's clock reading (remaining time, increment, moves to the next time
control) or a fixed time a move into a soft limit (no new iteration starts after it, nor one
that would end past the hard limit: firmware.engine.tree) and a hard one (the search stops).
The rules of thumb: keep a reserve (5% of the time and 0.2 s, never spent); with moves to the
next control, share the time among them and one spare; in sudden death or Fischer, plan for
40 more moves and add half the increment (Hub adds the increment before each move:
protocol.txt); never plan more than a third of what is left.

``for_position`` then shortens a budget taken from the clock (``Limits.clocked``): to what the
level costs (``Level.seconds``) and, in the opening, to :data:`OPENING_SECONDS` (the opening
book, firmware.engine.book, answers its first moves at once). A fixed time a move
(``move-time``, ``--engine-move-time``) is what the person asked for and stays as it is.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from firmware.engine.common import Limits

#: Sudden death and Fischer: the moves the time is planned for.
HORIZON_MOVES = 40
#: The share of the increment a move may spend on top of its share of the clock.
INCREMENT_SHARE = 0.5
#: Never spent: a share of the remaining time and a fixed margin (pipes, process switches).
RESERVE_SHARE = 0.05
RESERVE_SECONDS = 0.2
#: The least a search gets (one shallow iteration).
MIN_SECONDS = 0.01
#: The hard limit of a planned move, in soft limits.
HARD_FACTOR = 1.5
#: A planned move in the opening takes at most this (seconds): the position is still closed
#: and a deeper search changes little.
OPENING_SECONDS = 1.0
#: The opening: at most this many pieces off the board, and no king.
OPENING_PIECES_OFF = 4


@dataclass(frozen=True, slots=True)
class Budget:
    """Seconds: ``soft`` (start no new iteration after it), ``hard`` (stop the search)."""

    soft: float
    hard: float

    def limits(self) -> Limits:
        """The search limits of a budget taken from the clock (``clocked``)."""
        return Limits(soft=self.soft, hard=self.hard, clocked=True)


def budget(
    remaining: float | None = None,
    increment: float = 0.0,
    moves_to_go: int | None = None,
    move_time: float | None = None,
) -> Budget:
    """The time for one move. ``move_time`` (a fixed time a move) wins when given; else
    ``remaining`` (the engine's clock, the increment for this move included), ``increment``
    (added after each later move), ``moves_to_go`` (moves to the next control, None for sudden
    death or Fischer). Neither given: ValueError."""
    if move_time is not None:
        hard = max(MIN_SECONDS, float(move_time))
        return Budget(soft=max(MIN_SECONDS, hard * 0.55), hard=hard)
    if remaining is None:
        raise ValueError("a time budget needs a move time or the remaining time")
    reserve = RESERVE_SHARE * max(remaining, 0.0) + RESERVE_SECONDS
    usable = max(0.0, remaining - reserve)
    bonus = INCREMENT_SHARE * max(increment, 0.0)
    if moves_to_go is not None and moves_to_go > 0:
        base = usable / (moves_to_go + 1) + bonus
    else:
        base = usable / HORIZON_MOVES + bonus
    cap = usable / 3 if moves_to_go is None or moves_to_go > 1 else usable * 0.8
    soft = max(MIN_SECONDS, min(base, cap))
    hard = max(MIN_SECONDS, min(base * HARD_FACTOR, cap, usable))
    return Budget(soft=min(soft, hard), hard=hard)


def for_position(limits: Limits, seconds: float | None, pieces_off: int,
                 kings: bool) -> Limits:
    """``limits`` as the engine plays them in a position: a budget from the clock shortened to
    ``seconds`` (the level's cost a move, None for none) and, in the opening (at most
    :data:`OPENING_PIECES_OFF` pieces off, no king), to :data:`OPENING_SECONDS`; any other
    limits unchanged."""
    if not limits.clocked or limits.soft is None:
        return limits
    most = seconds
    if pieces_off <= OPENING_PIECES_OFF and not kings:
        most = OPENING_SECONDS if most is None else min(most, OPENING_SECONDS)
    if most is None or most >= limits.soft:
        return limits
    hard = most * HARD_FACTOR if limits.hard is None else min(limits.hard, most * HARD_FACTOR)
    return replace(limits, soft=most, hard=hard)
