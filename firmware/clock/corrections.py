"""The arbiter's corrections of the game clock (004 §32-33): a face set to a time, a move
count set or corrected (the clock following the controls passed), with 004 §32's limit on
shortening a player's time."""

from __future__ import annotations

from firmware.clock import arithmetic as rules
from firmware.clock.ledger import ClockLedger, changes
from firmware.clock.records import ClockError
from firmware.clock.timecontrol import Kind
from firmware.rules.sets import Side

#: 004 §32: the arbiter may shorten a player's time only if 15 minutes then remain.
MIN_AFTER_CORRECTION_NS = 15 * 60 * 1_000_000_000
#: The most moves a side's count may be set to (a game of draughts has a few hundred at most;
#: the controls passed on the way are counted one by one).
MAX_MOVE_COUNT = 10_000


def _check_count(moves: object) -> None:
    if not isinstance(moves, int) or isinstance(moves, bool) or not 0 <= moves <= MAX_MOVE_COUNT:
        shown = repr(moves)[:20] if not isinstance(moves, int) or moves.bit_length() < 64 \
            else "a number too large"
        raise ClockError(f"a move count must be a whole number from 0 to {MAX_MOVE_COUNT}: "
                         f"{shown}")


class ArbiterCorrections(ClockLedger):
    """What the arbiter may change on the clock besides stopping and starting it."""

    @changes
    def set_remaining(self, side: Side, ns: int, at: int) -> None:
        """Set what ``side``'s face shows at ``at`` (004 §32: the arbiter corrects clock errors).
        A fallen flag is lifted when the new time is above 0."""
        self._check_time(at)
        if not isinstance(ns, int) or ns < 0:
            raise ClockError(f"a clock time cannot be negative or fractional ns: {ns!r}")
        self._unfreeze(at)
        if ns > 0:
            self._flags[side] = None
        pre = self._pre(side)
        turn = self._turn
        if self.control.kind is Kind.HOURGLASS and turn is side.other:
            gained = min(self._turn_elapsed(at), max(0, self._base[turn]))
            self._base[side] = ns - gained
        elif side is self._turn:
            elapsed = self._turn_elapsed(at)
            if self.control.counts_up:
                self._base[side] = ns - elapsed
            else:
                self._base[side] = ns + self._charged(side, elapsed) - pre
        else:
            self._base[side] = ns - pre
        if ns > 0 or self.control.counts_up:
            self._flags[side] = None
        elif self._flags[side] is None:
            self._flags[side] = at

    @changes
    def hand_turn(self, side: Side, at: int) -> None:
        """Moves taken back, the clocks stopped: ``side`` moves next (its clock runs when
        the arbiter resumes); each face keeps what it shows. ClockError while running."""
        self._check_time(at)
        if self._turn is None or self._turn is side:
            return
        if self._running:
            raise ClockError("stop the clocks before the turn changes hands")
        faces = {s: self._face(s, at) for s in (Side.WHITE, Side.BLACK)}
        self._turn = side
        self._turn_done = 0
        self._since = at
        for s, face in faces.items():
            self.set_remaining(s, face, at)

    @changes
    def set_moves(self, side: Side, moves: int) -> None:
        """Set how many moves ``side`` has made (the arbiter's count from the scoresheets,
        004 §33). Only the count changes: the time stays; the next control follows the count."""
        _check_count(moves)
        self._moves[side] = moves

    @changes
    def correct_moves(self, side: Side, moves: int, at: int) -> int:
        """The arbiter corrects ``side``'s move count (004 §32-33) and the clock follows: each
        control passed on the way up adds its period's time, each passed on the way back
        removes it. A correction that shortens the time and leaves less than 15 minutes is
        refused (:class:`ClockError` with the reason; 004 §32). Returns the ns added (< 0:
        removed)."""
        self._check_time(at, update=False)
        _check_count(moves)
        delta = rules.period_time_between(self.control, self._moves[side], moves)
        face = self._face(side, at)
        if delta < 0 and not self.control.counts_up:
            after = face + delta
            if after < MIN_AFTER_CORRECTION_NS:
                raise ClockError(
                    f"correction refused: {side.value} would have "
                    f"{max(0, after) // 1_000_000_000} s, less than 15 minutes to the control "
                    f"(004 §32: the arbiter may shorten a player's time only if 15 minutes remain)"
                )
        self._check_time(at)
        self._unfreeze(at)
        self._moves[side] = moves
        if delta and not self.control.counts_up:
            self.set_remaining(side, max(0, self._face(side, at) + delta), at)
        return delta
