"""Clock buttons on gpiozero's MockFactory: real Button code, an injected clock, first edges."""

from __future__ import annotations

from typing import Any

import pytest
from gpiozero.pins.mock import MockFactory

from firmware.clock.gameclock import GameClock
from firmware.errors import HardwareError
from firmware.rules.sets import Side
from hw.buttons import ButtonPress, ClockButtons, StampedButton

MS = 1_000_000
S = 1_000_000_000


class FakeClock:
    """Monotonic ns that the test moves by hand."""

    def __init__(self, now: int = 0) -> None:
        self.now = now

    def __call__(self) -> int:
        return self.now


def _buttons(factory: MockFactory, clock: FakeClock, **kwargs: Any) -> ClockButtons:
    return ClockButtons(
        {"white": 14, "black": 15, "pause": 25}, clock=clock, pin_factory=factory, **kwargs
    )


def test_press_is_timed_by_its_edge(mock_factory: MockFactory) -> None:
    clock = FakeClock(5 * S)
    buttons = _buttons(mock_factory, clock)
    mock_factory.pin(14).drive_low()
    clock.now = 9 * S  # the service loop gets to it much later
    assert buttons.poll() == [ButtonPress("white", 5 * S)]
    assert buttons.poll() == []
    mock_factory.pin(14).drive_high()
    buttons.close()


def test_bounce_keeps_the_first_edge_only(mock_factory: MockFactory) -> None:
    clock = FakeClock(1_000)
    buttons = _buttons(mock_factory, clock)
    pin = mock_factory.pin(15)
    for step in range(5):  # contact bounce on pressing: edges 0.5 ms apart
        clock.now = 1_000 + step * MS // 2
        pin.drive_low()
        clock.now += MS // 4
        pin.drive_high()
    clock.now = 2_000 + 4 * MS
    pin.drive_low()
    clock.now = 200 * MS  # released, bouncing
    pin.drive_high()
    clock.now = 200 * MS + MS
    pin.drive_low()
    clock.now = 200 * MS + 2 * MS
    pin.drive_high()
    clock.now = 500 * MS  # a second, real press
    pin.drive_low()
    assert buttons.poll() == [ButtonPress("black", 1_000), ButtonPress("black", 500 * MS)]
    pin.drive_high()  # released: gpiozero's hold thread then stops at once on close
    buttons.close()


def test_presses_come_out_in_edge_order(mock_factory: MockFactory) -> None:
    clock = FakeClock(10 * S)
    buttons = _buttons(mock_factory, clock)
    mock_factory.pin(25).drive_low()
    clock.now = 11 * S
    mock_factory.pin(14).drive_low()
    assert [p.name for p in buttons.poll()] == ["pause", "white"]
    mock_factory.pin(25).drive_high()
    mock_factory.pin(14).drive_high()
    buttons.close()


def test_gpiozero_state_still_follows_the_pin(mock_factory: MockFactory) -> None:
    clock = FakeClock()
    seen: list[int] = []
    button = StampedButton(14, clock=clock, on_press=seen.append, pin_factory=mock_factory)
    fired: list[bool] = []
    button.when_pressed = lambda: fired.append(True)
    clock.now = 42
    mock_factory.pin(14).drive_low()
    assert button.is_pressed and fired == [True] and seen == [42]
    mock_factory.pin(14).drive_high()
    assert not button.is_pressed
    button.close()


def test_active_high_buttons(mock_factory: MockFactory) -> None:
    clock = FakeClock(7)
    buttons = _buttons(mock_factory, clock, pull_up=False)
    mock_factory.pin(14).drive_high()
    assert buttons.poll() == [ButtonPress("white", 7)]
    mock_factory.pin(14).drive_low()
    buttons.close()


def test_pause_button_is_optional(mock_factory: MockFactory) -> None:
    buttons = ClockButtons({"white": 14, "black": 15, "pause": 0}, pin_factory=mock_factory)
    assert set(buttons.buttons) == {"white", "black"}
    buttons.close()


@pytest.mark.parametrize(
    ("pins", "words"),
    [
        ({"white": 14}, "black clock button needs a pin"),
        ({"white": 14, "black": 14}, "share pin 14"),
        ({"white": 14, "black": 15, "reset": 16}, "unknown clock button"),
        ({"white": 14, "black": "GPIO99"}, "cannot set up clock button"),
    ],
)
def test_bad_pins_give_one_line_errors(
    mock_factory: MockFactory, pins: dict[str, object], words: str
) -> None:
    with pytest.raises(HardwareError, match=words):
        ClockButtons(pins, pin_factory=mock_factory)  # type: ignore[arg-type]


def test_button_presses_drive_the_game_clock(mock_factory: MockFactory) -> None:
    now = FakeClock(0)
    buttons = _buttons(mock_factory, now)
    clock = GameClock("300")
    clock.start(0)
    now.now = 30 * S
    mock_factory.pin(14).drive_low()  # White presses at 30 s
    now.now = 31 * S
    mock_factory.pin(14).drive_high()
    now.now = 32 * S  # the loop runs 2 s late
    for press in buttons.poll():
        clock.press(Side(press.name), press.at)
    assert clock.remaining(Side.WHITE, now.now) == 270 * S  # charged to the edge, not the loop
    assert clock.remaining(Side.BLACK, now.now) == 298 * S
    buttons.close()


def test_clock_buttons_start_no_thread_of_their_own() -> None:
    """gpiozero's Button keeps a hold-timing thread waking ten times a second; the clock
    buttons must not (an idle board would wake 30 times a second for nothing)."""
    import threading

    from gpiozero.pins.mock import MockFactory

    from hw.buttons import ClockButtons

    before = set(threading.enumerate())
    buttons = ClockButtons({"white": 5, "black": 6, "pause": 13}, pin_factory=MockFactory())
    try:
        assert set(threading.enumerate()) - before == set()
    finally:
        buttons.close()
