"""GameClock timelines worked out by hand, one per mode, on an injected time base (ns ints).

Each comment gives the arithmetic the assertion checks, in seconds.
"""

from __future__ import annotations

import pytest

from firmware.clock.gameclock import ClockError, Flag, GameClock
from firmware.rules.sets import Side

S = 1_000_000_000
W, B = Side.WHITE, Side.BLACK


def test_sudden_death_flag_falls_exactly() -> None:
    clock = GameClock("300")
    clock.start(0)
    assert clock.running is W
    clock.press(W, 100 * S)  # White used 100: 200 left
    assert clock.remaining(W, 150 * S) == 200 * S
    assert clock.remaining(B, 150 * S) == 250 * S  # Black runs from 100
    clock.press(B, 160 * S)  # Black used 60: 240 left
    # White runs from 160 with 200 left: the flag falls at 360 exactly.
    assert clock.flag(360 * S - 1) is None
    assert clock.flag(360 * S) == Flag(W, 360 * S)
    assert clock.next_flag_at() == 360 * S
    assert clock.remaining(W, 400 * S) == 0
    assert not clock.fischer


def test_fischer_increment_after_each_move() -> None:
    clock = GameClock("4800+60")
    clock.start(0)
    press = clock.press(W, 100 * S)  # 4800 - 100 + 60
    assert (press.used_ns, press.credited_ns, press.remaining_ns) == (100 * S, 60 * S, 4760 * S)
    assert clock.remaining(W, 100 * S) == 4760 * S
    clock.press(B, 130 * S)  # Black: 4800 - 30 + 60
    assert clock.remaining(B, 130 * S) == 4830 * S
    assert clock.fischer
    assert clock.moves_made(W) == 1 and clock.moves_made(B) == 1


def test_bronstein_delay_gives_back_at_most_the_delay() -> None:
    # DGT 3000 manual, "Delay" (Bronstein): the delay is added to the main time first, then
    # the clock counts down at once; the face is never higher than at the turn's start.
    clock = GameClock("B60+5")
    clock.start(0)
    assert clock.remaining(W, 0) == 65 * S
    assert clock.remaining(W, 3 * S) == 62 * S  # counts down at once
    press = clock.press(W, 3 * S)  # used 3, 3 given back
    assert press.credited_ns == 3 * S and press.remaining_ns == 60 * S
    press = clock.press(B, 13 * S)  # Black used 10, 5 given back: 55
    assert press.credited_ns == 5 * S and press.remaining_ns == 55 * S
    # White runs from 13 with 60 + 5 on the face: flag at 78.
    assert clock.next_flag_at() == 78 * S


def test_simple_delay_waits_before_counting_down() -> None:
    clock = GameClock("D60+5")
    clock.start(0)
    assert clock.remaining(W, 4 * S) == 60 * S  # within the delay
    assert clock.remaining(W, 7 * S) == 58 * S  # 2 s past the delay
    assert clock.next_flag_at() == 65 * S  # 5 s delay then 60 s
    press = clock.press(W, 7 * S)
    assert (press.used_ns, press.credited_ns, press.remaining_ns) == (7 * S, 5 * S, 58 * S)
    # Black waits 5 s, then 60: no flag before 7 + 65 = 72.
    assert clock.flag(72 * S - 1) is None
    assert clock.flag(72 * S) == Flag(B, 72 * S)


def test_simple_delay_spans_a_pause() -> None:
    clock = GameClock("D60+5")
    clock.start(0)
    clock.pause(3 * S)  # 3 s of the delay used
    clock.resume(100 * S)
    assert clock.remaining(W, 102 * S) == 60 * S  # 5 s of turn: delay just ends
    assert clock.remaining(W, 104 * S) == 58 * S


def test_moves_per_period_saved_time_carries_over_and_last_period_repeats() -> None:
    # 2 moves in 10 s, then 1 move per 5 s, repeating (004 §32 style, scaled down)
    clock = GameClock("2/10:1/5")
    clock.start(0)
    t = 0
    expected = [7, 9, 11, 13]  # 10-3=7; 7-3+5=9 (control); 9-3+5=11; 11-3+5=13
    for move, left in enumerate(expected, start=1):
        t += 3 * S
        press = clock.press(W, t)
        assert press.remaining_ns == left * S, move
        assert press.control == (move >= 2), move
        t += 1 * S
        clock.press(B, t)
    # White runs from 16 with 13 s: flag at 29.
    assert clock.flag(40 * S) == Flag(W, 29 * S)


