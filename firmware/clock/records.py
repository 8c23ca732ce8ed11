"""What the game clock reports: a press's outcome, a fallen flag, the adjournment envelope
(004 §34), and its error. Split from ``firmware.clock.gameclock``, which re-exports them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from firmware.errors import BoardError
from firmware.rules.sets import Side


class ClockError(BoardError, ValueError):
    """A clock call that does not fit the clock's state (time going backwards, resuming a game
    that is not adjourned, a negative correction, an unreadable snapshot)."""


@dataclass(frozen=True, slots=True)
class Flag:
    """A flag that fell: whose, and the exact monotonic time it fell."""

    side: Side
    at: int


@dataclass(frozen=True, slots=True)
class ClockPress:
    """What a press did. ``accepted`` is False when the presser's clock was not running (a real
    clock ignores that press): ``reason`` then says why (``not-started``, ``paused``,
    ``adjourned``, ``not-running``, ``flag``: the clock froze on a fallen flag, which ``flag``
    names) and nothing changed."""

    side: Side
    at: int
    accepted: bool
    reason: str = ""
    moves: int = 0  # moves made by side after the press
    used_ns: int = 0  # wall time of the turn that ended, pauses left out
    credited_ns: int = 0  # increment, delay given back and period time added
    remaining_ns: int = 0  # presser's time after the press
    overstep: bool = False  # the flag had fallen by the press (004 §32)
    control: bool = False  # the press completed a period's moves (004 §32)
    flag: Flag | None = None  # the presser's flag, when it has fallen


@dataclass(frozen=True, slots=True)
class Adjournment:
    """What goes on the envelope (004 §34): who sealed, when, the times and move counts."""

    sealer: Side
    at: int
    remaining: dict[Side, int]
    used: dict[Side, int]
    moves: dict[Side, int]
    charged_ns: int = 0  # extra time the sealer took on himself to adjourn early (004 §34)

    def to_json(self) -> dict[str, Any]:
        return {
            "sealer": self.sealer.value,
            "at": self.at,
            "remaining": {s.value: v for s, v in self.remaining.items()},
            "used": {s.value: v for s, v in self.used.items()},
            "moves": {s.value: v for s, v in self.moves.items()},
            "charged_ns": self.charged_ns,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Adjournment:
        return cls(
            Side(data["sealer"]),
            int(data["at"]),
            {Side(k): int(v) for k, v in data["remaining"].items()},
            {Side(k): int(v) for k, v in data["used"].items()},
            {Side(k): int(v) for k, v in data["moves"].items()},
            int(data.get("charged_ns", 0)),
        )
