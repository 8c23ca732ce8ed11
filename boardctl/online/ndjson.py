"""NDJSON framing as lidraughts streams it: one JSON object a line, blank lines to keep the
connection alive (every 6 s: ``GameStateStream``, ``EventStream``). Pure: bytes in, lines and
objects out (STYLE.md lesson 7).

A line longer than ``max_line`` is dropped as its bytes arrive, so memory stays bounded
whatever the server sends (``firmware.limits``' rule for every outside line); the splitter
reports it once, as :class:`Oversized`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from boardctl.online.errors import ProtocolError
from firmware.limits import MAX_LINE, loads

__all__ = ["MAX_LINE", "LineSplitter", "Oversized", "read_object"]


@dataclass(frozen=True, slots=True)
class Oversized:
    """A line dropped for its length: ``size`` bytes (its newline not counted)."""

    size: int


class LineSplitter:
    """Cuts a byte stream into lines (``\\n``, a ``\\r`` before it dropped); at most
    ``max_line`` bytes are held."""

    __slots__ = ("max_line", "_buf", "_dropping")

    def __init__(self, max_line: int = MAX_LINE) -> None:
        self.max_line = max_line
        self._buf = bytearray()
        self._dropping = 0  # bytes of an over-long line dropped so far (0: not dropping)

    def feed(self, data: bytes) -> list[bytes | Oversized]:
        """The lines ``data`` completes, in order: bytes (b"" for a keep-alive) or Oversized."""
        out: list[bytes | Oversized] = []
        start = 0
        while (nl := data.find(b"\n", start)) >= 0:
            out.append(self._line(data, start, nl))
            start = nl + 1
        self._hold(data, start)
        return out

    def _line(self, data: bytes, start: int, end: int) -> bytes | Oversized:
        size = end - start
        if self._dropping:
            dropped, self._dropping = self._dropping + size, 0
            return Oversized(dropped)
        if len(self._buf) + size > self.max_line:
            dropped = len(self._buf) + size
            self._buf.clear()
            return Oversized(dropped)
        if self._buf:
            self._buf += data[start:end]
            line = bytes(self._buf)
            self._buf.clear()
        else:
            line = data[start:end]
        return line[:-1] if line.endswith(b"\r") else line

    def _hold(self, data: bytes, start: int) -> None:
        rest = len(data) - start
        if self._dropping:
            self._dropping += rest
        elif len(self._buf) + rest > self.max_line:
            self._dropping = len(self._buf) + rest
            self._buf.clear()
        else:
            self._buf += data[start:]


def read_object(line: bytes) -> dict[str, Any]:
    """A stream line as its JSON object, which must name its ``type``; ProtocolError with the
    reason otherwise."""
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError:
        raise ProtocolError("a line that is not UTF-8") from None
    try:
        obj = loads(text)
    except ValueError as exc:
        raise ProtocolError(f"a line that is not JSON ({_short(exc)})") from None
    if not isinstance(obj, dict):
        raise ProtocolError(f"a line that is JSON {type(obj).__name__}, not an object")
    if not isinstance(obj.get("type"), str):
        raise ProtocolError("a line without its type")
    return obj


def _short(exc: Exception) -> str:
    text = str(exc)
    return text if len(text) <= 80 else text[:77] + "..."
