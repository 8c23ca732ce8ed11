"""Reading the sensed board against the position: a legal result, a move under way, or an
irregularity (``analysis.MoveTable``), and why a press on a move under way is refused."""

from __future__ import annotations

from firmware.referee.analysis import Board, Reading
from firmware.referee.decisions import Irregularity, LedMark
from firmware.referee.sensed import SensedBoard
from firmware.rules.position import Move
from firmware.rules.sets import Side


class BoardReader(SensedBoard):
    """What the sensed board shows (a layer of :class:`firmware.referee.referee.Referee`)."""

    def _read(self, sensed: Board) -> Reading:
        if self._restore:  # moves taken back: nothing counts until the board shows it again
            if sensed != self.table.occupied:
                towards = tuple(self.table.marks_towards(sensed, self.table.occupied))
                return Reading("irregular", (), "restore", None, towards)
            self._restore = False  # restored: each piece is the position's again
            self.pieces = {sq: p for sq, p in self.position.pieces().items() if sq in sensed}
        if self._sync is not None:
            table, move = self._sync
            if sensed == self.table.occupied:
                self._sync = None
            elif sensed == table.occupied or table.in_progress(sensed, [move]):
                marks = table.marks_towards(sensed, self.table.occupied)
                return Reading("progress", (), "", None, tuple(marks))
        reading = self.table.read(sensed)
        if reading.kind == "irregular":
            return self.table.classify(sensed, self.previous, self.ply)
        return reading

    def _two_plies(self, sensed: Board) -> tuple[tuple[Move, ...], tuple[Move, ...]] | None:
        """A legal move and the opponent's reply that ``sensed`` shows, if the pieces standing
        on their end squares are the movers' own as followed through lifts and places (the
        occupancy alone may match pieces knocked off and a piece of the other colour)."""
        plies = self.table.two_plies(sensed)
        if plies is None:
            return None
        turn = self.position.turn

        def fits(m: Move, side: Side) -> bool:
            piece = self.pieces.get(m.end)
            return piece is None or piece.side is side or m.end in self._mixed

        second = tuple(m for m in plies[1] if fits(m, turn.other))
        first = tuple(m for m in plies[0] if fits(m, turn))
        return (first, second) if first and second else None

    def _ends_game(self, moves: tuple[Move, ...]) -> bool:
        after = self.position.play(moves[0])
        return not after.legal_moves()

    def _progress_refusal(self, sensed: Board, at: int, side: Side) -> Irregularity:
        """Why a press on a move under way is refused: the capture stopped half way (000
        5.4.9), or captured pieces still on the board (000 5.4.10-12), or no move at all."""
        table = self.table
        added = sensed - table.occupied
        removed = table.occupied - sensed
        if not added:
            marks = [LedMark(self.geometry.algebraic(sq), "restore") for sq in sorted(removed)]
            return Irregularity(at, "press-without-move", side, tuple(marks))
        if len(added) != 1:
            return Irregularity(at, "press-without-move", side, ())
        (e,) = added
        for m in table.moves:
            if m.start in removed and e in table.path(m):
                target = table.result_of(m)
                kind = "incomplete-removal" if e == m.end else "wrong-capture"
                return Irregularity(at, kind, side, tuple(table.marks_towards(sensed, target)))
        return Irregularity(at, "press-without-move", side, ())
