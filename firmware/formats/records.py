"""What a board session writes: one frozen record type per feed line, and the scoresheet.

Each record's :meth:`to_json` gives the feed line's fields in CONTRACT.md's order, without the
integrity fields ``firmware.formats.feed`` adds (``seq``, ``crc``) and without ``game``, which the
service adds. The :class:`Scoresheet` is the game as written down, moves and accepted
positions in order: the one place the PDN movetext, the ``[%clock]`` readings, the snapshot's
start and the move list come from.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from firmware.clock.timecontrol import TimeControl
from firmware.pdn import ClockReading, Setup, rules_tags, write_game
from firmware.rules.sets import RuleSet

#: Both clocks in seconds, ``{"white": ..., "black": ...}`` (``[%clock]``: after the move's
#: own bonus).
ClockValues = Mapping[str, float]


@dataclass(frozen=True, slots=True)
class MoveRecord:
    """``{"type": "move", "ply", "side", "move", "fen", "clock"}`` (``clock`` with a time
    control)."""

    ply: int
    side: str
    move: str
    fen: str
    clock: ClockValues | None = None

    def to_json(self) -> dict[str, Any]:
        rec: dict[str, Any] = {"type": "move", "ply": self.ply, "side": self.side,
                               "move": self.move, "fen": self.fen}
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

    kind: str
    side: str | None
    squares: Any
    leds: Mapping[str, str]
    held: float | None = None

    def to_json(self) -> dict[str, Any]:
        rec: dict[str, Any] = {"type": "irregularity", "kind": self.kind, "side": self.side,
                               "squares": self.squares, "leds": dict(self.leds)}
        if self.held is not None:
            rec["held"] = self.held
        return rec


@dataclass(frozen=True, slots=True)
class ResultRecord:
    """``{"type": "result", "result", "reason"}``; a flag fall adds ``at`` (the second the flag
    fell) and ``side``; an arbiter's result over the clock's adds ``override`` and
    ``overridden`` (the result it replaced)."""

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
        if self.overridden is not None:
            rec["override"] = True
            rec["overridden"] = self.overridden
        return rec


@dataclass(frozen=True, slots=True)
class PositionRecord:
    """``{"type": "position", "fen", "reason": "accepted"}``: an irregular board accepted
    (000 5.4, 5.7); play goes on from it."""

    fen: str
    reason: str = "accepted"

    def to_json(self) -> dict[str, Any]:
        return {"type": "position", "fen": self.fen, "reason": self.reason}


@dataclass(frozen=True, slots=True)
class ClearedRecord:
    """``{"type": "cleared"}``: the board shows a legal picture again after an irregularity."""

    def to_json(self) -> dict[str, Any]:
        return {"type": "cleared"}


@dataclass(frozen=True, slots=True)
class ClockRecord:
    """``{"type": "clock", "event", "clock", "running"}``: pause, resume and the arbiter's
    corrections (``clock-set``, ``moves-set``)."""

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

    ply: int

    def to_json(self) -> dict[str, Any]:
        return {"type": "takeback", "ply": self.ply}


Record = (MoveRecord | IrregularityRecord | ResultRecord | PositionRecord | ClearedRecord
          | ClockRecord | AdjournedRecord | TakeBackRecord)


class Scoresheet:
    """The game as written down: move records and accepted positions, in order."""

    def __init__(self, start_fen: str) -> None:
        self.start_fen = start_fen
        self.entries: list[MoveRecord | PositionRecord] = []
        #: The move records' feed lines, in order (kept as written: the snapshot sends them).
        self.moves: list[dict[str, Any]] = []
        self._setup_at: tuple[str, int] | None = None

    def add(self, entry: MoveRecord | PositionRecord) -> None:
        self.entries.append(entry)
        if isinstance(entry, MoveRecord):
            self.moves.append(entry.to_json())
        else:
            self._setup_at = (entry.fen, len(self.moves))

    def take_back(self, plies: int) -> int:
        """Strike the last ``plies`` moves (all moves since the start or the last accepted
        position); how many moves are left. ValueError when there are not that many."""
        since = len(self.moves) - (self._setup_at[1] if self._setup_at is not None else 0)
        if not 1 <= plies <= since:
            raise ValueError(f"{since} {'ply' if since == 1 else 'plies'} can be taken back "
                             "(since the start or the last accepted position)")
        del self.entries[-plies:]
        del self.moves[-plies:]
        return len(self.moves)

    def movetext(self) -> list[str | Setup]:
        """PDN movetext items: move texts and ``/FEN "..."/`` setups."""
        return [e.move if isinstance(e, MoveRecord) else Setup(e.fen) for e in self.entries]

    def clocks(self) -> list[ClockReading | None]:
        """The ``[%clock]`` after each move, in move order."""
        return [e.reading() for e in self.entries if isinstance(e, MoveRecord)]

    def snapshot_start(self) -> tuple[str, list[dict[str, Any]]]:
        """Where a snapshot starts: the start FEN or the last accepted position (000 5.7), and
        the move records since, so that replaying them gives the current position."""
        if self._setup_at is None:
            return self.start_fen, self.moves
        fen, first = self._setup_at
        return fen, self.moves[first:]

    def pdn(self, rules: RuleSet, tags: Mapping[str, str], control: TimeControl | None,
            start_fen: str | None, result: str) -> str:
        """The game so far as PDN: the moves made, ``[%clock]`` after each with a time
        control, accepted positions as ``/FEN "..."/`` setups; ``start_fen`` for a game that
        did not start from the start position."""
        all_tags = {**rules_tags(rules), **tags}
        if control is not None:
            all_tags.setdefault("TimeControl", str(control))
        return write_game(all_tags, self.movetext(), start_fen=start_fen,
                          clocks=self.clocks() if control is not None else None, result=result)
