"""The event vocabulary: what the sensors, the clock buttons and the arbiter tell the board.

An event log is JSON Lines, one event a line, in time order (CONTRACT.md "Event log"). In the
log ``t`` is seconds (float) on a monotonic clock; inside ``firmware`` every event carries
``at``, the same instant in integer nanoseconds, so that no arithmetic ever rounds.

CONTRACT.md types: ``start``, ``lift``, ``place``, ``press``, ``pause``, ``resume``. The
arbiter's (DESIGN.md "Shared vocabularies"), which the journal records so that replaying it
rebuilds everything through one code path: ``accept``, ``clock-set``, ``moves-set``,
``adjourn``, ``resume-adjourned``, ``result``, ``takeback``.

This module is pure: it turns text into events and events into text.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from firmware.errors import EventLogError
from firmware.limits import TooDeep, clip, finite_number, loads

NS = 1_000_000_000
SIDES = ("white", "black")


def seconds_to_ns(t: float) -> int:
    """Log seconds -> nanoseconds, rounded to the nearest nanosecond."""
    return round(t * NS)


def ns_to_seconds(at: int) -> float:
    """Nanoseconds -> log seconds (exact to the microsecond for any realistic game)."""
    return at / NS


@dataclass(frozen=True, slots=True)
class Event:
    """Something that happened at ``at`` (monotonic nanoseconds)."""

    at: int
    type: ClassVar[str] = ""

    def fields(self) -> dict[str, Any]:
        return {}

    def record(self) -> dict[str, Any]:
        """The event as a log object (``t`` in seconds)."""
        return {"type": self.type, "t": _seconds_text(self.at), **self.fields()}


@dataclass(frozen=True, slots=True)
class Start(Event):
    """The arbiter starts the game: White's clock runs (seed 004 §32)."""

    type: ClassVar[str] = "start"


@dataclass(frozen=True, slots=True)
class Lift(Event):
    """A square's sensor opened: a piece left ``square`` (algebraic, light squares too)."""

    square: str = ""
    type: ClassVar[str] = "lift"

    def fields(self) -> dict[str, Any]:
        return {"square": self.square}


@dataclass(frozen=True, slots=True)
class Place(Event):
    """A square's sensor closed: a piece stands on ``square``."""

    square: str = ""
    type: ClassVar[str] = "place"

    def fields(self) -> dict[str, Any]:
        return {"square": self.square}


@dataclass(frozen=True, slots=True)
class Press(Event):
    """``side`` pressed its clock button: it ends its turn."""

    side: str = "white"
    type: ClassVar[str] = "press"

    def fields(self) -> dict[str, Any]:
        return {"side": self.side}


@dataclass(frozen=True, slots=True)
class Release(Event):
    """A held button let go, ``held`` ns after its press, before its hold (:class:`Held`):
    what the menus at the board read (a short press of the pause button, boardctl.menu).
    Never journaled, never in a log: the referee's loop hands it to the menus and nothing
    else sees it."""

    side: str = "pause"
    held: int = 0
    type: ClassVar[str] = "release"

    def fields(self) -> dict[str, Any]:
        return {"side": self.side, "held": self.held}


@dataclass(frozen=True, slots=True)
class Held(Event):
    """A held button still down ``held`` ns after its press (the pause button's 2 s: the
    menus at the board open or close at it, the button still down; its release then is no
    event at all). Never journaled, never in a log, as :class:`Release`."""

    side: str = "pause"
    held: int = 0
    type: ClassVar[str] = "held"

    def fields(self) -> dict[str, Any]:
        return {"side": self.side, "held": self.held}


@dataclass(frozen=True, slots=True)
class Pause(Event):
    """The arbiter stops the clocks."""

    type: ClassVar[str] = "pause"


@dataclass(frozen=True, slots=True)
class Resume(Event):
    """The arbiter restarts the clocks."""

    type: ClassVar[str] = "resume"


@dataclass(frozen=True, slots=True)
class Accept(Event):
    """The opponent lets an irregularity stand: play goes on from the board as sensed
    (seed 000 5.4, 5.7)."""

    type: ClassVar[str] = "accept"


@dataclass(frozen=True, slots=True)
class ClockSet(Event):
    """The arbiter corrects ``side``'s remaining time (seed 004 §32)."""

    side: str = "white"
    seconds: float = 0.0
    type: ClassVar[str] = "clock-set"

    def fields(self) -> dict[str, Any]:
        return {"side": self.side, "seconds": self.seconds}


@dataclass(frozen=True, slots=True)
class MovesSet(Event):
    """The arbiter corrects ``side``'s move count (seed 004 §32)."""

    side: str = "white"
    moves: int = 0
    type: ClassVar[str] = "moves-set"

    def fields(self) -> dict[str, Any]:
        return {"side": self.side, "moves": self.moves}


