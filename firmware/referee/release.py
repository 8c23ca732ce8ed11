"""When the hand counts as released (000 3.9, 3.11; 004 §32): with a clock at the mover's
press; without one when the board rests on a legal result or the opponent starts to move;
and at the end of a log."""

from __future__ import annotations

from firmware.referee.analysis import Board, MoveTable
from firmware.referee.decisions import Decision, Irregularity, PressRefused
from firmware.referee.judge import Judge
from firmware.rules.sets import Side


class Release(Judge):
    """Presses, the opponent starting, and the end of a log (a layer of the referee)."""

    def press(self, side: Side, at: int) -> list[Decision]:
        """``side`` pressed its clock: commit its move if the board shows one (004 §32)."""
        out = self.tick(at)
        if not self.clocked:
            self.clocked = True  # the log has presses: the released hand ends at the press
        if not self.started or self.over:
            return out
        if side is not self.position.turn and self._base is None and self._unreported:
            # The mover's irregular move was never pressed, and the opponent replied from it.
            reported = self._report_unreported(at, self.board())
            out += reported + (self._accepted_by_reply(at) if reported else [])
        if side is not self.position.turn:
            sensed = self.board()
            # The mover forgot to press and the opponent replied: both moves stand, the
            # forgetful player's clock having run meanwhile (004 §32).
            holding = self._sync is not None or self._restore
            plies = self._two_plies(sensed) if not holding else None
            if plies is not None:
                out += self._commit(plies[0], at, pressed=True)
                out += self._commit(plies[1], at, pressed=True)
            elif not holding and sensed in self.table.flipped().results:
                # He moved out of turn: a second move in a row (000 5.4.1), or first of all.
                kind = "two-moves" if self.ply > 0 else "wrong-side"
                marks = tuple(self.table.marks_towards(sensed, self.table.occupied))
                irr = Irregularity(at, kind, side, marks)
                self.notice = irr
                self._reported = (kind, sensed, frozenset(self.light))
                self._keep_base(irr, sensed)
                out += [irr, PressRefused(at, side)]
            return out
        sensed = self.board()
        reading = self._read(sensed)
        if reading.kind == "result":
            return out + self._commit(reading.moves, at, pressed=True)
        same = self._same_instant_reply(sensed, at)
        if same is not None:
            return out + same
        if reading.kind == "same":
            irr = Irregularity(at, "press-without-move", side, ())
        elif reading.kind == "progress":
            irr = self._progress_refusal(sensed, at, side)
        elif reading.irregular in ("two-moves", "wrong-side"):
            # The player to move pressed with the opponent's piece moved: he moved it (5.4.5).
            irr = Irregularity(at, "wrong-side", side, reading.marks)
        else:
            irr = Irregularity(at, reading.irregular, reading.side, reading.marks)
        self.notice = irr if irr.marks else self.notice
        self._reported = (irr.kind, sensed, frozenset(self.light))
        self._keep_base(irr, sensed)
        return out + [irr, PressRefused(at, side)]

    def _same_instant_reply(self, sensed: Board, at: int) -> list[Decision] | None:
        """The press and the opponent's first lift came at the same instant, the lift logged
        first: if the board with those pieces back shows the mover's legal result, the press
        commits it (004 §32) and the lifted pieces are the opponent's move under way."""
        when, lifted = self._instant
        if when != at or not lifted:
            return None
        # the opponent's pieces, or the man just moved that he takes off to capture (003 4.16)
        back = [(sq, p) for sq, p in lifted if sq not in self.sensed]
        if not back:
            return None
        reading = self._read(sensed | {sq for sq, _ in back})
        if reading.kind != "result":
            return None
        hand = [p for _, p in back if p is not None]
        for p in hand:
            if p in self.hand:
                self.hand.remove(p)
        out = self._commit(reading.moves, at, pressed=True)
        self.hand.extend(hand)
        for sq, _ in back:  # the opponent's lifts open his turn (touch-move, 000 3.10)
            if sq in self.table.own:
                self._open_lifts[sq] = at
                self._lifted_at.setdefault(sq, at)
        self._changed(at)
        return out

    def _follow(self, at: int) -> list[Decision]:
        """Without a clock: when the board leaves the last legal result it showed for a picture
        the mover's move cannot explain but the opponent's reply can (he started at once, say
        by taking off the man just moved, 003 4.16), that result was the move."""
        if self.clocked or not self.started or self.over or self._sync is not None or (
                self._restore):
            return []
        sensed = self.board()
        moves = self.table.results.get(sensed)
        if moves:
            if self._candidate is None or self._candidate[0] not in moves:
                self._candidate = tuple(moves)
                self._candidate_table = None
            return []
        if self._candidate is None or self.table.plausible(sensed):
            return []
        if self._candidate_table is None:
            self._candidate_table = MoveTable(self.position.play(self._candidate[0]))
        if not self._candidate_table.plausible(sensed):
            return []
        out = self._commit(self._candidate, at, pressed=False)
        self.judged = False  # the reply under way comes to rest in its turn
        return out

    def _opponent_starts(self, sq: int, at: int) -> list[Decision]:
        """Without a clock, the opponent starting his move ends the move on the board (issue 3
        item 1): he lifts one of his own pieces, unless it is one a longer capture would take
        (000 4.11), or he takes off a piece he is about to capture (003 4.16; accepted under
        every rule set: the board cannot mistake it)."""
        sensed = self.board()
        moves = self.table.results.get(sensed)
        if not moves:
            return []
        piece = self.position.piece_at(sq)
        if piece is not None and piece.side is self.position.turn.other:
            for m in self.table.moves:
                if sq in m.captured and any(
                    m.start == c.start and m.end == c.end and set(c.captured) < set(m.captured)
                    for c in moves
                ):
                    return []
            out = self._commit(tuple(moves), at, pressed=False)
            if moves[0].is_capture:
                # Lifted while the capturer may still be taking pieces off (before the move
                # was seen to rest): if the board rests with only it off, he took it (F4).
                self._quick_lift = sq
            return out
        if (
            piece is not None
            and all(sq != c.end for c in moves)
            and any(m.captured == (sq,) for m in self.position.play(moves[0]).legal_moves())
        ):
            return self._commit(tuple(moves), at, pressed=False)
        return []

    def finish(self, at: int) -> list[Decision]:
        """The log ended: a board resting on a legal result is the last move made.

        With a clock too: the last move of a game is often left unpressed (the opponent
        resigns, the flag falls, the log was cut), and the board shows it complete."""
        out = self.tick(at)
        if self.started and not self.over:
            self.judged = True
            reading = self._read(self.board())
            if reading.kind == "result":
                out += self._commit(reading.moves, at, pressed=False)
        return out
