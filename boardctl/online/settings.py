"""The online options as one checked value (CONTRACT.md "Opponents not at the board"):
``--opponent lidraughts --online-token-file FILE [--online-url URL]
[--online-accept any|USER,...] [--online-challenge USER --online-time-control M+S]
[--online-numbering auto|lidraughts|a1]``.

``OnlineSettings.from_options`` reads them (the token file once) and raises OnlineError with
a one-line reason for anything that cannot be used; the command line registers the options
(``HELP`` holds their help texts).
"""

from __future__ import annotations

from dataclasses import dataclass

from boardctl.online.errors import OnlineError
from boardctl.online.moves import NUMBERINGS
from boardctl.online.policy import ChallengePolicy, is_username
from boardctl.online.token import Token
from boardctl.online.transport import DEFAULT_URL, Server
from boardctl.online.variants import ClockSetting, variant_key
from firmware.rules.sets import RuleSet, find_rules

#: The options' help texts, for the command line that registers them.
HELP = {
    "--online-token-file": "file holding the API token of the board's lidraughts BOT account "
                           "(read once, never shown; docs/ONLINE.md)",
    "--online-url": f"the lidraughts server (default {DEFAULT_URL})",
    "--online-accept": "whose challenges the board takes: any, or user names separated by "
                       "commas (default any)",
    "--online-challenge": "challenge this lidraughts user when the link is up",
    "--online-time-control": "the challenge's clock, minutes+seconds (e.g. 5+3)",
    "--online-numbering": "8x8 square numbers: lidraughts (its own, 1 = b8), a1 (pydraughts', "
                          "1 = a1), or auto (default: lidraughts', a1 when the server's moves "
                          "are legal only so)",
}


@dataclass(frozen=True, slots=True)
class OnlineSettings:
    """Everything the link needs, checked."""

    token: Token
    server: Server
    policy: ChallengePolicy
    challenge_user: str | None = None
    clock: ClockSetting | None = None
    rules: RuleSet | None = None
    #: 8x8 square numbers (boardctl.online.moves.NUMBERINGS).
    numbering: str = "auto"

    @classmethod
    def from_options(cls, token_file: str, url: str = DEFAULT_URL, accept: str = "any",
                     challenge: str | None = None, time_control: str | None = None,
                     rules: RuleSet | str | None = None,
                     numbering: str = "auto") -> OnlineSettings:
        """The settings from the option values; ``rules``: the board's rule set (its size
        limits the challenges taken; a challenge asks for its variant)."""
        rs = find_rules(rules) if rules is not None else None
        if (challenge is None) != (time_control is None):
            raise OnlineError("--online-challenge and --online-time-control go together")
        user = None
        clock = None
        if challenge is not None and time_control is not None:
            user = challenge.strip()
            if not is_username(user):
                raise OnlineError(f"--online-challenge {challenge[:40]!r} is not a lidraughts "
                                  "user name")
            clock = ClockSetting.parse(time_control)
            variant_key(rs or "international")  # lidraughts must have the rule set
        policy = ChallengePolicy.parse(accept, rs.size if rs else None)
        server = Server.from_url(url)
        if numbering not in NUMBERINGS:
            raise OnlineError(f"--online-numbering {numbering[:20]!r}: not one of "
                              f"{', '.join(NUMBERINGS)}")
        return cls(Token.read(token_file), server, policy, user, clock, rs, numbering)
