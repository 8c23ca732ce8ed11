"""Reading a feed line once, at the edge (STYLE.md lesson 18): :func:`read_line` turns a
feed line into its typed record (``firmware.formats.records``) with the line's framing
(:class:`FeedLine`: ``seq``, the game's id, the run's), or a :class:`Refusal` naming why not;
:func:`read_record` does the same for a JSON object already framed (a journal's ``decision``,
a record a part hands the service as a mapping). After it nobody looks at a ``"type"``
string: each reader keeps a table keyed by record class and calls :func:`dispatch` (as
python-chess's PGN visitors are called for each node), so a record no table names (an
:class:`~firmware.formats.records.UnknownRecord` from a newer board, a refusal) is skipped.

What is refused, each named (:class:`RefusalKind`): a line that is not ASCII, has no checksum
or a wrong one (``bad crc``); JSON that does not parse or is no object (``bad JSON``); no
``type``, or one that is no record's name (``unknown type``: a well-formed name this board
does not know is an ``UnknownRecord``, not a refusal); a member of the wrong kind (``wrong
kind``: a ply that is not a whole number, a side that is neither white nor black, a move not
in PDN notation); a line, a number or a list beyond ``firmware.limits``' bounds (``out of
bounds``: a ply past :data:`~firmware.limits.MAX_PLY`, a clock past
:data:`~firmware.limits.MAX_CLOCK`, more squares than a board has). A line whose framing
reads but whose record does not is a :class:`FeedLine` whose record is the refusal: its
``seq`` and run still count (a reader's gaps and repeats).

The words people read on a board (an irregularity's kind, a result's reason, an alarm) are
taken as they come (a line is bounded by its length); so are PDN tags, of which the first
:data:`~firmware.limits.MAX_TAGS` that are text are read (a tag no reader can use is left,
not the game: ``firmware.pdn.tags.fit_tags`` then keeps what a PDN may carry); a ``gap``
line's ``count`` and ``text``, which only say more, are left out when they are not what they
should be, and of its ``candidates`` the first 8 are read (CONTRACT.md lists at most 8),
those that are not lists of moves skipped.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Any, TypeVar

from firmware.formats.feed import unframe
from firmware.formats.records import (
    DRAW_OFFER_STATES,
    RECORD_TYPES,
    UNSAID,
    AdjournedRecord,
    AlarmRecord,
    AnalysisRecord,
    ClearedRecord,
    ClockRecord,
    DrawOfferRecord,
    EngineMoveRecord,
    EngineRecord,
    FeedRecord,
    GameRecord,
    GapRecord,
    GuessRecord,
    HardwareRecord,
    HeaderRecord,
    IrregularityRecord,
    MoveRecord,
    PositionRecord,
    RemoteMoveRecord,
    ResultRecord,
    SetupRecord,
    SnapshotRecord,
    StatusRecord,
    TakeBackRecord,
    UnknownRecord,
)
from firmware.limits import (
    MAX_CLOCK,
    MAX_FEN,
    MAX_ID,
    MAX_PLY,
    MAX_SQUARES,
    MAX_TAGS,
    clip,
    finite_number,
)

__all__ = ["FeedLine", "Refusal", "RefusalKind", "dispatch", "read_framed", "read_line",
           "read_record"]


class RefusalKind(Enum):
    """Why a line or a record was not read (the module docstring)."""

    BAD_CRC = "bad crc"
    BAD_JSON = "bad JSON"
    UNKNOWN_TYPE = "unknown type"
    WRONG_KIND = "wrong kind"
    OUT_OF_BOUNDS = "out of bounds"


@dataclass(frozen=True, slots=True)
class Refusal:
    """A line or a record not read: ``kind`` and a one-line ``reason`` that names what was
    refused (the record type, when the line got that far) and why (the member)."""

    kind: RefusalKind
    reason: str

    def __str__(self) -> str:
        return f"{self.reason} ({self.kind.value})"


@dataclass(frozen=True, slots=True)
class FeedLine:
    """One feed line read: its record (or the refusal of it), its number, the game's id it
    names and the run's id (a broker's lines carry it)."""

    record: FeedRecord | Refusal
    seq: int
    game: str | None = None
    run: str | None = None


class _Refused(Exception):
    """A member that does not read (raised inside a record's reader, caught at its edge);
    ``what`` is refused (None: the record)."""

    def __init__(self, kind: RefusalKind, reason: str, what: str | None = None) -> None:
        super().__init__(reason)
        self.kind = kind
        self.what = what


def read_line(text: str | bytes) -> FeedLine | Refusal:
    """One feed line: its :class:`FeedLine`, or a :class:`Refusal` for a line that is damaged
    or foreign (nothing of it can be trusted, not even its ``seq``). Never raises."""
    obj = unframe(text)
    if isinstance(obj, str):
        kind, _, reason = obj.partition(": ")
        return Refusal(RefusalKind(kind), reason)
    return read_framed(obj)


def read_framed(obj: Mapping[str, Any]) -> FeedLine | Refusal:
    """A feed line's JSON object whose checksum was checked (:func:`read_line`'s last step; a
    tool's or a test's line made as an object): its :class:`FeedLine`, or a refusal when it
    has no ``seq``. Never raises."""
    seq = obj.get("seq")
    if isinstance(seq, bool) or not isinstance(seq, int) or seq < 0:
        return Refusal(RefusalKind.WRONG_KIND, "'seq' must be a whole number from 0")
    game = obj.get("game")
    run = obj.get("run")
    if isinstance(game, bool) or not isinstance(game, str | int) or len(str(game)) > MAX_ID:
        game = None
    if not isinstance(run, str) or len(run) > MAX_ID:
        run = None
    return FeedLine(read_record(obj), seq, str(game) if game is not None else None, run)


def read_record(obj: Mapping[str, Any]) -> FeedRecord | Refusal:
    """The typed record of one JSON object (its framing members aside), or why not. Never
    raises."""
    kind = obj.get("type")
    if not isinstance(kind, str) or not _TYPE_NAME.fullmatch(kind):
        what = repr(kind)[:40] if kind is not None else "none"
        return Refusal(RefusalKind.UNKNOWN_TYPE, f"a record's type must be a name, not {what}")
    reader = _READERS.get(kind)
    if reader is None:
        return UnknownRecord(kind, {k: v for k, v in obj.items() if k not in _FRAMING})
    try:
        return reader(_Members(obj, kind))
    except _Refused as exc:
        return Refusal(exc.kind, f"{exc.what or kind} refused: {exc}")


T = TypeVar("T")


def dispatch(record: object, table: Mapping[type[Any], Callable[..., T]], owner: Any,
             *args: Any) -> T | None:
    """``table[type(record)](owner, record, *args)`` (a table of a reader's methods, or of
    functions of what it keeps, keyed by record class), or None for a record the table does
    not name (an unknown record, a refusal, a record that reader has no use for)."""
    handler = table.get(type(record))
    return handler(owner, record, *args) if handler is not None else None


_TYPE_NAME = re.compile(r"[a-z][a-z0-9_-]{0,39}")
#: The members the framing adds (``firmware.formats.feed``) and the type: not an unknown
#: record's own members.
_FRAMING = ("seq", "crc", "game", "run", "type")
#: A move in PDN notation: squares by number or name, joined by ``-``, ``x`` or ``:``.
_MOVE = re.compile(r"[a-j0-9]{1,3}(?:[-x:][a-j0-9]{1,3}){1,25}")
_SIDES = ("white", "black")
_NUMBERS = (int, float)


class _Members:
    """A record's members, each read as the kind it must be (:class:`_Refused` if not)."""

    def __init__(self, obj: Mapping[str, Any], kind: str) -> None:
        self.obj = obj
        self.kind = kind

    def has(self, key: str) -> bool:
        return key in self.obj

    def _wrong(self, key: str, want: str) -> _Refused:
        return _Refused(RefusalKind.WRONG_KIND,
                        f"'{key}' must be {want}, not {clip(repr(self.obj.get(key)), 40)}")

    def text(self, key: str, *, optional: bool = False, most: int | None = None) -> Any:
        value = self.obj.get(key)
        if value is None and optional:
            return None
        if not isinstance(value, str):
            raise self._wrong(key, "text")
        if most is not None and len(value) > most:
            raise _Refused(RefusalKind.OUT_OF_BOUNDS, f"'{key}' longer than {most} characters")
        return value

    def ident(self, key: str, *, optional: bool = False) -> Any:
        """An id: text (a number is taken as its digits), at most :data:`MAX_ID` long."""
        value = self.obj.get(key)
        if isinstance(value, int) and not isinstance(value, bool):
            value = str(value)
        if value is None and optional:
            return None
        if not isinstance(value, str):
            raise self._wrong(key, "an id (text)")
        if len(value) > MAX_ID:
            raise _Refused(RefusalKind.OUT_OF_BOUNDS, f"'{key}' longer than {MAX_ID} characters")
        return value

    def fen(self, key: str, *, optional: bool = False) -> Any:
        return self.text(key, optional=optional, most=MAX_FEN)

    def side(self, key: str, *, optional: bool = False) -> Any:
        value = self.obj.get(key)
        if (value is None and optional) or value in _SIDES:
            return value
        raise self._wrong(key, "white or black")

    def whole(self, key: str, low: int = 0, high: int = MAX_PLY) -> int:
        value = self.obj.get(key)
        if isinstance(value, bool) or not isinstance(value, int):
            raise self._wrong(key, "a whole number")
        if not low <= value <= high:
            raise _Refused(RefusalKind.OUT_OF_BOUNDS, f"'{key}' {value} is not from {low} "
                                                      f"to {high}")
        return value

    def seconds(self, key: str, *, optional: bool = False, low: float = -MAX_CLOCK) -> Any:
        value = self.obj.get(key)
        if value is None and optional:
            return None
        if not finite_number(value):
            raise self._wrong(key, "a number of seconds")
        if not low <= value <= MAX_CLOCK:
            raise _Refused(RefusalKind.OUT_OF_BOUNDS, f"'{key}' {value:g} s is out of range")
        return value

    def clock(self, key: str = "clock") -> Any:
        """``{"white": seconds, "black": seconds}``, or None when left out or null."""
        value = self.obj.get(key)
        if value is None:
            return None
        if not isinstance(value, Mapping) or set(value) != set(_SIDES):
            raise self._wrong(key, "both clocks in seconds")
        inner = _Members(value, self.kind)
        return {side: inner.seconds(side) for side in _SIDES}

    def move(self, key: str = "move") -> str:
        value = self.obj.get(key)
        if not isinstance(value, str) or _MOVE.fullmatch(value) is None:
            raise self._wrong(key, "a move in PDN notation")
        return value

    def names(self, key: str, *, most: int = MAX_SQUARES) -> tuple[str, ...]:
        """A list of texts (squares, parts, moves), at most ``most``; () when left out."""
        value = self.obj.get(key)
        if value is None and not self.has(key):
            return ()
        if not isinstance(value, list | tuple) or not all(isinstance(v, str) for v in value):
            raise self._wrong(key, "a list of texts")
        if len(value) > most:
            raise _Refused(RefusalKind.OUT_OF_BOUNDS, f"'{key}' lists more than {most}")
        return tuple(value)

    def tags(self, key: str = "tags") -> dict[str, str]:
        """PDN tags: an object, of whose members the first :data:`MAX_TAGS` that are texts
        are read (tags are for people: one a reader cannot use is left, not the game);
        {} when left out."""
        value = self.obj.get(key)
        if value is None:
            return {}
        if not isinstance(value, Mapping):
            raise self._wrong(key, "an object of PDN tags")
        out: dict[str, str] = {}
        for name, text in value.items():
            if len(out) >= MAX_TAGS:
                break
            if isinstance(name, str) and isinstance(text, str):
                out[name] = text
        return out

    def texts_map(self, key: str, *, most: int, optional: bool = True) -> Any:
        """An object of texts to texts (an LED picture), at most ``most`` members."""
        value = self.obj.get(key)
        if value is None and optional:
            return None
        if not isinstance(value, Mapping) or not all(
                isinstance(k, str) and isinstance(v, str) for k, v in value.items()):
            raise self._wrong(key, "an object of texts")
        if len(value) > most:
            raise _Refused(RefusalKind.OUT_OF_BOUNDS, f"'{key}' holds more than {most}")
        return dict(value)

    def time_control(self, key: str = "time_control") -> Any:
        """Text, null (the game has none) or left out (:data:`UNSAID`)."""
        if not self.has(key):
            return UNSAID
        return self.text(key, optional=True, most=MAX_ID)


