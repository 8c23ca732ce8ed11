"""Every live page's event stream on one thread (docs/SCALE.md): an event loop over the
viewers' sockets, so a viewer costs a socket and a few hundred bytes, never a thread.

The HTTP server's handler thread reads a ``/events`` request's head, checks its token, writes
the response head and hands the socket over (:meth:`StreamLoop.adopt`) with the first bytes
(the whole hall's ``state`` event, or nothing when ``Last-Event-ID`` resumes within the ring)
and the event number the viewer has; the thread then returns. From there the loop's thread
(started on the first viewer) writes, without ever blocking:

- the events each :class:`~boardctl.relay.live.stream.Channel` publishes after that number
  (a channel wakes the loop; whatever was published meanwhile goes out in one write, and the
  same bytes object is shared by every viewer it is queued for);
- a comment line (``: keep-alive``) to a viewer that got nothing for :data:`HEARTBEAT` s.

Memory per viewer is bounded: a viewer whose unsent bytes pass :data:`MAX_PENDING` (it reads
slower than the hall moves) or that has not taken a byte for :data:`STALL` seconds is closed,
and its browser's ``EventSource`` reconnects and catches up by ``Last-Event-ID``; the kernel's
send buffer is fixed at :data:`SEND_BUFFER`. A slow viewer is therefore dropped, never waited
for: the loop only writes what a socket takes at once.
"""

from __future__ import annotations

import logging
import resource
import selectors
import socket
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from typing import Protocol

log = logging.getLogger(__name__)

#: Unsent bytes a viewer may have queued (its catch-up excepted) before it is dropped.
MAX_PENDING = 256 * 1024
#: A viewer that has taken no byte for this long while bytes wait for it is dropped (s).
STALL = 20.0
#: A comment line this often keeps proxies and the browser from closing an idle stream (s).
HEARTBEAT = 15.0
#: The kernel's send buffer of a viewer's socket (bytes; Linux doubles what it is given).
SEND_BUFFER = 32 * 1024
#: How often the loop looks for stalled and idle viewers (s).
TICK = 1.0
KEEP_ALIVE = b": keep-alive\n\n"


class Source(Protocol):
    """What the loop needs of a channel (boardctl.relay.live.stream.Channel)."""

    last: int

    def since(self, after: int) -> tuple[int, bytes] | None: ...

    def listen(self, wake: Callable[[], None]) -> None: ...


class Viewer:
    """One stream: its socket, the event it has, and the bytes not taken yet."""

    __slots__ = ("sock", "fd", "source", "after", "pending", "size", "offset",
                 "last_write", "writing", "on_close")

    def __init__(self, sock: socket.socket, source: Source, after: int, now: float,
                 on_close: Callable[[], None] | None) -> None:
        self.sock = sock
        self.fd = sock.fileno()
        self.source = source
        self.after = after
        self.pending: deque[bytes] = deque()
        self.size = 0  # bytes in pending, less offset
        self.offset = 0  # bytes of pending[0] sent already
        self.last_write = now
        self.writing = False  # registered for EVENT_WRITE
        self.on_close = on_close

    def queue(self, data: bytes) -> None:
        if data:
            self.pending.append(data)
            self.size += len(data)


