"""One thread per NDJSON stream (pySerial's ``ReaderThread`` shape, STYLE.md lesson 12): the
loop opens the stream, cuts it into lines, hands each object to its handler, and reconnects
with backoff when the connection is lost; the handler knows nothing of threads or sockets.

A line that is not JSON, is too long or does not make sense to the handler is named in the
log (the first at WARNING, later ones at DEBUG with their count) and the stream is opened
again: lidraughts starts each stream with the whole state (``gameFull``; current games and
challenges on the event stream), so nothing a bad line held is lost.

A 401 or 403 ends the loop for good (``on_fatal``), except lidraughts' passing "OAuth server
is offline" 401; a 429 waits a minute (the API's own advice); other answers back off.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Protocol

from boardctl.online.errors import LinkError, ProtocolError
from boardctl.online.ndjson import MAX_LINE, LineSplitter, Oversized, read_object
from boardctl.online.transport import Reply, Stream, Transport

log = logging.getLogger(__name__)

#: lidraughts sends a keep-alive every 6 s: three missed is a dead connection.
IDLE_TIMEOUT = 20.0
#: lidraughts' advice on a 429: wait a full minute.
RATE_LIMIT_WAIT = 60.0
_OAUTH_OFFLINE = "OAuth server is offline"


@dataclass(frozen=True, slots=True)
class Backoff:
    """Waits between attempts: ``first``, times ``factor`` each time, at most ``cap``."""

    first: float = 0.5
    factor: float = 2.0
    cap: float = 30.0

    def delay(self, attempt: int) -> float:
        """The wait before attempt ``attempt`` (1 is the first retry)."""
        if attempt <= 0:
            return 0.0
        return min(self.cap, self.first * self.factor ** min(attempt - 1, 32))

    def delays(self) -> Iterator[float]:
        attempt = 1
        while True:
            yield self.delay(attempt)
            attempt += 1


#: The waits between attempts unless a caller gives its own.
BACKOFF = Backoff()


class StreamHandler(Protocol):
    """What a stream loop calls, all on its thread."""

    def on_open(self) -> None:
        """The stream is open (its lines follow)."""

    def on_line(self, obj: dict[str, Any]) -> None:
        """One object; ProtocolError when it makes no sense (the stream is opened again)."""

    def on_end(self) -> bool:
        """The server ended the stream: True to stop, False to open it again."""

    def on_lost(self, reason: str) -> None:
        """The connection was lost or could not be made; the loop will try again."""

    def on_refused(self, reply: Reply) -> bool:
        """A 4xx answer other than 401, 403, 429: True to stop, False to try again."""


def passing(reply: Reply) -> bool:
    """Whether an answer is a passing trouble, to try again after a wait: a 5xx, a 429,
    lidraughts' "OAuth server is offline" 401."""
    return reply.status >= 500 or reply.status == 429 or (
        reply.status == 401 and _OAUTH_OFFLINE in reply.error)


def fatal_reason(reply: Reply) -> str | None:
    """Why an answer ends the link for good (a wrong or revoked token, a missing scope), or
    None."""
    if reply.status == 401 and _OAUTH_OFFLINE not in reply.error:
        return f"lidraughts refused the token (401: {reply.error})"
    if reply.status == 403:
        return f"lidraughts refused the request (403: {reply.error})"
    return None


