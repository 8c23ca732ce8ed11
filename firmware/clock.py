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

from typing import Any

from firmware.clock_records import Adjournment, ClockError, ClockPress, Flag
from firmware.rules import Side
from firmware.timecontrol import Bonus, Kind, Stage, TimeControl

SNAPSHOT_VERSION = 1
#: 004 §32: the arbiter may shorten a player's time only if 15 minutes then remain.
MIN_AFTER_CORRECTION_NS = 15 * 60 * 1_000_000_000

__all__ = ["Adjournment", "ClockError", "ClockPress", "Flag", "GameClock", "SNAPSHOT_VERSION"]


_SIDES = (Side.WHITE, Side.BLACK)


class GameClock:
    """Two faces and the rules of the time control; every call takes the monotonic time."""

    def __init__(self, control: TimeControl | str) -> None:
        if isinstance(control, str):
            control = TimeControl.parse(control)
        self.control = control
        initial = 0 if control.counts_up else control.initial_ns()
        # Time on the face when the side's current or next turn began (count up: time used).
        self._base: dict[Side, int] = {s: initial for s in _SIDES}
        self._used: dict[Side, int] = {s: 0 for s in _SIDES}
        self._moves: dict[Side, int] = {s: 0 for s in _SIDES}
        self._flags: dict[Side, int | None] = {s: None for s in _SIDES}
        self._turn: Side | None = None  # whose turn; kept while paused or adjourned
        self._running = False
        self._since = 0  # when the current run of the turn side's clock began
        self._turn_done = 0  # wall time of the turn before _since (runs before a pause)
        self._last_at: int | None = None
        self._adjournment: Adjournment | None = None
        self._stages: dict[int, Stage] = {}  # stage_after(moves), asked on every face read

    # -- state -----------------------------------------------------------------------------

    @property
    def started(self) -> bool:
        return self._turn is not None

    @property
    def running(self) -> Side | None:
        """The side whose clock runs now; None before the start, paused or adjourned."""
        return self._turn if self._running else None

    @property
    def turn(self) -> Side | None:
        """The side whose turn it is on the clock, running or not."""
        return self._turn

    @property
    def paused(self) -> bool:
        return self.started and not self._running and self._adjournment is None

    @property
    def last_at(self) -> int | None:
        """The time of the last call that changed the clock (times may not go back before it)."""
        return self._last_at

    @property
    def adjournment(self) -> Adjournment | None:
        """The envelope's record while the game is adjourned, else None."""
        return self._adjournment

    @property
    def fischer(self) -> bool:
        """True when Fischer increments are in use (seed 000 7.2.9: the forced draws apply to
        games without them)."""
        return self.control.fischer

    @property
    def counts_up(self) -> bool:
        return self.control.counts_up

    def moves_made(self, side: Side) -> int:
        """Moves the side has completed on the clock (each counted at its press, 004 §32)."""
        return self._moves[side]

    def used(self, side: Side, at: int) -> int:
        """Wall time the side's clock has run, pauses left out (what goes on the envelope)."""
        used = self._used[side]
        if side is self._turn:
            used += self._turn_elapsed(at)
        return used

    def remaining(self, side: Side, at: int) -> int:
        """The time on the side's face in ns, never negative: time left, or for count-up
        controls (``-``, ``?``) the time used."""
        self._check_time(at, update=False)
        return self._face(side, at)

    def reading(self, side: Side, at: int) -> int:
        """What ``[%clock]`` and the feed record: the face without the next move's bonus that a
        ``@start`` clock already shows (the time after the last move, its own bonus included).
        The same number under both Fischer conventions."""
        self._check_time(at, update=False)
        return max(0, self._face(side, at) - self._pre(side))

    def flags(self, at: int) -> list[Flag]:
        """Every flag fallen by ``at``, first first."""
        found = [Flag(s, t) for s in _SIDES if (t := self._flags[s]) is not None]
        pending = self.next_flag_at()
        if pending is not None and pending <= at and self._turn is not None:
            found.append(Flag(self._turn, pending))
        return sorted(found, key=lambda f: (f.at, f.side is Side.BLACK))

    def fallen(self, side: Side, at: int) -> int | None:
        """When ``side``'s flag fell, if it has by ``at``; else None."""
        recorded = self._flags[side]
        if recorded is not None:
            return recorded
        if side is self._turn:
            pending = self.next_flag_at()
            if pending is not None and pending <= at:
                return pending
        return None

    def flag(self, at: int) -> Flag | None:
        """The first flag fallen by ``at``: which side and exactly when, or None."""
        found = self.flags(at)
        return found[0] if found else None

    def next_flag_at(self) -> int | None:
        """When the running side's flag will fall if nobody presses (a wake-up time for the
        service), or None (not running, count-up, already fallen)."""
        side = self._turn
        if side is None or not self._running or self.control.counts_up:
            return None
        if self._flags[side] is not None:
            return None
        return self._since + self._flag_turn_time(side) - self._turn_done

    # -- play ------------------------------------------------------------------------------

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

    # -- the arbiter -----------------------------------------------------------------------

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

    def set_moves(self, side: Side, moves: int) -> None:
        """Set how many moves ``side`` has made (the arbiter's count from the scoresheets,
        004 §33). Only the count changes: the time stays; the next control follows the count."""
        if not isinstance(moves, int) or isinstance(moves, bool) or moves < 0:
            raise ClockError(f"a move count must be 0 or more: {moves!r}")
        self._moves[side] = moves

    def correct_moves(self, side: Side, moves: int, at: int) -> int:
        """The arbiter corrects ``side``'s move count (004 §32-33) and the clock follows: each
        control passed on the way up adds its period's time, each passed on the way back
        removes it. A correction that shortens the time and leaves less than 15 minutes is
        refused (:class:`ClockError` with the reason; 004 §32). Returns the ns added (< 0:
        removed)."""
        self._check_time(at, update=False)
        if not isinstance(moves, int) or isinstance(moves, bool) or moves < 0:
            raise ClockError(f"a move count must be 0 or more: {moves!r}")
        old = self._moves[side]
        delta = 0
        for count in range(min(old, moves) + 1, max(old, moves) + 1):
            stage = self.control.control_at(count)
            if stage is not None:
                delta += stage.seconds_ns
        if moves < old:
            delta = -delta
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
            {s: self._face(s, at) for s in _SIDES},
            {s: self.used(s, at) for s in _SIDES},
            dict(self._moves),
            charged,
        )
        return self._adjournment

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

    # -- the journal -----------------------------------------------------------------------

    def snapshot(self, at: int | None = None) -> dict[str, Any]:
        """The clock's whole state as a JSON-able dict. With ``at``, the running time is
        accounted up to ``at`` first (same behaviour, a later reference point)."""
        if at is not None:
            self._check_time(at)
            if self._running:
                self._turn_done = self._turn_elapsed(at)
                self._since = at
        return {
            "version": SNAPSHOT_VERSION,
            "control": str(self.control),
            "base": {s.value: v for s, v in self._base.items()},
            "used": {s.value: v for s, v in self._used.items()},
            "moves": {s.value: v for s, v in self._moves.items()},
            "flags": {s.value: v for s, v in self._flags.items()},
            "turn": self._turn.value if self._turn else None,
            "running": self._running,
            "since": self._since,
            "turn_done": self._turn_done,
            "last_at": self._last_at,
            "adjournment": self._adjournment.to_json() if self._adjournment else None,
        }

    def restore(self, data: dict[str, Any], at: int | None = None) -> None:
        """Take the state of :meth:`snapshot`. With ``at`` (a new monotonic origin, e.g. after a
        reboot) the clock comes back paused at the snapshot's times, ready to :meth:`resume`."""
        try:
            if data.get("version") != SNAPSHOT_VERSION:
                raise ClockError(f"unknown clock snapshot version {data.get('version')!r}")
            control = TimeControl.parse(str(data["control"]))
            base = {Side(k): int(v) for k, v in data["base"].items()}
            used = {Side(k): int(v) for k, v in data["used"].items()}
            moves = {Side(k): int(v) for k, v in data["moves"].items()}
            flags = {Side(k): (None if v is None else int(v)) for k, v in data["flags"].items()}
            turn = None if data["turn"] is None else Side(data["turn"])
            running = bool(data["running"])
            since = int(data["since"])
            turn_done = int(data["turn_done"])
            last_at = None if data["last_at"] is None else int(data["last_at"])
            adjourned = data["adjournment"]
            adjournment = None if adjourned is None else Adjournment.from_json(adjourned)
            if set(base) != set(_SIDES) or set(used) != set(_SIDES) or set(moves) != set(_SIDES):
                raise ClockError("clock snapshot must hold both sides")
        except ClockError:
            raise
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise ClockError(f"unreadable clock snapshot: {exc!r}") from None
        if at is not None:
            reference = last_at if last_at is not None else since
            if running:
                turn_done += reference - since
                running = False
            offset = at - reference
            since = at
            last_at = at
            flags = {s: (None if t is None else t + offset) for s, t in flags.items()}
            if adjournment is not None:
                adjournment = Adjournment(
                    adjournment.sealer,
                    adjournment.at + offset,
                    adjournment.remaining,
                    adjournment.used,
                    adjournment.moves,
                    adjournment.charged_ns,
                )
        self.control = control
        self._stages = {}
        self._base, self._used, self._moves, self._flags = base, used, moves, flags
        self._turn, self._running, self._since = turn, running, since
        self._turn_done, self._last_at, self._adjournment = turn_done, last_at, adjournment

    @classmethod
    def from_snapshot(cls, data: dict[str, Any], at: int | None = None) -> GameClock:
        if not isinstance(data, dict) or "control" not in data:
            raise ClockError("unreadable clock snapshot: not a clock snapshot dict")
        clock = cls(TimeControl.parse(str(data["control"])))
        clock.restore(data, at)
        return clock

    # -- inside ----------------------------------------------------------------------------

    def _check_time(self, at: int, update: bool = True) -> None:
        if not isinstance(at, int):
            raise ClockError(f"clock times are int nanoseconds, not {type(at).__name__}")
        if self._last_at is not None and at < self._last_at:
            raise ClockError(
                f"time went backwards: {at} ns is before the last clock event at "
                f"{self._last_at} ns"
            )
        if update:
            self._last_at = at

    def _turn_elapsed(self, at: int) -> int:
        """Wall time of the turn so far; it stops at the turn side's flag (the clock froze)."""
        if self._turn is None:
            return 0
        if self._running:
            end = at
            if not self.control.counts_up:
                fallen = self._flags[self._turn]
                if fallen is None:
                    fallen = self._since + self._flag_turn_time(self._turn) - self._turn_done
                end = min(end, max(fallen, self._since))
            return self._turn_done + max(0, end - self._since)
        return self._turn_done

    def _unfreeze(self, at: int) -> None:
        """Before the arbiter's correction: the frozen turn time stays frozen (the time between
        the flag and the correction is nobody's)."""
        if self._running and self._turn is not None:
            self._turn_done = self._turn_elapsed(at)
            self._since = at

    def _pre(self, side: Side) -> int:
        """The next move's Fischer bonus when the control gives it at the clock's start
        (``@start``): it is on the face already."""
        if not self.control.bonus_at_start or self._flags[side] is not None:
            return 0
        if self.control.kind is not Kind.STAGES:
            return 0
        stage = self._stage(self._moves[side])
        return stage.bonus_ns if stage.bonus is Bonus.FISCHER else 0

    def _stage(self, moves: int) -> Stage:
        """The stage of a player's move number ``moves + 1`` (cached: faces are read often)."""
        stage = self._stages.get(moves)
        if stage is None:
            if len(self._stages) > 4096:
                self._stages.clear()
            stage = self._stages[moves] = self.control.stage_after(moves)[1]
        return stage

    def _stage_bonus(self, side: Side) -> tuple[Bonus, int]:
        if self.control.kind is not Kind.STAGES:
            return Bonus.NONE, 0
        stage = self._stage(self._moves[side])
        return stage.bonus, stage.bonus_ns

    def _charged(self, side: Side, elapsed: int) -> int:
        """Time taken off the face after ``elapsed`` ns of the turn."""
        bonus, amount = self._stage_bonus(side)
        if bonus is Bonus.DELAY:
            return max(0, elapsed - amount)
        if bonus is Bonus.BRONSTEIN:  # the delay is on the face from the clock's start (DGT)
            return elapsed - amount
        return elapsed

    def _flag_turn_time(self, side: Side) -> int:
        """Turn time at which the side's face reaches 0."""
        bonus, amount = self._stage_bonus(side)
        base = max(0, self._base[side] + self._pre(side))
        return base + amount if bonus in (Bonus.DELAY, Bonus.BRONSTEIN) else base

    def _face(self, side: Side, at: int) -> int:
        base = self._base[side]
        if self.control.counts_up:
            return max(0, base + (self._turn_elapsed(at) if side is self._turn else 0))
        if self._flags[side] is not None:
            return 0
        base += self._pre(side)
        if self._turn is None:
            return max(0, base)
        elapsed = self._turn_elapsed(at)
        if side is self._turn:
            return max(0, base - self._charged(side, elapsed))
        if self.control.kind is Kind.HOURGLASS:
            other = self._turn
            gained = min(elapsed, max(0, self._base[other]))
            return max(0, base + gained)
        return max(0, base)

    def _record_flag_if_fallen(self, at: int) -> None:
        pending = self.next_flag_at()
        if pending is not None and pending <= at and self._turn is not None:
            self._flags[self._turn] = pending

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
            if bonus is Bonus.FISCHER:
                credited += amount
            elif bonus in (Bonus.BRONSTEIN, Bonus.DELAY):
                credited += min(elapsed, amount)
            next_stage = self.control.control_at(moves)
            if next_stage is not None:
                credited += next_stage.seconds_ns
                control = True
            after = before - elapsed + credited
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

    def _stage_bonus_for_move(self, side: Side, moves: int) -> tuple[Bonus, int]:
        """The bonus of the stage the ``moves``-th move was made in."""
        if self.control.kind is not Kind.STAGES:
            return Bonus.NONE, 0
        stage = self._stage(moves - 1)
        return stage.bonus, stage.bonus_ns
