"""The two-face game clock: pure accounting on monotonic nanoseconds, driven by presses.

Rules it implements (RULES.md, Clocks):

- The arbiter starts the clock: White's clock runs, present or not; an absent player's time
  runs from the start (004 §32).
- A press ends the presser's turn and starts the opponent's clock. The move counts when that
  press starts the opponent's clock; a flag that falls during the press (the time is gone at the
  instant of the press, 0 left included) is an overstep (004 §32).
- Moves per period: when a player completes a period's moves, the next period's time is added
  to what he saved; the last period repeats when it names a move count (004 §32).
- Fischer increments are added after each move, or (``@start``, DGT clocks) are on the face when
  the side's clock starts: 4800+60@start shows 1:21:00 at move 1 (DGT 3000 manual, "Fischer").
  Bronstein delay as the DGT 3000 gives it ("Delay"): the delay is on the face when the clock
  starts and the clock counts down at once; what the move took, up to the delay, is given back,
  so a player may use base + delay on a move (B10+5: a 12 s move stands with 3 s left). Simple
  (US) delay waits before counting down; both end the same (DGT 3000 manual).
- A flag freezes the clock (DGT 3000: "the clock freezes and a blinking flag is shown"): both
  faces stop, the side that flagged first shows it, presses are refused (reason ``flag``) until
  the arbiter sets a time above 0.
- The arbiter pauses, resumes and corrects either time and the move count (004 §32, §33). A
  move count corrected past a control adds that period's time (back again removes it); a
  correction that shortens a player's time is refused when it would leave him less than 15
  minutes (004 §32: "mõtlemisaega võib ta lühendada ainult juhul, kui pärast vea parandamist
  kuni kontrollini jääb vähemalt 15 minutit").
- Adjournment (004 §34-35): :meth:`GameClock.adjourn` stops the clocks and records the times;
  :meth:`GameClock.resume_adjourned` plays the sealed move on the clock (it counts as the
  sealer's move) and starts the opponent's clock.

Accounting. For each side, between turns, the clock keeps its remaining time. During a turn the
face shows ``base - charged(T)`` where ``T`` is the wall time of the turn so far (pauses left
out) and ``charged(T)`` is ``T``, or ``max(0, T - delay)`` under simple delay. At the press the
turn is settled: ``remaining = base - T + credited`` with ``credited`` the increment, the
Bronstein refund or delay ``min(T, delay)``, and period time. :class:`ClockPress` reports
``used_ns`` and ``credited_ns`` so that callers (and the property tests) can check that no time
is created or lost. An hourglass moves what one side uses to the other; count-up controls
(``-``, ``?``) show the time used and never flag.
"""

from __future__ import annotations

from firmware.clock import arithmetic as rules
from firmware.clock.corrections import MIN_AFTER_CORRECTION_NS, ArbiterCorrections
from firmware.clock.ledger import SIDES, changes
from firmware.clock.records import Adjournment, ClockError, ClockPress, Flag
from firmware.clock.timecontrol import Kind
from firmware.rules.sets import Side

__all__ = ["Adjournment", "ClockError", "ClockPress", "Flag", "GameClock",
           "MIN_AFTER_CORRECTION_NS"]


