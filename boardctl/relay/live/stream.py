"""Server-Sent Events (the WHATWG HTML "server-sent events" section): one channel per audience,
a bounded ring of recent events, and catch-up on reconnection.

A browser's ``EventSource`` reconnects by itself and sends the ``id`` of the last event it got
as ``Last-Event-ID``; when that event is still in the ring, the events after it are sent,
otherwise (too old, or the relay restarted: ids carry the channel's epoch) one ``state`` event
with the whole hall. Memory is bounded: :data:`KEEP_EVENTS` events per channel and
:data:`MAX_CLIENTS` connections; a client that stops reading for :data:`WRITE_TIMEOUT` seconds
is dropped (its browser reconnects and catches up).
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler

from firmware.limits import ascii_digits

log = logging.getLogger(__name__)

KEEP_EVENTS = 4096
MAX_CLIENTS = 512
WRITE_TIMEOUT = 20.0
#: A comment line this often keeps proxies and the browser from closing an idle stream.
HEARTBEAT = 15.0


class Channel:
    """Events for one audience (the public page, the arbiters), numbered from 1."""

    def __init__(self, keep: int = KEEP_EVENTS) -> None:
        self.epoch = f"{int(time.time() * 1000):x}"
        self._cond = threading.Condition()
        self._events: deque[tuple[int, bytes]] = deque(maxlen=keep)
        self.last = 0
        self.clients = 0
        self.closed = False

    def event_id(self, n: int | None = None) -> str:
        return f"{self.epoch}-{self.last if n is None else n}"

    def publish(self, event: str, data: str) -> int:
        """Queue one event (``data`` is one line of JSON); its number."""
        with self._cond:
            self.last += 1
            self._events.append((self.last, frame(event, data, self.event_id(self.last))))
            self._cond.notify_all()
            return self.last

    def after(self, last_event_id: str | None) -> int | None:
        """The number to resume after, from a ``Last-Event-ID``; None when a full state is
        needed (no id, another epoch, or events lost from the ring)."""
        if not last_event_id:
            return None
        epoch, _, number = last_event_id.strip().partition("-")
        if epoch != self.epoch or not ascii_digits(number) or len(number) > 18:
            return None
        n = int(number)
        with self._cond:
            oldest = self._events[0][0] if self._events else self.last + 1
            if n > self.last or n < oldest - 1:
                return None
        return n

    def wait(self, after: int, timeout: float) -> tuple[int, bytes]:
        """The frames queued after number ``after`` (waits up to ``timeout`` for one)."""
        with self._cond:
            if self.last <= after and not self.closed:
                self._cond.wait(timeout)
            if self._events and self._events[0][0] > after + 1:
                return -1, b""  # fell behind the ring: the caller sends a full state again
            frames = [f for n, f in self._events if n > after]
            return self.last, b"".join(frames)

    def join(self) -> bool:
        """Count one more client; False when :data:`MAX_CLIENTS` are streaming already."""
        with self._cond:
            if self.clients >= MAX_CLIENTS:
                return False
            self.clients += 1
            return True

    def leave(self) -> None:
        with self._cond:
            self.clients -= 1

    def close(self) -> None:
        with self._cond:
            self.closed = True
            self._cond.notify_all()


def frame(event: str, data: str, event_id: str | None = None) -> bytes:
    """One SSE message. ``data`` must hold no newline (compact JSON never does)."""
    head = f"id: {event_id}\n" if event_id else ""
    return f"{head}event: {event}\ndata: {data}\n\n".encode()


def serve(handler: BaseHTTPRequestHandler, channel: Channel,
          state: Callable[[], tuple[int, str]], stop: threading.Event) -> None:
    """Stream ``channel`` to one client until it goes, the channel closes or ``stop`` is set.

    ``state()`` gives (event number, JSON of the whole hall) taken together, so that nothing
    published in between is missed or sent twice.
    """
    if handler.command != "HEAD" and not channel.join():
        body = b"too many live pages open\n"
        handler.send_response(503)
        handler.send_header("Content-Type", "text/plain; charset=utf-8")
        handler.send_header("Content-Length", str(len(body)))
        handler.send_header("Retry-After", "10")
        handler.end_headers()
        handler.wfile.write(body)
        return
    handler.send_response(200)
    handler.send_header("Content-Type", "text/event-stream; charset=utf-8")
    handler.send_header("Cache-Control", "no-cache")
    handler.send_header("Connection", "close")
    handler.send_header("X-Accel-Buffering", "no")
    handler.end_headers()
    handler.close_connection = True
    if handler.command == "HEAD":
        return
    try:
        handler.connection.settimeout(WRITE_TIMEOUT)
        after = channel.after(handler.headers.get("Last-Event-ID"))
        out = b"retry: 1000\n\n"
        if after is None:
            after, data = state()
            out += frame("state", data, channel.event_id(after))
        handler.wfile.write(out)
        handler.wfile.flush()
        beat = time.monotonic() + HEARTBEAT
        while not stop.is_set() and not channel.closed:
            last, frames = channel.wait(after, 1.0)
            if last < 0:
                after, data = state()
                frames = frame("state", data, channel.event_id(after))
            else:
                after = last
            if not frames and time.monotonic() >= beat:
                frames = b": keep-alive\n\n"
            if frames:
                handler.wfile.write(frames)
                handler.wfile.flush()
                beat = time.monotonic() + HEARTBEAT
    except OSError as exc:  # the client went, or stopped reading (timeout)
        log.debug("live page client gone: %s", exc)
    finally:
        channel.leave()
