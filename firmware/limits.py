"""Bounds on outside data (issue 10 item 4): every reader of event logs, journals, control
requests and feed lines takes its lines through :func:`bounded_lines` and its JSON through
:func:`loads`, so that no input (``[`` x 100,000, ``/dev/zero``, a 10 GB file) can raise a
RecursionError or grow memory without bound: it gets a one-line error instead."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator
from typing import IO, Any, TypeGuard

#: The deepest JSON nesting any record of ours has is 3 (a decision's record's clock); 32
#: leaves room and stays far below the interpreter's recursion limit.
MAX_DEPTH = 32
#: A line of an event log, a journal or the feed (the largest is a snapshot: a few KiB).
MAX_LINE = 64 * 1024
#: A FEN (a whole 10x10 board written square by square, kings marked, is about 250
#: characters; the rest is room for blanks).
MAX_FEN = 4096
#: An event log or a journal (a six-hour game writes a few MiB).
MAX_FILE = 64 * 1024 * 1024
#: A feed line as a reader takes it (a long game's snapshot is tens of KiB; MQTT's payload
#: is bounded lower, ``boardctl.hall.mqtt.MAX_PAYLOAD``).
MAX_FEED_LINE = 1 << 20
#: Plies a game may have (a ply number, the moves a snapshot lists).
MAX_PLY = 10_000
#: Seconds a clock may read, either way (a six-hour session is 21,600).
MAX_CLOCK = 1e7
#: Squares a record names (a 10x10 board has 100; an LED picture, a move's route).
MAX_SQUARES = 128
#: An id or a name on the feed (a game's id, a run's, a board's, a rule set's).
MAX_ID = 256
#: PDN tags a record carries (a game's header has a dozen).
MAX_TAGS = 256


class TooDeep(ValueError):
    """JSON nested deeper than :data:`MAX_DEPTH`."""


def depth(text: str | bytes) -> int:
    """How deeply ``text``'s brackets nest (ignoring brackets inside strings)."""
    if isinstance(text, bytes | bytearray):
        text = text.decode("utf-8", "replace")
    if text.count("[") + text.count("{") <= MAX_DEPTH:
        return 0  # cannot nest deeper than it has brackets: the common case, cheap
    deepest = level = 0
    in_str = esc = False
    for ch in text:
        if in_str:
            if esc:
                esc = False
            elif ch == "\\":
                esc = True
            elif ch == '"':
                in_str = False
        elif ch == '"':
            in_str = True
        elif ch in "[{":
            level += 1
            if level > deepest:
                deepest = level
                if deepest > MAX_DEPTH:
                    return deepest
        elif ch in "]}":
            level -= 1
    return deepest


class NotText(ValueError):
    """A JSON string that is not text: a lone UTF-16 surrogate (``"\\ud800"``), which no
    file, terminal or socket can carry on as UTF-8."""


#: A ``\\uD800``-``\\uDFFF`` escape: a surrogate, alone unless its pair follows or precedes.
_SURROGATE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")


class DuplicateKey(ValueError):
    """An object naming a key twice (``{"cmd": "status", "cmd": "pause"}``): JSON keeps the
    last, a reader may see the first."""


def _unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj: dict[str, Any] = {}
    for key, value in pairs:
        if key in obj:
            raise DuplicateKey(f"the key {key[:40]!r} given twice")
        obj[key] = value
    return obj


def loads(text: str | bytes, unique_keys: bool = False) -> Any:
    """``json.loads`` with a bound on nesting (ValueError, TooDeep, rather than RecursionError),
    whose strings are all text (ValueError, NotText, for a lone surrogate). ``unique_keys``:
    an object naming a key twice is refused too (ValueError, DuplicateKey), where a command
    must not read one way and act another."""
    if depth(text) > MAX_DEPTH:
        raise TooDeep(f"nested deeper than {MAX_DEPTH} levels")
    try:
        obj = json.loads(text, object_pairs_hook=_unique if unique_keys else None)
    except RecursionError:  # pragma: no cover - depth() catches it first
        raise TooDeep(f"nested deeper than {MAX_DEPTH} levels") from None
    raw = text if isinstance(text, str) else bytes(text).decode("utf-8", "replace")
    if _SURROGATE.search(raw) is not None or not raw.isascii():
        _check_text(obj)
    return obj


def ascii_digits(text: str) -> bool:
    """True for a run of ``0``-``9`` only: what ``int()`` reads as the number it shows.
    ``str.isdigit()`` also takes ``'²'``, which ``int()`` refuses, and ``'٣'``, which it reads
    as 3."""
    return text.isascii() and text.isdigit()


def clip(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters (and ``...``) for a one-line message: a value from
    a hostile file or request may be megabytes long."""
    return text if len(text) <= limit else text[:limit] + "..."


def is_text(text: str) -> bool:
    """True when ``text`` is real Unicode (no lone surrogate: it encodes as UTF-8)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def finite_number(value: Any) -> TypeGuard[int | float]:
    """A JSON number a float holds: not bool, NaN, an infinity or an int past a float's range
    (``10**400`` parses as JSON, then fails every float operation)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    return abs(value) < 1e15 if isinstance(value, int) else math.isfinite(value)


def _check_text(obj: Any) -> None:
    """NotText if any string in ``obj`` (a parsed JSON value, depth bounded) is not text."""
    if isinstance(obj, str):
        if not is_text(obj):
            raise NotText("a string holds a lone UTF-16 surrogate (not text)")
    elif isinstance(obj, dict):
        for key, value in obj.items():
            _check_text(key)
            _check_text(value)
    elif isinstance(obj, list):
        for item in obj:
            _check_text(item)


def bounded_lines(stream: IO[bytes], source: str, *, max_line: int = MAX_LINE,
                  max_total: int = MAX_FILE, error: type[Exception] = ValueError,
                  ) -> Iterator[bytes]:
    """The lines of a binary stream, each at most ``max_line`` bytes, together at most
    ``max_total``; ``error(one line naming source and line)`` beyond either."""
    total = 0
    lineno = 0
    while True:
        line = stream.readline(max_line + 1)
        if not line:
            return
        lineno += 1
        total += len(line)
        if len(line) > max_line:
            raise error(f"{source}: line {lineno}: longer than {max_line} bytes")
        if total > max_total:
            raise error(f"{source}: larger than {max_total >> 20} MiB")
        yield line


def read_limited(stream: IO[bytes], source: str, *, max_total: int = MAX_FILE,
                 error: type[Exception] = ValueError) -> bytes:
    """A whole stream of at most ``max_total`` bytes (a PDN file, a clock script), else
    ``error`` naming it: /dev/zero or a runaway file never fills the memory."""
    data = stream.read(max_total + 1)
    if len(data) > max_total:
        raise error(f"{source}: larger than {max_total >> 20} MiB")
    return data
