"""A move committed and the turn that follows: the move chosen among those the board shows
(the landing squares touched, 000 4.9), a touch-move irregularity if the mover touched another
piece first (000 3.10, 004 §11), and every part of the referee starting the new turn."""

from __future__ import annotations

from firmware.referee.analysis import Board
from firmware.referee.decisions import MUST_MOVE, Decision, Irregularity, LedMark, MoveCommitted
from firmware.referee.kinds import IrregularityKind
from firmware.referee.parts import Parts
from firmware.rules.position import Move, Position


def advance(ref: Parts, position: Position, previous: Board | None) -> None:
    """A ply made: play goes on from ``position``; each part starts a new turn."""
    ref.play.advance(position, previous)
    new_turn(ref)


def new_turn(ref: Parts) -> None:
    """What the referee knows of one turn, from nothing: each piece standing is the
    position's, the hand empty, no touch, nothing pending."""
    ref.sensors.new_turn(ref.play.position)
    ref.touches.clear()
    ref.pending.new_turn()


def commit(ref: Parts, moves: tuple[Move, ...], at: int, pressed: bool) -> list[Decision]:
    """The move the board shows (one of ``moves``, which share its result) is made."""
    play, touches = ref.play, ref.touches
    move = play.table.choose(moves, touches.landings)
    before = play.position
    after = before.play(move)
    side = before.turn
    out: list[Decision] = [MoveCommitted(at, move, side, before, after, pressed)]
    touch_first = touches.first_touch(move) if side not in ref.machine_sides else None
    held = touches.held.get(touch_first, 0) if touch_first is not None else None
    advance(ref, after, before.occupied())
    if touch_first is not None:
        mark = LedMark(ref.geometry.algebraic(touch_first), MUST_MOVE)
        irr = Irregularity(at, IrregularityKind.TOUCH_MOVE, side, (mark,), held_ns=held)
        ref.pending.notice = irr
        out.append(irr)
    return out
