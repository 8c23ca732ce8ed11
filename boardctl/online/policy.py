"""Which challenges the board takes: pure, from the challenge as lidraughts sends it
(``challenge.JsonView``: ``id``, ``challenger``, ``variant.key``, ``rated``, ``timeControl``
(``clock`` with ``limit``/``increment`` seconds, ``correspondence``, ``unlimited``),
``initialFen``), the configured accept rule (``any`` or user names) and the board's size.

A challenge the board cannot play is declined with the key of lidraughts' decline message that
says why (``variant``, ``timeControl``, ``tooFast``, ``later``, ``generic``). lidraughts'
``apiDecline`` takes no reason today (the challenge module's ``DeclineReason`` has only
``generic`` and ``later``); the key is sent as the ``reason`` field all the same, as lichess's
API and the bot clients do, and the link's log and events say the whole reason.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from boardctl.online import fields
from boardctl.online.errors import OnlineError
from boardctl.online.events import Player
from boardctl.online.variants import VARIANTS, DeclineReason, rules_for, time_control
from firmware.clock.timecontrol import TimeControl

#: The fastest game the board takes: a person moves and presses a clock by hand, and the
#: sensors take a moment to settle (lidraughts' own estimate: limit + 40 x increment).
MIN_ESTIMATE_S = 60


@dataclass(frozen=True, slots=True)
class Challenge:
    """A challenge as read."""

    id: str
    challenger: Player
    challenger_id: str
    variant: str
    rated: bool
    kind: str
    limit_s: int
    increment_s: int
    initial_fen: str | None

    @property
    def clock_text(self) -> str:
        if self.kind == "clock":
            return f"{self.limit_s / 60:g}+{self.increment_s}"
        return self.kind


def read_challenge(obj: dict[str, Any]) -> Challenge:
    """A challenge event's ``challenge``; ProtocolError when it cannot be used."""
    what = "challenge"
    c = fields.section(obj, "challenge", what)
    who = fields.maybe_section(c, "challenger", what) or {}
    name = fields.text(who, "name", what, default=str(who.get("id") or "?"))
    player = Player(name, fields.maybe_text(who, "title", what),
                    fields.number(who, "rating", what) if who.get("rating") is not None
                    else None)
    tc = fields.maybe_section(c, "timeControl", what) or {"type": "unlimited"}
    kind = fields.text(tc, "type", "timeControl")
    limit = fields.number(tc, "limit", "timeControl") if kind == "clock" else 0
    increment = fields.number(tc, "increment", "timeControl") if kind == "clock" else 0
    variant = fields.section(c, "variant", what)
    fen = fields.maybe_text(c, "initialFen", what)
    return Challenge(fields.ident(c, "id", what), player, str(who.get("id") or "").lower(),
                     fields.text(variant, "key", what), fields.flag(c, "rated", what), kind,
                     limit, increment, None if fen in (None, "startpos") else fen)


@dataclass(frozen=True, slots=True)
class Decision:
    """Accept, or decline with lidraughts' reason key and the board's own words."""

    accept: bool
    reason: DeclineReason | None = None
    why: str = ""
    control: TimeControl | None = None


@dataclass(frozen=True, slots=True)
class ChallengePolicy:
    """``users``: the names whose challenges are taken (None: anyone's); ``board_size``: the
    board's (8 or 10; None: either); ``positions``: take games from a set-up position."""

    users: frozenset[str] | None = None
    board_size: int | None = None
    positions: bool = False

    @classmethod
    def parse(cls, accept: str, board_size: int | None = None) -> ChallengePolicy:
        """``any``, or user names separated by commas (``--online-accept``)."""
        text = accept.strip()
        if text.lower() == "any":
            return cls(None, board_size)
        names = [n.strip().lower() for n in text.split(",") if n.strip()]
        bad = [n for n in names if not is_username(n)]
        if not names or bad:
            raise OnlineError(f"cannot read --online-accept {accept[:60]!r}: 'any' or user "
                              "names separated by commas")
        return cls(frozenset(names), board_size)

    def decide(self, challenge: Challenge, busy: bool) -> Decision:
        if busy:
            return Decision(False, DeclineReason.LATER, "the board is playing a game")
        if self.users is not None and challenge.challenger_id not in self.users:
            return Decision(False, DeclineReason.GENERIC,
                            f"{challenge.challenger.name} is not among the accepted users")
        why = self._variant_problem(challenge)
        if why:
            return Decision(False, DeclineReason.VARIANT, why)
        return self._clock_decision(challenge)

    def _variant_problem(self, challenge: Challenge) -> str:
        variant = VARIANTS.get(challenge.variant)
        rules = rules_for(challenge.variant)
        if variant is None or rules is None:
            name = variant.name if variant else repr(challenge.variant[:20])
            return f"the variant {name} is not played on this board"
        if self.board_size is not None and rules.size != self.board_size:
            return (f"{variant.name} is played on {rules.size}x{rules.size}, the board is "
                    f"{self.board_size}x{self.board_size}")
        if (challenge.initial_fen or challenge.variant == "fromPosition") and not self.positions:
            return "games from a set-up position are not taken"
        return ""

    @staticmethod
    def _clock_decision(challenge: Challenge) -> Decision:
        if challenge.kind == "unlimited":
            return Decision(True, control=TimeControl.parse("-"))
        if challenge.kind != "clock":
            return Decision(False, DeclineReason.TIME_CONTROL,
                            f"{challenge.kind} games are not played on the board")
        try:
            control = time_control(challenge.limit_s, challenge.increment_s)
        except OnlineError as exc:
            return Decision(False, DeclineReason.TIME_CONTROL, str(exc))
        if challenge.limit_s + 40 * challenge.increment_s < MIN_ESTIMATE_S:
            return Decision(False, DeclineReason.TOO_FAST,
                            f"{challenge.clock_text} is too fast for a board played by hand")
        return Decision(True, control=control)


def is_username(name: str) -> bool:
    """lidraughts' user names: 2-30 letters, digits, ``-`` and ``_``."""
    return 2 <= len(name) <= 30 and all(ch.isascii() and (ch.isalnum() or ch in "-_")
                                        for ch in name)

