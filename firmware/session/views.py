"""What a board session shows: the ``snapshot`` feed record a reader starts from and the
``status`` a display or the control socket reads. Read-only views of a
:class:`firmware.session.session.BoardSession`, written against :class:`Viewed` (what they
read of it), so this module needs nothing of the session's."""

from __future__ import annotations

from typing import Any, Protocol

from firmware.clock.timecontrol import TimeControl
from firmware.formats.journal import StartMode
from firmware.formats.records import UNSAID, MoveRecord, ResultRecord, SnapshotRecord
from firmware.formats.scoresheet import Scoresheet
from firmware.referee import Referee
from firmware.rules.position import Move, Position
from firmware.rules.sets import RuleSet
from firmware.session.clock import SessionClock


class Viewed(Protocol):
    """What the views read of a board session (:class:`firmware.session.session.BoardSession`)."""

    rules: RuleSet
    control: TimeControl | None
    referee: Referee
    sheet: Scoresheet
    tags: dict[str, str]
    outcome: ResultRecord | None
    sealed: Move | None
    timing: SessionClock
    start_mode: StartMode

    @property
    def position(self) -> Position: ...

    def snapshot_start(self) -> tuple[str, tuple[MoveRecord, ...]]: ...

    def leds(self) -> dict[str, str]: ...


def snapshot(session: Viewed, game: str, at: int) -> SnapshotRecord:
    """A full-state ``snapshot`` feed record. After an accepted position (000 5.7) it starts
    there: ``start_fen`` + ``moves`` give ``fen``."""
    outcome = session.outcome
    start_fen, moves = session.snapshot_start()
    clock = session.timing.values_json(at)
    return SnapshotRecord(
        game, session.rules.name, start_fen, session.position.fen(), dict(session.tags), moves,
        time_control=str(session.control) if session.control is not None else UNSAID,
        clock=clock, running=session.timing.running() if clock is not None else None,
        result=outcome.result if outcome else None,
        reason=outcome.reason if outcome else None,
        leds=session.leds() or None,
    )


def status(session: Viewed, at: int) -> dict[str, Any]:
    """What a display shows: position, turn, move count, clocks, LED picture, result."""
    notice = session.referee.notice
    outcome = session.outcome
    return {
        "rules": session.rules.name,
        "fen": session.position.fen(),
        "turn": session.position.turn.value,
        "ply": len(session.sheet.moves),
        "started": session.referee.started,
        "start": session.start_mode.value,
        "clock": session.timing.values_json(at),
        "running": session.timing.running(),
        "adjourned": session.sealed is not None,
        "irregularity": notice.kind if notice is not None else None,
        "leds": session.leds(),
        "result": outcome.result if outcome else None,
        "reason": outcome.reason if outcome else None,
    }
