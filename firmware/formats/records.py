"""The broadcast feed's vocabulary: one frozen record type per feed line (CONTRACT.md
"Broadcast feed"), what the board session writes and what the service announces.

Each record's :meth:`to_json` gives the feed line's members in the order the feed has always
had them, without the framing ``firmware.formats.feed`` adds: ``seq`` before them, the game's
id (``game``, unless the record carries it itself: a header, a snapshot) and, on the broker,
the run's id after them, ``crc`` last. Every consumer (the service, the broker link, the relay,
the live page, the terminal, replay, the buzzer) takes these records, read once at the edge by
``firmware.formats.reader``, and dispatches on their class (``reader.dispatch``): nobody after
the reader looks at a ``"type"`` string.

A record of a type this board does not know (a newer board's) is an :class:`UnknownRecord`,
which readers skip; a line that cannot be read is a ``reader.Refusal``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, ClassVar

from firmware.pdn import ClockReading

#: Both clocks in seconds, ``{"white": ..., "black": ...}`` (``[%clock]``: after the move's
#: own bonus).
ClockValues = Mapping[str, float]


class Unsaid(Enum):
    """A member a line leaves out, where ``null`` would say something else: a header or a
    snapshot that names no time control (``boardctl replay``'s) against one that says the
    game has none (the service's, ``"time_control": null``)."""

    UNSAID = "unsaid"


UNSAID = Unsaid.UNSAID


# -- what a board session writes (firmware.session.session) --------------------------------


@dataclass(frozen=True, slots=True)
class MoveRecord:
    """``{"type": "move", "ply", "side", "move", "fen", "clock"}`` (``clock`` with a time
    control). Inside a snapshot a move travels without its ``fen`` (None here); a relay
    that played it on the rules core hands it on with the FEN it found."""

    type: ClassVar[str] = "move"
    ply: int
    side: str
    move: str
    fen: str | None = None
    clock: ClockValues | None = None

    def to_json(self) -> dict[str, Any]:
        rec: dict[str, Any] = {"type": "move", "ply": self.ply, "side": self.side,
                               "move": self.move}
        if self.fen is not None:
            rec["fen"] = self.fen
        if self.clock is not None:
            rec["clock"] = dict(self.clock)
        return rec

    def played(self) -> dict[str, Any]:
        """The move as a snapshot lists it: ``{"ply", "side", "move", "clock"}``."""
        rec: dict[str, Any] = {"ply": self.ply, "side": self.side, "move": self.move}
        if self.clock is not None:
            rec["clock"] = dict(self.clock)
        return rec

    def reading(self) -> ClockReading | None:
        """The ``[%clock]`` after this move: both times and the side whose clock runs."""
        if self.clock is None:
            return None
        running = "black" if self.side == "white" else "white"
        return ClockReading(self.clock["white"], self.clock["black"], running)


@dataclass(frozen=True, slots=True)
class IrregularityRecord:
    """``{"type": "irregularity", "kind", "side", "squares", "leds"}``, with ``held`` (seconds
    the piece was held) for touch-move (000 3.9-3.11)."""

    type: ClassVar[str] = "irregularity"
    kind: str
    side: str | None
    squares: Any
    leds: Mapping[str, str] | None
    held: float | None = None

    def to_json(self) -> dict[str, Any]:
        rec: dict[str, Any] = {"type": "irregularity", "kind": self.kind, "side": self.side,
                               "squares": self.squares}
        if self.leds is not None:
            rec["leds"] = dict(self.leds)
        if self.held is not None:
            rec["held"] = self.held
        return rec


@dataclass(frozen=True, slots=True)
class ResultRecord:
    """``{"type": "result", "result", "reason"}``; a flag fall adds ``at`` (the second the flag
    fell) and ``side`` (whose flag; an arbiter's result may name the side alone); an arbiter's
    result over the clock's adds ``override`` and ``overridden`` (the result it replaced)."""

    type: ClassVar[str] = "result"
    result: str
    reason: str
    flag_at: float | None = None
    flag_side: str | None = None
    overridden: str | None = None

    def to_json(self) -> dict[str, Any]:
        rec: dict[str, Any] = {"type": "result", "result": self.result, "reason": self.reason}
        if self.flag_at is not None:
            rec["at"] = self.flag_at
            rec["side"] = self.flag_side
        elif self.flag_side is not None:
            rec["side"] = self.flag_side
        if self.overridden is not None:
            rec["override"] = True
            rec["overridden"] = self.overridden
        return rec


@dataclass(frozen=True, slots=True)
class PositionRecord:
    """``{"type": "position", "fen", "reason": "accepted"}``: an irregular board accepted
    (000 5.4, 5.7); play goes on from it."""

    type: ClassVar[str] = "position"
    fen: str
    reason: str = "accepted"

    def to_json(self) -> dict[str, Any]:
        return {"type": "position", "fen": self.fen, "reason": self.reason}


@dataclass(frozen=True, slots=True)
class ClearedRecord:
    """``{"type": "cleared"}``: the board shows a legal picture again after an irregularity."""

    type: ClassVar[str] = "cleared"

    def to_json(self) -> dict[str, Any]:
        return {"type": "cleared"}


@dataclass(frozen=True, slots=True)
class ClockRecord:
    """``{"type": "clock", "event", "clock", "running"}``: the start, pause, resume, a
    takeback and the arbiter's corrections (``clock-set``, ``moves-set``)."""

    type: ClassVar[str] = "clock"
    event: str
    clock: ClockValues | None
    running: str | None

    def to_json(self) -> dict[str, Any]:
        return {"type": "clock", "event": self.event,
                "clock": dict(self.clock) if self.clock is not None else None,
                "running": self.running}


@dataclass(frozen=True, slots=True)
class AdjournedRecord:
    """``{"type": "adjourned", "side", "clock"}``: the sealed move stays secret (004 §34-35)."""

    type: ClassVar[str] = "adjourned"
    side: str
    clock: ClockValues | None = None

    def to_json(self) -> dict[str, Any]:
        rec: dict[str, Any] = {"type": "adjourned", "side": self.side}
        if self.clock is not None:
            rec["clock"] = dict(self.clock)
        return rec


@dataclass(frozen=True, slots=True)
class TakeBackRecord:
    """``{"type": "takeback", "ply": N}``: plies taken back, N plies left in the game."""

    type: ClassVar[str] = "takeback"
    ply: int

    def to_json(self) -> dict[str, Any]:
        return {"type": "takeback", "ply": self.ply}


# -- what the service announces (boardctl.service) ------------------------------------------


@dataclass(frozen=True, slots=True)
class HeaderRecord:
    """``{"type": "header", "protocol", "board", "run", "rules", "game", "time_control"}``:
    the line that opens a run and every reconnection of the port. ``run`` changes each time
    the service starts, so that a reader knows ``seq`` started again; ``rules`` and ``game``
    are left out when None, ``time_control`` when :data:`UNSAID`."""

    type: ClassVar[str] = "header"
    board: str
    run: str
    rules: str | None = None
    game: str | None = None
    time_control: str | None | Unsaid = UNSAID
    protocol: int = 1

    def to_json(self) -> dict[str, Any]:
        rec: dict[str, Any] = {"type": "header", "protocol": self.protocol,
                               "board": self.board, "run": self.run}
        if self.rules is not None:
            rec["rules"] = self.rules
        if self.game is not None:
            rec["game"] = self.game
        if self.time_control is not UNSAID:
            rec["time_control"] = self.time_control
        return rec


@dataclass(frozen=True, slots=True)
class GameRecord:
    """``{"type": "game", "rules", "fen", "time_control", "tags"}``: a new game begins (its
    start FEN, None for the rule set's own; its PDN tags). The service's line gets its game's
    id from the feed, last; ``boardctl export`` writes it first (``game`` here), as it always
    has."""

    type: ClassVar[str] = "game"
    rules: str | None
    fen: str | None
    time_control: str | None
    tags: Mapping[str, str]
    game: str | None = None

    def to_json(self) -> dict[str, Any]:
        head: dict[str, Any] = {"type": "game"} if self.game is None else {"type": "game",
                                                                            "game": self.game}
        return {**head, "rules": self.rules, "fen": self.fen,
                "time_control": self.time_control, "tags": dict(self.tags)}


@dataclass(frozen=True, slots=True)
class SnapshotRecord:
    """The whole state of one game, for a reader joining late or after lost lines: ``game``
    (its id, stable for its whole life), ``rules``, ``start_fen`` (the start, or the last
    accepted position: 000 5.7), ``fen`` (``start_fen`` and ``moves`` played), ``tags``,
    ``moves`` (each ``{"ply", "side", "move", "clock"}``; None: a snapshot that lists none,
    not even an empty list, says nothing of them), then ``time_control`` when there is one,
    ``clock`` and ``running`` with a clock, ``result`` and ``reason`` once over, ``leds``
    while lit. The service says ``"time_control": null`` last for a game without one;
    ``boardctl replay`` leaves it out (:data:`UNSAID`)."""

    type: ClassVar[str] = "snapshot"
    game: str | None
    rules: str | None
    start_fen: str | None
    fen: str | None
    tags: Mapping[str, str]
    moves: tuple[MoveRecord, ...] | None = ()
    time_control: str | None | Unsaid = UNSAID
    clock: ClockValues | None = None
    running: str | None = None
    result: str | None = None
    reason: str | None = None
    leds: Mapping[str, str] | None = None

    def to_json(self) -> dict[str, Any]:
        rec: dict[str, Any] = {"type": "snapshot", "game": self.game, "rules": self.rules,
                               "start_fen": self.start_fen, "fen": self.fen,
                               "tags": dict(self.tags)}
        if self.moves is not None:
            rec["moves"] = [m.played() for m in self.moves]
        if isinstance(self.time_control, str):
            rec["time_control"] = self.time_control
        if self.clock is not None:
            rec["clock"] = dict(self.clock)
            rec["running"] = self.running
        if self.result is not None:
            rec["result"] = self.result
            rec["reason"] = self.reason
        if self.leds:
            rec["leds"] = dict(self.leds)
        if self.time_control is None:
            rec["time_control"] = None
        return rec


@dataclass(frozen=True, slots=True)
class AlarmRecord:
    """``{"type": "alarm", "alarm": text or null}``: the journal cannot be written (the text
    names the path); null when it is written again."""

    type: ClassVar[str] = "alarm"
    alarm: str | None

    def to_json(self) -> dict[str, Any]:
        return {"type": "alarm", "alarm": self.alarm}


@dataclass(frozen=True, slots=True)
class GapRecord:
    """``{"type": "gap", "ply", "recovered", "candidates", "count", "text"}``: at its start the
    board did not show the game its journal holds (plies lost to a power cut); ``recovered``
    the one sequence played after ply ``ply``, else None and the ``count`` candidates (at most
    8 listed) for the arbiter."""

    type: ClassVar[str] = "gap"
    ply: int
    recovered: tuple[str, ...] | None
    candidates: tuple[tuple[str, ...], ...] = ()
    count: int | None = None
    text: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"type": "gap", "ply": self.ply,
                "recovered": list(self.recovered) if self.recovered is not None else None,
                "candidates": [list(c) for c in self.candidates], "count": self.count,
                "text": self.text}


@dataclass(frozen=True, slots=True)
class HardwareRecord:
    """``{"type": "hardware", "missing": [part, ...]}``: the board runs degraded."""

    type: ClassVar[str] = "hardware"
    missing: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return {"type": "hardware", "missing": list(self.missing)}


@dataclass(frozen=True, slots=True)
class EngineMoveRecord:
    """``{"type": "engine-move", "ply", "side", "move", "route", "captured"}``: the engine's
    move for the person at the board to carry out (``boardctl run --engine``)."""

    type: ClassVar[str] = "engine-move"
    ply: int
    side: str
    move: str
    route: tuple[str, ...] = ()
    captured: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"type": "engine-move", **self.members()}

    def members(self) -> dict[str, Any]:
        """Its members but the type: as the ``status`` answer and the journal's note say it."""
        return {"ply": self.ply, "side": self.side, "move": self.move,
                "route": list(self.route), "captured": list(self.captured)}


