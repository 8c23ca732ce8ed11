"""The game journal's format: what the service writes to disk so that nothing is lost.

A journal is one file per game, JSON Lines, append-only:

1. a leading ``game`` record: ``{"type": "game", "journal": 2, "id": ..., "rules": ...,
   "fen": start FEN or null, "time_control": PDN TimeControl or null, "tags": {...},
   "board": ..., "settle": seconds, "start": "move"}`` (``start``: how the game starts,
   :class:`StartMode`; absent: ``press``);
2. then, in the order they happened, the raw events exactly in the ``firmware.formats.events``
   vocabulary: CONTRACT.md's ``start``, ``lift``, ``place``, ``press``, ``pause``, ``resume``
   (``t`` in seconds on the game's own time line) and the arbiter's ``accept``, ``clock-set``,
   ``moves-set``, ``adjourn``, ``resume-adjourned``, ``result``, ``takeback``, and
   ``recovered`` (plies a power cut lost, rebuilt at a start from the board as sensed);
3. interleaved, ``decision`` records (``{"type": "decision", "record": feed record}``) and
   ``note`` records, which say what the board concluded; a reader may skip them, because the
   events alone rebuild everything through the one code path (``firmware.session.session``).

The game's time line runs on across restarts of the service: the journal's ``t`` never goes
backwards, so the events after a restart can be appended to the same log and replayed.

Version 2 (what the service writes since issue 10) seals every line: ``"n"`` numbers the
records from 0 (the ``game`` record) and ``"c"``, always the last member, is the CRC-32 (8 hex
digits) of the previous line's ``c`` followed by this line's text up to ``,"c"`` (then ``}``):
a chain, so a changed digit, a deleted, repeated or moved line and a line from another journal
all break it at the line that is wrong. A version-1 journal (no ``n``/``c``) is still read,
unverified (:attr:`Journal.verified` is False).

Reading tolerates what a power cut leaves: a torn last line, or a tail of garbage (zero bytes
from a file system that had extended the file but not written it) after the last good record.
Damage followed by good records is not a torn write, and raises :class:`EventLogError` naming
the line. This module is pure: it turns text into records and records into text; the file
writing with ``fsync`` lives in ``boardctl.service.journal_file``.
"""

from __future__ import annotations

import enum
import json
import zlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeGuard

from firmware.errors import BoardError, EventLogError
from firmware.formats.records import RECORD_TYPES, FeedRecord, UnknownRecord
from firmware.limits import finite_number, loads

#: Versions of the journal format, in the ``game`` record: 1 plain, 2 sealed lines.
PLAIN, SEALED = 1, 2
VERSION = SEALED
#: Bounds on a journal line (a record is small: a game's header is the largest).
MAX_LINE = 64 * 1024

#: CONTRACT.md's event types.
SENSOR_EVENTS = frozenset({"start", "lift", "place", "press", "pause", "resume"})
#: The arbiter's events (DESIGN.md "Shared vocabularies").
ARBITER_EVENTS = frozenset(
    {"accept", "clock-set", "moves-set", "adjourn", "resume-adjourned", "result", "takeback",
     "recovered"}
)
EVENT_TYPES = SENSOR_EVENTS | ARBITER_EVENTS
#: Records a reader may skip.
SKIPPABLE = frozenset({"decision", "note"})


class StartMode(enum.StrEnum):
    """How a game starts (issue 36): ``press``, by the arbiter's start or a clock press (the
    tournament clock, 004 §32); ``move``, besides, by the first move, as on a chess computer:
    the first lift of a piece of the side to move from the start position as set up (a game
    without an arbiter: against the computer, a board not in a hall)."""

    PRESS = "press"
    MOVE = "move"


