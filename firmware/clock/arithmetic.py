"""The time-control arithmetic of one turn, as pure functions (RULES.md, Clocks).

A turn's bonus is what the stage of the move gives: a Fischer increment, a Bronstein delay or
a simple (US) delay (DGT 3000 manual, "Fischer", "Delay"). ``elapsed`` is the wall time of the
turn so far, pauses left out, in ns. ``firmware.clock.gameclock.GameClock`` keeps the books
with these; the property tests (tests/clock/test_clock_rules.py) check them alone.
"""

from __future__ import annotations

from firmware.clock.timecontrol import Bonus, TimeControl

#: The delays: the face does not count down (simple) or is given back (Bronstein) up to it.
DELAYS = (Bonus.DELAY, Bonus.BRONSTEIN)


def charged(bonus: Bonus, amount: int, elapsed: int) -> int:
    """Time taken off the face after ``elapsed`` of the turn: all of it, or under a simple
    delay what goes past the delay; under Bronstein the delay is on the face from the clock's
    start (DGT), so the face counts down at once from base + delay."""
    if bonus is Bonus.DELAY:
        return max(0, elapsed - amount)
    if bonus is Bonus.BRONSTEIN:
        return elapsed - amount
    return elapsed


def flag_turn_time(bonus: Bonus, amount: int, base: int) -> int:
    """The turn time at which a face that held ``base`` at the turn's start reaches 0."""
    base = max(0, base)
    return base + amount if bonus in DELAYS else base


def credit(bonus: Bonus, amount: int, elapsed: int) -> int:
    """What a completed move gets back at the press: the Fischer increment, or what the move
    took up to the delay (Bronstein and simple delay end the same, DGT 3000 manual)."""
    if bonus is Bonus.FISCHER:
        return amount
    if bonus in DELAYS:
        return min(elapsed, amount)
    return 0


def settled(base: int, elapsed: int, bonus: Bonus, amount: int, period_ns: int = 0) -> int:
    """The face after the press: what it held, less the turn, plus the move's credit and the
    next period's time when the move completes a period (004 §32: saved time carries over)."""
    return base - elapsed + credit(bonus, amount, elapsed) + period_ns


def period_time_between(control: TimeControl, old: int, new: int) -> int:
    """The period time a move count corrected from ``old`` to ``new`` adds (negative: takes
    back): each control passed on the way (004 §32-33)."""
    delta = 0
    for count in range(min(old, new) + 1, max(old, new) + 1):
        stage = control.control_at(count)
        if stage is not None:
            delta += stage.seconds_ns
    return delta if new >= old else -delta