class StreamLoop:
    """Reads ``path`` on its own thread until stopped, the handler says so, or a fatal answer."""

    def __init__(self, name: str, transport: Transport, path: str, handler: StreamHandler,
                 on_fatal: Callable[[str], None], backoff: Backoff = BACKOFF,
                 idle_timeout: float = IDLE_TIMEOUT, max_line: int = MAX_LINE) -> None:
        self.name = name
        self._transport = transport
        self._path = path
        self._handler = handler
        self._on_fatal = on_fatal
        self._backoff = backoff
        self._idle = idle_timeout
        self._max_line = max_line
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._stream: Stream | None = None
        self._hurry = False
        self._bad_lines = 0
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)

    def start(self) -> None:
        self._thread.start()

    def resync(self) -> None:
        """Drop the connection and open the stream again at once (its first line is the
        whole state again)."""
        with self._lock:
            self._hurry = True
            stream = self._stream
        if stream is not None:
            stream.abort()

    def stop(self) -> None:
        """End for good; returns at once (``join`` waits for the thread)."""
        self._stop.set()
        with self._lock:
            stream = self._stream
        if stream is not None:
            stream.abort()

    def join(self, timeout: float = 5.0) -> None:
        if self._thread.is_alive() and self._thread is not threading.current_thread():
            self._thread.join(timeout)

    @property
    def stopped(self) -> bool:
        return self._stop.is_set()

    def _run(self) -> None:
        attempt = 0
        while not self._stop.is_set():
            if not self._wait(self._backoff.delay(attempt)):
                return
            outcome = self._attempt()
            if outcome == "stop":
                self._stop.set()
            elif outcome == "ok":
                attempt = 0
            elif outcome == "ratelimit":
                attempt = 0
                if not self._wait(RATE_LIMIT_WAIT):
                    return
            else:
                attempt += 1

    def _wait(self, seconds: float) -> bool:
        """Wait unless hurried; False when stopped."""
        with self._lock:
            hurry, self._hurry = self._hurry, False
        if seconds > 0 and not hurry:
            self._stop.wait(seconds)
        return not self._stop.is_set()

    def _attempt(self) -> str:
        """One connection: "stop", "ok" (it delivered, then ended or was lost), "ratelimit",
        or "failed"."""
        try:
            reply, stream = self._transport.open_stream(self._path, self._idle)
        except LinkError as exc:
            self._handler.on_lost(str(exc))
            return "failed"
        if stream is None:
            assert reply is not None
            return self._refused(reply)
        with self._lock:
            self._stream = stream
        if self._stop.is_set():
            stream.close()
            return "stop"
        self._handler.on_open()
        try:
            return self._read(stream)
        finally:
            with self._lock:
                self._stream = None
            stream.close()

    def _refused(self, reply: Reply) -> str:
        reason = fatal_reason(reply)
        if reason is not None:
            self._on_fatal(reason)
            return "stop"
        if reply.status == 429:
            self._handler.on_lost("rate limited by lidraughts (429): waiting a minute")
            return "ratelimit"
        if 400 <= reply.status < 500 and self._handler.on_refused(reply):
            return "stop"
        self._handler.on_lost(f"{self._path}: HTTP {reply.status} ({reply.error})")
        return "failed"

    def _read(self, stream: Stream) -> str:
        splitter = LineSplitter(self._max_line)
        delivered = False
        while True:
            try:
                data = stream.read()
            except LinkError as exc:
                if self._stop.is_set():
                    return "stop"
                self._handler.on_lost(str(exc))
                return "ok" if delivered else "failed"
            if not data:
                return "stop" if self._handler.on_end() else "ok"
            for line in splitter.feed(data):
                if line == b"":
                    continue  # keep-alive
                problem = self._deliver(line)
                if problem is not None:
                    self._bad_line(problem)
                    self._handler.on_lost(f"{problem}: reading the stream again")
                    return "failed"
                delivered = True
                if self._stop.is_set():
                    return "stop"

    def _deliver(self, line: bytes | Oversized) -> str | None:
        if isinstance(line, Oversized):
            return f"a line of {line.size} bytes (more than {self._max_line})"
        try:
            self._handler.on_line(read_object(line))
        except ProtocolError as exc:
            return str(exc)
        return None

    def _bad_line(self, problem: str) -> None:
        self._bad_lines += 1
        if self._bad_lines == 1:
            log.warning("lidraughts %s: skipped %s", self.name, problem)
        else:
            log.debug("lidraughts %s: skipped %s (%d so far)", self.name, problem,
                      self._bad_lines)