# -- one reader per record type ---------------------------------------------------------------


def _move(m: _Members) -> MoveRecord:
    return _well_formed_move(m.obj) or MoveRecord(
        m.whole("ply", 1), m.side("side"), m.move(), m.fen("fen", optional=True), m.clock())


def _well_formed_move(obj: Mapping[str, Any]) -> MoveRecord | None:
    """The move a well-formed move record is, checked in one pass (a snapshot lists hundreds:
    the relay reads one from every board every few seconds); None for one that is not, which
    :func:`_move` reads member by member to say why."""
    ply, side, move, fen, clock = (obj.get("ply"), obj.get("side"), obj.get("move"),
                                   obj.get("fen"), obj.get("clock"))
    if not (type(ply) is int and 1 <= ply <= MAX_PLY and side in _SIDES
            and type(move) is str and _MOVE.fullmatch(move) is not None
            and (fen is None or (type(fen) is str and len(fen) <= MAX_FEN))):
        return None
    if clock is not None:
        if type(clock) is not dict or len(clock) != 2:
            return None
        white: Any = clock.get("white")
        black: Any = clock.get("black")
        # a float outside the bounds, NaN and the infinities fail the comparison; bool is no
        # number here (its type is not int)
        if not (type(white) in _NUMBERS and type(black) in _NUMBERS
                and -MAX_CLOCK <= white <= MAX_CLOCK and -MAX_CLOCK <= black <= MAX_CLOCK):
            return None
        clock = {"white": white, "black": black}
    return MoveRecord(ply, side, move, fen, clock)