class GameClock(ArbiterCorrections):
    """Two faces and the rules of the time control; every call takes the monotonic time. The
    books and the faces' reads are :class:`firmware.clock.ledger.ClockLedger`'s, the
    arbiter's corrections :class:`firmware.clock.corrections.ArbiterCorrections`'."""

    # -- play ------------------------------------------------------------------------------

    @changes
    def start(self, at: int, side: Side = Side.WHITE) -> None:
        """The arbiter starts the game: ``side``'s clock runs (White's unless a position with
        Black to move was set up), whether or not that player is present (004 §32)."""
        self._check_time(at)
        if self.started:
            raise ClockError("the clock is already started")
        self._turn = side
        self._running = True
        self._since = at
        self._turn_done = 0

    @changes
    def press(self, side: Side, at: int) -> ClockPress:
        """``side`` ends its turn at ``at`` (the time of the button's first edge): the move
        counts, the turn is settled and the opponent's clock starts (004 §32)."""
        self._check_time(at)
        if self._adjournment is not None:
            return ClockPress(side, at, False, "adjourned", self._moves[side])
        if not self.started:
            return ClockPress(side, at, False, "not-started", self._moves[side])
        if not self._running:
            return ClockPress(side, at, False, "paused", self._moves[side])
        if side is not self._turn:
            return ClockPress(side, at, False, "not-running", self._moves[side])
        pending = self.next_flag_at()
        fallen = (pending is not None and pending <= at) or any(
            t is not None for t in self._flags.values()
        )
        first = self.flag(at) if fallen else None
        if first is not None and not self.control.counts_up:
            self._record_flag_if_fallen(at)
            return ClockPress(
                side, at, False, "flag", self._moves[side], overstep=first.side is side,
                flag=first,
            )
        return self._settle(side, at)

    @changes
    def pause(self, at: int) -> bool:
        """The arbiter stops the clocks (004 §33). False if they were not running."""
        self._check_time(at)
        if not self._running or self._turn is None:
            return False
        self._record_flag_if_fallen(at)
        self._turn_done = self._turn_elapsed(at)
        self._since = at
        self._running = False
        return True

    @changes
    def resume(self, at: int) -> bool:
        """The arbiter restarts the clock of the side whose turn it is. False if it runs
        already or was never started; :class:`ClockError` while adjourned."""
        self._check_time(at)
        if self._adjournment is not None:
            raise ClockError("the game is adjourned: resume it with the sealed move")
        if self._running or self._turn is None:
            return False
        self._running = True
        self._since = at
        return True

    # -- adjournment (004 §34-35) ------------------------------------------------------------

    @changes
    def adjourn(self, at: int, session_ns: int | None = None) -> Adjournment:
        """Adjourn: the side to move has sealed his move; the clocks stop and the times are
        recorded (004 §34). With ``session_ns`` (the time set for the session, e.g. 4 h) the
        sealer adjourning early takes the rest of the session on his own clock (004 §34: the
        used times then add up to the session)."""
        self._check_time(at)
        if self._adjournment is not None:
            raise ClockError("the game is already adjourned")
        sealer = self._turn
        if sealer is None:
            raise ClockError("the clock is not started: nothing to adjourn")
        self.pause(at)
        self._running = False
        charged = 0
        if session_ns is not None:
            total = self.used(Side.WHITE, at) + self.used(Side.BLACK, at)
            charged = max(0, session_ns - total)
            if charged:
                self._used[sealer] += charged
                if self.control.counts_up:
                    self._base[sealer] += charged
                else:
                    self._base[sealer] -= charged
                    if self._face(sealer, at) == 0 and self._flags[sealer] is None:
                        self._flags[sealer] = at
        self._adjournment = Adjournment(
            sealer,
            at,
            {s: self._face(s, at) for s in SIDES},
            {s: self.used(s, at) for s in SIDES},
            dict(self._moves),
            charged,
        )
        return self._adjournment

    @changes
    def resume_adjourned(self, at: int) -> ClockPress:
        """Resumption (004 §35): the arbiter has set up the position and opened the envelope;
        the sealed move is played on the clock (it counts as the sealer's move, with its
        increment or control) and the opponent's clock starts at ``at``."""
        self._check_time(at)
        record = self._adjournment
        if record is None:
            raise ClockError("the game is not adjourned")
        self._adjournment = None
        self._running = True
        self._since = at
        return self._settle(record.sealer, at)

    # -- inside ----------------------------------------------------------------------------

    def _settle(self, side: Side, at: int) -> ClockPress:
        """End ``side``'s turn at ``at`` and start the opponent's clock."""
        self._record_flag_if_fallen(at)
        elapsed = self._turn_elapsed(at)
        before = self._base[side]
        flag_at = self._flags[side]
        overstep = flag_at is not None and flag_at <= at
        self._moves[side] += 1
        moves = self._moves[side]
        credited = 0
        control = False
        if self.control.counts_up:
            after = before + elapsed
        elif overstep:
            after = 0
        else:
            bonus, amount = self._stage_bonus_for_move(side, moves)
            next_stage = self.control.control_at(moves)
            period = next_stage.seconds_ns if next_stage is not None else 0
            control = next_stage is not None
            credited = rules.credit(bonus, amount, elapsed) + period
            after = rules.settled(before, elapsed, bonus, amount, period)
        if self.control.kind is Kind.HOURGLASS:
            other = side.other
            self._base[other] = self._face(other, at)
        self._used[side] += elapsed
        self._base[side] = after
        self._turn = side.other
        self._since = at
        self._turn_done = 0
        self._running = True
        flag = None if flag_at is None else Flag(side, flag_at)
        return ClockPress(
            side, at, True, "", moves, elapsed, credited, max(0, after), overstep, control, flag
        )
