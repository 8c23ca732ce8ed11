"""The errors of the online link: settings that cannot be used, a link that failed, and a
server's answer that cannot be read. Each message is one line and never holds the token."""

from __future__ import annotations

from firmware.errors import BoardError


class OnlineError(BoardError, ValueError):
    """An online setting that cannot be used: the token file, the URL, a time control, a user
    list, a rule set lidraughts does not play."""


class LinkError(BoardError, ConnectionError):
    """A request that got no answer. ``sent``: the request may have reached the server (it was
    written, the answer was lost), so whether it acted must be read from the server's state;
    False: it never left (no connection), so it can be sent again."""

    def __init__(self, message: str, sent: bool) -> None:
        super().__init__(message)
        self.sent = sent


class ProtocolError(BoardError, ValueError):
    """A line or an answer from the server that cannot be used (not JSON, a field missing or of
    the wrong type, moves that do not replay under the board's rules)."""