@dataclass(frozen=True, slots=True)
class TakeBack(Event):
    """The arbiter takes back the last ``plies`` plies (a misread, or moves an engine
    game takes back): play goes on from the position before them once the board shows it.
    ``stop``: the clocks stop (the arbiter's correction); False: the clock of the side now to
    move runs on (a player's take-back against the engine)."""

    plies: int = 1
    stop: bool = True
    type: ClassVar[str] = "takeback"

    def fields(self) -> dict[str, Any]:
        return {"plies": self.plies} if self.stop else {"plies": self.plies, "stop": False}


@dataclass(frozen=True, slots=True)
class Recovered(Event):
    """Plies a power cut lost from the journal, rebuilt at the restart from the board as
    sensed (issue 30, ``firmware.session.gap``): ``moves`` in PDN, played in order from the
    game's position, with no clock press (the clocks stay as the restart left them)."""

    moves: tuple[str, ...] = ()
    type: ClassVar[str] = "recovered"

    def fields(self) -> dict[str, Any]:
        return {"moves": list(self.moves)}


@dataclass(frozen=True, slots=True)
class Adjourn(Event):
    """The game is adjourned; the player to move seals ``sealed`` (seed 004 §34-35). The
    sealed move stays secret until :class:`ResumeAdjourned`."""

    sealed: str = ""
    type: ClassVar[str] = "adjourn"

    def fields(self) -> dict[str, Any]:
        return {"sealed": self.sealed}


@dataclass(frozen=True, slots=True)
class ResumeAdjourned(Event):
    """Play resumes: times restored, the sealed move played, the opponent's clock started."""

    type: ClassVar[str] = "resume-adjourned"


@dataclass(frozen=True, slots=True)
class Result(Event):
    """The arbiter records a result: ``reason`` agreement, resignation, arbiter..."""

    result: str = "*"
    reason: str = "arbiter"
    type: ClassVar[str] = "result"

    def fields(self) -> dict[str, Any]:
        return {"result": self.result, "reason": self.reason}


EVENT_CLASSES: dict[str, type[Event]] = {
    cls.type: cls
    for cls in (
        Start, Lift, Place, Press, Pause, Resume,
        Accept, ClockSet, MovesSet, Adjourn, ResumeAdjourned, Result, TakeBack, Recovered,
    )
}  # fmt: skip

#: The event types CONTRACT.md names (the rest are the arbiter's).
CONTRACT_TYPES = frozenset({"start", "lift", "place", "press", "pause", "resume"})


def _seconds_text(at: int) -> float:
    return round(at / NS, 9)


def _text(rec: Mapping[str, Any], key: str, where: str) -> str:
    value = rec.get(key)
    if not isinstance(value, str) or not value.strip():
        raise EventLogError(f"{where}: a '{rec.get('type')}' event needs a text '{key}'")
    return value.strip()


def _side(rec: Mapping[str, Any], where: str) -> str:
    value = rec.get("side")
    side = value.strip().lower() if isinstance(value, str) else None
    if side not in SIDES:
        raise EventLogError(
            f"{where}: a '{rec.get('type')}' event needs 'side' white or black, not {value!r}"
        )
    return side


def _number(rec: Mapping[str, Any], key: str, where: str, most: float = 1e9) -> float:
    value = rec.get(key)
    if not finite_number(value):
        raise EventLogError(f"{where}: a '{rec.get('type')}' event needs a number '{key}'")
    if abs(value) > most:
        raise EventLogError(f"{where}: '{key}' {value:g} is out of range")
    return float(value)


def _recovered_moves(rec: Mapping[str, Any], where: str) -> tuple[str, ...]:
    moves = rec.get("moves")
    if (not isinstance(moves, list) or not 1 <= len(moves) <= 16
            or not all(isinstance(m, str) and 0 < len(m) <= 200 for m in moves)):
        raise EventLogError(f"{where}: a 'recovered' event needs 'moves', 1 to 16 PDN moves")
    return tuple(moves)


