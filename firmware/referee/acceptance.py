"""Acceptance (000 5.4, 5.7): the opponent lets an irregular board stand, by the arbiter's
``accept`` or by replying from it ("the opponent's next move accepts the position"). The
irregular position of the mover's fault is kept (``Pending.base``) until it is corrected or
accepted."""

from __future__ import annotations

from firmware.referee.analysis import Board, MoveTable, Reading
from firmware.referee.decisions import Accepted, Decision, Irregularity
from firmware.referee.kinds import FAULT_KINDS, OUT_OF_TURN_KINDS, IrregularityKind
from firmware.referee.parts import Parts
from firmware.referee.pending import IrregularBase
from firmware.referee.play import position_from
from firmware.referee.reader import read


def keep_base(ref: Parts, irr: Irregularity, sensed: Board) -> None:
    """Remember the irregular position the mover left (his fault, 000 5.4): if nobody
    corrects it and the opponent replies from it, his reply accepts it (000 5.7)."""
    if irr.kind in FAULT_KINDS and irr.side is ref.play.position.turn:
        fault = irr.side
    elif irr.kind in OUT_OF_TURN_KINDS and irr.side is not None:
        fault = irr.side  # a move out of turn: the player to move may reply from it
    else:
        return
    pieces = {sq: p for sq, p in ref.sensors.pieces.items() if sq in sensed}
    ref.pending.base = IrregularBase(sensed, pieces, fault)


def note_unreported(ref: Parts) -> None:
    """The opponent lifts one of his pieces: if the board (before the lift) is an
    irregular move of the mover not yet reported, keep it: a reply from it accepts it."""
    if ref.play.sync is not None:
        return
    board = ref.sensors.board()
    reading = read(ref.play, ref.sensors, board)
    if (
        reading.kind == "irregular"
        and reading.irregular in FAULT_KINDS
        and reading.side is ref.play.position.turn
    ):
        pieces = {sq: p for sq, p in ref.sensors.pieces.items() if sq in board}
        ref.pending.unreported = (board, pieces, reading)


def report_unreported(ref: Parts, at: int, sensed: Board) -> list[Decision]:
    """The board shows a legal reply from the irregular board kept by
    :func:`note_unreported`: report that irregularity now (its base is then kept)."""
    pending = ref.pending
    assert pending.unreported is not None
    board, pieces, reading = pending.unreported
    position = ref.play.position
    side = position.turn
    table = MoveTable(position_from(position, board, pieces, side.other))
    if sensed not in table.results:
        return []
    pending.unreported = None
    irr = reading.irregularity(at, side)
    pending.show(irr, (irr.kind, board, frozenset(ref.sensors.light)))
    pending.base = IrregularBase(board, pieces, side, table)
    return [irr]


def accepted_by_reply(ref: Parts, at: int) -> list[Decision]:
    """The board shows a legal move of the side not at fault from the irregular position
    as it stood (kings followed through lifts and places): his move accepts that position
    (000 5.7, "the opponent's next move accepts the position"). The accept decision is
    applied, and the reply is then a move under the released hand like any other (the
    press, the settle time or the other side starting to move commits it)."""
    play, base = ref.play, ref.pending.base
    if base is None or ref.over or not ref.started or play.sync is not None:
        return []
    sensed = ref.sensors.board()
    table = base.table(play.position)
    moves = table.results.get(sensed)
    if not moves or sensed == play.table.occupied or sensed in play.table.results:
        return []
    if play.table.in_progress(sensed):
        return []
    before = play.position
    # The accepted position is the new turn's: no ply made; the hand and the pieces as
    # followed stay (the reply is under way), touches and reports start afresh.
    play.advance(table.position, None, counts=False, table=table)
    play.candidate = tuple(moves)
    ref.touches.clear()
    ref.pending.new_turn()
    ref.sensors.judged = False
    passes = base.fault is before.turn  # the mover's irregular move stands: the turn passes
    return [Accepted(at, before, table.position, passes, base.fault)]


def passes_turn(ref: Parts, reading: Reading, sensed: Board) -> bool:
    """Does accepting this board let the mover's irregular move stand (the turn passes)?
    Yes when the mover's pieces changed and the opponent's only lost pieces, or when a
    move was taken back (the player who took it back moves again)."""
    if reading.irregular is IrregularityKind.TAKE_BACK:
        return True
    table = ref.play.table
    turn = ref.play.position.turn
    pieces = ref.sensors.pieces
    mine = {sq for sq in sensed if (p := pieces.get(sq)) is not None and p.side is turn}
    theirs = {sq for sq in sensed if sq not in mine}
    return mine != set(table.own) and theirs <= set(table.opp)
