"""The relay's hall side: every board of a hall from the broker, and the push to a site.

:class:`HallFollower` subscribes to ``kabelaud/HALL/+/feed`` (and ``.../status``) on paho's
own network thread, which reconnects by itself after a broker restart and subscribes again
(``on_connect``); the boards' snapshots (on their reconnection and every 10 s) then fill
whatever was missed. Each message only lands in a bounded queue; the relay's state thread
drains it (:meth:`drain`), so the broker's thread never waits for the PDN. A message that is
not a board's feed line (a foreign topic, an oversized payload) is dropped and counted; a
damaged line (no valid ``crc``: docs/CONTRACT.md, "Broadcast feed") is dropped by
``RelayState.feed_line``, counted and logged here (:meth:`damaged`), the first ten and then
every thousandth.

:class:`Pusher` is the push mode for a hall without a public address: after each change it
PUTs (or POSTs) what one public URL serves to a configured URL, on its own thread, retrying
with backoff, the newest body only (a push that failed is superseded, never queued up).
"""

from __future__ import annotations

import secrets
import threading
import urllib.error
import urllib.request
from collections import deque
from collections.abc import Callable, Sequence
from typing import Any

from boardctl.hall.mqtt import (
    MAX_PAYLOAD,
    PREFIX,
    BrokerConfig,
    board_of,
    check_name,
    make_client,
    why_unreachable,
)

#: Messages waiting for the state thread (a second of a 10,000-board hall).
QUEUE = 100_000


class HallFollower:
    """See the module docstring. ``start()``, then ``drain()``/``wait()`` from the state
    thread, ``close()``.

    ``hall`` is one hall's name or several (a central broker that bridges many halls'
    brokers, docs/SCALE.md): with several, each board is named ``HALL/BOARD`` (what it is
    known by in the relay; its PDN still says ``[Board "BOARD"]``). ``reconnect_max``: the
    longest wait, seconds, between two tries to reach the broker (from 0.2 s, doubling)."""

    def __init__(self, config: BrokerConfig, hall: str | Sequence[str],
                 log: Callable[[str], None] = print, *, reconnect_max: float = 5.0) -> None:
        self.config = config
        self.reconnect_max = reconnect_max
        names = [hall] if isinstance(hall, str) else list(hall)
        self.halls = [check_name(h, "--hall") for h in dict.fromkeys(names)]
        if not self.halls:
            raise ValueError("a follower needs a hall")
        self.hall = self.halls[0]
        self.log = log
        self._queue: deque[tuple[str, bytes]] = deque()
        #: Boards whose retained status changed: (BOARD, online), for the live page.
        self._status: deque[tuple[str, bool]] = deque(maxlen=QUEUE)
        self._lock = threading.Lock()
        self._ready = threading.Event()
        #: Set once the broker has confirmed the subscriptions (again after each reconnect).
        self.subscribed = threading.Event()
        self.online: dict[str, bool] = {}
        self.received = 0
        self.dropped = 0
        self.damaged_lines = 0
        self.overflow = 0
        self.connects = 0
        self._client: Any = None
        self._error: str | None = None

    def start(self) -> HallFollower:
        client = make_client(self.config, f"kabelaud-relay-{self.hall}-{secrets.token_hex(4)}")
        client.on_connect = self._on_connect
        client.on_disconnect = self._on_disconnect
        client.on_message = self._on_message
        client.on_subscribe = lambda *args: self.subscribed.set()
        client.on_connect_fail = lambda *args: self._connect_failed()
        client.reconnect_delay_set(0.2, self.reconnect_max)
        client.connect_async(self.config.host, self.config.port, keepalive=self.config.keepalive)
        client.loop_start()
        self._client = client
        return self

    def close(self) -> None:
        """Leave the broker (a stop, SIGTERM): no "lost ... reconnecting" is said for it."""
        client, self._client = self._client, None
        if client is not None:
            client.disconnect()
            client.loop_stop()

    def drain(self) -> list[tuple[str, bytes]]:
        with self._lock:
            items = list(self._queue)
            self._queue.clear()
            self._ready.clear()
        return items

    def drain_status(self) -> list[tuple[str, bool]]:
        """The boards whose online status changed since the last call, in order."""
        with self._lock:
            items = list(self._status)
            self._status.clear()
        return items

    def wait(self, timeout: float) -> None:
        self._ready.wait(timeout)

    def status(self) -> dict[str, Any]:
        return {"broker": self.config.url, "hall": self.hall, "halls": self.halls,
                "connects": self.connects,
                "received": self.received, "dropped": self.dropped,
                "damaged": self.damaged_lines, "overflow": self.overflow,
                "online": sorted(b for b, up in self.online.items() if up)}

    # -- paho's thread ---------------------------------------------------------------------

    def _on_connect(self, client: Any, userdata: Any, flags: Any, reason: Any,
                    properties: Any = None) -> None:
        if reason.is_failure:
            self._say(f"relay: broker {self.config.url} refused the connection: {reason}")
            return
        self.connects += 1
        self._error = None
        for hall in self.halls:
            self.log(f"relay: following {PREFIX}/{hall}/+/feed on {self.config.url}")
        client.subscribe([(f"{PREFIX}/{hall}/+/{leaf}", 1) for hall in self.halls
                          for leaf in ("feed", "status")])

    def _on_disconnect(self, client: Any, userdata: Any, flags: Any, reason: Any,
                       properties: Any = None) -> None:
        self.subscribed.clear()
        if self._client is not None:
            self._say(f"relay: broker {self.config.url} lost ({reason}); reconnecting")

    def _on_message(self, client: Any, userdata: Any, message: Any) -> None:
        self.received += 1
        name = message.topic
        board = self._board(name, "feed")
        if board is None:
            status = self._board(name, "status")
            if status is not None:
                up = bytes(message.payload) == b"online"
                with self._lock:
                    if self.online.get(status) != up:
                        self._status.append((status, up))
                        self._ready.set()
                    self.online[status] = up
            else:
                self._drop(f"relay: message on {name[:100]!r} dropped (not a board topic)")
            return
        payload = bytes(message.payload)
        if len(payload) > MAX_PAYLOAD:
            self._drop(f"relay: {len(payload)}-byte message from board {board} dropped")
            return
        with self._lock:
            if len(self._queue) >= QUEUE:
                self._queue.popleft()
                self.overflow += 1
            self._queue.append((board, payload))
            self._ready.set()

    def _board(self, name: str, leaf: str) -> str | None:
        """The board a topic is of (``HALL/BOARD`` when following several halls), or None."""
        for hall in self.halls:
            board = board_of(hall, name, leaf)
            if board is not None:
                return board if len(self.halls) == 1 else f"{hall}/{board}"
        return None

    def _drop(self, message: str) -> None:
        self.dropped += 1
        if self.dropped <= 10 or self.dropped % 1000 == 0:
            self.log(f"{message} ({self.dropped} so far)")

    def damaged(self, board: str) -> None:
        """The state thread: a message from ``board`` was not a feed line (not one JSON
        object with an integer ``seq`` and a ``crc`` that matches)."""
        self.damaged_lines += 1
        n = self.damaged_lines
        if n <= 10 or n % 1000 == 0:
            self.log(f"relay: a message from board {board} dropped: not a feed line with a "
                     f"matching crc (the line format: docs/CONTRACT.md, Broadcast feed) "
                     f"({n} so far)")

    def _connect_failed(self) -> None:
        """paho's thread: a connection attempt failed (paho retries without saying why)."""
        why = why_unreachable(self.config)
        self._say(f"relay: broker {self.config.url}: cannot connect"
                  + (f": {why}" if why else "") + " (retrying)")

    def _say(self, message: str) -> None:
        if message != self._error:
            self.log(message)
        self._error = message


