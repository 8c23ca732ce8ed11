"""When a running clock reaches 10 s left, from the feed records alone (the service needs to
tell the voice nothing more).

Every record that says whose clock runs and what it shows arms the watch anew: a ``move``
(the mover's opponent's clock now runs, ``clock`` after the move), a ``clock`` record (a
start, a resume, a take-back, an arbiter's correction: ``running`` and ``clock``; a pause has
``running`` null and disarms), a ``snapshot`` (``running``, ``clock``, no ``result``). A
result, an adjournment or a new game disarms it. The moment is the record's arrival plus the
time left above 10 s; the voice's thread waits for it and asks :meth:`TenSeconds.due`. Time
is passed in (seconds on a monotonic clock), so the tests drive it on their own clock.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

WARN_AT = 10.0
#: A clock reading beyond this (seconds) is not a game's: not armed.
MAX_LEFT = 1_000_000.0
SIDES = ("white", "black")


def running_clock(record: Mapping[str, Any]) -> tuple[str, float] | None:
    """(side whose clock runs, seconds it shows) from a move, clock or snapshot record."""
    clock = record.get("clock")
    running = record.get("running")
    if record.get("type") == "move":
        running = {"white": "black", "black": "white"}.get(str(record.get("side")))
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

    def hear(self, record: Mapping[str, Any], now: float) -> None:
        """Arm or disarm from one feed record (other records leave it as it is)."""
        kind = record.get("type")
        if kind in ("result", "adjourned", "game"):
            self.disarm()
        elif kind in ("move", "clock", "snapshot"):
            self.disarm()
            got = None if record.get("result") else running_clock(record)
            if got is not None and got[1] > WARN_AT:
                self.side, self.at = got[0], now + got[1] - WARN_AT

    def disarm(self) -> None:
        self.side = self.at = None

    def due(self, now: float) -> str | None:
        """The side to warn now (once), or None."""
        if self.at is None or now < self.at:
            return None
        side = self.side
        self.disarm()
        return side