@dataclass
class GameHeader:
    """The journal's leading ``game`` record."""

    id: str
    rules: str
    fen: str | None = None
    time_control: str | None = None
    tags: dict[str, str] = field(default_factory=dict)
    board: str = "board"
    settle: float | None = None
    #: False: the game waits for a ``start`` (set-up checked first); True: play from the first
    #: event (an event log without a ``start``).
    started: bool = False
    #: True: moves are committed by clock presses; False: by the board at rest; None: the
    #: session's default (presses when there is a time control).
    clocked: bool | None = None
    #: The shortest touch (seconds) the referee counts (``--touch-min``; None: the default),
    #: so that a rebuild or an export judges touches as the service did.
    touch_min: float | None = None
    #: How the game starts (written when ``move``), so that a rebuild goes on as the service.
    start: StartMode = StartMode.PRESS

    def record(self, version: int = PLAIN) -> dict[str, Any]:
        rec: dict[str, Any] = {
            "type": "game",
            "journal": version,
            "id": self.id,
            "rules": self.rules,
            "fen": self.fen,
            "time_control": self.time_control,
            "tags": dict(self.tags),
            "board": self.board,
        }
        if self.settle is not None:
            rec["settle"] = self.settle
        rec["started"] = self.started
        if self.clocked is not None:
            rec["clocked"] = self.clocked
        if self.touch_min is not None:
            rec["touch_min"] = self.touch_min
        if self.start is not StartMode.PRESS:
            rec["start"] = self.start.value
        return rec

    @classmethod
    def from_record(cls, rec: Mapping[str, Any], where: str = "line 1") -> GameHeader:
        if rec.get("type") != "game":
            raise EventLogError(f"{where}: a journal must start with a 'game' record")
        version = rec.get("journal", VERSION)
        if not isinstance(version, int) or version > VERSION:
            raise EventLogError(f"{where}: journal version {version!r} is newer than this boardctl")
        rid, rules = rec.get("id"), rec.get("rules")
        if not isinstance(rid, str) or not rid or not isinstance(rules, str) or not rules:
            raise EventLogError(f"{where}: the 'game' record needs a string 'id' and 'rules'")
        fen, tc, board = rec.get("fen"), rec.get("time_control"), rec.get("board", "board")
        tags = rec.get("tags") or {}
        settle = rec.get("settle")
        if not (fen is None or isinstance(fen, str)) or not (tc is None or isinstance(tc, str)):
            raise EventLogError(f"{where}: 'fen' and 'time_control' must be text or null")
        if not isinstance(tags, dict) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in tags.items()
        ):
            raise EventLogError(f"{where}: 'tags' must map names to text")
        if settle is not None and (isinstance(settle, bool) or not isinstance(settle, int | float)
                                   or not 0 <= settle <= 3600):
            raise EventLogError(f"{where}: 'settle' must be a number of seconds from 0 to 3600")
        started = rec.get("started", False)
        if not isinstance(started, bool):
            raise EventLogError(f"{where}: 'started' must be true or false")
        clocked = rec.get("clocked")
        if clocked is not None and not isinstance(clocked, bool):
            raise EventLogError(f"{where}: 'clocked' must be true, false or null")
        touch_min = rec.get("touch_min")
        if touch_min is not None:
            from firmware.referee import check_touch_min

            if isinstance(touch_min, bool) or not isinstance(touch_min, int | float):
                raise EventLogError(f"{where}: 'touch_min' must be a number of seconds")
            try:
                check_touch_min(touch_min)
            except BoardError as exc:
                raise EventLogError(f"{where}: {exc}") from None
        start = rec.get("start", StartMode.PRESS.value)
        if start not in tuple(StartMode):
            raise EventLogError(f"{where}: 'start' must be 'press' or 'move'")
        return cls(rid, rules, fen, tc, dict(tags), str(board), settle, started, clocked,
                   touch_min, StartMode(start))


@dataclass
class Journal:
    """A journal as read: its header, its events (JSON objects) and its decisions."""

    header: GameHeader
    events: list[dict[str, Any]]
    decisions: list[dict[str, Any]]
    #: 1-based line numbers of ``events``, for error messages.
    lines: list[int]
    #: True when a torn or garbage tail was dropped.
    torn: bool = False
    #: Length in bytes of the good part (a writer truncates the file there before appending).
    end: int = 0

    #: True when every line's seal was checked (version 2).
    verified: bool = False
    #: Sealed journals: the last record's number and seal (a writer chains on from them).
    last_n: int = -1
    last_c: str = ""
    #: With ``salvage``: what was lost ("line N: reason; M lines after it not read"), or None.
    lost: str | None = None

    #: The latest ``t`` of the skippable records (decisions and notes carry the time they
    #: were made), 0.0 when none has one.
    marks_t: float = 0.0

    @property
    def last_t(self) -> float:
        """The last time the journal recorded, events and marks alike (0.0 for none)."""
        last_event = max((float(e["t"]) for e in self.events), default=0.0)
        return max(last_event, self.marks_t)


