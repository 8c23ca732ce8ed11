"""Signed control messages between a hall's relay and its boards (docs/HALL.md, "The arbiter's
desk"): pure, no I/O but reading the key file.

The broker is no judge of who may act on a board: a hall's broker may be anonymous, and any
client it lets in can publish on a board's control topic. So every message on
``kabelaud/HALL/BOARD/control`` (the relay's request) and ``.../reply`` (the board's answer)
is signed with the hall's key, a secret the relay and the boards share (``--hall-key FILE``),
with HMAC-SHA256 (RFC 2104, FIPS 198-1) over the exact bytes of the message's JSON text::

    <64 hex digits: HMAC-SHA256(key, JSON)> "." <JSON>
    JSON = {"v": 1, "kind": "control" | "reply", "hall": HALL, "board": BOARD,
            "run": RUN, "n": N, "t": SECONDS, "body": {...}}

``kind``, ``hall`` and ``board`` bind a message to its place: a request for one board is
refused by another, a reply is never taken as a request. ``run`` (a random id of the relay's
run) and ``n`` (its counter, 1, 2, 3, ...) make each request usable once: a board takes a
request only when its ``n`` is past every one it has taken of that run (:class:`Verifier`
keeps the last counter of the latest :data:`RUNS` runs), only when its time ``t`` (the relay's
wall clock, seconds) is within :data:`WINDOW` seconds of its own clock, and never one stamped
before the board started (so a request recorded before a reboot cannot be played again after
it, when the board has forgotten the counters it saw). A reply carries the request's ``run``
and ``n``, and the relay takes it only for a request still waiting for its answer.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from firmware.errors import BoardError

VERSION = 1
#: Seconds a message's time may be off the receiver's clock (both ways).
WINDOW = 30.0
#: Runs of the relay whose last counter a board keeps (the oldest forgotten first).
RUNS = 256
#: The longest signed message taken (a reply may carry a game's PDN).
MAX_MESSAGE = 512 * 1024
#: The shortest key: 16 characters (``openssl rand -hex 32`` makes 64).
MIN_KEY = 16
_MAC_LEN = 64


class SignatureError(ValueError):
    """A message that is not to be acted on; the text says why, in one line."""


@dataclass(frozen=True)
class Signed:
    """A message whose signature and place were checked."""

    kind: str
    hall: str
    board: str
    run: str
    n: int
    t: float
    body: dict[str, Any]


def read_key(path: Path | str, what: str = "--hall-key") -> bytes:
    """The hall's key: the first line of ``path`` (at least :data:`MIN_KEY` characters)."""
    from boardctl.hall.mqtt import read_secret

    key = read_secret(path, what).strip()
    if len(key) < MIN_KEY:
        raise BoardError(f"{what} {path}: the key must be a line of at least {MIN_KEY} "
                         "characters (make one with: openssl rand -hex 32)")
    return key.encode("utf-8")


def sign(key: bytes, message: Mapping[str, Any]) -> bytes:
    """``message`` as signed bytes (the JSON text after its MAC)."""
    text = json.dumps(message, separators=(",", ":"), ensure_ascii=False,
                      allow_nan=False).encode("utf-8")
    mac = hmac.new(key, text, hashlib.sha256).hexdigest()
    return mac.encode("ascii") + b"." + text


def _field(data: Mapping[str, Any], name: str, kind: type | tuple[type, ...]) -> Any:
    value = data.get(name)
    if not isinstance(value, kind) or isinstance(value, bool):
        raise SignatureError(f"signed message without a valid {name!r}")
    return value


