"""A board's serial feed as the relay reads it: a port reopened with backoff whenever it
vanishes, and the bytes cut into lines (an overlong line dropped)."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from typing import Any

#: A longer line is noise: dropped, and the reader resynchronises at the next newline.
MAX_LINE = 64 * 1024


class LineSplitter:
    """Bytes from a port in, complete lines out; an overlong line is cut and dropped."""

    def __init__(self, limit: int = MAX_LINE) -> None:
        self._buf = bytearray()
        self._limit = limit
        self._skipping = False

    def feed(self, data: bytes) -> list[bytes]:
        self._buf += data
        lines: list[bytes] = []
        while True:
            i = self._buf.find(b"\n")
            if i < 0:
                break
            line = bytes(self._buf[: i + 1])
            del self._buf[: i + 1]
            if self._skipping:
                self._skipping = False
                continue
            lines.append(line)
        if len(self._buf) > self._limit:
            self._buf.clear()
            self._skipping = True
        return lines

    def reset(self) -> None:
        """Forget a partial line (the port was closed: its rest will never come)."""
        self._buf.clear()
        self._skipping = False


class SerialFeed:
    """One board's serial port, reopened with backoff whenever it vanishes."""

    def __init__(self, url: str, now: Callable[[], float] = time.monotonic,
                 backoff: tuple[float, float] = (0.2, 5.0), baudrate: int = 115200) -> None:
        self.url = url
        self.name = url
        self._now = now
        self._backoff_min, self._backoff_max = backoff
        self._backoff = self._backoff_min
        self._retry_at = 0.0
        self._baudrate = baudrate
        self._port: Any = None
        self._lines = LineSplitter()
        self.opens = 0
        self.last_error: str | None = None

    @property
    def connected(self) -> bool:
        return self._port is not None

    def fileno(self) -> int | None:
        """The open port's descriptor, to wait on with select; None for URLs without one."""
        try:
            return int(self._port.fileno()) if self._port is not None else None
        except (AttributeError, OSError, ValueError, TypeError):
            return None

    def _open(self) -> None:
        import serial

        self._port = serial.serial_for_url(self.url, baudrate=self._baudrate, timeout=0)
        self.opens += 1
        self._backoff = self._backoff_min
        self.last_error = None
        self._lines.reset()

    def _lost(self, exc: Exception) -> None:
        self.last_error = f"{self.url}: {exc}"
        if self._port is not None:
            try:
                self._port.close()
            except Exception:  # closing a port that vanished may fail too: it is gone either way
                pass
        self._port = None
        self._lines.reset()
        self._retry_at = self._now() + self._backoff
        self._backoff = min(self._backoff * 2, self._backoff_max)

    def read_lines(self) -> list[bytes]:
        """Whatever complete lines have arrived; never blocks."""
        import serial

        if self._port is None:
            if self._now() < self._retry_at:
                return []
            try:
                self._open()
            except (serial.SerialException, OSError, ValueError) as exc:
                self._lost(exc)
                return []
        try:
            # With timeout=0 a read never blocks; on a tty whose other end has gone, pySerial
            # raises ("device reports readiness to read but returned no data").
            data = self._port.read(max(1, self._port.in_waiting))
            if not data and self.url.startswith(("/", ".")) and not os.path.exists(self.url):
                raise serial.SerialException("device vanished")
        except (serial.SerialException, OSError) as exc:
            self._lost(exc)
            return []
        return self._lines.feed(data) if data else []

    def close(self) -> None:
        if self._port is not None:
            self._port.close()
            self._port = None
