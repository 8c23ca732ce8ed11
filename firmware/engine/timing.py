"""How long to think: a pure function of the game's clock (no clock is read here).

``budget`` turns the engine's clock reading (remaining time, increment, moves to the next time
control) or a fixed time a move into a soft limit (no new iteration starts after it) and a
hard one (the search stops). The rules of thumb: keep a reserve (5% of the time and 0.2 s,
never spent); with moves to the next control, share the time among them and one spare; in
sudden death or Fischer, plan for 30 more moves and add most of the increment (Hub adds the
increment before each move: protocol.txt); never plan more than a third of what is left.
"""

from __future__ import annotations

from dataclasses import dataclass

#: Sudden death and Fischer: the moves the time is planned for.
HORIZON_MOVES = 30
#: Never spent: a share of the remaining time and a fixed margin (pipes, process switches).
RESERVE_SHARE = 0.05
RESERVE_SECONDS = 0.2
#: The least a search gets (one shallow iteration).
MIN_SECONDS = 0.01


@dataclass(frozen=True, slots=True)
class Budget:
    """Seconds: ``soft`` (start no new iteration after it), ``hard`` (stop the search)."""

    soft: float
    hard: float


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
    if moves_to_go is not None and moves_to_go > 0:
        base = usable / (moves_to_go + 1) + 0.8 * max(increment, 0.0)
    else:
        base = usable / HORIZON_MOVES + 0.8 * max(increment, 0.0)
    cap = usable / 3 if moves_to_go is None or moves_to_go > 1 else usable * 0.8
    soft = max(MIN_SECONDS, min(base, cap))
    hard = max(MIN_SECONDS, min(base * 3.0, cap, usable))
    return Budget(soft=min(soft, hard), hard=hard)