def open_signed(key: bytes, payload: bytes) -> Signed:
    """The checked message in ``payload``; SignatureError for anything forged or altered
    (the MAC is checked over the exact bytes before anything is parsed)."""
    if len(payload) > MAX_MESSAGE:
        raise SignatureError(f"{len(payload)} bytes (at most {MAX_MESSAGE})")
    mac, dot, text = payload[:_MAC_LEN], payload[_MAC_LEN:_MAC_LEN + 1], payload[_MAC_LEN + 1:]
    if dot != b"." or len(mac) != _MAC_LEN:
        raise SignatureError("not a signed message")
    good = hmac.new(key, text, hashlib.sha256).hexdigest().encode("ascii")
    if not hmac.compare_digest(mac, good):
        raise SignatureError("bad signature (forged, altered, or another hall's key)")
    try:
        data = json.loads(text.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise SignatureError("signed, but not UTF-8 JSON") from None
    if not isinstance(data, dict) or data.get("v") != VERSION:
        raise SignatureError(f"signed, but not version {VERSION} of the desk's messages")
    body = _field(data, "body", dict)
    return Signed(_field(data, "kind", str), _field(data, "hall", str),
                  _field(data, "board", str), _field(data, "run", str),
                  _field(data, "n", int), float(_field(data, "t", (int, float))), body)


def _in_window(t: float, now: float, window: float) -> None:
    if not abs(t - now) <= window:
        raise SignatureError(f"stamped {t - now:+.0f} s off this clock (at most {window:g} s: "
                             "a replay, or the clocks of the relay PC and the board differ)")


class Signer:
    """The relay's side: signs requests (``request``) and checks replies (``check_reply``)."""

    def __init__(self, key: bytes, hall: str, *, run: str | None = None,
                 clock: Callable[[], float] = time.time, window: float = WINDOW) -> None:
        self.key = key
        self.hall = hall
        self.run = run or secrets.token_hex(8)
        self.clock = clock
        self.window = window
        self._n = 0
        self._lock = threading.Lock()

    def next(self) -> int:
        """The next counter (callers that publish in order hold their own lock around it)."""
        with self._lock:
            self._n += 1
            return self._n

    def request(self, board: str, body: Mapping[str, Any], n: int) -> bytes:
        return sign(self.key, {"v": VERSION, "kind": "control", "hall": self.hall,
                               "board": board, "run": self.run, "n": n,
                               "t": round(self.clock(), 3), "body": dict(body)})

    def check_reply(self, board: str, payload: bytes) -> Signed:
        """A reply from ``board`` to one of this run's requests; SignatureError otherwise."""
        msg = open_signed(self.key, payload)
        if (msg.kind, msg.hall, msg.board, msg.run) != ("reply", self.hall, board, self.run):
            raise SignatureError(f"signed, but not a reply of {self.hall}/{board} to this relay")
        _in_window(msg.t, self.clock(), self.window)
        return msg


class Verifier:
    """A board's side: takes each request once (module docstring) and signs its replies."""

    def __init__(self, key: bytes, hall: str, board: str, *,
                 clock: Callable[[], float] = time.time, window: float = WINDOW,
                 runs: int = RUNS) -> None:
        self.key = key
        self.hall = hall
        self.board = board
        self.clock = clock
        self.window = window
        self.started = clock()
        self._runs = runs
        self._last: OrderedDict[str, int] = OrderedDict()
        self._lock = threading.Lock()

    def check_request(self, payload: bytes) -> Signed:
        msg = open_signed(self.key, payload)
        if (msg.kind, msg.hall, msg.board) != ("control", self.hall, self.board):
            raise SignatureError(f"signed, but a {msg.kind} for {msg.hall}/{msg.board}, "
                                 f"not a request for {self.hall}/{self.board}")
        now = self.clock()
        _in_window(msg.t, now, self.window)
        if msg.t < self.started:
            raise SignatureError("stamped before this board started (a replay)")
        with self._lock:
            last = self._last.get(msg.run)
            if last is not None and msg.n <= last:
                raise SignatureError(f"request {msg.run}/{msg.n} taken already, or older "
                                     f"than {last} (a replay)")
            self._last[msg.run] = msg.n
            self._last.move_to_end(msg.run)
            while len(self._last) > self._runs:
                self._last.popitem(last=False)
        return msg

    def reply(self, request: Signed, body: Mapping[str, Any]) -> bytes:
        return sign(self.key, {"v": VERSION, "kind": "reply", "hall": self.hall,
                               "board": self.board, "run": request.run, "n": request.n,
                               "t": round(self.clock(), 3), "body": dict(body)})