def _moves(m: _Members) -> tuple[MoveRecord, ...] | None:
    """A snapshot's moves (each without its ``fen``); None when it lists none."""
    value = m.obj.get("moves")
    if value is None:
        return None
    if not isinstance(value, list) or not all(isinstance(v, Mapping) for v in value):
        raise m._wrong("moves", "a list of move records")
    if len(value) > MAX_PLY:
        raise _Refused(RefusalKind.OUT_OF_BOUNDS, f"'moves' lists more than {MAX_PLY}")
    out = []
    for k, item in enumerate(value):
        move = _well_formed_move(item)
        if move is None:
            try:
                move = _move(_Members(item, m.kind))
            except _Refused as exc:
                raise _Refused(exc.kind, f"moves[{k}]: {exc}", f"{m.kind}'s moves") from None
        out.append(move)
    return tuple(out)


def _irregularity(m: _Members) -> IrregularityRecord:
    held = m.seconds("held", optional=True, low=0)
    return IrregularityRecord(m.text("kind"), m.side("side", optional=True), m.names("squares"),
                              m.texts_map("leds", most=MAX_SQUARES), held)


def _result(m: _Members) -> ResultRecord:
    at = m.seconds("at", optional=True, low=0)
    flag_side = m.side("side", optional=True)
    overridden = m.text("overridden", optional=True, most=MAX_ID) if m.obj.get(
        "override") is True else None
    return ResultRecord(m.text("result", most=MAX_ID), m.text("reason", optional=True) or "", at,
                        flag_side, overridden)


