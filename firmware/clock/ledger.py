"""The game clock's books: per side, what the face held when its turn began, the time used,
the moves made and the flag; whose turn it is and since when. Every read of the faces lives
here (``firmware.clock.gameclock`` has the module docstring on the accounting; the turn's
arithmetic is ``firmware.clock.arithmetic``)."""

from __future__ import annotations

import copy as _copy
import functools
from collections.abc import Callable
from typing import Concatenate, ParamSpec, Self, TypeVar

from firmware.clock import arithmetic as rules
from firmware.clock.records import Adjournment, ClockError, Flag
from firmware.clock.timecontrol import Bonus, Kind, Stage, TimeControl
from firmware.rules.sets import Side

SIDES = (Side.WHITE, Side.BLACK)

_P = ParamSpec("_P")
_R = TypeVar("_R")
_L = TypeVar("_L", bound="ClockLedger")


def changes(method: Callable[Concatenate[_L, _P], _R]) -> Callable[Concatenate[_L, _P], _R]:
    """Marks a method that changes the clock: it bumps :attr:`ClockLedger.generation`
    (even when it raises half-way), so that a reader can tell that a copy is out of date."""

    @functools.wraps(method)
    def changed(self: _L, *args: _P.args, **kwargs: _P.kwargs) -> _R:
        try:
            return method(self, *args, **kwargs)
        finally:
            self.generation += 1

    return changed


class ClockLedger:
    """The clock's state and what the faces show; :class:`firmware.clock.gameclock.GameClock`
    plays on it. Every call takes the monotonic time in ns."""

    def __init__(self, control: TimeControl | str) -> None:
        if isinstance(control, str):
            control = TimeControl.parse(control)
        self.control = control
        initial = 0 if control.counts_up else control.initial_ns()
        # Time on the face when the side's current or next turn began (count up: time used).
        self._base: dict[Side, int] = {s: initial for s in SIDES}
        self._used: dict[Side, int] = {s: 0 for s in SIDES}
        self._moves: dict[Side, int] = {s: 0 for s in SIDES}
        self._flags: dict[Side, int | None] = {s: None for s in SIDES}
        self._turn: Side | None = None  # whose turn; kept while paused or adjourned
        self._running = False
        self._since = 0  # when the current run of the turn side's clock began
        self._turn_done = 0  # wall time of the turn before _since (runs before a pause)
        self._last_at: int | None = None
        self._adjournment: Adjournment | None = None
        self._stages: dict[int, Stage] = {}  # stage_after(moves), asked on every face read
        #: Bumped by every method that changes the clock (:func:`changes`): while it stays
        #: the same, a copy reads as the clock does (the display copies only when it moved).
        self.generation = 0

    def copy(self) -> Self:
        """An independent copy, of the same class: what the display thread reads while the
        referee's clock moves on. The per-side tables are copied, everything else is an
        immutable value; a few microseconds where ``copy.deepcopy`` took sixty on the
        referee's thread after every event."""
        other = _copy.copy(self)
        other._base = dict(self._base)
        other._used = dict(self._used)
        other._moves = dict(self._moves)
        other._flags = dict(self._flags)
        other._stages = dict(self._stages)
        return other

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
        pending = self.next_flag_at()
        due = pending is not None and pending <= at and self._turn is not None
        recorded = self._flags
        if not due and recorded[Side.WHITE] is None and recorded[Side.BLACK] is None:
            return []  # the usual case, asked before every event
        found = [Flag(s, t) for s in SIDES if (t := recorded[s]) is not None]
        if due and self._turn is not None and pending is not None:
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
        return rules.charged(*self._stage_bonus(side), elapsed)

    def _flag_turn_time(self, side: Side) -> int:
        """Turn time at which the side's face reaches 0."""
        bonus, amount = self._stage_bonus(side)
        return rules.flag_turn_time(bonus, amount, self._base[side] + self._pre(side))

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

    def _stage_bonus_for_move(self, side: Side, moves: int) -> tuple[Bonus, int]:
        """The bonus of the stage the ``moves``-th move was made in."""
        if self.control.kind is not Kind.STAGES:
            return Bonus.NONE, 0
        stage = self._stage(moves - 1)
        return stage.bonus, stage.bonus_ns