def dumps(record: Mapping[str, Any]) -> str:
    """One journal line (with its newline): compact JSON, ASCII, finite numbers. A typed feed
    record inside (a ``decision``'s) is written as its feed line's members, here, on the
    thread that writes the journal."""
    return json.dumps(record, separators=(",", ":"), ensure_ascii=True, allow_nan=False,
                      default=_members) + "\n"


def _members(obj: object) -> dict[str, Any]:
    if _typed(obj):
        return obj.to_json()
    raise TypeError(f"a journal record cannot hold a {type(obj).__name__}")


_TYPED = (*RECORD_TYPES.values(), UnknownRecord)


def _typed(obj: object) -> TypeGuard[FeedRecord]:
    return isinstance(obj, _TYPED)


def _crc(prev: str, text: str) -> str:
    return f"{zlib.crc32((prev + text).encode('ascii')) & 0xFFFFFFFF:08x}"


def seal(record: Mapping[str, Any], n: int, prev: str) -> tuple[str, str]:
    """Record number ``n`` as a sealed line (with its newline), chained on the previous line's
    seal ``prev`` ("" for the first); returns the line and its seal."""
    body = dumps({**record, "n": n})[:-2]  # without the closing "}\n"
    c = _crc(prev, body + "}")
    return f'{body},"c":"{c}"}}\n', c


_SEAL_LEN = len(',"c":"00000000"}')


def check_seal(text: str, rec: Mapping[str, Any], n: int, prev: str, where: str) -> str:
    """The seal of a sealed line, checked against the chain; EventLogError naming the line."""
    body = text.rstrip("\n")
    c = rec.get("c")
    if not (isinstance(c, str) and body.endswith(f',"c":"{c}"}}') and len(body) > _SEAL_LEN):
        raise EventLogError(f"{where}: record has no seal (a line of another file, or edited)")
    if rec.get("n") != n:
        raise EventLogError(f"{where}: record number {rec.get('n')!r} where {n} was due "
                            "(a line deleted, repeated or moved)")
    if _crc(prev, body[:-_SEAL_LEN] + "}") != c:
        raise EventLogError(f"{where}: checksum does not match (the record was changed)")
    return c


def decision_record(feed_record: FeedRecord | Mapping[str, Any],
                    t: float | None = None) -> dict[str, Any]:
    """Wrap a feed record (what the board concluded at ``t`` seconds) as a skippable record
    (a typed one is written as its members when the line is: :func:`dumps`)."""
    rec: dict[str, Any] = {"type": "decision"}
    if t is not None:
        rec["t"] = t
    rec["record"] = dict(feed_record) if isinstance(feed_record, Mapping) else feed_record
    return rec


def note_record(text: str, t: float | None = None, **extra: Any) -> dict[str, Any]:
    """A skippable remark (a restart, a recovery, the clock's heartbeat) at ``t`` seconds."""
    rec: dict[str, Any] = {"type": "note", "note": text}
    if t is not None:
        rec["t"] = t
    rec.update(extra)
    return rec


def check_event(rec: Mapping[str, Any], where: str) -> None:
    """Raise EventLogError unless ``rec`` is a well-formed event of a known type."""
    kind = rec.get("type")
    if kind not in EVENT_TYPES:
        raise EventLogError(f"{where}: unknown record type {kind!r}")
    t = rec.get("t")
    if not _seconds(t):
        raise EventLogError(f"{where}: a '{kind}' event needs a time 't' in seconds")


def _seconds(t: Any) -> TypeGuard[int | float]:
    """A time in a journal: a number of seconds from 0 to 1e9 (about 30 years)."""
    return finite_number(t) and 0 <= t <= 1e9


def opens_journal(lines: Iterable[str | bytes]) -> bool:
    """True when the first record of ``lines`` is a journal's leading ``game`` record (a plain
    event log starts with an event)."""
    for raw in lines:
        text = (raw.decode("utf-8", "replace") if isinstance(raw, bytes | bytearray)
                else raw).strip("\x00 \t\r\n")
        if not text:
            continue
        try:
            rec = loads(text)
        except ValueError:
            return False
        return isinstance(rec, dict) and rec.get("type") == "game"
    return False