def event_from_record(rec: Mapping[str, Any], where: str = "event") -> Event:
    """Build an Event from a decoded log object; EventLogError naming ``where`` if it is not
    one. Unknown extra fields are ignored (forward compatibility)."""
    kind = rec.get("type")
    cls = EVENT_CLASSES.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise EventLogError(f"{where}: unknown event type {kind!r}")
    t = rec.get("t")
    if not finite_number(t):
        raise EventLogError(f"{where}: a '{kind}' event needs a time 't' in seconds")
    if t < 0 or t > 1e9:
        raise EventLogError(f"{where}: time 't' {t} is out of range")
    at = seconds_to_ns(float(t))
    if cls is Lift or cls is Place:
        square = _text(rec, "square", where).lower()
        if not (2 <= len(square) <= 3 and square[0].isalpha() and square[1:].isdigit()):
            raise EventLogError(f"{where}: {square!r} is not an algebraic square name")
        return cls(at, square)
    if cls is Press:
        return Press(at, _side(rec, where))
    if cls is ClockSet:
        seconds = _number(rec, "seconds", where, most=100 * 3600)
        if seconds < 0:
            raise EventLogError(f"{where}: 'seconds' must not be negative")
        return ClockSet(at, _side(rec, where), seconds)
    if cls is MovesSet:
        moves = _number(rec, "moves", where)
        if not 0 <= moves <= 10_000 or moves != int(moves):
            raise EventLogError(f"{where}: 'moves' must be a whole number from 0 to 10000")
        return MovesSet(at, _side(rec, where), int(moves))
    if cls is Adjourn:
        return Adjourn(at, _text(rec, "sealed", where))
    if cls is Recovered:
        return Recovered(at, _recovered_moves(rec, where))
    if cls is TakeBack:
        plies = _number(rec, "plies", where)
        if not 1 <= plies <= 10_000 or plies != int(plies):
            raise EventLogError(f"{where}: 'plies' must be a whole number from 1 to 10000")
        stop = rec.get("stop", True)
        if not isinstance(stop, bool):
            raise EventLogError(f"{where}: 'stop' must be true or false")
        return TakeBack(at, int(plies), stop)
    if cls is Result:
        reason = rec.get("reason", "arbiter")
        return Result(at, _text(rec, "result", where), str(reason) if reason else "arbiter")
    return cls(at)


def parse_event_line(line: str | bytes, lineno: int, source: str = "") -> Event:
    """One log line -> Event; EventLogError naming the line if it cannot be read."""
    where = f"{source}: line {lineno}" if source else f"line {lineno}"
    if isinstance(line, bytes | bytearray):
        try:
            line = line.decode("utf-8")
        except UnicodeDecodeError:
            raise EventLogError(f"{where}: not UTF-8 text") from None
    try:
        rec = loads(line.lstrip("\ufeff"))  # a byte-order mark from an editor
    except TooDeep as exc:
        raise EventLogError(f"{where}: {exc}") from None
    except ValueError:
        raise EventLogError(f"{where}: not a JSON object: {_shorten(line)}") from None
    if not isinstance(rec, dict):
        raise EventLogError(f"{where}: not a JSON object: {_shorten(line)}")
    return event_from_record(rec, where)


def _shorten(text: str, limit: int = 40) -> str:
    return repr(clip(text.strip(), limit))


def event_to_json(event: Event) -> str:
    """One log line (without newline) for ``event``."""
    return json.dumps(event.record(), separators=(",", ":"), ensure_ascii=True)


def read_events(
    lines: Iterable[str | bytes],
    source: str = "",
    tolerate_torn_tail: bool = False,
    linenos: list[int] | None = None,
) -> list[Event]:
    """Read a whole event log. Blank lines are skipped. Events must be in time order.

    With ``tolerate_torn_tail`` (a journal after a power cut) an unreadable LAST line is
    dropped; anywhere else, and always without it, an unreadable line raises EventLogError
    naming it. ``linenos``, if given, receives each event's line number (for later messages
    that must name the line)."""
    events: list[Event] = []
    pending: EventLogError | None = None
    for lineno, line in enumerate(lines, 1):
        text = line.decode("utf-8", "replace") if isinstance(line, bytes | bytearray) else line
        if not text.strip("\x00 \t\r\n"):
            continue
        if pending is not None:
            raise pending
        try:
            event = parse_event_line(line, lineno, source)
        except EventLogError as exc:
            if not tolerate_torn_tail:
                raise
            pending = exc
            continue
        if events and event.at < events[-1].at:
            where = f"{source}: line {lineno}" if source else f"line {lineno}"
            raise EventLogError(
                f"{where}: time goes backwards ({event.at / NS} after {events[-1].at / NS})"
            )
        events.append(event)
        if linenos is not None:
            linenos.append(lineno)
    return events


def iter_records(events: Iterable[Event]) -> Iterator[str]:
    """The log lines (with newlines) for ``events``."""
    for event in events:
        yield event_to_json(event) + "\n"


def same_instant_order(events: list[Event]) -> list[int]:
    """The order to feed a plain event log in: as written, except that in a run of events
    with the same ``t`` made only of sensor events and presses, the presses come last.

    One sensor scan sees the last set-down and the clock button together, and a log gives
    them the same ``t`` in either order; the player set the piece down before his hand
    reached the button (released hand, 000 3.9; 004 §32). The opponent's lift at that same
    instant is told apart by the referee (the press commits the result the lift spoiled).
    Returns indices into ``events``."""
    order: list[int] = []
    i = 0
    n = len(events)
    while i < n:
        j = i + 1
        while j < n and events[j].at == events[i].at:
            j += 1
        run = range(i, j)
        if j - i > 1 and all(isinstance(events[k], Lift | Place | Press) for k in run):
            order += [k for k in run if not isinstance(events[k], Press)]
            order += [k for k in run if isinstance(events[k], Press)]
        else:
            order += run
        i = j
    return order
