"""The stand-in lidraughts server's NDJSON streams (tests/support/lidraughts_standin.py): each
open stream a queue of lines, sent chunked with a blank keep-alive line after a quiet spell,
ended by a last chunk when its game is over, or cut without one (a fault the test injects:
``cut``, ``send_line``)."""

from __future__ import annotations

import io
import json
import queue
import socket
import threading
from typing import Any

#: Queued on a stream: drop the connection with no end.
CUT = object()


def encode(obj: dict[str, Any]) -> bytes:
    """One NDJSON line, as lidraughts writes it (no spaces)."""
    return json.dumps(obj, separators=(",", ":")).encode() + b"\n"


class Stream:
    """An open stream (``event`` or ``game``): lines to send, None for its end, or a cut."""

    def __init__(self, kind: str, game_id: str | None) -> None:
        self.kind = kind
        self.game_id = game_id
        self.lines: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self.sock: socket.socket | None = None


def pump(wfile: io.BufferedIOBase, stream: Stream, keepalive_s: float) -> None:
    """Send ``stream``'s lines as HTTP chunks, a blank line after ``keepalive_s`` with nothing
    to send, until it ends (the last chunk sent) or is cut (none)."""
    while True:
        try:
            item = stream.lines.get(timeout=keepalive_s)
        except queue.Empty:
            item = b"\n"
        if item is CUT:
            return
        if item is None:
            wfile.write(b"0\r\n\r\n")
            wfile.flush()
            return
        wfile.write(b"%x\r\n%s\r\n" % (len(item), item))
        wfile.flush()


class Streams:
    """The stand-in's open streams, kept under its lock (``arrived`` told of each change)."""

    def __init__(self, lock: threading.RLock, arrived: threading.Condition) -> None:
        self.lock = lock
        self.arrived = arrived
        self.open: list[Stream] = []

    def add(self, kind: str, game_id: str | None, first: list[bytes | None]) -> Stream:
        """A stream listed, its ``first`` lines queued before, so that nothing overtakes them
        (the caller holds the lock while it reads what they say)."""
        stream = Stream(kind, game_id)
        with self.lock:
            for line in first:
                stream.lines.put(line)
            self.open.append(stream)
            self.arrived.notify_all()
        return stream

    def remove(self, stream: Stream) -> None:
        with self.lock:
            if stream in self.open:
                self.open.remove(stream)
            self.arrived.notify_all()

    def count(self, kind: str) -> int:
        with self.lock:
            return sum(1 for s in self.open if s.kind == kind)

    def to_events(self, obj: dict[str, Any]) -> None:
        """``obj`` on every event stream."""
        with self.lock:
            for s in self.open:
                if s.kind == "event":
                    s.lines.put(encode(obj))

    def to_game(self, game_id: str, line: bytes, end: bool) -> None:
        """``line`` on the streams of game ``game_id``; ``end``: the streams ended after it."""
        with self.lock:
            for s in self.open:
                if s.kind == "game" and s.game_id == game_id:
                    s.lines.put(line)
                    if end:
                        s.lines.put(None)

    # -- faults ------------------------------------------------------------------------------

    def cut(self, kind: str | None = None) -> None:
        """Drop the open streams of ``kind`` (None: all) without an end."""
        with self.lock:
            for s in list(self.open):
                if kind is None or s.kind == kind:
                    s.lines.put(CUT)
                    if s.sock is not None:
                        try:
                            s.sock.shutdown(socket.SHUT_RDWR)
                        except OSError:
                            pass

    def send_line(self, raw: bytes, kind: str) -> None:
        """``raw`` and a newline on the open streams of ``kind``."""
        with self.lock:
            for s in self.open:
                if s.kind == kind:
                    s.lines.put(raw + b"\n")

    def keepalive(self) -> None:
        """A blank line on every open stream."""
        with self.lock:
            for s in self.open:
                s.lines.put(b"\n")