def _snapshot(m: _Members) -> SnapshotRecord:
    return SnapshotRecord(
        m.ident("game", optional=True), m.ident("rules", optional=True),
        m.fen("start_fen", optional=True),
        m.fen("fen", optional=True), m.tags(), _moves(m),
        m.time_control(), m.clock(), m.side("running", optional=True),
        m.text("result", optional=True, most=MAX_ID), m.text("reason", optional=True),
        m.texts_map("leds", most=MAX_SQUARES))


def _header(m: _Members) -> HeaderRecord:
    return HeaderRecord(m.ident("board"), m.ident("run"), m.ident("rules", optional=True),
                        m.ident("game", optional=True), m.time_control(),
                        m.whole("protocol", 0, 1 << 16) if m.has("protocol") else 1)


def _game(m: _Members) -> GameRecord:
    return GameRecord(m.ident("rules", optional=True), m.fen("fen", optional=True),
                      m.text("time_control", optional=True, most=MAX_ID),
                      m.tags())


def _gap(m: _Members) -> GapRecord:
    recovered = m.names("recovered", most=MAX_PLY) if m.obj.get("recovered") is not None \
        else None
    raw = m.obj.get("candidates")
    candidates = tuple(tuple(c) for c in (raw[:8] if isinstance(raw, list) else ())
                       if isinstance(c, list) and all(isinstance(x, str) for x in c))
    count, text = m.obj.get("count"), m.obj.get("text")
    if isinstance(count, bool) or not isinstance(count, int) or not 0 <= count <= 1 << 30:
        count = None
    return GapRecord(m.whole("ply"), recovered, candidates, count,
                     text if isinstance(text, str) else None)


