"""The broadcast feed port: lines out over a serial line, never blocking the service.

:class:`FeedPort` owns the port on its own writer thread. ``send(line)`` only appends to a
bounded queue and returns at once; when the queue is full the oldest line is dropped and
counted (a broadcast wants the newest state, and snapshots let a reader catch up). The writer
writes with pyserial's ``write_timeout``: a reader that stops reading costs a timed-out line,
never a stuck service; the next line is then preceded by a newline, so the half-written line
ends there and its checksum makes the reader drop it (readers skip blank lines: pyserial can
also report a timeout for a write that completed late, and the newline then stands alone).

When the port vanishes (a USB gadget or USB-UART unplugged, a pty closed: ``SerialException``
or ``OSError`` on write or open), the writer closes it and reopens it with exponential backoff.
Each time it (re)opens, the ``on_connect`` hook runs on the writer thread; if it returns lines
(a full snapshot) they are written first and the lines queued before are dropped (counted),
since the snapshot supersedes them. The hook may also return None and just note the event.

Ports: anything ``serial.serial_for_url`` opens (``/dev/ttyGS0`` for USB gadget serial,
``/dev/serial0`` for the UART, ``loop://`` in tests, a pty's slave path); a regular file path
(or one that does not exist yet) is appended to instead, for ``--feed FILE``.
"""

from __future__ import annotations

import os
import stat
import threading
from collections import deque
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import serial

if TYPE_CHECKING:
    from hw.config import SerialConfig

Line = str | bytes


class Sink(Protocol):
    def write(self, data: bytes) -> int | None: ...
    def close(self) -> None: ...


class FileSink:
    """A regular file as a feed sink: appended to, flushed after each line."""

    def __init__(self, path: str) -> None:
        self._file = open(path, "ab", buffering=0)  # noqa: SIM115 - owned by the FeedPort

    def write(self, data: bytes) -> int | None:
        return self._file.write(data)

    def close(self) -> None:
        self._file.close()


def open_sink(url: str, baudrate: int, write_timeout: float) -> Sink:
    """Open a feed destination: a serial device or URL, or a regular file."""
    if "://" not in url:
        try:
            mode = os.stat(url).st_mode
        except FileNotFoundError:
            if os.path.basename(url).startswith("tty") or url.startswith("/dev/"):
                raise serial.SerialException(f"could not open port {url}: no such device") \
                    from None
            return FileSink(url)
        if stat.S_ISREG(mode):
            if url.startswith("/dev/"):  # a device's name holding a file someone wrote there
                raise serial.SerialException(f"could not open port {url}: a regular file, "
                                             "not a serial device")
            return FileSink(url)
    if "://" in url:
        port: Any = serial.serial_for_url(url, baudrate=baudrate, write_timeout=write_timeout)
    else:  # a device: locked (flock) so that a getty or ModemManager cannot share it unseen
        port = serial.serial_for_url(url, baudrate=baudrate, write_timeout=write_timeout,
                                     exclusive=True)
    return port  # type: ignore[no-any-return]


def modem_manager_warning(port: str, proc: Path = Path("/proc")) -> str | None:
    """A warning when ModemManager runs: it probes serial ports (USB gadget and USB serial
    above all) with AT commands, which would then appear on a reader's screen and hold the
    port while it does. None when it is not running or the feed is not a serial device."""
    if "://" in port or not port.startswith("/dev/"):
        return None
    try:
        running = any((p / "comm").read_text().strip() == "ModemManager"
                      for p in proc.iterdir() if p.name.isdigit())
    except OSError:
        return None
    if not running:
        return None
    return (f"ModemManager is running and may grab the feed port {port}: "
            "sudo systemctl disable --now ModemManager (or mark the port "
            "ID_MM_DEVICE_IGNORE=1 in a udev rule)")


