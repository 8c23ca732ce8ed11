"""The BOT account's token: read once from its file and never shown.

``Token`` keeps the text out of ``repr``, ``str`` and every message (a message names the file,
never its content); the transport asks for ``authorization()`` when it writes a request's
headers, and nothing else reads it.
"""

from __future__ import annotations

import string
from pathlib import Path

from boardctl.online.errors import OnlineError

#: lidraughts' personal tokens are 16 characters; room for other servers' longer ones.
MAX_TOKEN = 512
#: What a token may hold: it goes into an HTTP header as it is.
_ALLOWED = frozenset(string.ascii_letters + string.digits + "-._~+/=")


class Token:
    """An API token, shown as ``Token(from FILE)``."""

    __slots__ = ("_value", "source")

    def __init__(self, value: str, source: str = "") -> None:
        if not value:
            raise OnlineError(f"the token{_from(source)} is empty")
        if len(value) > MAX_TOKEN:
            raise OnlineError(f"the token{_from(source)} is longer than {MAX_TOKEN} characters")
        if not set(value) <= _ALLOWED:
            raise OnlineError(f"the token{_from(source)} holds characters a token cannot "
                              "(letters, digits and -._~+/= only)")
        self._value = value
        self.source = source

    @classmethod
    def read(cls, path: str | Path) -> Token:
        """The token in ``path`` (blanks and line ends around it ignored); OnlineError naming
        the file, not its content, when it cannot be read or is no token."""
        where = str(path)
        try:
            with open(path, "rb") as handle:
                raw = handle.read(MAX_TOKEN + 64)
        except OSError as exc:
            raise OnlineError(f"cannot read the token file {where}: {exc.strerror or exc}") \
                from None
        try:
            text = raw.decode("ascii").strip()
        except UnicodeDecodeError:
            raise OnlineError(f"the token file {where} is not ASCII text") from None
        return cls(text, where)

    def authorization(self) -> str:
        """The ``Authorization`` header's value."""
        return f"Bearer {self._value}"

    def __repr__(self) -> str:
        return f"Token({'from ' + self.source if self.source else 'given'})"

    __str__ = __repr__

    def __reduce__(self) -> str | tuple[object, ...]:
        raise TypeError("a token is not pickled")


def _from(source: str) -> str:
    return f" in {source}" if source else ""
