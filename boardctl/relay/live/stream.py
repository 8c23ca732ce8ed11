"""Server-Sent Events (the WHATWG HTML "server-sent events" section): one channel per audience,
a bounded ring of recent events, and catch-up on reconnection.

A browser's ``EventSource`` reconnects by itself and sends the ``id`` of the last event it got
as ``Last-Event-ID``; when that event is still in the ring, the events after it are sent,
otherwise (too old, or the relay restarted: ids carry the channel's epoch) one ``state`` event
with the whole hall. Memory is bounded: :data:`KEEP_EVENTS` events per channel; the streams
themselves are written by one event loop (:mod:`boardctl.relay.live.viewers`), which bounds each
viewer's unsent bytes and drops a viewer that stops reading (its browser reconnects and
catches up). :func:`serve` answers the request on the HTTP server's thread and hands the
socket to that loop.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Callable
from functools import lru_cache
from http.server import BaseHTTPRequestHandler

from boardctl.relay.live.viewers import STALL, StreamLoop, detach
from firmware.limits import ascii_digits

log = logging.getLogger(__name__)

KEEP_EVENTS = 4096
#: A stream's first line: the browser reconnects a second after a lost stream.
RETRY = b"retry: 1000\n\n"
#: Streams one relay serves at most (also bounded by the open files limit:
#: boardctl.relay.live.viewers.capacity); more are told to come back (503, Retry-After).
MAX_CLIENTS = 20_000
#: Seconds a stream may take no byte, bytes waiting, before it is dropped.
WRITE_TIMEOUT = STALL


class Channel:
    """Events for one audience (the public page, the arbiters), numbered from 1."""

    def __init__(self, keep: int = KEEP_EVENTS) -> None:
        self.epoch = f"{int(time.time() * 1000):x}"
        self._cond = threading.Condition()
        self._events: deque[tuple[int, bytes]] = deque(maxlen=keep)
        self.last = 0
        self.clients = 0
        self.closed = False
        self._listeners: list[Callable[[], None]] = []

    def event_id(self, n: int | None = None) -> str:
        return f"{self.epoch}-{self.last if n is None else n}"

    def publish(self, event: str, data: str) -> int:
        """Queue one event (``data`` is one line of JSON); its number."""
        with self._cond:
            self.last += 1
            self._events.append((self.last, frame(event, data, self.event_id(self.last))))
            self._cond.notify_all()
            number = self.last
        for wake in self._listeners:
            wake()
        return number

    def listen(self, wake: Callable[[], None]) -> None:
        """Call ``wake()`` (from the publishing thread) after each event."""
        self._listeners.append(wake)

    def since(self, after: int) -> tuple[int, bytes] | None:
        """(the last number, the frames after number ``after``), taken together; None when
        some fell out of the ring."""
        with self._cond:
            if self._events and self._events[0][0] > after + 1:
                return None
            if after >= self.last:
                return self.last, b""
            # the ring holds consecutive numbers: the frames after ``after`` are its tail
            count = self.last - after
            return self.last, b"".join(f for _, f in list(self._events)[-count:])

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
        for wake in self._listeners:
            wake()


@lru_cache(maxsize=4)
def state_frame(data: str, event_id: str) -> bytes:
    """The ``state`` event of ``data``: one bytes object for a crowd that opened the page at
    the same event (the hub gives them the same text), not a copy each."""
    return frame("state", data, event_id)


def frame(event: str, data: str, event_id: str | None = None) -> bytes:
    """One SSE message. ``data`` must hold no newline (compact JSON never does)."""
    head = f"id: {event_id}\n" if event_id else ""
    return f"{head}event: {event}\ndata: {data}\n\n".encode()


def serve(handler: BaseHTTPRequestHandler, channel: Channel,
          state: Callable[[], tuple[int, str]], streams: StreamLoop) -> None:
    """Answer one ``/events`` request and hand its socket to ``streams`` (the event loop that
    writes every stream); returns at once.

    ``state()`` gives (event number, JSON of the whole hall) taken together, so that nothing
    published in between is missed or sent twice.
    """
    if handler.command != "HEAD" and (streams.full() or not channel.join()):
        too_many(handler)
        return
    try:
        first, after = _head(handler, channel, state)
    except BaseException:
        if handler.command != "HEAD":
            channel.leave()
        raise
    if handler.command == "HEAD":
        return
    sock = detach(handler.connection)
    if not streams.adopt(sock, channel, after, first, on_close=channel.leave):
        log.debug("live page client turned away: the stream loop filled or closed meanwhile")
        channel.leave()
        sock.close()


def _head(handler: BaseHTTPRequestHandler, channel: Channel,
          state: Callable[[], tuple[int, str]]) -> tuple[list[bytes], int]:
    """Write the response head; (the stream's first bytes, the event number they bring the
    viewer to)."""
    handler.send_response(200)
    handler.send_header("Content-Type", "text/event-stream; charset=utf-8")
    handler.send_header("Cache-Control", "no-cache")
    handler.send_header("Connection", "close")
    handler.send_header("X-Accel-Buffering", "no")
    handler.end_headers()
    handler.close_connection = True
    if handler.command == "HEAD":
        return [], 0
    after = channel.after(handler.headers.get("Last-Event-ID"))
    if after is None:
        after, data = state()
        return [RETRY, state_frame(data, channel.event_id(after))], after
    return [RETRY], after


def too_many(handler: BaseHTTPRequestHandler) -> None:
    body = b"too many live pages open\n"
    handler.send_response(503)
    handler.send_header("Content-Type", "text/plain; charset=utf-8")
    handler.send_header("Content-Length", str(len(body)))
    handler.send_header("Retry-After", "10")
    handler.end_headers()
    handler.wfile.write(body)