def read_journal(lines: Iterable[str | bytes], source: str = "journal", *,
                 salvage: bool = False) -> Journal:
    """Read a journal from its lines (an open file will do; see ``firmware.limits``).

    Raises EventLogError, naming ``source`` and the line, for a journal that cannot be read:
    no ``game`` record, an unknown record type, an event without a time, a broken seal
    (version 2), or damage followed by good records. A torn or garbage tail is dropped and
    reported in ``Journal.torn``. With ``salvage``, damage after the ``game`` record ends the
    reading instead, and :attr:`Journal.lost` says where and how much was not read.
    """
    reader = _Reader(source)
    numbered = enumerate(lines, 1)
    try:
        for lineno, raw in numbered:
            try:
                reader.line(lineno, raw)
            except EventLogError as exc:
                if not salvage or reader.header is None:
                    raise
                rest = sum(1 for _ in numbered)
                journal = reader.result()
                journal.lost = f"{exc}; {rest} later line{'s' * (rest != 1)} not read"
                return journal
    except ValueError as exc:  # the line source's own bound (firmware.limits)
        if not salvage or reader.header is None:
            raise EventLogError(str(exc)) from None
        journal = reader.result()
        journal.lost = str(exc)
        return journal
    return reader.result()


class _Reader:
    """read_journal's state, one line at a time."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.header: GameHeader | None = None
        self.events: list[dict[str, Any]] = []
        self.decisions: list[dict[str, Any]] = []
        self.numbers: list[int] = []
        self.bad_line: int | None = None
        self.last_t = self.marks_t = 0.0
        self.offset = self.end = 0
        self.sealed = False
        self.n = -1
        self.c = ""

    def line(self, lineno: int, raw: str | bytes) -> None:
        source = self.source
        where = f"{source}: line {lineno}"
        text = raw.decode("utf-8", "replace") if isinstance(raw, bytes | bytearray) else raw
        self.offset += len(raw) if isinstance(raw, bytes | bytearray) else len(raw.encode())
        if not text.strip("\x00 \t\r\n"):
            if text.strip(" \t\r\n"):  # zero bytes: a tail the file system never wrote
                self.bad_line = self.bad_line or lineno
            return
        try:
            rec = loads(text)
            if not isinstance(rec, dict):
                raise ValueError("not a JSON object")
        except ValueError as exc:
            if text.endswith("\n") and "\x00" not in text:
                # A power cut tears the last line short of its newline; a whole line that
                # does not read was changed.
                raise EventLogError(f"{where}: damaged record ({exc})") from None
            self.bad_line = self.bad_line or lineno
            return
        if not text.endswith("\n"):
            self.bad_line = self.bad_line or lineno
            return
        if self.bad_line is not None:
            raise EventLogError(f"{source}: line {self.bad_line}: damaged record before line "
                                f"{lineno}")
        first = self.header is None
        if first:
            self.header = GameHeader.from_record(rec, where)
            self.sealed = "c" in rec or rec.get("journal") == SEALED
        if self.sealed:
            self.c = check_seal(text, rec, self.n + 1, self.c, where)
            self.n += 1
        self.end = self.offset
        if first:
            return
        kind = rec.get("type")
        if kind in SKIPPABLE:
            if kind == "decision" and isinstance(rec.get("record"), dict):
                self.decisions.append(rec["record"])
            mark = rec.get("t")
            if _seconds(mark):
                self.marks_t = max(self.marks_t, float(mark))
            elif mark is not None:
                raise EventLogError(f"{where}: a '{kind}' record's time 't' is not seconds")
            return
        check_event(rec, where)
        if float(rec["t"]) + 1e-9 < self.last_t:
            raise EventLogError(f"{where}: time goes backwards ({rec['t']} after {self.last_t})")
        self.last_t = float(rec["t"])
        if self.sealed:
            rec = {k: v for k, v in rec.items() if k not in ("n", "c")}
        self.events.append(rec)
        self.numbers.append(lineno)

    def result(self) -> Journal:
        if self.header is None:
            raise EventLogError(f"{self.source}: no 'game' record: not a journal, or an empty one")
        return Journal(self.header, self.events, self.decisions, self.numbers,
                       torn=self.bad_line is not None, end=self.end, marks_t=self.marks_t,
                       verified=self.sealed, last_n=self.n, last_c=self.c)
