"""The control socket's server: the service's end of ``boardctl.service.control``.

It runs on its own thread (:meth:`ControlServer.start`; the service's handler hands each
request to the referee's thread and waits for its answer), or is polled by a loop on an
injected clock (:meth:`ControlServer.poll`). Each line is answered through
:func:`boardctl.service.control.schema.respond`. Bounded (issue 10 item 4): at most
:data:`MAX_CONNECTIONS` clients (the next is told so and closed), :data:`PER_TURN` requests of
one client per turn (pipelining clients take turns with everyone else), replies buffered up to
:data:`MAX_OUTBUF` per client; a client that lets that fill, or that reads nothing of its
replies for :data:`STALL_S`, is dropped, never waited for. Running out of file descriptors
(EMFILE) pauses accepting for a moment instead of spinning.
"""

from __future__ import annotations

import errno
import grp
import os
import selectors
import socket
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from boardctl.service.control.schema import (
    MAX_REQUEST,
    ControlError,
    Handler,
    encode,
    respond,
)
from boardctl.service.doorbell import Doorbell

#: Clients connected at once.
MAX_CONNECTIONS = 32
#: Requests of one client answered per turn before the others get theirs.
PER_TURN = 8
#: Replies buffered for a client that does not read them.
MAX_OUTBUF = 256 * 1024
#: Seconds a client may leave its replies unread before it is dropped.
STALL_S = 2.0
#: Seconds accepting pauses when the process runs out of file descriptors.
EMFILE_PAUSE_S = 0.2


class _Conn:
    __slots__ = ("sock", "inbuf", "outbuf", "skipping", "stalled", "active")

    def __init__(self, sock: socket.socket, now: float) -> None:
        self.sock = sock
        #: When the client last sent something (the idlest one makes room for a newcomer).
        self.active = now
        self.inbuf = bytearray()
        self.outbuf = bytearray()
        self.skipping = False
        #: Monotonic seconds since when the client has left replies unread (None: it reads).
        self.stalled: float | None = None