@dataclass(frozen=True, slots=True)
class RemoteMoveRecord:
    """``{"type": "remote-move", "ply", "side", "move", "route", "captured", "source"}``: the
    move of a player not at the board (``lidraughts``, ``board:NAME``, ``train``, ``puzzle``)
    for the person at the board to carry out, as an engine's."""

    type: ClassVar[str] = "remote-move"
    ply: int
    side: str
    move: str
    route: tuple[str, ...] = ()
    captured: tuple[str, ...] = ()
    source: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"type": "remote-move", **self.members()}

    def members(self) -> dict[str, Any]:
        """Its members but the type: as the ``status`` answer and the journal's note say it."""
        return {"ply": self.ply, "side": self.side, "move": self.move,
                "route": list(self.route), "captured": list(self.captured),
                "source": self.source}


@dataclass(frozen=True, slots=True)
class DrawOfferRecord:
    """``{"type": "draw-offer", "side", "ply", "state"}``, with ``id`` when the offer has
    one: ``side``'s draw offer, made when ``ply`` plies had been played; ``state``
    ``offered`` (it stands), or ``declined`` (the other said no; the other's next move
    declines it too, the rules' way, with no line of its own). An offer taken up ends the
    game: its ``result`` line (``agreement``) says so. ``id`` tells one offer from another
    (an offer said again carries its own), so that an offer repeated is never two, nor one
    declined or lapsed revived. Two boards playing one game (``--opponent board:B2``) carry
    offers this way."""

    type: ClassVar[str] = "draw-offer"
    side: str
    ply: int
    state: str = "offered"
    offer_id: str | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": "draw-offer", "side": self.side, "ply": self.ply,
                               "state": self.state}
        if self.offer_id is not None:
            out["id"] = self.offer_id
        return out


