"""The referee: move inference from sensor events, irregularities and their LED picture
(issue 3). ``Referee`` is pure: feed it events with their monotonic nanosecond times."""

from __future__ import annotations

from firmware.referee.decisions import (
    KINDS,
    MUST_MOVE,
    REMOVE,
    RESTORE,
    WRONG,
    Accepted,
    Cleared,
    Decision,
    Irregularity,
    LedMark,
    MoveCommitted,
    PressRefused,
)
from firmware.referee.referee import (
    BOUNCE_NS,
    SETTLE_NS,
    TOUCH_NS,
    Referee,
    check_touch_min,
)

__all__ = [
    "KINDS",
    "MUST_MOVE",
    "REMOVE",
    "RESTORE",
    "WRONG",
    "Accepted",
    "Cleared",
    "Decision",
    "Irregularity",
    "LedMark",
    "MoveCommitted",
    "PressRefused",
    "Referee",
    "SETTLE_NS",
    "TOUCH_NS",
    "BOUNCE_NS",
    "check_touch_min",
]
