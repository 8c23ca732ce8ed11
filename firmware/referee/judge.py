"""Judging a board at rest: a legal result, a move under way, or an irregularity to report
(000 5.4) with its LED picture; the set-up before the start (000 5.1, 5.2); a piece on a
light square (003 5.3)."""

from __future__ import annotations

from firmware.referee.acceptance import Acceptance
from firmware.referee.analysis import Board, Reading
from firmware.referee.decisions import WRONG, Cleared, Decision, Irregularity, LedMark
from firmware.referee.kinds import MOVER_KINDS


class Judge(Acceptance):
    """The board's rest judged (a layer of the referee)."""

    def tick(self, at: int) -> list[Decision]:
        """Judge a board that has rested for the settle time (call it often, and before every
        event; an event at ``at`` first lets the rest before it count)."""
        if self.judged or self.changed_at is None or at - self.changed_at < self.settle_ns:
            return []
        self.judged = True
        return self._at_rest(self.changed_at + self.settle_ns)

    def _at_rest(self, at: int) -> list[Decision]:
        sensed = self.board()
        if not self.started:
            return self._setup_check(at, sensed)
        if self.over:
            return []
        out = self._judge(at, sensed)
        light = frozenset(self.light)
        if light != self._light_reported:
            self._light_reported = light
            if light:  # a piece on a light square is out of play (003 5.3): never silent
                marks = tuple(LedMark(sq, WRONG) for sq in sorted(light))
                out.append(Irregularity(at, "board-mismatch", self.position.turn, marks))
            elif not out and self.notice is None:
                out.append(Cleared(at))  # the light squares are empty again
        return out

    def _judge(self, at: int, sensed: Board) -> list[Decision]:
        if self._quick_lift is not None and sensed == self.table.occupied - {self._quick_lift}:
            return self._extra_removed(at, sensed)
        reading = self._read(sensed)
        if reading.kind == "result":
            if not self.clocked or self._ends_game(reading.moves):
                return self._commit(reading.moves, at, pressed=False)
            return self._clear(at)
        if reading.kind == "irregular":
            pre: list[Decision] = []
            if self._base is None and self._unreported is not None:
                pre = self._report_unreported(at, sensed)
            if self._base is not None:
                accepted = self._accepted_by_reply(at)
                if accepted:
                    return pre + accepted + self._judge(at, sensed)
                if self._base_table_of().plausible(sensed):
                    return pre  # the opponent's reply under way from the irregular position
            if not self.clocked and self._sync is None and not self._restore:
                plies = self._two_plies(sensed)
                if plies is not None:  # the reply came before the move was seen to rest
                    return self._commit(plies[0], at, False) + self._commit(plies[1], at, False)
            if self.clocked and reading.irregular in MOVER_KINDS and self.table.own - sensed:
                return []  # the mover's move is under way: judged at his press
            return self._report(reading, at, sensed)
        if reading.kind == "progress" and self.notice is not None:
            if self.notice.kind != "touch-move":  # keep showing what is left to do
                marks = self._progress_refusal(sensed, at, self.position.turn).marks
                if marks:
                    self.notice = Irregularity(at, self.notice.kind, self.notice.side, marks)
                    return []
        return self._clear(at)

    def _report(self, reading: Reading, at: int, sensed: Board) -> list[Decision]:
        key = (reading.irregular, sensed, frozenset(self.light))
        irr = Irregularity(at, reading.irregular, reading.side, reading.marks)
        self.notice = irr
        if self._reported == key:
            return []
        self._reported = key
        self._keep_base(irr, sensed)
        return [irr]

    def _extra_removed(self, at: int, sensed: Board) -> list[Decision]:
        """Without a clock, the lift of the opponent's piece that ended the move was the
        mover taking off a piece he did not capture (000 5.4.13): the board rested with only
        that piece off. Show where it goes back; the mover is at fault."""
        marks = tuple(self.table.marks_towards(sensed, self.table.occupied))
        reading = Reading("irregular", (), "extra-removal", self.position.turn.other, marks)
        return self._report(reading, at, sensed)

    def _clear(self, at: int) -> list[Decision]:
        self._reported = None
        self._base = None
        self._base_table = None
        self._quick_lift = None
        if self.notice is not None and self.notice.kind != "touch-move":
            self.notice = None
            return [Cleared(at)]
        return []

    def _setup_check(self, at: int, sensed: Board) -> list[Decision]:
        """Before the start: the start position and the board's orientation (000 5.1, 5.2);
        a piece on a light square means a board turned the wrong way."""
        marks = self.table.marks_towards(sensed, self.table.occupied)
        marks += [LedMark(sq, WRONG) for sq in sorted(self.light)]
        if not marks:
            return self._clear(at)
        reading = Reading("irregular", (), "setup", None, tuple(marks))
        return self._report(reading, at, sensed)
