"""boardctl.service.sensing.EventMerge: events from many sources leave in time stamp order, and only
once no source can still deliver an earlier one (the watermark)."""

from __future__ import annotations

from boardctl.service.sensing import BUTTONS, SCRIPT, SENSORS, EventMerge
from firmware.formats.events import Lift, Place, Press, Start
from hw.debounce import Debouncer


def test_a_press_waits_for_the_set_down_the_debouncer_still_confirms() -> None:
    merge = EventMerge([SENSORS, BUTTONS])
    debouncer = Debouncer(["a1", "c1"], samples=3, initial=0b01)
    t = 1_000_000_000
    merge.put(SENSORS, debouncer.feed(0b11, t), debouncer.pending_since() or t + 1)
    merge.put(BUTTONS, [Press(t + 4_000_000, "white")], t + 5_000_000)  # 4 ms after
    assert merge.take() == []  # the place seen at t is not confirmed yet: hold the press
    for k in (1, 2):
        events = [e.to_event() for e in debouncer.feed(0b11, t + k * 5_000_000)]
        since = debouncer.pending_since()
        merge.put(SENSORS, events, since if since is not None else t + k * 5_000_000 + 1)
    assert merge.take() == [Place(t, "c1"), Press(t + 4_000_000, "white")]


def test_same_instant_sensor_events_before_presses_and_marks_only_rise() -> None:
    merge = EventMerge([SENSORS, BUTTONS, SCRIPT])
    merge.put(BUTTONS, [Press(10, "black")], 11)
    merge.put(SCRIPT, [Start(5)], 100)
    merge.put(SENSORS, [Lift(10, "a1"), Place(10, "b2")], 50)
    assert merge.take() == [Start(5), Lift(10, "a1"), Place(10, "b2"), Press(10, "black")]
    merge.put(BUTTONS, [], 3)  # a mark never goes back
    assert merge.frontier() == 11
    merge.put(SENSORS, [Lift(20, "c3")], 60)
    assert merge.take() == []  # the buttons have not spoken past 20 yet
    merge.put(BUTTONS, [], 21)
    assert merge.take() == [Lift(20, "c3")]


def test_advance_raises_marks_never_lowers_them_and_wakes_only_for_a_release() -> None:
    import threading

    class Counted(threading.Condition):
        notified = 0

        def notify_all(self) -> None:
            Counted.notified += 1
            super().notify_all()

    merge = EventMerge([SENSORS, BUTTONS])
    merge._cond = Counted()
    merge.advance(SENSORS, 40, BUTTONS, 30)
    assert merge.frontier() == 30
    merge.advance(SENSORS, 10, BUTTONS, 5)  # older marks: nothing moves back
    assert merge.frontier() == 30
    assert Counted.notified == 0  # nothing waits in the heap: nobody to wake
    merge.put(SENSORS, [Lift(50, "a1")], 60)
    assert merge.take() == []  # the buttons are still at 30
    merge.advance(BUTTONS, 45)  # still below the lift: no reason to wake the referee
    assert Counted.notified == 0
    merge.advance(BUTTONS, 51)  # the lift can go now: the referee is woken
    assert Counted.notified == 1
    assert merge.take() == [Lift(50, "a1")]
    assert merge.frontier() == 51
