"""Where ``boardctl watch`` reads a board: a service on this machine over its control socket
(:class:`SocketSource`), or a hall board over MQTT (:class:`MqttSource`).

A source's :meth:`run` blocks on its own thread until ``stop`` is set, handing what it reads to
``deliver(kind, payload)``: ``("status", answer)`` (the control socket's ``status``),
``("record", typed feed record)`` (``firmware.formats.records``, each line read once by
``firmware.formats.reader``), ``("sensors", answer)`` or ``("link", text or None)`` (how the
link is: None when all is well).

The control socket answers requests and pushes nothing, so :class:`SocketSource` asks for
``status`` every :data:`POLL_S` on one connection kept open: a request and a short JSON answer
(a fraction of a millisecond of work on each side), so that a feed line is on the screen
within :data:`POLL_S` plus the service's status freshness (50 ms, boardctl.service.arbiter)
of the service writing it (benchmarks/bench_watch.py measures both figures).
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from boardctl.service.control import ControlError, encode
from firmware.formats.reader import FeedLine, Refusal, read_line
from firmware.formats.records import HeaderRecord, SnapshotRecord, StatusRecord

if TYPE_CHECKING:
    from boardctl.hall.mqtt import BrokerConfig

#: Seconds between two ``status`` requests.
POLL_S = 0.05
#: Seconds between two tries to reach a service that went away.
RETRY_S = 1.0
#: The longest answer line read (a status is a few KiB; a long game's a few tens).
MAX_ANSWER = 4 * 1024 * 1024

#: Seconds between two clock readings handed on when nothing else changed.
RESYNC_S = 1.0
#: What changes in every answer while a clock runs.
VOLATILE = frozenset({"t", "clock", "id"})

Deliver = Callable[[str, Any], None]


class SocketClient:
    """One connection to a control socket, kept open: a request a line, its answer a line."""

    def __init__(self, path: Path, timeout: float = 2.0) -> None:
        self.path = Path(path)
        self.timeout = timeout
        self._sock: socket.socket | None = None
        self._buf = bytearray()

    def ask(self, cmd: str, **args: Any) -> dict[str, Any]:
        """The answer to one request (ControlError: unreachable, closed, refused)."""
        if self._sock is None:
            self._connect()
        assert self._sock is not None
        try:
            self._sock.sendall(encode({"cmd": cmd, **args}))
            while b"\n" not in self._buf:
                chunk = self._sock.recv(65536)
                if not chunk:
                    raise ControlError("the board service closed the connection")
                self._buf += chunk
                if len(self._buf) > MAX_ANSWER:
                    raise ControlError("the board service sent an answer too long to read")
        except OSError as exc:
            self.close()
            raise ControlError(f"the board service did not answer ({exc.strerror or exc})"
                               ) from None
        except ControlError:
            self.close()
            raise
        cut = self._buf.index(b"\n")
        line = bytes(self._buf[:cut])
        del self._buf[: cut + 1]
        try:
            answer = json.loads(line)
        except ValueError:
            answer = None
        if not isinstance(answer, dict):
            raise ControlError("the board service sent an unreadable answer")
        if not answer.get("ok"):
            raise ControlError(str(answer.get("error") or f"{cmd}: refused"))
        return answer

    def _connect(self) -> None:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.settimeout(self.timeout)
        try:
            sock.connect(str(self.path))
        except OSError as exc:
            sock.close()
            if isinstance(exc, PermissionError):
                raise ControlError(f"{self.path}: permission denied (join the service's "
                                   "group to watch the board)") from None
            raise ControlError(f"the board service is not running (no control socket at "
                               f"{self.path}: {exc.strerror or exc})") from None
        self._sock = sock
        self._buf.clear()

    def close(self) -> None:
        if self._sock is not None:
            self._sock.close()
            self._sock = None


class SocketSource:
    """A service on this machine: ``status`` (or ``sensors``) polled over one connection."""

    def __init__(self, path: Path, cmd: str = "status", poll_s: float = POLL_S) -> None:
        self.client = SocketClient(path)
        self.cmd = cmd
        self.kind = "sensors" if cmd == "sensors" else "status"
        self.poll_s = poll_s

    def first(self) -> dict[str, Any]:
        """One answer now (ControlError with the reason when the service cannot be reached),
        so that ``watch`` says at once why it cannot start."""
        return self.client.ask(self.cmd)

    def run(self, deliver: Deliver, stop: threading.Event) -> None:
        """Poll until ``stop``; an answer that differs from the last only in its clocks is
        handed on once a second (the faces tick by themselves in between)."""
        broken: str | None = None
        last: dict[str, Any] = {}
        sent = 0.0
        while not stop.is_set():
            try:
                answer = self.client.ask(self.cmd)
            except ControlError as exc:
                if str(exc) != broken:
                    broken = str(exc)
                    deliver("link", f"not reachable: {broken}")
                stop.wait(RETRY_S)
                continue
            if broken is not None:
                broken = None
                deliver("link", None)
            stable = {k: v for k, v in answer.items() if k not in VOLATILE}
            now = time.monotonic()
            if stable != last or now - sent >= RESYNC_S:
                last, sent = stable, now
                deliver(self.kind, answer)
            stop.wait(self.poll_s)
        self.client.close()


class FeedOrder:
    """Feed lines in the order of their run: a repeat (``seq`` not past the run's last)
    dropped, a gap told (the next snapshot makes it good)."""

    def __init__(self) -> None:
        self.last: int | None = None
        self.gaps = 0

    def take(self, line: FeedLine) -> tuple[bool, bool]:
        """(take it, lines were lost before it)."""
        seq = line.seq
        if isinstance(line.record, HeaderRecord):
            self.last = seq
            return True, False
        if self.last is not None and seq <= self.last:
            return False, False
        lost = self.last is not None and seq > self.last + 1
        self.last = seq
        self.gaps += lost
        return True, lost


class MqttSource:
    """A hall board over MQTT: its feed and status topics (docs/CONTRACT.md "MQTT")."""

    def __init__(self, config: BrokerConfig, hall: str, board: str) -> None:
        self.config = config
        self.hall = hall
        self.board = board
        self.order = FeedOrder()
        #: The link said it waits for a snapshot (at the start, after lost lines, after the
        #: broker was lost): the next one says it is back, once.
        self.waiting = True

    def run(self, deliver: Deliver, stop: threading.Event) -> None:
        import os

        from boardctl.hall.mqtt import connect_error, make_client, topic

        feed, status = topic(self.hall, self.board, "feed"), topic(self.hall, self.board,
                                                                   "status")
        client = make_client(self.config, f"watch-{os.getpid()}-{self.board}"[:60])

        def on_connect(client: Any, userdata: Any, flags: Any, reason: Any,
                       props: Any = None) -> None:
            if getattr(reason, "is_failure", False):
                deliver("link", f"broker refused: {reason}")
                return
            client.subscribe([(feed, 1), (status, 1)])
            self.waiting = True
            deliver("link", "waiting for a snapshot")

        def on_disconnect(client: Any, userdata: Any, flags: Any, reason: Any,
                          props: Any = None) -> None:
            if not stop.is_set():
                self.waiting = True
                deliver("link", f"broker lost ({reason}); reconnecting")

        client.on_connect = on_connect
        client.on_disconnect = on_disconnect
        client.on_message = lambda c, u, msg: self._message(msg.topic == feed, msg.payload,
                                                            deliver)
        client.reconnect_delay_set(1, 10)
        try:
            client.connect_async(self.config.host, self.config.port, self.config.keepalive)
        except (OSError, ValueError) as exc:
            deliver("link", f"broker: {connect_error(exc)}")
            return
        client.loop_start()
        try:
            stop.wait()
        finally:
            client.disconnect()
            client.loop_stop()

    def _message(self, is_feed: bool, payload: bytes, deliver: Deliver) -> None:
        from boardctl.hall.mqtt import MAX_PAYLOAD

        if not is_feed:
            deliver("record", StatusRecord(payload[:20].decode("ascii", "replace")))
            return
        line = read_line(payload) if len(payload) <= MAX_PAYLOAD else None
        if line is None or isinstance(line, Refusal):
            return  # damaged or foreign: dropped, as the relay drops it
        take, lost = self.order.take(line)
        if lost:
            self.waiting = True
            deliver("link", "lost lines: waiting for a snapshot")
        if take and not isinstance(line.record, Refusal):
            if isinstance(line.record, SnapshotRecord) and self.waiting:
                self.waiting = False
                deliver("link", None)
            deliver("record", line.record)
