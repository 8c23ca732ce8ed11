"""Reading the sensed board against the position: a legal result, a move under way, or an
irregularity (``analysis.MoveTable``), while a sealed move is carried out or a take-back
restored; two plies at once; and why a press on a move under way is refused."""

from __future__ import annotations

from firmware.referee.analysis import Board, Reading
from firmware.referee.decisions import RESTORE, Irregularity, LedMark
from firmware.referee.kinds import IrregularityKind
from firmware.referee.play import Play
from firmware.referee.sensed import SensedBoard
from firmware.rules.position import Move
from firmware.rules.sets import Side


def read(play: Play, sensors: SensedBoard, sensed: Board) -> Reading:
    """What ``sensed`` shows. Moves taken back: nothing counts until the board shows the
    position again (then each piece standing is the position's); a sealed move played: the
    board on its way to it is progress."""
    if play.restore:
        if sensed != play.table.occupied:
            towards = tuple(play.table.marks_towards(sensed, play.table.occupied))
            return Reading("irregular", (), IrregularityKind.RESTORE, None, towards)
        play.restore = False
        sensors.follow(play.position, sensed)
    if play.sync is not None:
        table, move = play.sync
        if sensed == play.table.occupied:
            play.sync = None
        elif sensed == table.occupied or table.in_progress(sensed, [move]):
            marks = table.marks_towards(sensed, play.table.occupied)
            return Reading("progress", (), None, None, tuple(marks))
    reading = play.table.read(sensed)
    if reading.kind == "irregular":
        return play.table.classify(sensed, play.previous, play.ply)
    return reading


def two_plies(play: Play, sensors: SensedBoard,
              sensed: Board) -> tuple[tuple[Move, ...], tuple[Move, ...]] | None:
    """A legal move and the opponent's reply that ``sensed`` shows, if the pieces standing
    on their end squares are the movers' own as followed through lifts and places (the
    occupancy alone may match pieces knocked off and a piece of the other colour)."""
    plies = play.table.two_plies(sensed)
    if plies is None:
        return None
    turn = play.position.turn
    pieces, mixed = sensors.pieces, sensors.mixed

    def fits(m: Move, side: Side) -> bool:
        piece = pieces.get(m.end)
        return piece is None or piece.side is side or m.end in mixed

    second = tuple(m for m in plies[1] if fits(m, turn.other))
    first = tuple(m for m in plies[0] if fits(m, turn))
    return (first, second) if first and second else None


def progress_refusal(play: Play, sensed: Board, at: int, side: Side) -> Irregularity:
    """Why a press on a move under way is refused: the capture stopped half way (000
    5.4.9), or captured pieces still on the board (000 5.4.10-12), or no move at all."""
    table = play.table
    added = sensed - table.occupied
    removed = table.occupied - sensed
    if not added:
        alg = table.geometry.algebraic
        marks = [LedMark(alg(sq), RESTORE) for sq in sorted(removed)]
        return Irregularity(at, IrregularityKind.PRESS_WITHOUT_MOVE, side, tuple(marks))
    if len(added) != 1:
        return Irregularity(at, IrregularityKind.PRESS_WITHOUT_MOVE, side, ())
    (e,) = added
    for m in table.moves:
        if m.start in removed and e in table.path(m):
            target = table.result_of(m)
            kind = (IrregularityKind.INCOMPLETE_REMOVAL if e == m.end
                    else IrregularityKind.WRONG_CAPTURE)
            return Irregularity(at, kind, side, tuple(table.marks_towards(sensed, target)))
    return Irregularity(at, IrregularityKind.PRESS_WITHOUT_MOVE, side, ())
