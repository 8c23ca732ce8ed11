"""Judging a board at rest: a legal result, a move under way, or an irregularity to report
(000 5.4) with its LED picture; the set-up before the start (000 5.1, 5.2); a piece on a
light square (003 5.3)."""

from __future__ import annotations

from firmware.referee.acceptance import (
    accepted_by_reply,
    keep_base,
    report_unreported,
)
from firmware.referee.analysis import Board, Reading
from firmware.referee.decisions import WRONG, Cleared, Decision, Irregularity, LedMark
from firmware.referee.kinds import MOVER_KINDS, IrregularityKind
from firmware.referee.parts import Parts
from firmware.referee.reader import progress_refusal, read, two_plies
from firmware.referee.turns import commit


def tick(ref: Parts, at: int) -> list[Decision]:
    """Judge a board that has rested for the settle time (call it often, and before every
    event; an event at ``at`` first lets the rest before it count)."""
    sensors = ref.sensors
    changed_at = sensors.changed_at
    if sensors.judged or changed_at is None or at - changed_at < ref.settle_ns:
        return []
    sensors.judged = True
    return at_rest(ref, changed_at + ref.settle_ns)


def at_rest(ref: Parts, at: int) -> list[Decision]:
    sensed = ref.sensors.board()
    if not ref.started:
        return setup_check(ref, at, sensed)
    if ref.over:
        return []
    out = judge(ref, at, sensed)
    light = frozenset(ref.sensors.light)
    pending = ref.pending
    if light != pending.light_reported:
        pending.light_reported = light
        if light:  # a piece on a light square is out of play (003 5.3): never silent
            marks = tuple(LedMark(sq, WRONG) for sq in sorted(light))
            mismatch = IrregularityKind.BOARD_MISMATCH
            out.append(Irregularity(at, mismatch, ref.play.position.turn, marks))
        elif not out and pending.notice is None:
            out.append(Cleared(at))  # the light squares are empty again
    return out


def judge(ref: Parts, at: int, sensed: Board) -> list[Decision]:
    play, pending = ref.play, ref.pending
    if pending.quick_lift is not None and sensed == play.table.occupied - {pending.quick_lift}:
        return extra_removed(ref, at, sensed)
    reading = read(play, ref.sensors, sensed)
    if reading.kind == "result":
        if not ref.clocked or play.ends_game(reading.moves):
            return commit(ref, reading.moves, at, pressed=False)
        return clear(ref, at)
    if reading.kind == "irregular":
        pre: list[Decision] = []
        if pending.base is None and pending.unreported is not None:
            pre = report_unreported(ref, at, sensed)
        if pending.base is not None:
            accepted = accepted_by_reply(ref, at)
            if accepted:
                return pre + accepted + judge(ref, at, sensed)
            if pending.base.table(play.position).plausible(sensed):
                return pre  # the opponent's reply under way from the irregular position
        if not ref.clocked and play.sync is None and not play.restore:
            plies = two_plies(play, ref.sensors, sensed)
            if plies is not None:  # the reply came before the move was seen to rest
                return commit(ref, plies[0], at, False) + commit(ref, plies[1], at, False)
        if ref.clocked and reading.irregular in MOVER_KINDS and play.table.own - sensed:
            return []  # the mover's move is under way: judged at his press
        return report(ref, reading, at, sensed)
    notice = pending.notice
    if (reading.kind == "progress" and notice is not None
            and notice.kind is not IrregularityKind.TOUCH_MOVE):
        # keep showing what is left to do
        marks = progress_refusal(play, sensed, at, play.position.turn).marks
        if marks:
            pending.notice = Irregularity(at, notice.kind, notice.side, marks)
            return []
    return clear(ref, at)


def report(ref: Parts, reading: Reading, at: int, sensed: Board) -> list[Decision]:
    """Report the irregularity ``reading`` names, once for a board at rest."""
    irr = reading.irregularity(at, reading.side)
    if not ref.pending.report(irr, (irr.kind, sensed, frozenset(ref.sensors.light))):
        return []
    keep_base(ref, irr, sensed)
    return [irr]


def extra_removed(ref: Parts, at: int, sensed: Board) -> list[Decision]:
    """Without a clock, the lift of the opponent's piece that ended the move was the
    mover taking off a piece he did not capture (000 5.4.13): the board rested with only
    that piece off. Show where it goes back; the mover is at fault."""
    table = ref.play.table
    marks = tuple(table.marks_towards(sensed, table.occupied))
    side = ref.play.position.turn.other
    reading = Reading("irregular", (), IrregularityKind.EXTRA_REMOVAL, side, marks)
    return report(ref, reading, at, sensed)


def clear(ref: Parts, at: int) -> list[Decision]:
    """The board reads legal again: the notice goes (a touch-move's stays for the turn)."""
    return [Cleared(at)] if ref.pending.clear() else []


def setup_check(ref: Parts, at: int, sensed: Board) -> list[Decision]:
    """Before the start: the start position and the board's orientation (000 5.1, 5.2);
    a piece on a light square means a board turned the wrong way."""
    table = ref.play.table
    marks = table.marks_towards(sensed, table.occupied)
    marks += [LedMark(sq, WRONG) for sq in sorted(ref.sensors.light)]
    if not marks:
        return clear(ref, at)
    reading = Reading("irregular", (), IrregularityKind.SETUP, None, tuple(marks))
    return report(ref, reading, at, sensed)
