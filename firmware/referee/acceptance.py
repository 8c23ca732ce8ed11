"""Acceptance (000 5.4, 5.7): the opponent lets an irregular board stand, by the arbiter's
``accept`` or by replying from it ("the opponent's next move accepts the position"). The
irregular position of the mover's fault is kept until it is corrected or accepted."""

from __future__ import annotations

from firmware.referee.analysis import Board, MoveTable, Reading
from firmware.referee.decisions import Accepted, Decision, Irregularity
from firmware.referee.kinds import FAULT_KINDS
from firmware.referee.reader import BoardReader


class Acceptance(BoardReader):
    """Keeping the irregular position and accepting it (a layer of the referee)."""

    def _keep_base(self, irr: Irregularity, sensed: Board) -> None:
        """Remember the irregular position the mover left (his fault, 000 5.4): if nobody
        corrects it and the opponent replies from it, his reply accepts it (000 5.7)."""
        if irr.kind in FAULT_KINDS and irr.side is self.position.turn:
            fault = irr.side
        elif irr.kind in ("two-moves", "wrong-side") and irr.side is not None:
            fault = irr.side  # a move out of turn: the player to move may reply from it
        else:
            return
        pieces = {sq: p for sq, p in self.pieces.items() if sq in sensed}
        self._base = (sensed, pieces, fault)
        self._base_table = None

    def _note_unreported(self) -> None:
        """The opponent lifts one of his pieces: if the board (before the lift) is an
        irregular move of the mover not yet reported, keep it: a reply from it accepts it."""
        if self._sync is not None:
            return
        board = self.board()
        reading = self._read(board)
        if (
            reading.kind == "irregular"
            and reading.irregular in FAULT_KINDS
            and reading.side is self.position.turn
        ):
            pieces = {sq: p for sq, p in self.pieces.items() if sq in board}
            self._unreported = (board, pieces, reading)

    def _report_unreported(self, at: int, sensed: Board) -> list[Decision]:
        """The board shows a legal reply from the irregular board kept by
        :meth:`_note_unreported`: report that irregularity now (its base is then kept)."""
        assert self._unreported is not None
        board, pieces, reading = self._unreported
        side = self.position.turn
        table = MoveTable(self._position_from(board, pieces, side.other))
        if sensed not in table.results:
            return []
        self._unreported = None
        irr = Irregularity(at, reading.irregular, side, reading.marks)
        self.notice = irr
        self._reported = (irr.kind, board, frozenset(self.light))
        self._base = (board, pieces, side)
        self._base_table = table
        return [irr]

    def _base_table_of(self) -> MoveTable:
        assert self._base is not None
        if self._base_table is None:
            board, pieces, fault = self._base
            self._base_table = MoveTable(self._position_from(board, pieces, fault.other))
        return self._base_table

    def _accepted_by_reply(self, at: int) -> list[Decision]:
        """The board shows a legal move of the side not at fault from the irregular position
        as it stood (kings followed through lifts and places): his move accepts that position
        (000 5.7, "the opponent's next move accepts the position"). The accept decision is
        applied, and the reply is then a move under the released hand like any other (the
        press, the settle time or the other side starting to move commits it)."""
        if self._base is None or self.over or not self.started or self._sync is not None:
            return []
        sensed = self.board()
        table = self._base_table_of()
        moves = table.results.get(sensed)
        if not moves or sensed == self.table.occupied or sensed in self.table.results:
            return []
        if self.table.in_progress(sensed):
            return []
        fault = self._base[2]
        before = self.position
        pieces, hand, mixed = dict(self.pieces), list(self.hand), set(self._mixed)
        self._advance(table.position, None)
        self.ply -= 1
        self._table = table
        self.pieces, self.hand, self._mixed = pieces, hand, mixed
        self.judged = False
        self._candidate = tuple(moves)
        passes = fault is before.turn  # the mover's irregular move stands: the turn passes
        return [Accepted(at, before, table.position, passes, fault)]

    def _passes_turn(self, reading: Reading, sensed: Board) -> bool:
        """Does accepting this board let the mover's irregular move stand (the turn passes)?
        Yes when the mover's pieces changed and the opponent's only lost pieces, or when a
        move was taken back (the player who took it back moves again)."""
        if reading.irregular == "take-back":
            return True
        turn = self.position.turn
        mine = {sq for sq in sensed if (p := self.pieces.get(sq)) is not None and p.side is turn}
        theirs = {sq for sq in sensed if sq not in mine}
        return mine != set(self.table.own) and theirs <= set(self.table.opp)
