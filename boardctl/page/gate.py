"""Who may change (and, if the config says so, read) through the board's page.

With a password, a request that changes something carries it as ``Authorization: Bearer
PASSWORD`` (programs) or the session cookie the page's sign-in sets (``HttpOnly``,
``SameSite=Strict``: a page of another site cannot send it). Passwords are compared in
constant time (their SHA-256 digests, so neither length nor content leaks). Wrong passwords
are slowed down per client: after :data:`FREE_TRIES` a client waits twice as long before each
next try is even looked at (1 s, 2 s, ... :data:`MAX_WAIT`), answered 429 meanwhile; the
clients and sessions remembered are bounded (:data:`MAX_CLIENTS`, :data:`MAX_SESSIONS`), the
oldest forgotten first. Without a password everything is open (the page says so).
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from email.message import Message

#: The session cookie's name.
COOKIE = "board_session"
#: How long a sign-in lasts (seconds).
SESSION_S = 30 * 24 * 3600
#: Sessions kept at most (the oldest dropped: its phone signs in again).
MAX_SESSIONS = 64
#: Clients whose wrong passwords are remembered at most.
MAX_CLIENTS = 1024
#: Wrong passwords a client may give before it is slowed down.
FREE_TRIES = 3
#: The longest wait between two tries (seconds).
MAX_WAIT = 60.0


@dataclass(frozen=True, slots=True)
class Refusal:
    """Why a request is refused: its HTTP status, a one-line message, extra headers."""

    status: int
    message: str
    headers: tuple[tuple[str, str], ...] = ()


class Gate:
    """The password (None: none), the sessions, the slowdown (module docstring). Thread-safe:
    every HTTP thread asks it. ``clock``: monotonic seconds (tests pass their own)."""

    def __init__(self, password: bytes | None, *, read_open: bool = True,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self._digest = hashlib.sha256(password).digest() if password is not None else None
        self.read_open = read_open or password is None
        self.clock = clock
        self._lock = threading.Lock()
        self._sessions: OrderedDict[str, float] = OrderedDict()  # token -> expiry
        self._strikes: OrderedDict[str, tuple[int, float]] = OrderedDict()  # client -> (n, until)

    @property
    def protected(self) -> bool:
        return self._digest is not None

    def admit(self, headers: Message | Mapping[str, str], client: str,
              changing: bool) -> Refusal | None:
        """None when the request may go on; else why not (401, or 429 while slowed down)."""
        if self._digest is None or (not changing and self.read_open):
            return None
        if self.session(headers.get("Cookie", "")):
            return None
        auth = headers.get("Authorization", "")
        scheme, _, given = auth.partition(" ")
        if scheme.lower() != "bearer" or not given.strip():
            return Refusal(401, "a password is needed: sign in on the page, or send "
                           "Authorization: Bearer PASSWORD",
                           (("WWW-Authenticate", 'Bearer realm="board"'),))
        return self.try_password(given.strip().encode("utf-8", "replace"), client)

    def try_password(self, given: bytes, client: str) -> Refusal | None:
        """Check a password given by ``client``: None when right, else 401 (counted) or 429
        (slowed down: not even looked at)."""
        now = self.clock()
        with self._lock:
            strikes, until = self._strikes.get(client, (0, 0.0))
            if now < until:
                left = max(1, round(until - now))
                return Refusal(429, f"too many wrong passwords: try again in {left} s",
                               (("Retry-After", str(left)),))
        right = self._digest is not None and hmac.compare_digest(
            hashlib.sha256(given).digest(), self._digest)
        with self._lock:
            if right:
                self._strikes.pop(client, None)
                return None
            strikes += 1
            wait = 0.0 if strikes < FREE_TRIES else min(MAX_WAIT, 2.0 ** (strikes - FREE_TRIES))
            self._strikes[client] = (strikes, now + wait)
            self._strikes.move_to_end(client)
            while len(self._strikes) > MAX_CLIENTS:
                self._strikes.popitem(last=False)
        return Refusal(401, "wrong password", (("WWW-Authenticate", 'Bearer realm="board"'),))

    def sign_in(self) -> str:
        """A new session (after :meth:`try_password` said yes): its token for the cookie."""
        token = secrets.token_urlsafe(24)
        with self._lock:
            self._sessions[token] = self.clock() + SESSION_S
            while len(self._sessions) > MAX_SESSIONS:
                self._sessions.popitem(last=False)
        return token

    def sign_out(self, cookie: str) -> None:
        token = _cookie_value(cookie)
        with self._lock:
            self._sessions.pop(token, None)

    def session(self, cookie: str) -> bool:
        """True when the cookie header holds a live session."""
        token = _cookie_value(cookie)
        if not token:
            return False
        now = self.clock()
        with self._lock:
            expiry = next((e for t, e in self._sessions.items()
                           if hmac.compare_digest(t.encode(), token.encode())), None)
            return expiry is not None and now < expiry

    def cookie(self, token: str | None) -> str:
        """The ``Set-Cookie`` value for a session (None: the cookie cleared)."""
        if token is None:
            return f"{COOKIE}=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict"
        return f"{COOKIE}={token}; Path=/; Max-Age={SESSION_S}; HttpOnly; SameSite=Strict"


def _cookie_value(header: str) -> str:
    """The session cookie's value in a ``Cookie`` header ('' when absent)."""
    for part in header[:4096].split(";"):
        name, _, value = part.strip().partition("=")
        if name == COOKIE:
            return value.strip()[:64]
    return ""
