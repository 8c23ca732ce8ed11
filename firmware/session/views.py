"""What a board session shows: the ``snapshot`` feed record a reader starts from and the
``status`` a display or the control socket reads. Read-only views of a
:class:`firmware.session.session.BoardSession`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from firmware.formats.feed import snapshot_record

if TYPE_CHECKING:
    from firmware.session.session import BoardSession


def snapshot(session: BoardSession, game: str, at: int) -> dict[str, Any]:
    """A full-state ``snapshot`` feed record (``firmware.formats.feed.snapshot_record``). After an
    accepted position (000 5.7) it starts there: ``start_fen`` + ``moves`` give ``fen``."""
    outcome = session.outcome
    start_fen, moves = session.snapshot_start()
    return snapshot_record(
        game=game, rules=session.rules.name, start_fen=start_fen, fen=session.position.fen(),
        moves=moves, tags=session.tags, clock=session.timing.values_json(at),
        running=session.timing.running(),
        result=outcome.result if outcome else None,
        reason=outcome.reason if outcome else None,
        time_control=str(session.control) if session.control is not None else None,
        leds=session.leds(),
    )


def status(session: BoardSession, at: int) -> dict[str, Any]:
    """What a display shows: position, turn, move count, clocks, LED picture, result."""
    notice = session.referee.notice
    outcome = session.outcome
    return {
        "rules": session.rules.name,
        "fen": session.position.fen(),
        "turn": session.position.turn.value,
        "ply": len(session.sheet.moves),
        "started": session.referee.started,
        "clock": session.timing.values_json(at),
        "running": session.timing.running(),
        "adjourned": session.sealed is not None,
        "irregularity": notice.kind if notice is not None else None,
        "leds": session.leds(),
        "result": outcome.result if outcome else None,
        "reason": outcome.reason if outcome else None,
    }
