"""The turn's arithmetic alone (firmware.clock.arithmetic), as properties over any bonus, delay and
turn length: what the clock charges, credits and when its flag falls (RULES.md, Clocks; DGT
3000 manual "Fischer", "Delay")."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from firmware.clock import arithmetic as rules
from firmware.clock.timecontrol import Bonus, TimeControl

S = 1_000_000_000
bonuses = st.sampled_from(list(Bonus))
ns = st.integers(min_value=0, max_value=4 * 3600 * S)
small = st.integers(min_value=0, max_value=120 * S)


@given(bonuses, small, ns, ns)
def test_charged_time_grows_with_the_turn(bonus: Bonus, amount: int, t1: int, t2: int) -> None:
    a, b = sorted((t1, t2))
    assert rules.charged(bonus, amount, a) <= rules.charged(bonus, amount, b)
    if bonus is not Bonus.BRONSTEIN:  # Bronstein shows base + delay, so it may go below 0
        assert rules.charged(bonus, amount, a) >= 0
    assert rules.charged(bonus, amount, b) <= b  # never more than the wall time


@given(bonuses, small, ns)
def test_credit_is_the_increment_or_at_most_the_delay(bonus: Bonus, amount: int,
                                                      elapsed: int) -> None:
    got = rules.credit(bonus, amount, elapsed)
    if bonus is Bonus.FISCHER:
        assert got == amount  # every completed move, however long
    elif bonus in rules.DELAYS:
        assert got == min(elapsed, amount) and got <= elapsed  # never more than the move took
    else:
        assert got == 0


@given(bonuses, small, ns)
def test_the_flag_falls_when_the_face_reaches_zero(bonus: Bonus, amount: int, base: int) -> None:
    when = rules.flag_turn_time(bonus, amount, base)

    def face(t: int) -> int:  # Bronstein: the delay is on the face (charged goes below 0)
        return base - rules.charged(bonus, amount, t)

    assert face(when) <= 0
    if when > 0 and bonus is not Bonus.DELAY:
        assert face(when - 1) > 0  # not a ns earlier
    if bonus is Bonus.DELAY:  # a simple delay: the flag waits for the delay to run out
        assert when == base + amount


@given(bonuses, small, ns, ns, st.integers(min_value=0, max_value=3600 * S))
def test_settling_loses_and_creates_no_time(bonus: Bonus, amount: int, base: int, elapsed: int,
                                            period: int) -> None:
    after = rules.settled(base, elapsed, bonus, amount, period)
    assert after == base - elapsed + rules.credit(bonus, amount, elapsed) + period
    if bonus in rules.DELAYS and elapsed <= amount:
        assert after == base + period  # a move within the delay costs nothing


@given(st.integers(min_value=0, max_value=130), st.integers(min_value=0, max_value=130))
def test_corrected_move_counts_add_and_take_back_the_same_periods(a: int, b: int) -> None:
    control = TimeControl.parse("40/5400:20/1800")  # the last period repeats (004 §32)
    there = rules.period_time_between(control, a, b)
    assert there == -rules.period_time_between(control, b, a)
    assert rules.period_time_between(control, a, a) == 0
    lo, hi = sorted((a, b))
    expected = sum(1800 * S for n in range(40, hi + 1, 20) if n > lo)  # at 40, 60, 80 ...
    assert abs(there) == expected