#: A draw offer's states (``DrawOfferRecord.state``).
DRAW_OFFER_STATES = ("offered", "declined")


@dataclass(frozen=True, slots=True)
class GuessRecord:
    """``{"type": "guess", "ply", "move", "right"}``: a guess of a master game's move
    (``boardctl run --train``) or a puzzle's, right or not."""

    type: ClassVar[str] = "guess"
    ply: int
    move: str
    right: bool

    def to_json(self) -> dict[str, Any]:
        return {"type": "guess", "ply": self.ply, "move": self.move, "right": self.right}


@dataclass(frozen=True, slots=True)
class AnalysisRecord:
    """``{"type": "analysis", "ply", "score", "best", "depth"}``, with ``win`` in a forced win
    or loss: the engine's analysis of the position after ``ply`` plies (``boardctl run
    --analyse``): ``score`` in hundredths of a man for the side to move (beyond ±9000 a forced
    win: docs/ENGINE.md "Scores"), ``best`` the best line in PDN moves, ``depth`` the search's
    (plies), ``win`` the winner's moves to the end (positive: the side to move wins)."""

    type: ClassVar[str] = "analysis"
    ply: int
    score: int
    best: tuple[str, ...]
    depth: int
    win: int | None = None

    def to_json(self) -> dict[str, Any]:
        return {"type": "analysis", **self.members()}

    def members(self) -> dict[str, Any]:
        """Its members but the type: as the ``status`` answer says it."""
        rec: dict[str, Any] = {"ply": self.ply, "score": self.score, "best": list(self.best),
                               "depth": self.depth}
        if self.win is not None:
            rec["win"] = self.win
        return rec


