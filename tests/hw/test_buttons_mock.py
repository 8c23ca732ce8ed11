"""Clock buttons on gpiozero's MockFactory: real Button code, an injected clock, first edges."""

from __future__ import annotations

from typing import Any

import pytest
from gpiozero.pins.mock import MockFactory

from firmware.clock.gameclock import GameClock
from firmware.errors import HardwareError
from firmware.rules.sets import Side
from hw.buttons import ButtonHeld, ButtonPress, ClockButtons, PolledButtons, StampedButton

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


@pytest.mark.parametrize(("kernel_stamps", "grace"), [(True, 4 * MS), (False, 1 * MS)])
def test_the_merge_waits_the_buttons_grace(kernel_stamps: bool, grace: int) -> None:
    """lgpio's kernel-stamped presses reach the queue up to ~1.3 ms after their stamp on a
    Pi Zero 2 W (hw/buttons.py): the sensing merge holds other events back by the buttons'
    own grace, 4 ms there, 1 ms for presses stamped by their handler. A press stamped just
    before a set-down but queued 3.5 ms later goes out first on lgpio's grace; with 1 ms the
    set-down has gone out already (the press is late, out of order)."""
    from types import SimpleNamespace

    from boardctl.service.sensing import BUTTONS, SENSORS, EventMerge, Sensing
    from firmware.formats.events import Event, Place, Press
    from hw.buttons import EDGE_GRACE_NS, LGPIO_GRACE_NS, PolledButtons
    from hw.config import MatrixConfig
    from hw.debounce import Debouncer
    from hw.matrix import Scanner
    from hw.mock.matrix import simulated_matrix

    assert (LGPIO_GRACE_NS, EDGE_GRACE_NS) == (4 * MS, 1 * MS)
    t0 = 10 * S
    clock = FakeClock(t0)
    factory = MockFactory()
    matrix, board = simulated_matrix(10, MatrixConfig(), factory)
    buttons = _buttons(factory, clock, kernel_stamps=kernel_stamps)
    assert buttons.grace_ns == grace
    scanner = Scanner(matrix, Debouncer(matrix.layout.squares, 1, initial=0), lambda e: None,
                      clock=clock)
    merge = EventMerge([SENSORS, BUTTONS])
    sensing = Sensing(SimpleNamespace(scanner=scanner, buttons=buttons), None, merge,
                      origin=lambda: 0, clock=clock)
    out: list[Event] = []

    def sense_at(t: int) -> None:
        clock.now = t
        sensing.sense(t, t + 5 * MS)
        out.extend(merge.take())

    board.place("a1")
    sense_at(t0)  # the set-down, stamped t0
    assert merge.frontier() == t0 - grace
    sense_at(t0 + 3 * MS)
    buttons._queue.put(ButtonPress("white", t0 - MS // 2))  # queued at t0 + 3.5 ms
    for t in (t0 + 5 * MS, t0 + 10 * MS):
        sense_at(t)
    press, place = Press(t0 - MS // 2, "white"), Place(t0, "a1")
    assert out == ([press, place] if kernel_stamps else [place, press])
    buttons.close()
    matrix.close()
    with PolledButtons({"white": 14, "black": 15}, pin_factory=factory, start=False) as polled:
        assert polled.grace_ns == EDGE_GRACE_NS


def test_the_pause_buttons_hold_is_reported_at_2_s_still_down(mock_factory: MockFactory) -> None:
    """The pause button held (the menus at the board open at 2 s, as a clock's do): its hold
    reported by the poll that finds it 2 s down, the pin still low, and its release then
    nothing; its bounce on pressing is no release; a release before 2 s is the short press
    (with how long it was held); the players' buttons report presses only."""
    clock = FakeClock(S)
    buttons = _buttons(mock_factory, clock)
    pin = mock_factory.pin(25)
    pin.drive_low()  # pressed at 1 s, bouncing for 2 ms
    clock.now = S + MS
    pin.drive_high()
    clock.now = S + 2 * MS
    pin.drive_low()
    clock.now = 2 * S + 999 * MS
    assert buttons.poll() == [ButtonPress("pause", S)]
    clock.now = 3 * S + 4 * MS  # a poll of the sensing thread's, 2 s on
    assert buttons.poll() == [ButtonHeld("pause", 3 * S, 2 * S)]
    assert pin.state is False and buttons.buttons["pause"].is_pressed
    clock.now = 5 * S
    assert buttons.poll() == []  # reported once
    pin.drive_high()  # let go after the hold: nothing more
    assert buttons.poll() == []
    clock.now = 6 * S
    pin.drive_low()  # a short press: its release says how long
    clock.now = 6 * S + 300 * MS
    pin.drive_high()
    assert buttons.poll() == [ButtonPress("pause", 6 * S), ButtonPress("pause", 6 * S + 300 * MS,
                                                                      300 * MS)]
    clock.now = 7 * S
    pin.drive_low()  # held 2.5 s with no poll meanwhile: the hold all the same, nothing more
    clock.now = 9 * S + 500 * MS
    pin.drive_high()
    assert buttons.poll() == [ButtonPress("pause", 7 * S), ButtonHeld("pause", 9 * S, 2 * S)]
    white = mock_factory.pin(14)
    clock.now = 10 * S
    white.drive_low()
    clock.now = 13 * S
    assert buttons.poll() == [ButtonPress("white", 10 * S)]  # no hold for the players' own
    white.drive_high()
    assert buttons.poll() == []
    buttons.close()


def test_the_simulated_hands_hold_takes_no_time(mock_factory: MockFactory) -> None:
    """``boardctl run --sim``'s hold: on the hand's clock, the hold reported at once with the
    pin still down; let go, nothing more; a short hold is a short press."""
    clock = FakeClock(9 * S)
    buttons = _buttons(mock_factory, clock)
    pin = mock_factory.pin(25)
    pin.drive_low()
    buttons.hold("pause", 2 * S, release=False)
    assert buttons.poll() == [ButtonPress("pause", 9 * S), ButtonHeld("pause", 9 * S + 1, 2 * S)]
    clock.now = 12 * S
    assert buttons.poll() == []  # not twice when the service's clock gets there
    buttons.let_go("pause")
    pin.drive_high()
    assert buttons.poll() == []
    clock.now = 20 * S
    pin.drive_low()
    buttons.hold("pause", 500 * MS)
    pin.drive_high()
    assert buttons.poll() == [ButtonPress("pause", 20 * S),
                              ButtonPress("pause", 20 * S + 1, 500 * MS)]
    buttons.close()


def test_polled_buttons_report_the_hold_at_2_s_still_down(mock_factory: MockFactory) -> None:
    """The polled buttons (RPi.GPIO) the same, on their injected clock."""
    clock = FakeClock(10 * S)
    pin = mock_factory.pin(25)
    polled = PolledButtons({"white": 14, "black": 15, "pause": 25}, clock=clock,
                           pin_factory=mock_factory, start=False)
    pin.drive_low()
    polled.sample()
    clock.now = 11 * S + 995 * MS
    polled.sample()
    assert polled.poll() == [ButtonPress("pause", 10 * S)]
    clock.now = 12 * S + 5 * MS
    polled.sample()
    assert polled.poll() == [ButtonHeld("pause", 12 * S, 2 * S)]
    assert pin.state is False
    clock.now = 13 * S
    polled.sample()
    pin.drive_high()
    clock.now = 13 * S + 5 * MS
    polled.sample()
    assert polled.poll() == []  # let go after the hold: nothing more
    clock.now = 14 * S
    pin.drive_low()
    polled.sample()
    clock.now = 15 * S
    pin.drive_high()
    polled.sample()
    assert polled.poll() == [ButtonPress("pause", 14 * S), ButtonPress("pause", 15 * S, S)]
    polled.close()
