"""TimeControl: the PDN/PGN forms and this project's extensions, read and written back."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from firmware.clock.timecontrol import PRESETS, Bonus, Kind, Stage, TimeControl
from firmware.errors import BoardError, TimeControlError

S = 1_000_000_000


@pytest.mark.parametrize(
    ("text", "kind", "stages"),
    [
        ("300", Kind.STAGES, (Stage(None, 300 * S),)),
        ("4800+60", Kind.STAGES, (Stage(None, 4800 * S, Bonus.FISCHER, 60 * S),)),
        ("B300+5", Kind.STAGES, (Stage(None, 300 * S, Bonus.BRONSTEIN, 5 * S),)),
        ("D300+5", Kind.STAGES, (Stage(None, 300 * S, Bonus.DELAY, 5 * S),)),
        ("50/7200:25/3600", Kind.STAGES, (Stage(50, 7200 * S), Stage(25, 3600 * S))),
        (
            "40/5400+30:1800+30",
            Kind.STAGES,
            (
                Stage(40, 5400 * S, Bonus.FISCHER, 30 * S),
                Stage(None, 1800 * S, Bonus.FISCHER, 30 * S),
            ),
        ),
        ("2.5+0.125", Kind.STAGES, (Stage(None, 2500_000_000, Bonus.FISCHER, 125_000_000),)),
        ("*180", Kind.HOURGLASS, ()),
        ("?", Kind.UNKNOWN, ()),
        ("-", Kind.NONE, ()),
    ],
)
def test_parse_and_write_back(text: str, kind: Kind, stages: tuple[Stage, ...]) -> None:
    control = TimeControl.parse(text)
    assert control.kind is kind
    assert control.stages == stages
    assert str(control) == text
    assert TimeControl.parse(str(control)) == control


def test_sloppy_spacing_and_lowercase_letters_are_read() -> None:
    assert str(TimeControl.parse(" 40 / d5400 + 5 : 1800 ")) == "40/D5400+5:1800"


def test_hourglass_time() -> None:
    assert TimeControl.parse("*180").hourglass_ns == 180 * S
    assert TimeControl.parse("*180").initial_ns() == 180 * S


def test_fischer_flag_follows_increments() -> None:
    # seed 000 7.2.9: the forced draws apply to games without Fischer seconds
    assert TimeControl.parse("4800+60").fischer
    assert TimeControl.parse("40/5400:1800+30").fischer
    assert not TimeControl.parse("300").fischer
    assert not TimeControl.parse("300+0").fischer
    assert not TimeControl.parse("B300+5").fischer
    assert not TimeControl.parse("50/7200:25/3600").fischer
    assert not TimeControl.parse("-").fischer


def test_control_moves_and_repeating_last_period() -> None:
    control = TimeControl.parse("50/7200:25/3600")
    assert control.repeats
    controls = [n for n in range(1, 160) if control.control_at(n) is not None]
    assert controls == [50, 75, 100, 125, 150]
    assert control.control_at(50) == Stage(25, 3600 * S)
    assert control.stage_after(49)[0] == 0
    assert control.stage_after(50)[0] == 1
    assert control.stage_after(200)[0] == 1


def test_sudden_death_last_stage_has_one_control() -> None:
    control = TimeControl.parse("40/5400+30:1800+30")
    assert not control.repeats
    assert [n for n in range(1, 200) if control.control_at(n) is not None] == [40]


def test_moves_per_hour_single_period_repeats() -> None:
    control = TimeControl.parse("15/3600")
    assert [n for n in range(1, 50) if control.control_at(n)] == [15, 30, 45]


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("", "empty"),
        ("   ", "empty"),
        ("abc", "cannot read 'abc'"),
        ("40/", "cannot read"),
        ("300+", "cannot read"),
        ("0", "more than 0"),
        ("*0", "more than 0"),
        ("*", "hourglass"),
        ("0/300", "move count 0"),
        ("D300", "needs a delay"),
        ("40/9000:3600:20/100", "only the last period"),
        ("1e5", "cannot read"),
        ("300.1234", "at most 3 decimals"),
        ("999999999", "over 100 hours"),
        ("300+-5", "cannot read"),
    ],
)
def test_bad_text_gets_a_clear_one_line_error(text: str, words: str) -> None:
    with pytest.raises(TimeControlError) as info:
        TimeControl.parse(text)
    message = str(info.value)
    assert words in message
    assert "\n" not in message
    assert isinstance(info.value, BoardError) and isinstance(info.value, ValueError)


def test_non_text_is_refused() -> None:
    with pytest.raises(TimeControlError, match="must be text"):
        TimeControl.parse(300)  # type: ignore[arg-type]


def test_presets_named_in_the_issue() -> None:
    expected = {
        "fmjd-classical": "4800+60@start",
        "fmjd-classical-periods": "50/7200:25/3600",
        "russian-classical": "2700",
        "russian-classical-fischer": "1800+30@start",
        "1953-15": "15/3600",
        "1953-18": "18/3600",
        "1953-20": "20/3600",
        "1953-25": "25/3600",
    }
    for name, text in expected.items():
        assert str(PRESETS[name]) == text
        assert TimeControl.parse(name) == TimeControl.parse(text)
    for name in ("fmjd-rapid", "fmjd-blitz", "russian-rapid", "russian-blitz"):
        assert PRESETS[name].fischer, name
        assert PRESETS[name].description


def test_describe_is_readable() -> None:
    assert TimeControl.parse("4800+60").describe() == "80 min + 1 min/move"
    assert "last period repeats" in TimeControl.parse("15/3600").describe()
    assert "hourglass" in TimeControl.parse("*60").describe()


_seconds = st.integers(min_value=1, max_value=36_000_000).map(lambda ms: ms * 1_000_000)


@st.composite
def _stages(draw: st.DrawFn) -> tuple[Stage, ...]:
    count = draw(st.integers(min_value=1, max_value=4))
    stages = []
    for index in range(count):
        last = index == count - 1
        moves = draw(st.integers(min_value=1, max_value=200)) if not last else draw(
            st.one_of(st.none(), st.integers(min_value=1, max_value=200))
        )
        bonus = draw(st.sampled_from(list(Bonus)))
        bonus_ns = 0 if bonus is Bonus.NONE else draw(st.integers(0, 600_000)) * 1_000_000
        stages.append(Stage(moves, draw(_seconds), bonus, bonus_ns))
    return tuple(stages)


@given(_stages())
def test_any_control_survives_str_and_parse(stages: tuple[Stage, ...]) -> None:
    control = TimeControl(Kind.STAGES, stages)
    again = TimeControl.parse(str(control))
    assert again.stages == stages
    assert str(again) == str(control)