def _engine_move(m: _Members) -> EngineMoveRecord:
    return EngineMoveRecord(m.whole("ply", 1), m.side("side"), m.move(), m.names("route"),
                            m.names("captured"))


def _remote_move(m: _Members) -> RemoteMoveRecord:
    return RemoteMoveRecord(m.whole("ply", 1), m.side("side"), m.move(), m.names("route"),
                            m.names("captured"), m.text("source", most=MAX_ID))


def _setup(m: _Members) -> SetupRecord:
    """Either shape (``SetupRecord``): the LEDs' guidance when it has ``fill``."""
    if m.has("fill"):
        return SetupRecord(fill=m.names("fill"), empty=m.names("empty"),
                           pieces=m.texts_map("pieces", most=MAX_SQUARES) or {})
    return SetupRecord(m.ident("id"), m.text("status", most=MAX_ID),
                       m.text("reason", optional=True))


#: An analysis line's bounds: its score (a win now, firmware.engine.scores.WIN), the moves of
#: its line, its depth and the winner's moves to a forced win.
MAX_SCORE = 10_000
MAX_BEST = 64
MAX_SEARCH_DEPTH = 999
MAX_WIN_MOVES = 5_000


def _analysis(m: _Members) -> AnalysisRecord:
    best = m.names("best", most=MAX_BEST)
    for k, move in enumerate(best):
        if _MOVE.fullmatch(move) is None:
            raise _Refused(RefusalKind.WRONG_KIND, f"'best' move {k + 1} is not a move in PDN "
                                                   f"notation: {clip(repr(move), 40)}")
    win = m.whole("win", -MAX_WIN_MOVES, MAX_WIN_MOVES) if m.obj.get("win") is not None \
        else None
    return AnalysisRecord(m.whole("ply"), m.whole("score", -MAX_SCORE, MAX_SCORE), best,
                          m.whole("depth", 0, MAX_SEARCH_DEPTH), win)


def _draw_offer(m: _Members) -> DrawOfferRecord:
    state = m.obj.get("state", "offered")
    if state not in DRAW_OFFER_STATES:
        raise m._wrong("state", "offered or declined")
    return DrawOfferRecord(m.side("side"), m.whole("ply"), state, m.ident("id", optional=True))


_READERS: dict[str, Callable[[_Members], FeedRecord]] = {
    "move": _move,
    "irregularity": _irregularity,
    "result": _result,
    "position": lambda m: PositionRecord(m.fen("fen"), m.text("reason", optional=True,
                                                             most=MAX_ID) or "accepted"),
    "cleared": lambda m: ClearedRecord(),
    "clock": lambda m: ClockRecord(m.text("event", most=MAX_ID), m.clock(),
                                   m.side("running", optional=True)),
    "adjourned": lambda m: AdjournedRecord(m.side("side"), m.clock()),
    "takeback": lambda m: TakeBackRecord(m.whole("ply")),
    "header": _header,
    "game": _game,
    "snapshot": _snapshot,
    "alarm": lambda m: AlarmRecord(m.text("alarm", optional=True)),
    "gap": _gap,
    "hardware": lambda m: HardwareRecord(m.names("missing")),
    "engine-move": _engine_move,
    "remote-move": _remote_move,
    "guess": lambda m: GuessRecord(m.whole("ply", 1), m.move(), m.obj.get("right") is True),
    "engine": lambda m: EngineRecord(m.text("error"), m.obj.get("handed_back") is True),
    "setup": _setup,
    "status": lambda m: StatusRecord(m.text("status", most=MAX_ID)),
    "analysis": _analysis,
    "draw-offer": _draw_offer,
}
assert set(_READERS) == set(RECORD_TYPES)