@dataclass(frozen=True, slots=True)
class EngineRecord:
    """``{"type": "engine", "error", "handed_back": true}``: the engine failed (after three
    failures in a row its side is handed back to the person)."""

    type: ClassVar[str] = "engine"
    error: str
    handed_back: bool = False

    def to_json(self) -> dict[str, Any]:
        rec: dict[str, Any] = {"type": "engine", "error": self.error}
        if self.handed_back:
            rec["handed_back"] = True
        return rec


@dataclass(frozen=True, slots=True)
class SetupRecord:
    """A ``setup`` line, of one of two shapes. A hall round's setup (docs/HALL.md): ``{"type":
    "setup", "id", "status", "reason"}``, what the board did with it (``applied``,
    ``pending``, ``refused``). A position being set up by the LEDs (issue 42): ``{"type":
    "setup", "fill", "empty", "pieces"}``, the squares to fill and to empty until the board
    shows the position (both empty: it does), ``pieces`` the piece each square to fill takes
    (``w``, ``b``, a capital for a king: the FEN's, the sensors cannot tell). ``fill`` None:
    the round's shape."""

    type: ClassVar[str] = "setup"
    id: str = ""
    status: str = ""
    reason: str | None = None
    fill: tuple[str, ...] | None = None
    empty: tuple[str, ...] = ()
    pieces: dict[str, str] = field(default_factory=dict)

    @property
    def guidance(self) -> bool:
        """The set-up-by-the-LEDs shape (``fill`` and ``empty``)."""
        return self.fill is not None

    def to_json(self) -> dict[str, Any]:
        if self.fill is not None:
            return {"type": "setup", "fill": list(self.fill), "empty": list(self.empty),
                    "pieces": dict(self.pieces)}
        return {"type": "setup", "id": self.id, "status": self.status, "reason": self.reason}


