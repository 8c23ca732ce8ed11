"""When a running clock reaches 10 s left, from the typed feed records alone: the one place
the buzzer (``hw.buzzer.Beeper``) and the voice (``boardctl.voice``) both learn it from.

Every record that says whose clock runs and what it shows arms the watch anew: a ``move``
(the mover's opponent's clock now runs, ``clock`` after the move), a ``clock`` record (a
start, a resume, a take-back, an arbiter's correction: ``running`` and ``clock``; a pause has
``running`` null and disarms), a ``snapshot`` (``running``, ``clock``, no ``result``). A
result, an adjournment or a new game disarms it. The moment is the record's arrival plus the
time left above 10 s. Time is passed in (seconds on the caller's monotonic clock).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

from firmware.formats.records import (
    AdjournedRecord,
    ClockRecord,
    GameRecord,
    MoveRecord,
    ResultRecord,
    SnapshotRecord,
)

WARN_AT = 10.0
#: A clock reading beyond this (seconds) is not a game's: not armed.
MAX_LEFT = 1_000_000.0
SIDES = ("white", "black")
OTHER = {"white": "black", "black": "white"}


def _after_move(record: MoveRecord) -> tuple[Any, str | None]:
    return record.clock, OTHER.get(record.side)


def _clock(record: ClockRecord) -> tuple[Any, str | None]:
    return record.clock, record.running


def _snapshot(record: SnapshotRecord) -> tuple[Any, str | None]:
    return (None, None) if record.result else (record.clock, record.running)


def _stops(record: object) -> tuple[Any, str | None]:
    return None, None


#: What each record says of the running clock: (both clocks, the side whose clock runs).
_RUNNING: dict[type[Any], Callable[[Any], tuple[Any, str | None]]] = {
    MoveRecord: _after_move, ClockRecord: _clock, SnapshotRecord: _snapshot,
    ResultRecord: _stops, AdjournedRecord: _stops, GameRecord: _stops,
}


def running_clock(record: object) -> tuple[str, float] | None:
    """(side whose clock runs, seconds it shows) from a move, clock or snapshot record."""
    read = _RUNNING.get(type(record))
    if read is None:
        return None
    clock, running = read(record)
    if not isinstance(clock, Mapping) or running not in SIDES:
        return None
    left = clock.get(running)
    if isinstance(left, bool) or not isinstance(left, int | float) or not math.isfinite(left) \
            or not 0 <= left <= MAX_LEFT:
        return None
    return str(running), float(left)


class TenSeconds:
    """The one warning due, if any (module docstring)."""

    def __init__(self) -> None:
        self.side: str | None = None
        #: When the warning is due (the caller's clock), or None.
        self.at: float | None = None

    def hear(self, record: object, now: float) -> bool:
        """Arm or disarm from one typed feed record (others leave it as it is); True when
        the record said something of the clock (armed or disarmed)."""
        if type(record) not in _RUNNING:
            return False
        self.disarm()
        got = running_clock(record)
        if got is not None and got[1] > WARN_AT:
            self.side, self.at = got[0], now + got[1] - WARN_AT
        return True

    def disarm(self) -> None:
        self.side = self.at = None

    def due(self, now: float) -> str | None:
        """The side to warn now (once), or None."""
        if self.at is None or now < self.at:
            return None
        side = self.side
        self.disarm()
        return side