def test_control_move_pressed_as_the_flag_falls_is_an_overstep() -> None:
    # 004 §32: the control move counts when the opponent's clock starts; a flag that falls
    # during that press is an overstep. 1 move in 10 s: pressing at exactly 10 s is too late.
    late = GameClock("1/10")
    late.start(0)
    press = late.press(W, 10 * S)
    assert press.overstep and not press.control and not press.accepted
    assert press.reason == "flag" and press.flag == Flag(W, 10 * S)
    assert late.remaining(W, 10 * S) == 0
    assert late.moves_made(W) == 0  # the clock froze on the flag: the press is not taken

    in_time = GameClock("1/10")
    in_time.start(0)
    press = in_time.press(W, 10 * S - 1)
    assert not press.overstep and press.control
    assert press.remaining_ns == 10 * S + 1  # 1 ns saved, 10 s added


def test_stages_with_their_own_increments() -> None:
    clock = GameClock("2/100+10:50+1")
    clock.start(0)
    t = 0
    for _ in range(2):
        t += 20 * S
        clock.press(W, t)
        t += 1 * S
        clock.press(B, t)
    # White: 100 -20+10 -20+10 = 80, +50 at the control of move 2 = 130
    assert clock.remaining(W, t) == 130 * S
    t += 20 * S
    press = clock.press(W, t)  # move 3 in the last stage: +1
    assert press.credited_ns == 1 * S and press.remaining_ns == 111 * S
    assert clock.fischer


def test_hourglass_moves_time_from_one_side_to_the_other() -> None:
    clock = GameClock("*60")
    clock.start(0)
    assert clock.remaining(W, 10 * S) == 50 * S
    assert clock.remaining(B, 10 * S) == 70 * S
    clock.press(W, 10 * S)
    clock.press(B, 40 * S)  # Black used 30: 40 / 80
    assert clock.remaining(W, 40 * S) == 80 * S
    assert clock.remaining(B, 40 * S) == 40 * S
    assert clock.flag(200 * S) == Flag(W, 120 * S)  # White's 80 run out at 120
    assert clock.remaining(B, 200 * S) == 120 * S  # all of it, no more


@pytest.mark.parametrize("text", ["-", "?"])
def test_count_up_shows_time_used_and_never_flags(text: str) -> None:
    clock = GameClock(text)
    assert clock.counts_up
    clock.start(0)
    assert clock.remaining(W, 5 * S) == 5 * S
    press = clock.press(W, 5 * S)
    assert press.remaining_ns == 5 * S
    clock.press(B, 9 * S)
    clock.press(W, 20 * S)
    assert clock.remaining(W, 20 * S) == 16 * S
    assert clock.remaining(B, 10_000 * S) == 9_984 * S
    assert clock.flag(10**6 * S) is None


def test_absent_player_clock_runs_from_the_start() -> None:
    # 004 §32: White has not come; his clock runs from the start and the time is his.
    clock = GameClock("15/3600")
    clock.start(1_000 * S)
    assert clock.remaining(W, 2_800 * S) == 1_800 * S
    clock.press(W, 2_800 * S)  # he arrives after 30 minutes and moves
    assert clock.used(W, 2_800 * S) == 1_800 * S


def test_start_with_black_to_move() -> None:
    clock = GameClock("300")
    clock.start(0, B)
    assert clock.running is B
    assert not clock.press(W, 1 * S).accepted


def test_presses_a_real_clock_would_ignore() -> None:
    clock = GameClock("300")
    assert clock.press(W, 0).reason == "not-started"
    clock.start(0)
    press = clock.press(B, 1 * S)
    assert (press.accepted, press.reason) == (False, "not-running")
    clock.pause(2 * S)
    assert clock.press(W, 3 * S).reason == "paused"
    assert clock.moves_made(W) == 0 and clock.remaining(W, 3 * S) == 298 * S


def test_pause_and_resume() -> None:
    clock = GameClock("300")
    clock.start(0)
    assert clock.pause(10 * S)
    assert not clock.pause(11 * S)  # already paused
    assert clock.paused and clock.running is None and clock.turn is W
    assert clock.remaining(W, 500 * S) == 290 * S
    assert clock.flag(10_000 * S) is None  # no flag while paused
    assert clock.resume(500 * S)
    assert not clock.resume(501 * S)
    assert clock.remaining(W, 510 * S) == 280 * S
    assert clock.next_flag_at() == 790 * S


def test_pause_after_the_flag_fell_keeps_its_time() -> None:
    clock = GameClock("60")
    clock.start(0)
    clock.pause(100 * S)
    assert clock.flag(100 * S) == Flag(W, 60 * S)
    clock.resume(200 * S)
    assert clock.flag(300 * S) == Flag(W, 60 * S)