class Pusher:
    """PUT/POST ``body()`` (bytes, etag) to ``url`` after each :meth:`notify`, on its own
    thread; failures are retried with backoff (``backoff`` seconds, doubling up to ``cap``)
    and never block the caller. Checks again every ``recheck`` seconds (a delayed broadcast
    changes with time alone)."""

    def __init__(self, url: str, body: Callable[[], tuple[bytes, str]], *,
                 method: str = "PUT", timeout: float = 10.0, backoff: float = 1.0,
                 cap: float = 60.0, recheck: float = 1.0,
                 log: Callable[[str], None] = print) -> None:
        if method not in ("PUT", "POST"):
            raise ValueError(f"push method must be PUT or POST, not {method!r}")
        self.url = url
        self.body = body
        self.method = method
        self.timeout = timeout
        self.backoff, self.cap, self.recheck = backoff, cap, recheck
        self.log = log
        self.pushed = 0
        self.failures = 0
        self.last_error: str | None = None
        self._sent: str | None = None
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> Pusher:
        self._thread = threading.Thread(target=self._run, name="push", daemon=True)
        self._thread.start()
        return self

    def notify(self) -> None:
        self._wake.set()

    def close(self) -> None:
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(self.timeout + 1)

    def _run(self) -> None:
        delay = self.backoff
        while not self._stop.is_set():
            self._wake.wait(self.recheck)
            self._wake.clear()
            if self._stop.is_set():
                return
            data, etag = self.body()
            if etag == self._sent:
                continue
            if self._push(data):
                self._sent = etag
                delay = self.backoff
            else:
                self._stop.wait(delay)
                delay = min(delay * 2, self.cap)
                self._wake.set()  # try again (with the newest body)

    def _push(self, data: bytes) -> bool:
        request = urllib.request.Request(
            self.url, data=data, method=self.method,
            headers={"Content-Type": "application/x-draughts-pdn; charset=utf-8",
                     "User-Agent": "kabelaud-relay"})
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                response.read(1024)
        except (urllib.error.URLError, OSError, ValueError) as exc:
            self.failures += 1
            message = f"relay: push to {self.url} failed: {exc} (retrying)"
            if message != self.last_error:
                self.log(message)
            self.last_error = message
            return False
        if self.last_error is not None:
            self.log(f"relay: push to {self.url} works again")
        self.last_error = None
        self.pushed += 1
        return True