@dataclass(frozen=True, slots=True)
class StatusRecord:
    """``{"type": "status", "status": "online" | "offline" | ...}``: a board's MQTT status (its
    retained message, or the relay's silence watch), handed to the same readers as the feed's
    records; the service never writes one on the feed."""

    type: ClassVar[str] = "status"
    status: str

    def to_json(self) -> dict[str, Any]:
        return {"type": "status", "status": self.status}


@dataclass(frozen=True, slots=True)
class UnknownRecord:
    """A record of a type this board does not know (a newer board's): kept as read (its own
    members: the framing's ``seq``, ``game``, ``run`` and ``crc`` are the line's), skipped by
    every reader here (no table has it)."""

    type: str
    members: Mapping[str, Any]

    def to_json(self) -> dict[str, Any]:
        return {"type": self.type, **self.members}


#: What a board session writes.
Record = (MoveRecord | IrregularityRecord | ResultRecord | PositionRecord | ClearedRecord
          | ClockRecord | AdjournedRecord | TakeBackRecord | SetupRecord)
#: Every record a feed line (or a board's MQTT status) carries.
FeedRecord = (Record | HeaderRecord | GameRecord | SnapshotRecord | AlarmRecord | GapRecord
              | HardwareRecord | EngineMoveRecord | RemoteMoveRecord | GuessRecord | EngineRecord
              | SetupRecord | StatusRecord | UnknownRecord
              | AnalysisRecord | DrawOfferRecord)
#: The record classes by their ``type``.
RECORD_TYPES: dict[str, type[Any]] = {
    cls.type: cls for cls in (
        MoveRecord, IrregularityRecord, ResultRecord, PositionRecord, ClearedRecord,
        ClockRecord, AdjournedRecord, TakeBackRecord, HeaderRecord, GameRecord, SnapshotRecord,
        AlarmRecord, GapRecord, HardwareRecord, EngineMoveRecord, RemoteMoveRecord, GuessRecord,
        EngineRecord, SetupRecord, StatusRecord,
        AnalysisRecord, DrawOfferRecord,
    )
}  # fmt: skip
#: Records that carry their game's id themselves (the feed adds it to the others).
CARRY_GAME = (HeaderRecord, SnapshotRecord)
