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

from firmware.clock import corrections, play
from firmware.clock.corrections import MIN_AFTER_CORRECTION_NS
from firmware.clock.ledger import ClockLedger
from firmware.clock.records import Adjournment, ClockError, ClockPress, Flag
from firmware.clock.timecontrol import TimeControl
from firmware.rules.sets import Side

__all__ = ["Adjournment", "ClockError", "ClockPress", "Flag", "GameClock",
           "MIN_AFTER_CORRECTION_NS"]


class GameClock:
    """Two faces and the rules of the time control; every call takes the monotonic time.
    ``books`` (:class:`firmware.clock.ledger.ClockLedger`) holds its state and reads the
    faces; the play (``firmware.clock.play``) and the arbiter's corrections
    (``firmware.clock.corrections``) are functions that keep them."""

    __slots__ = ("books",)

    def __init__(self, control: TimeControl | str) -> None:
        self.books = ClockLedger(control)

    def copy(self) -> GameClock:
        """An independent copy that reads as this clock does now (the display thread's)."""
        other = GameClock.__new__(GameClock)
        other.books = self.books.copy()
        return other

    @property
    def generation(self) -> int:
        """Moved by every change (a press, a pause, a correction, a refused call included):
        while it stands, a copy reads as the clock does."""
        return self.books.generation

    @property
    def control(self) -> TimeControl:
        return self.books.control

    # -- play (firmware.clock.play) --------------------------------------------------------

    def start(self, at: int, side: Side = Side.WHITE) -> None:
        play.start(self.books, at, side)

    def press(self, side: Side, at: int) -> ClockPress:
        return play.press(self.books, side, at)

    def pause(self, at: int) -> bool:
        return play.pause(self.books, at)

    def resume(self, at: int) -> bool:
        return play.resume(self.books, at)

    def adjourn(self, at: int, session_ns: int | None = None) -> Adjournment:
        return play.adjourn(self.books, at, session_ns)

    def resume_adjourned(self, at: int) -> ClockPress:
        return play.resume_adjourned(self.books, at)

    # -- the arbiter's corrections (firmware.clock.corrections) ----------------------------

    def set_remaining(self, side: Side, ns: int, at: int) -> None:
        corrections.set_remaining(self.books, side, ns, at)

    def hand_turn(self, side: Side, at: int) -> None:
        corrections.hand_turn(self.books, side, at)

    def set_moves(self, side: Side, moves: int) -> None:
        corrections.set_moves(self.books, side, moves)

    def correct_moves(self, side: Side, moves: int, at: int) -> int:
        return corrections.correct_moves(self.books, side, moves, at)

    # -- reads (firmware.clock.ledger) -----------------------------------------------------

    @property
    def started(self) -> bool:
        return self.books.turn is not None

    @property
    def running(self) -> Side | None:
        """The side whose clock runs now; None before the start, paused or adjourned."""
        books = self.books
        return books.turn if books.runs else None

    @property
    def turn(self) -> Side | None:
        """The side whose turn it is on the clock, running or not."""
        return self.books.turn

    @property
    def paused(self) -> bool:
        return self.books.paused

    @property
    def last_at(self) -> int | None:
        """The time of the last call that changed the clock (times may not go back before it)."""
        return self.books.last_at

    @property
    def adjournment(self) -> Adjournment | None:
        """The envelope's record while the game is adjourned, else None."""
        return self.books.adjournment

    @property
    def fischer(self) -> bool:
        return self.books.fischer

    @property
    def counts_up(self) -> bool:
        return self.books.counts_up

    def moves_made(self, side: Side) -> int:
        return self.books.moves_made(side)

    def used(self, side: Side, at: int) -> int:
        return self.books.used(side, at)

    def remaining(self, side: Side, at: int) -> int:
        return self.books.remaining(side, at)

    def reading(self, side: Side, at: int) -> int:
        return self.books.reading(side, at)

    def flags(self, at: int) -> list[Flag]:
        return self.books.flags(at)

    def fallen(self, side: Side, at: int) -> int | None:
        return self.books.fallen(side, at)

    def flag(self, at: int) -> Flag | None:
        return self.books.flag(at)

    def next_flag_at(self) -> int | None:
        return self.books.next_flag_at()
