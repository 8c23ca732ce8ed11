"""lidraughts' variants and clocks in the board's terms.

Variant keys are lidraughts' own (``draughts.variant.*``: ``key``, ``gameType``,
``boardSize``), mapped to the rule sets of ``firmware.rules.sets``. lidraughts numbers the
squares of both boards as PDN does (``Pos64``: field ``4(y-1)+x``, algebraic ``b8`` for 1,
``a1`` for 29, ``g1`` for 32; ``Pos100``: 1 is ``b10``, 46 is ``a1``), which is the board's
own numbering (``firmware.rules.geometry``), so squares go across unchanged.

Clocks: a challenge gives ``limit`` and ``increment`` in seconds, a game's ``clock`` its
``initial`` and ``increment`` in milliseconds, and both mean sudden death with a Fischer
bonus added after each move (``TimeControl`` ``L+I``; ``L`` without one). lidraughts' API
takes a limit from ``ApiConfig.clockLimitSeconds`` (0, 15, 30, 45, 60, 90 s or whole
minutes 2-180) and an increment of 0-180 s.
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass

from boardctl.online.errors import OnlineError
from firmware.clock.timecontrol import NS_PER_S, TimeControl, format_seconds
from firmware.errors import TimeControlError
from firmware.rules.sets import RuleSet, find_rules


@dataclass(frozen=True, slots=True)
class Variant:
    """One of lidraughts' variants: its key, its board, and the rule set that plays it here
    (None: not played on the board)."""

    key: str
    name: str
    size: int
    rules: str | None


#: Every variant lidraughts has (modules/draughts/src/main/variant), by key.
VARIANTS: dict[str, Variant] = {v.key: v for v in (
    Variant("standard", "Standard (international)", 10, "international"),
    Variant("fromPosition", "From position (international)", 10, "international"),
    Variant("russian", "Russian", 8, "russian"),
    Variant("brazilian", "Brazilian", 8, "brazilian"),
    Variant("frisian", "Frisian", 10, None),
    Variant("frysk", "Frysk!", 10, None),
    Variant("antidraughts", "Antidraughts", 10, None),
    Variant("breakthrough", "Breakthrough", 10, None),
)}

#: The variant a challenge from the board asks for, by rule set.
_CHALLENGE_KEY = {"international": "standard", "russian": "russian", "brazilian": "brazilian"}


def rules_for(key: str) -> RuleSet | None:
    """The rule set that plays lidraughts' variant ``key`` (None: unknown or not played)."""
    variant = VARIANTS.get(key)
    return find_rules(variant.rules) if variant is not None and variant.rules else None


def variant_key(rules: RuleSet | str) -> str:
    """lidraughts' key for a rule set the board plays; OnlineError for one it has not."""
    rs = find_rules(rules)
    try:
        return _CHALLENGE_KEY[rs.name]
    except KeyError:
        known = ", ".join(_CHALLENGE_KEY)
        raise OnlineError(f"lidraughts has no variant for the rule set {rs.name} "
                          f"(it plays {known})") from None


class DeclineReason(enum.Enum):
    """Why a challenge is declined, by the keys of lidraughts' decline messages
    (translation/source/challenge.xml, ``declineGeneric`` ... ``declineOnlyBot``)."""

    GENERIC = "generic"
    LATER = "later"
    TOO_FAST = "tooFast"
    TOO_SLOW = "tooSlow"
    TIME_CONTROL = "timeControl"
    RATED = "rated"
    CASUAL = "casual"
    STANDARD = "standard"
    VARIANT = "variant"
    NO_BOT = "noBot"
    ONLY_BOT = "onlyBot"


#: Limits lidraughts' challenge API takes (ApiConfig.clockLimitSeconds, HookConfig).
API_LIMITS = frozenset({0, 15, 30, 45, 60, 90} | {60 * m for m in range(2, 181)})
MAX_INCREMENT = 180


def time_control(limit_s: float, increment_s: float) -> TimeControl:
    """``limit`` seconds and ``increment`` seconds a move as the board's TimeControl;
    OnlineError when the board's clock cannot keep it (no starting time)."""
    if limit_s <= 0:
        raise OnlineError(f"a clock of {_clock_text(limit_s, increment_s)} starts at 0: "
                          "the board's clock needs a starting time")
    limit = format_seconds(round(limit_s * 1000) * (NS_PER_S // 1000))
    increment = format_seconds(round(increment_s * 1000) * (NS_PER_S // 1000))
    try:
        return TimeControl.parse(f"{limit}+{increment}" if increment_s else limit)
    except TimeControlError as exc:
        raise OnlineError(str(exc)) from None


def _clock_text(limit_s: float, increment_s: float) -> str:
    minutes = limit_s / 60
    shown = f"{minutes:g}"
    return f"{shown}+{increment_s:g}"


_CLOCK = re.compile(r"^\s*(\d{1,3}(?:\.\d{1,2})?)\s*\+\s*(\d{1,3})\s*$")


@dataclass(frozen=True, slots=True)
class ClockSetting:
    """A clock to ask for in a challenge: ``limit`` and ``increment`` in whole seconds."""

    limit_s: int
    increment_s: int

    @classmethod
    def parse(cls, text: str) -> ClockSetting:
        """``M+S`` (minutes + seconds, as lidraughts writes clocks: ``5+3``, ``0.5+1``);
        OnlineError naming what lidraughts would refuse."""
        m = _CLOCK.match(text)
        if m is None:
            raise OnlineError(f"cannot read the time control {text[:40]!r} (minutes+seconds, "
                              "e.g. 5+3)")
        limit = round(float(m.group(1)) * 60)
        increment = int(m.group(2))
        if limit not in API_LIMITS or float(m.group(1)) * 60 != limit:
            raise OnlineError(f"lidraughts takes no clock of {m.group(1)} minutes "
                              "(0.25, 0.5, 0.75, 1, 1.5, or 2-180 whole minutes)")
        if increment > MAX_INCREMENT:
            raise OnlineError(f"lidraughts takes an increment of 0-{MAX_INCREMENT} s, "
                              f"not {increment}")
        time_control(limit, increment)  # the board must be able to keep it
        return cls(limit, increment)

    @property
    def control(self) -> TimeControl:
        return time_control(self.limit_s, self.increment_s)

    def __str__(self) -> str:
        return _clock_text(self.limit_s, self.increment_s)
