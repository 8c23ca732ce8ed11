"""The game clock's books: per side, what the face held when its turn began, the time used,
the moves made and the flag; whose turn it is and since when. Every read of the faces lives
here (``firmware.clock.gameclock`` has the module docstring on the accounting; the turn's
arithmetic is ``firmware.clock.arithmetic``)."""

from __future__ import annotations

import copy as _copy
import functools
from collections.abc import Callable
from typing import Concatenate, ParamSpec, Self, TypeVar, cast

from firmware.clock import arithmetic as rules
from firmware.clock.records import Adjournment, ClockError, Flag
from firmware.clock.timecontrol import Bonus, Kind, Stage, TimeControl
from firmware.rules.sets import Side

SIDES = (Side.WHITE, Side.BLACK)

_P = ParamSpec("_P")
_R = TypeVar("_R")
_L = TypeVar("_L", bound="ClockLedger")


def changes(method: Callable[Concatenate[_L, _P], _R]) -> Callable[Concatenate[_L, _P], _R]:
    """Marks a function that changes the books (its first argument): it bumps
    :attr:`ClockLedger.generation` (even when it raises half-way), so that a reader can tell
    that a copy is out of date."""

    @functools.wraps(method)
    def changed(self: _L, *args: _P.args, **kwargs: _P.kwargs) -> _R:
        try:
            return method(self, *args, **kwargs)
        finally:
            self.generation += 1

    return cast("Callable[Concatenate[_L, _P], _R]", changed)


