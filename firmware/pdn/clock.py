"""The PDN clock command: ``[%clock w1:02:03 B0:59:00]`` and ``[%clk 1:55:21]`` read from a
comment, and written (PDN 3.0 doc/commands.rst)."""

from __future__ import annotations

import re

from firmware.pdn.model import ClockReading

_CLOCK = re.compile(
    r"\[%(?P<cmd>clock|clk)\s*(?P<args>[^\[\]]*)\]",
    re.IGNORECASE,
)
_CLOCK_TIME = re.compile(r"([wWbB]?)\s*(\d{1,3}):(\d\d)(?::(\d\d(?:\.\d+)?))?")


def parse_clock(comment: str) -> ClockReading | None:
    """The clock command in a comment, or None: ``[%clock w1:02:03 B0:59:00]`` or
    ``[%clk 1:55:21]`` (PDN 3.0 doc/commands.rst)."""
    m = _CLOCK.search(comment)
    if m is None:
        return None
    white: float | None = None
    black: float | None = None
    running: str | None = None
    bare: float | None = None
    for side, h, mm, ss in _CLOCK_TIME.findall(m.group("args")):
        seconds = int(h) * 3600 + int(mm) * 60 + (float(ss) if ss else 0.0)
        if side in ("w", "W"):
            white = seconds
            running = "white" if side == "W" else running
        elif side in ("b", "B"):
            black = seconds
            running = "black" if side == "B" else running
        else:
            bare = seconds
    if white is None and black is None:
        return None if bare is None else ClockReading(None, None, None, bare)
    return ClockReading(white, black, running)



def format_clock(seconds: float) -> str:
    """``H:MM:SS`` of whole seconds, rounded down (a clock shows 0:00:00 only when the time is
    gone); negative values show as 0:00:00."""
    s = max(0, int(seconds))
    return f"{s // 3600}:{s % 3600 // 60:02d}:{s % 60:02d}"


def clock_command(reading: ClockReading) -> str:
    """``[%clock w1:02:03 B0:59:00]``: the running side's letter in capitals (commands.rst)."""
    parts = []
    for side, value in (("white", reading.white), ("black", reading.black)):
        if value is None:
            continue
        letter = side[0]
        parts.append((letter.upper() if reading.running == side else letter) + format_clock(value))
    return "[%clock " + " ".join(parts) + "]"
