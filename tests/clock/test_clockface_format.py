"""What the faces and the terminal show: formatting edge cases."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from firmware.clock.face import (
    FaceText,
    face_view,
    format_time,
    game_move_number,
    segment_moves,
    segment_time,
    terminal_line,
)
from firmware.clock.gameclock import GameClock
from firmware.rules.sets import Side

S = 1_000_000_000
MS = 1_000_000
W, B = Side.WHITE, Side.BLACK


@pytest.mark.parametrize(
    ("ns", "text"),
    [
        (0, "0:00.0"),
        (-5 * S, "0:00.0"),  # never negative
        (99 * MS, "0:00.0"),  # rounded down: 0.099 s is not yet 0.1
        (100 * MS, "0:00.1"),
        (5 * S + 300 * MS, "0:05.3"),
        (20 * S - 1, "0:19.9"),
        (20 * S, "0:20"),  # tenths only under 20 s
        (59 * S + 999 * MS, "0:59"),
        (60 * S, "1:00"),
        (3600 * S - 1, "59:59"),
        (3600 * S, "1:00:00"),  # h:mm:ss from an hour up
        (5025 * S, "1:23:45"),
        (36_000 * S, "10:00:00"),
    ],
)
def test_terminal_time(ns: int, text: str) -> None:
    assert format_time(ns) == text


def test_count_up_has_no_tenths() -> None:
    assert format_time(5 * S, tenths=False) == "0:05"


@pytest.mark.parametrize(
    ("ns", "running", "text", "digits"),
    [
        (0, False, "  0.0;", "  00"),
        (5 * S + 300 * MS, False, "  5.3;", "  53"),
        (19 * S + 999 * MS, True, " 19.9.;", " 199"),
        (20 * S, False, " 0:20", " 020"),
        (307 * S, True, " 5:07.", " 507"),
        (3599 * S, False, "59:59", "5959"),
        (3600 * S, False, "1H00;", "1H00"),
        (5025 * S, True, "1H23.;", "1H23"),
        (36_000 * S, False, "10H ;", "10H "),
        (1000 * 3600 * S, False, "99H ;", "99H "),
    ],
)
def test_four_digit_face(ns: int, running: bool, text: str, digits: str) -> None:
    face = segment_time(ns, running=running)
    assert face.text == text
    assert face.digits == digits
    assert len(face.digits) == 4  # every text fills all four digits


def test_move_number_face() -> None:
    assert segment_moves(7).digits == "n  7"
    assert segment_moves(123).digits == "n123"
    assert segment_moves(1000).digits == "n---"


def test_face_view_running_flag_and_pause() -> None:
    clock = GameClock("60")
    clock.start(0)
    assert face_view(clock, W, 10 * S) == FaceText(" 0:50.")  # running point
    assert face_view(clock, B, 10 * S) == FaceText(" 1:00")
    assert face_view(clock, W, 60 * S).digits == "FLAG"
    clock.pause(70 * S)
    assert face_view(clock, B, 72 * S).blink  # paused faces blink
    assert face_view(clock, B, 72 * S).digits == " 100"
    assert face_view(clock, B, 74 * S).digits == "n  1"  # move number in turn while paused
    assert face_view(clock, B, 76 * S).digits == " 100"


def test_game_move_number() -> None:
    clock = GameClock("300")
    clock.start(0)
    assert game_move_number(clock) == 1
    clock.press(W, 1 * S)
    assert game_move_number(clock) == 1
    clock.press(B, 2 * S)
    assert game_move_number(clock) == 2


def test_terminal_line() -> None:
    clock = GameClock("60")
    assert "not started" in terminal_line(clock, 0)
    clock.start(100 * S)
    line = terminal_line(clock, 110 * S, origin=100 * S)
    assert line.startswith("> White")
    assert "0:50" in line and "1:00" in line and "move 1" in line
    line = terminal_line(clock, 200 * S, origin=100 * S)
    assert "FLAG white at 1:00" in line
    clock.pause(200 * S)
    assert terminal_line(clock, 200 * S).endswith("paused")


@given(st.integers(min_value=0, max_value=100 * 3600 * S))
def test_shown_time_is_the_time_rounded_down(ns: int) -> None:
    text = format_time(ns)
    head, _, tenth = text.partition(".")
    seconds = 0
    for part in head.split(":"):
        seconds = seconds * 60 + int(part)
    if tenth:
        assert ns < 20 * S
        assert seconds * 10 + int(tenth) == ns // (S // 10)
    else:
        assert seconds == ns // S
    face = segment_time(ns)
    assert len(face.digits) == 4
    assert face.text.count(":") + face.text.count(";") == 1  # the colon always said