def test_arbiter_corrects_times_and_move_count() -> None:
    clock = GameClock("50/7200:25/3600")
    clock.start(0)
    clock.set_remaining(W, 3000 * S, 100 * S)  # the running clock
    assert clock.remaining(W, 100 * S) == 3000 * S
    assert clock.remaining(W, 160 * S) == 2940 * S
    clock.set_remaining(B, 7000 * S, 160 * S)  # the waiting clock
    assert clock.remaining(B, 500 * S) == 7000 * S
    clock.set_moves(W, 49)
    press = clock.press(W, 200 * S)  # this is now White's 50th move: the control
    assert press.control and press.moves == 50
    assert press.remaining_ns == (2900 + 3600) * S
    with pytest.raises(ClockError):
        clock.set_moves(W, -1)
    with pytest.raises(ClockError):
        clock.set_remaining(W, -5, 300 * S)


def test_arbiter_lifts_a_fallen_flag_by_setting_time() -> None:
    clock = GameClock("60")
    clock.start(0)
    clock.pause(70 * S)
    assert clock.flag(70 * S) == Flag(W, 60 * S)
    clock.set_remaining(W, 30 * S, 80 * S)
    assert clock.flag(80 * S) is None
    clock.resume(90 * S)
    assert clock.flag(200 * S) == Flag(W, 120 * S)


def test_set_remaining_under_simple_delay_keeps_the_delay() -> None:
    clock = GameClock("D60+5")
    clock.start(0)
    clock.set_remaining(W, 40 * S, 2 * S)  # 3 s of delay left
    assert clock.remaining(W, 4 * S) == 40 * S
    assert clock.remaining(W, 10 * S) == 35 * S


def test_adjournment_records_times_and_the_sealed_move_starts_the_opponent() -> None:
    clock = GameClock("20/3600")
    clock.start(0)
    clock.press(W, 600 * S)
    clock.press(B, 1500 * S)  # Black used 900
    record = clock.adjourn(1800 * S)  # White sealed after 300 s of thought
    assert record.sealer is W
    assert record.remaining == {W: 2700 * S, B: 2700 * S}
    assert record.used == {W: 900 * S, B: 900 * S}
    assert record.moves == {W: 1, B: 1}
    assert clock.running is None and not clock.paused and clock.adjournment == record
    assert clock.press(W, 1900 * S).reason == "adjourned"
    with pytest.raises(ClockError, match="adjourned"):
        clock.resume(1900 * S)
    press = clock.resume_adjourned(90_000 * S)  # the next day
    assert press.side is W and press.moves == 2 and press.used_ns == 300 * S
    assert clock.running is B
    assert clock.remaining(W, 90_000 * S) == 2700 * S
    assert clock.remaining(B, 90_100 * S) == 2600 * S
    assert clock.adjournment is None
    with pytest.raises(ClockError, match="not adjourned"):
        clock.resume_adjourned(90_200 * S)


def test_early_adjournment_costs_the_sealer_the_rest_of_the_session() -> None:
    # 004 §34 example: 15 moves an hour, 4 h session; after 30 moves White used 1:45, Black
    # 1:50; Black adjourns on his turn and marks 2:15 used, leaving 45 minutes to the control.
    clock = GameClock("15/3600")
    clock.start(0)
    t = 0
    for _ in range(30):
        t += 210 * S  # 30 x 210 s = 1:45
        clock.press(W, t)
        t += 220 * S  # 30 x 220 s = 1:50
        clock.press(B, t)
    clock.press(W, t)  # White's 31st move, instantly
    record = clock.adjourn(t, session_ns=4 * 3600 * S)
    assert record.sealer is B
    assert record.charged_ns == 25 * 60 * S
    assert record.used[B] == (2 * 3600 + 15 * 60) * S
    assert record.remaining[B] == 45 * 60 * S


def test_time_may_not_go_backwards() -> None:
    clock = GameClock("300")
    clock.start(100)
    with pytest.raises(ClockError, match="backwards"):
        clock.press(W, 99)
    with pytest.raises(ClockError):
        clock.start(200)  # twice
    with pytest.raises(ClockError, match="int"):
        clock.press(W, 1.5)  # type: ignore[arg-type]


def test_fallen_names_each_side_s_flag() -> None:
    clock = GameClock("10")
    clock.start(0)
    clock.press(W, 4 * S)
    assert clock.fallen(B, 13 * S) is None
    assert clock.fallen(B, 14 * S) == 14 * S
    assert clock.fallen(W, 100 * S) is None  # White's clock is not running
