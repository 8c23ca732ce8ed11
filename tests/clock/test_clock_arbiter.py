"""What a tournament arbiter checks on the clock (issue 11). Each test names its source."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from firmware.clock.face import face_view, format_time
from firmware.clock.gameclock import ClockError, Flag, GameClock
from firmware.clock.timecontrol import PRESETS, SOURCES, TimeControl
from firmware.errors import TimeControlError
from firmware.rules.sets import Side

S = 1_000_000_000
MIN = 60 * S
W, B = Side.WHITE, Side.BLACK


def test_dgt3000_delay_bronstein_lets_a_12_s_move_stand_on_10_plus_5() -> None:
    # DGT 3000 manual, "Delay" (Bronstein): the delay is added to the main time first, the
    # clock counts down at once; the final result is the same as US delay.
    clock = GameClock("B10+5")
    clock.start(0)
    assert clock.flag(12 * S) is None
    press = clock.press(W, 12 * S)
    assert press.accepted and not press.overstep
    assert press.remaining_ns == 3 * S  # 10 + 5 - 12: only the 7 s beyond the delay charged
    assert clock.next_flag_at() == 12 * S + 15 * S  # Black: 10 s + 5 s delay from 12 s


@settings(max_examples=150, deadline=None)
@given(st.integers(1, 600), st.integers(0, 30), st.integers(0, 700 * S))
def test_dgt3000_bronstein_and_us_delay_end_the_same(base: int, delay: int, used: int) -> None:
    # DGT 3000 manual: "The final result of this method is exactly the same as in the
    # US-delay method": same flag time, same time left after any move.
    results = []
    for letter in "BD":
        clock = GameClock(f"{letter}{base}+{delay}")
        clock.start(0)
        flag_at = clock.next_flag_at()
        press = clock.press(W, used)
        results.append((flag_at, press.accepted, press.remaining_ns if press.accepted else 0))
    assert results[0] == results[1]


def test_dgt_fischer_at_start_shows_1_21_00_at_move_1() -> None:
    # DGT 2010 manual, "Bonus": "the bonus time is already added for the first move"; FIDE
    # 90'/40 + 30' "with incr. 30''/move, starting from move 1".
    clock = GameClock("4800+60@start")
    assert format_time(clock.remaining(W, 0)) == "1:21:00"
    clock.start(0)
    assert format_time(clock.remaining(W, 0)) == "1:21:00"
    assert format_time(clock.remaining(B, 0)) == "1:21:00"
    press = clock.press(W, 30 * S)
    # [%clock] keeps the time after the move's own bonus: 80:00 - 0:30 + 1:00.
    assert clock.reading(W, 30 * S) == 80 * MIN + 30 * S
    assert press.remaining_ns == 80 * MIN + 30 * S
    # The face already holds the next move's bonus, as a DGT shows it.
    assert clock.remaining(W, 30 * S) == 81 * MIN + 30 * S


def test_fischer_conventions_differ_only_in_the_flag_and_the_face() -> None:
    # A move that takes base + bonus stands with the bonus at the start (DGT), not after.
    after, start = GameClock("60+5"), GameClock("60+5@start")
    for clock in (after, start):
        clock.start(0)
    assert after.press(W, 63 * S).reason == "flag"
    press = start.press(W, 63 * S)
    assert press.accepted and press.remaining_ns == 2 * S
    # Same seconds granted: after the same moves [%clock] readings agree.
    a, b = GameClock("60+5"), GameClock("60+5@start")
    for clock in (a, b):
        clock.start(0)
        clock.press(W, 10 * S)
        clock.press(B, 25 * S)
    for side in (W, B):
        assert a.reading(side, 25 * S) == b.reading(side, 25 * S)


def test_convention_is_written_in_the_time_control_text() -> None:
    assert str(TimeControl.parse("4800+60")) == "4800+60"
    assert str(TimeControl.parse("4800+60@start")) == "4800+60@start"
    assert str(TimeControl.parse("4800+60 @MOVE")) == "4800+60"
    assert TimeControl.parse("4800+60@start").convention == "start"
    assert TimeControl.parse("4800+60").convention == "move"
    with pytest.raises(TimeControlError, match="has none"):
        TimeControl.parse("300@start")
    with pytest.raises(TimeControlError, match="after @"):
        TimeControl.parse("300+5@later")


def test_004_s32_correcting_the_count_past_a_control_adds_the_period() -> None:
    # 004 §32: saved time carries into the next period; the arbiter corrects clock errors.
    clock = GameClock("20/3600")
    clock.start(0)
    clock.press(W, 10 * MIN)
    clock.pause(10 * MIN)
    added = clock.correct_moves(W, 20, 10 * MIN)  # the scoresheets show 20 moves made
    assert added == 60 * MIN
    assert clock.remaining(W, 10 * MIN) == 110 * MIN
    removed = clock.correct_moves(W, 1, 10 * MIN)  # back again: the period goes
    assert removed == -60 * MIN
    assert clock.remaining(W, 10 * MIN) == 50 * MIN
    assert clock.moves_made(W) == 1


def test_004_s32_a_correction_leaving_under_15_minutes_is_refused() -> None:
    # 004 §32: "mõtlemisaega võib ta lühendada ainult juhul, kui pärast vea parandamist kuni
    # kontrollini jääb vähemalt 15 minutit".
    clock = GameClock("20/3600")
    clock.start(0)
    clock.press(W, 50 * MIN)  # White has 10 min left
    clock.correct_moves(W, 20, 50 * MIN)  # 70 min
    clock.press(B, 51 * MIN)
    # White then uses 57 minutes: 13 left; taking the period back would leave less than 0.
    clock.pause(51 * MIN + 57 * MIN)
    before = clock.remaining(W, 108 * MIN)
    with pytest.raises(ClockError, match="15 minutes"):
        clock.correct_moves(W, 1, 108 * MIN)
    assert clock.moves_made(W) == 20 and clock.remaining(W, 108 * MIN) == before
    ok = GameClock("20/3600")
    ok.start(0)
    ok.correct_moves(W, 20, 0)
    ok.correct_moves(W, 0, 0)  # 60 min left afterwards: allowed
    assert ok.remaining(W, 0) == 60 * MIN


def test_dgt3000_flag_freezes_both_faces_and_refuses_presses() -> None:
    # DGT 3000 manual, "Fischer Bonus": after a player runs out of time the clock can no
    # longer be operated; it freezes and a blinking flag is shown.
    clock = GameClock("300+3")
    clock.start(0)
    clock.press(W, 10 * S)
    clock.press(B, 20 * S)
    flag_at = clock.next_flag_at()
    assert flag_at is not None
    later = flag_at + 60 * S
    faces = {s: clock.remaining(s, flag_at) for s in (W, B)}
    assert {s: clock.remaining(s, later) for s in (W, B)} == faces
    assert clock.used(W, later) == clock.used(W, flag_at)
    press = clock.press(W, later)
    assert not press.accepted and press.reason == "flag" and press.flag == Flag(W, flag_at)
    assert not clock.press(B, later).accepted
    assert clock.flags(later + 600 * S) == [Flag(W, flag_at)]  # only who flagged first
    assert face_view(clock, W, later).digits == "FLAG"
    assert face_view(clock, B, later).digits != "FLAG"
    # The arbiter gives time: the frozen minute is nobody's, the clock runs again.
    clock.set_remaining(W, 30 * S, later)
    assert clock.remaining(W, later) == 30 * S
    assert clock.press(W, later + 5 * S).accepted


def test_presets_carry_their_sources() -> None:
    expected = {
        "fmjd-classical": "4800+60@start",
        "fmjd-rapid": "1200+5@start",
        "fmjd-blitz": "300+3@start",
        "fmjd-worldcup": "45/5400:1800+30@start",
        "russian-classical": "2700",
        "russian-classical-fischer": "1800+30@start",
        "russian-classical-40": "2400+5@start",
        "russian-rapid": "480+4@start",
        "russian-rapid-20": "1200",
        "russian-blitz": "180+2@start",
        "1953-15": "15/3600",
    }
    for name, text in expected.items():
        assert str(PRESETS[name]) == text, name
    assert set(SOURCES) == set(PRESETS)
    assert "NOT CONFIRMED" in SOURCES["fmjd-classical-periods"]
    assert "722" in SOURCES["russian-rapid"] and "hijken" in SOURCES["fmjd-worldcup"]