class ControlServer:
    """The service's end: a listening Unix socket (module docstring for the bounds).

    ``handler`` gets each valid request and returns the response's members; a BoardError it
    raises becomes ``{"ok": false, "error": ...}``.
    """

    def __init__(self, path: Path, handler: Handler, group: str | None = None, *,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.path = Path(path)
        self.handler = handler
        self.clock = clock
        self.requests = 0
        self.errors = 0
        self.refused = 0
        self.dropped = 0
        self._conns: set[_Conn] = set()
        self._ready: list[_Conn] = []  # clients with complete requests still to answer
        self._accept_paused_until = 0.0
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self._sock = _listen(self.path, group)
        self._sel = selectors.DefaultSelector()
        self._sel.register(self._sock, selectors.EVENT_READ, None)
        #: Rung by close(): the serving thread sleeps in select() until something happens,
        #: not on a timer (an idle board's control thread never wakes).
        self._bell = Doorbell()
        self._sel.register(self._bell.fileno(), selectors.EVENT_READ, self._bell)

    def fileno(self) -> int:
        return self._sel.fileno()

    @property
    def connections(self) -> int:
        return len(self._conns)

    def start(self) -> None:
        """Serve on a thread of its own until :meth:`close`."""
        self._thread = threading.Thread(target=self._serve, name="control", daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        from boardctl.service.threadname import name_thread

        name_thread("boardctl-control")
        while not self._stop.is_set():
            try:
                self.poll(self._wait())
            except Exception as exc:  # the control socket must never take the board down
                self.errors += 1
                print(f"boardctl: control socket: {type(exc).__name__}: {exc}",
                      file=sys.stderr, flush=True)
                self._stop.wait(0.1)

    def _wait(self) -> float | None:
        """How long the serving thread may sleep in select(): until a stalled client's
        deadline or the end of an accept pause; None (until something happens) otherwise."""
        due = [conn.stalled + STALL_S for conn in self._conns if conn.stalled is not None]
        if self._accept_paused_until:
            due.append(self._accept_paused_until)
        if not due:
            return None
        return max(0.0, min(due) - self.clock()) + 0.001

    def poll(self, timeout: float | None = 0.0) -> int:
        """Accept, read, answer whatever is ready (waiting at most ``timeout`` seconds for
        something to happen). Returns the number of requests answered."""
        answered = 0
        now = self.clock()
        if self._accept_paused_until and now >= self._accept_paused_until:
            self._accept_paused_until = 0.0
            self._sel.register(self._sock, selectors.EVENT_READ, None)
        for key, mask in self._sel.select(0.0 if self._ready else timeout):
            if key.data is None:
                self._accept()
                continue
            if key.data is self._bell:
                self._bell.drain()
                continue
            conn: _Conn = key.data
            if mask & selectors.EVENT_WRITE and conn in self._conns:
                self._flush(conn)
            if mask & selectors.EVENT_READ and conn in self._conns:
                self._read(conn)
        ready, self._ready = self._ready, []
        for conn in ready:
            if conn in self._conns:
                answered += self._answer_some(conn)
        for conn in list(self._conns):
            if conn.stalled is not None and now - conn.stalled > STALL_S:
                self._drop(conn)  # reads nothing of its replies: never waited for
        return answered

    def _accept(self) -> None:
        while True:
            try:
                sock, _ = self._sock.accept()
            except (BlockingIOError, InterruptedError):
                return
            except OSError as exc:
                if exc.errno in (errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM):
                    # Out of descriptors: stop listening for a moment rather than spin on a
                    # socket that stays readable.
                    self.refused += 1
                    self._sel.unregister(self._sock)
                    self._accept_paused_until = self.clock() + EMFILE_PAUSE_S
                return
            if len(self._conns) >= MAX_CONNECTIONS:
                # A client with only part of a line sent is as idle as one that sent
                # nothing: 32 clients each holding a "{" must not lock the arbiter out.
                idle = [c for c in self._conns if b"\n" not in c.inbuf and not c.outbuf]
                if not idle:
                    self._refuse(sock)
                    continue
                # Full of clients: the one idle longest makes room (a client holding many
                # idle connections never locks the arbiter out).
                oldest = min(idle, key=lambda c: c.active)
                self._conns.discard(oldest)
                self._sel.unregister(oldest.sock)
                self._refuse(oldest.sock)
            sock.setblocking(False)
            conn = _Conn(sock, self.clock())
            self._conns.add(conn)
            self._sel.register(sock, selectors.EVENT_READ, conn)

    def _refuse(self, sock: socket.socket) -> None:
        self.refused += 1
        try:
            sock.send(encode({"ok": False, "error": f"too many clients (at most "
                              f"{MAX_CONNECTIONS}); try again later"}))
        except OSError:
            pass
        sock.close()

    def _drop(self, conn: _Conn) -> None:
        if conn not in self._conns:
            return
        self._conns.discard(conn)
        self.dropped += 1
        try:
            self._sel.unregister(conn.sock)
        except (KeyError, ValueError):
            pass
        conn.sock.close()

    def _read(self, conn: _Conn) -> None:
        try:
            data = conn.sock.recv(MAX_REQUEST)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            self._drop(conn)
            return
        if not data:
            self._drop(conn)
            return
        conn.inbuf += data
        conn.active = self.clock()
        self._answer_some(conn)

    def _answer_some(self, conn: _Conn) -> int:
        """Up to PER_TURN requests of one client; the rest wait for its next turn."""
        answered = 0
        while answered < PER_TURN:
            i = conn.inbuf.find(b"\n")
            if i < 0:
                break
            line = bytes(conn.inbuf[:i])
            del conn.inbuf[: i + 1]
            if conn.skipping:
                conn.skipping = False
                continue
            if len(line) > MAX_REQUEST:
                self.errors += 1
                conn.outbuf += encode({"ok": False, "error": "request line too long"})
            elif line.strip():
                conn.outbuf += encode(self.answer(line))
                answered += 1
        more = b"\n" in conn.inbuf
        if not more and len(conn.inbuf) > MAX_REQUEST:
            conn.inbuf.clear()
            if not conn.skipping:  # one answer for one line, however long it goes on
                conn.skipping = True
                self.errors += 1
                conn.outbuf += encode({"ok": False, "error": "request line too long"})
        if more:
            self._ready.append(conn)
        self._flush(conn)
        return answered

    def _flush(self, conn: _Conn) -> None:
        if conn.outbuf:
            try:
                n = conn.sock.send(conn.outbuf)
                del conn.outbuf[:n]
            except (BlockingIOError, InterruptedError):
                pass
            except OSError:
                self._drop(conn)
                return
        if len(conn.outbuf) > MAX_OUTBUF:
            self._drop(conn)
            return
        if conn.outbuf:
            conn.stalled = conn.stalled or self.clock()
        else:
            conn.stalled = None
        # A client with replies unread or requests still waiting is not read from: what it
        # sends waits in the kernel, not here.
        reading = not conn.outbuf and b"\n" not in conn.inbuf
        events = (selectors.EVENT_READ if reading else 0) | (
            selectors.EVENT_WRITE if conn.outbuf else 0)
        if events:
            self._sel.modify(conn.sock, events, conn)
        else:
            self._sel.modify(conn.sock, selectors.EVENT_WRITE, conn)

    def answer(self, line: str | bytes) -> dict[str, Any]:
        """The response to one request line (also used by tests without a socket)."""
        self.requests += 1
        response = respond(self.handler, line)
        if not response["ok"]:
            self.errors += 1
        return response

    def close(self) -> None:
        if self._bell.closed:
            return
        self._stop.set()
        self._bell.ring()
        if self._thread is not None:
            self._thread.join(2.0)
            self._thread = None
        for conn in list(self._conns):
            self._drop(conn)
        self._sel.close()
        self._sock.close()
        self._bell.close()
        try:
            self.path.unlink()
        except FileNotFoundError:
            pass


def _listen(path: Path, group: str | None) -> socket.socket:
    """The listening socket at ``path``, mode 0660 (group ``group`` when given), backlog 64,
    non-blocking; a socket left by a crash is removed, one a running service holds is not."""
    if len(os.fsencode(path)) >= 104:
        raise ControlError(f"{path}: socket path too long for a Unix socket")
    if path.is_socket():
        _remove_stale(path)
    gid = -1
    if group is not None:
        try:
            gid = grp.getgrnam(group).gr_gid
        except KeyError:
            raise ControlError(f"--group: no group named {group!r}") from None
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    old = os.umask(0o117)
    try:
        sock.bind(str(path))
    except OSError as exc:
        sock.close()
        raise ControlError(f"{path}: cannot listen: {exc.strerror or exc}") from None
    finally:
        os.umask(old)
    os.chmod(path, 0o660)
    if gid >= 0:
        os.chown(path, -1, gid)
    sock.listen(64)
    sock.setblocking(False)
    return sock


def _remove_stale(path: Path) -> None:
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        probe.connect(str(path))
    except OSError:
        path.unlink()  # nobody listens: left over by a crash
        return
    finally:
        probe.close()
    raise ControlError(f"{path}: another service is running on this socket")