class FeedPort:
    """A non-blocking, self-healing line writer on a serial port (see the module text)."""

    def __init__(
        self,
        url: str,
        *,
        baudrate: int = 115200,
        write_timeout: float = 0.5,
        queue_lines: int = 2000,
        reconnect_min_s: float = 0.05,
        reconnect_max_s: float = 5.0,
        on_connect: Callable[[], Iterable[Line] | None] | None = None,
        opener: Callable[[str, int, float], Sink] = open_sink,
    ) -> None:
        self.url = url
        self.baudrate = baudrate
        self.write_timeout = write_timeout
        self.reconnect_min_s = reconnect_min_s
        self.reconnect_max_s = reconnect_max_s
        self.on_connect = on_connect
        self._opener = opener
        self._queue: deque[bytes] = deque()
        self._limit = queue_lines
        self._cond = threading.Condition()
        self._closing = False
        self._busy = False
        self._port: Sink | None = None
        self._thread: threading.Thread | None = None
        #: Counters: lines written, lines dropped (queue full, superseded, timed out),
        #: writes that timed out, times the port was opened.
        self.written = 0
        self.dropped = 0
        self.timeouts = 0
        self.connects = 0
        self.last_error: str | None = None

    @classmethod
    def from_config(cls, config: SerialConfig, **kwargs: Any) -> FeedPort:
        """From a hw.config.SerialConfig."""
        return cls(config.port, baudrate=config.baudrate, write_timeout=config.write_timeout,
                   queue_lines=config.queue_lines, reconnect_max_s=config.reconnect_max_s,
                   **kwargs)

    @property
    def connected(self) -> bool:
        return self._port is not None

    def start(self) -> FeedPort:
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="feed-port", daemon=True)
            self._thread.start()
        return self

    def send(self, line: Line) -> None:
        """Queue one line (a newline is added if missing); never blocks."""
        data = line.encode("utf-8") if isinstance(line, str) else bytes(line)
        if not data.endswith(b"\n"):
            data += b"\n"
        with self._cond:
            if len(self._queue) >= self._limit:
                self._queue.popleft()
                self.dropped += 1
            self._queue.append(data)
            self._cond.notify_all()

    def wait_idle(self, timeout: float) -> bool:
        """Block until every queued line is written (or dropped); False on timeout."""
        with self._cond:
            return self._cond.wait_for(lambda: not self._queue and not self._busy, timeout)

    def wait_connected(self, count: int = 1, timeout: float = 5.0) -> bool:
        """Block until the port has been opened ``count`` times in all; False on timeout."""
        with self._cond:
            return self._cond.wait_for(lambda: self.connects >= count, timeout)

    def close(self) -> None:
        with self._cond:
            self._closing = True
            self._cond.notify_all()
        if self._thread is not None:
            self._thread.join(timeout=max(2.0, 2 * self.write_timeout))
            self._thread = None
        self._drop_port()

    def __enter__(self) -> FeedPort:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- the writer thread ---------------------------------------------------------------

    def _run(self) -> None:
        backoff = self.reconnect_min_s
        first: list[bytes] = []  # lines from on_connect, written before the queue
        resync = False
        while not self._closing:
            if self._port is None:
                if not self._open():
                    with self._cond:
                        if self._cond.wait_for(lambda: self._closing, backoff):
                            return
                    backoff = min(backoff * 2, self.reconnect_max_s)
                    continue
                backoff = self.reconnect_min_s
                first = self._connected_lines()
            if first:
                data = first.pop(0)
            else:
                with self._cond:
                    self._cond.wait_for(lambda: self._queue or self._closing)
                    if self._closing:
                        return
                    data = self._queue.popleft()
                    self._busy = True
            try:
                port = self._port
                assert port is not None
                port.write(b"\n" + data if resync else data)
                resync = False
                with self._cond:
                    self.written += 1
            except serial.SerialTimeoutException:
                with self._cond:
                    self.timeouts += 1
                    self.dropped += 1
                resync = True
            except (serial.SerialException, OSError) as exc:
                self.last_error = str(exc)
                self._drop_port()
                with self._cond:
                    if self.on_connect is None:
                        self._queue.appendleft(data)
                    else:
                        self.dropped += 1
                resync = False
            finally:
                with self._cond:
                    self._busy = False
                    self._cond.notify_all()

    def _open(self) -> bool:
        try:
            port = self._opener(self.url, self.baudrate, self.write_timeout)
        except (serial.SerialException, OSError, ValueError) as exc:
            self.last_error = str(exc)
            return False
        with self._cond:
            self._port = port
            self.connects += 1
            self._cond.notify_all()
        return True

    def _connected_lines(self) -> list[bytes]:
        if self.on_connect is None:
            return []
        try:
            lines = self.on_connect()
        except Exception as exc:  # the service's hook failing must not kill the writer
            self.last_error = f"on_connect hook failed: {exc!r}"
            return []
        if lines is None:
            return []
        out = []
        for line in lines:
            data = line.encode("utf-8") if isinstance(line, str) else bytes(line)
            out.append(data if data.endswith(b"\n") else data + b"\n")
        with self._cond:
            self.dropped += len(self._queue)
            self._queue.clear()
        return out

    def _drop_port(self) -> None:
        port, self._port = self._port, None
        if port is not None:
            try:
                port.close()
            except (serial.SerialException, OSError):
                pass