class ClockLedger:
    """The clock's books and what the faces show; the play (``firmware.clock.play``) and the
    arbiter's corrections (``firmware.clock.corrections``) are functions that keep them,
    :class:`firmware.clock.gameclock.GameClock` the clock they make. Every call takes the
    monotonic time in ns.

    The books, per side: ``base``, the time on the face when the side's current or next turn
    began (count up: the time used); ``spent``, the wall time its clock has run in turns
    settled; ``moves``, the moves completed; ``fell``, when its flag fell (None: standing).
    The turn: ``turn``, whose it is (kept while paused or adjourned); ``runs``, whether its
    clock runs; ``since``, when the current run began; ``turn_done``, the turn's wall time
    before ``since`` (runs before a pause). ``last_at``: the time of the last call that
    changed the clock (times may not go back before it); ``adjournment``: the envelope's
    record while the game is adjourned."""

    def __init__(self, control: TimeControl | str) -> None:
        if isinstance(control, str):
            control = TimeControl.parse(control)
        self.control = control
        initial = 0 if control.counts_up else control.initial_ns()
        self.base: dict[Side, int] = {s: initial for s in SIDES}
        self.spent: dict[Side, int] = {s: 0 for s in SIDES}
        self.moves: dict[Side, int] = {s: 0 for s in SIDES}
        self.fell: dict[Side, int | None] = {s: None for s in SIDES}
        self.turn: Side | None = None
        self.runs = False
        self.since = 0
        self.turn_done = 0
        self.last_at: int | None = None
        self.adjournment: Adjournment | None = None
        self._stages: dict[int, Stage] = {}  # stage_after(moves), asked on every face read
        #: Bumped by every function that changes the books (:func:`changes`): while it stays
        #: the same, a copy reads as the clock does (the display copies only when it moved).
        self.generation = 0

    def copy(self) -> Self:
        """An independent copy: what the display thread reads while the referee's clock
        moves on. The per-side tables are copied, everything else is an immutable value; a
        few microseconds where ``copy.deepcopy`` took sixty on the referee's thread after
        every event."""
        other = _copy.copy(self)
        other.base = dict(self.base)
        other.spent = dict(self.spent)
        other.moves = dict(self.moves)
        other.fell = dict(self.fell)
        other._stages = dict(self._stages)
        return other

    # -- state -----------------------------------------------------------------------------

    @property
    def started(self) -> bool:
        return self.turn is not None

    @property
    def running(self) -> Side | None:
        """The side whose clock runs now; None before the start, paused or adjourned."""
        return self.turn if self.runs else None

    @property
    def paused(self) -> bool:
        return self.started and not self.runs and self.adjournment is None

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
        return self.moves[side]

    def used(self, side: Side, at: int) -> int:
        """Wall time the side's clock has run, pauses left out (what goes on the envelope)."""
        used = self.spent[side]
        if side is self.turn:
            used += self.turn_elapsed(at)
        return used

    def remaining(self, side: Side, at: int) -> int:
        """The time on the side's face in ns, never negative: time left, or for count-up
        controls (``-``, ``?``) the time used."""
        self.check_time(at, update=False)
        return self.face(side, at)

    def reading(self, side: Side, at: int) -> int:
        """What ``[%clock]`` and the feed record: the face without the next move's bonus that a
        ``@start`` clock already shows (the time after the last move, its own bonus included).
        The same number under both Fischer conventions."""
        self.check_time(at, update=False)
        return max(0, self.face(side, at) - self.pre(side))

    def flags(self, at: int) -> list[Flag]:
        """Every flag fallen by ``at``, first first."""
        pending = self.next_flag_at()
        due = pending is not None and pending <= at and self.turn is not None
        recorded = self.fell
        if not due and recorded[Side.WHITE] is None and recorded[Side.BLACK] is None:
            return []  # the usual case, asked before every event
        found = [Flag(s, t) for s in SIDES if (t := recorded[s]) is not None]
        if due and self.turn is not None and pending is not None:
            found.append(Flag(self.turn, pending))
        return sorted(found, key=lambda f: (f.at, f.side is Side.BLACK))

    def fallen(self, side: Side, at: int) -> int | None:
        """When ``side``'s flag fell, if it has by ``at``; else None."""
        recorded = self.fell[side]
        if recorded is not None:
            return recorded
        if side is self.turn:
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
        side = self.turn
        if side is None or not self.runs or self.control.counts_up:
            return None
        if self.fell[side] is not None:
            return None
        return self.since + self.flag_turn_time(side) - self.turn_done

    # -- the arithmetic the play and the corrections keep the books with ------------------

    def check_time(self, at: int, update: bool = True) -> None:
        if not isinstance(at, int):
            raise ClockError(f"clock times are int nanoseconds, not {type(at).__name__}")
        if self.last_at is not None and at < self.last_at:
            raise ClockError(
                f"time went backwards: {at} ns is before the last clock event at "
                f"{self.last_at} ns"
            )
        if update:
            self.last_at = at

    def turn_elapsed(self, at: int) -> int:
        """Wall time of the turn so far; it stops at the turn side's flag (the clock froze)."""
        if self.turn is None:
            return 0
        if self.runs:
            end = at
            if not self.control.counts_up:
                fallen = self.fell[self.turn]
                if fallen is None:
                    fallen = self.since + self.flag_turn_time(self.turn) - self.turn_done
                end = min(end, max(fallen, self.since))
            return self.turn_done + max(0, end - self.since)
        return self.turn_done

    def unfreeze(self, at: int) -> None:
        """Before the arbiter's correction: the frozen turn time stays frozen (the time between
        the flag and the correction is nobody's)."""
        if self.runs and self.turn is not None:
            self.turn_done = self.turn_elapsed(at)
            self.since = at

    def pre(self, side: Side) -> int:
        """The next move's Fischer bonus when the control gives it at the clock's start
        (``@start``): it is on the face already."""
        if not self.control.bonus_at_start or self.fell[side] is not None:
            return 0
        if self.control.kind is not Kind.STAGES:
            return 0
        stage = self._stage(self.moves[side])
        return stage.bonus_ns if stage.bonus is Bonus.FISCHER else 0

    def _stage(self, moves: int) -> Stage:
        """The stage of a player's move number ``moves + 1`` (cached: faces are read often)."""
        stage = self._stages.get(moves)
        if stage is None:
            if len(self._stages) > 4096:
                self._stages.clear()
            stage = self._stages[moves] = self.control.stage_after(moves)[1]
        return stage

    def stage_bonus(self, side: Side) -> tuple[Bonus, int]:
        if self.control.kind is not Kind.STAGES:
            return Bonus.NONE, 0
        stage = self._stage(self.moves[side])
        return stage.bonus, stage.bonus_ns

    def charged(self, side: Side, elapsed: int) -> int:
        """Time taken off the face after ``elapsed`` ns of the turn."""
        return rules.charged(*self.stage_bonus(side), elapsed)

    def flag_turn_time(self, side: Side) -> int:
        """Turn time at which the side's face reaches 0."""
        bonus, amount = self.stage_bonus(side)
        return rules.flag_turn_time(bonus, amount, self.base[side] + self.pre(side))

    def face(self, side: Side, at: int) -> int:
        base = self.base[side]
        if self.control.counts_up:
            return max(0, base + (self.turn_elapsed(at) if side is self.turn else 0))
        if self.fell[side] is not None:
            return 0
        base += self.pre(side)
        if self.turn is None:
            return max(0, base)
        elapsed = self.turn_elapsed(at)
        if side is self.turn:
            return max(0, base - self.charged(side, elapsed))
        if self.control.kind is Kind.HOURGLASS:
            other = self.turn
            gained = min(elapsed, max(0, self.base[other]))
            return max(0, base + gained)
        return max(0, base)

    def record_flag_if_fallen(self, at: int) -> None:
        pending = self.next_flag_at()
        if pending is not None and pending <= at and self.turn is not None:
            self.fell[self.turn] = pending

    def stage_bonus_for_move(self, side: Side, moves: int) -> tuple[Bonus, int]:
        """The bonus of the stage the ``moves``-th move was made in."""
        if self.control.kind is not Kind.STAGES:
            return Bonus.NONE, 0
        stage = self._stage(moves - 1)
        return stage.bonus, stage.bonus_ns