def raise_open_files_limit() -> int:
    """Raise this process's soft limit of open files to its hard limit; the new soft limit."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and soft < hard:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
            soft = hard
        except (ValueError, OSError):
            pass
    return soft


def capacity() -> int:
    """Viewers the loop takes at most: the open files limit less room for everything else
    (PDN pollers, the broker, files), and never more than :data:`MAX_VIEWERS`."""
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        return MAX_VIEWERS
    return max(16, min(MAX_VIEWERS, soft - 1024))


#: Viewers at most, whatever the open files limit: at :data:`MAX_PENDING` each the unsent
#: bytes stay under 5 GiB in the worst case; in practice they share one buffer per event.
MAX_VIEWERS = 20_000


class StreamLoop:
    """The one thread that writes every event stream (module docstring)."""

    def __init__(self, *, clock: Callable[[], float] = time.monotonic,
                 limit: int | None = None) -> None:
        self.clock = clock
        self.limit = limit
        self._lock = threading.Lock()
        self._new: list[Viewer] = []
        self._viewers: dict[int, Viewer] = {}
        self._count = 0  # viewers adopted and not closed (adopt's check, under the lock)
        self._sources: dict[int, Source] = {}
        self._seen: dict[int, int] = {}  # source id -> the last event number pushed out
        self._wake_r, self._wake_w = socket.socketpair()
        self._wake_r.setblocking(False)
        self._wake_w.setblocking(False)
        self._woken = False
        self._selector = selectors.DefaultSelector()
        self._selector.register(self._wake_r, selectors.EVENT_READ, None)
        self._thread: threading.Thread | None = None
        self._stop = False
        self.served = 0
        self.dropped_slow = 0
        self.dropped_stalled = 0

    # -- any thread ------------------------------------------------------------------------

    @property
    def viewers(self) -> int:
        with self._lock:
            return self._count

    def full(self) -> bool:
        with self._lock:
            return self._count >= (self.limit if self.limit is not None else capacity())

    def adopt(self, sock: socket.socket, source: Source, after: int,
              first: bytes | Sequence[bytes] = b"",
              on_close: Callable[[], None] | None = None) -> bool:
        """Take over ``sock`` (a viewer's connection, its response head written): write
        ``first`` (bytes, or pieces that may be shared with other viewers: a crowd's ``state``
        is one object), then every event of ``source`` after number ``after``. False (and
        the socket left to the caller) when the loop is full or closed."""
        with self._lock:
            if self._stop or self._count >= (self.limit if self.limit is not None
                                             else capacity()):
                return False
            self._count += 1
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="live-streams",
                                                daemon=True)
                self._thread.start()
            if id(source) not in self._sources:
                self._sources[id(source)] = source
                self._seen[id(source)] = source.last
                source.listen(self.wake)
            try:
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, SEND_BUFFER)
            except OSError:
                pass
            sock.setblocking(False)
            viewer = Viewer(sock, source, after, self.clock(), on_close)
            for piece in [first] if isinstance(first, bytes) else first:
                viewer.queue(piece)
            self._new.append(viewer)
            self.served += 1
        self.wake()
        return True

    def wake(self) -> None:
        """Something to write (a channel published, a viewer came, or the loop is to stop)."""
        if self._woken:
            return
        self._woken = True
        try:
            self._wake_w.send(b"x")
        except OSError:
            pass  # the pipe is full: the loop is awake already

    def close(self) -> None:
        """Close every stream and stop the thread."""
        with self._lock:
            self._stop = True
            thread = self._thread
        self.wake()
        if thread is not None:
            thread.join(timeout=5)
        with self._lock:
            for viewer in self._new:
                self._viewers[viewer.fd] = viewer
            self._new.clear()
        for viewer in list(self._viewers.values()):
            self._close(viewer, register=False)
        self._selector.close()
        self._wake_r.close()
        self._wake_w.close()

    # -- the loop's thread -----------------------------------------------------------------

    def _run(self) -> None:
        tick = self.clock() + TICK
        while not self._stop:
            timeout = max(0.0, tick - self.clock())
            for key, events in self._selector.select(timeout):
                if key.data is None:
                    self._drain_wake()
                    continue
                viewer = self._viewers.get(key.fd)
                if viewer is None:
                    continue
                if events & selectors.EVENT_READ and not self._read(viewer):
                    continue
                if events & selectors.EVENT_WRITE:
                    self._write(viewer)
            self._take_new()
            self._fan_out()
            now = self.clock()
            if now >= tick:  # the next look a tick after this one's reading (read once:
                self._check(now)  # a later reading could skip a check that is due)
                tick = now + TICK

    def _drain_wake(self) -> None:
        """Empty the wake pipe, then let the next ``wake`` write again. In that order: a
        ``wake`` landing meanwhile sees the flag still set and writes nothing, and its work is
        taken by this same turn; cleared first, its byte could be drained with the flag left
        set, and no ``wake`` would write again (every event then waited for the next tick)."""
        try:
            while self._wake_r.recv(4096):
                pass
        except OSError:
            pass
        self._woken = False

    def _take_new(self) -> None:
        with self._lock:
            new, self._new = self._new, []
        for viewer in new:
            self._viewers[viewer.fd] = viewer
            self._selector.register(viewer.sock, selectors.EVENT_READ, viewer.fd)
            self._catch_up(viewer)
            self._write(viewer)

    def _catch_up(self, viewer: Viewer) -> None:
        if viewer.after < viewer.source.last:
            taken = viewer.source.since(viewer.after)
            if taken is None:  # fell out of the ring meanwhile: it reconnects for a state
                self._close(viewer)
                return
            viewer.after, data = taken
            viewer.queue(data)

    def _fan_out(self) -> None:
        """Queue what each channel published since the last pass to its viewers (the same
        bytes for all that stood at the same event), and write."""
        moved = set()
        for sid, source in self._sources.items():
            last = source.last
            if last != self._seen[sid]:
                moved.add(sid)
                self._seen[sid] = last  # what comes later wakes the loop again
        if not moved:
            return
        chunks: dict[tuple[int, int], tuple[int, bytes] | None] = {}
        for viewer in list(self._viewers.values()):
            sid = id(viewer.source)
            if sid not in moved:
                continue
            key = (sid, viewer.after)
            if key not in chunks:
                chunks[key] = viewer.source.since(viewer.after)
            taken = chunks[key]
            if taken is None or viewer.size + len(taken[1]) > MAX_PENDING:
                self.dropped_slow += 1
                self._close(viewer)
                continue
            viewer.after, data = taken
            viewer.queue(data)
            if not viewer.writing:
                self._write(viewer)

    def _write(self, viewer: Viewer) -> None:
        """Send what the socket takes now; wait for EVENT_WRITE for the rest."""
        try:
            while viewer.pending:
                head = viewer.pending[0]
                sent = viewer.sock.send(memoryview(head)[viewer.offset:])
                viewer.size -= sent
                viewer.last_write = self.clock()
                if viewer.offset + sent < len(head):
                    viewer.offset += sent
                    break
                viewer.pending.popleft()
                viewer.offset = 0
        except BlockingIOError:
            pass
        except OSError:
            self._close(viewer)
            return
        want = bool(viewer.pending)
        if want != viewer.writing:
            viewer.writing = want
            events = selectors.EVENT_READ | (selectors.EVENT_WRITE if want else 0)
            self._selector.modify(viewer.sock, events, viewer.fd)

    def _read(self, viewer: Viewer) -> bool:
        """A viewer sends nothing after its request: end of stream or an error closes it.
        False when it was closed."""
        try:
            data = viewer.sock.recv(4096)
        except BlockingIOError:
            return True
        except OSError:
            data = b""
        if not data:
            self._close(viewer)
            return False
        return True

    def _check(self, now: float) -> None:
        for viewer in list(self._viewers.values()):
            if viewer.pending:
                if now - viewer.last_write >= STALL:
                    self.dropped_stalled += 1
                    self._close(viewer)
            elif now - viewer.last_write >= HEARTBEAT:
                viewer.queue(KEEP_ALIVE)
                self._write(viewer)

    def _close(self, viewer: Viewer, register: bool = True) -> None:
        if self._viewers.pop(viewer.fd, None) is None and register:
            return
        if register:
            try:
                self._selector.unregister(viewer.sock)
            except (KeyError, ValueError, OSError):
                pass
        try:
            viewer.sock.close()
        except OSError:
            pass
        viewer.pending.clear()
        with self._lock:
            self._count -= 1
        if viewer.on_close is not None:
            viewer.on_close()


def detach(sock: socket.socket) -> socket.socket:
    """A socket object of its own for the connection ``sock`` holds; ``sock`` is left
    closed without closing the connection (the HTTP server's clean-up then does nothing)."""
    return socket.socket(fileno=sock.detach())

