"""The clock faces: Adafruit's real HT16K33 driver writing to the recording I2C bus."""

from __future__ import annotations

import os

import pytest

from firmware.clock.face import FaceText, segment_time
from firmware.clock.gameclock import GameClock
from firmware.errors import HardwareError
from firmware.rules.sets import Side
from hw.faces import ClockFaces
from hw.mock.faces import RecordingI2C, SimulatedChip, simulated_faces

S = 1_000_000_000
W, B = Side.WHITE, Side.BLACK


def test_driver_initialises_both_chips() -> None:
    faces = simulated_faces(brightness=0.4)
    for address in (0x70, 0x71):
        chip = faces.i2c.chips[address]
        assert chip.oscillator and chip.display_on
        assert chip.brightness == round(15 * 0.4)
        assert chip.blink == 0


def test_what_each_face_showed_is_read_back_from_the_segments() -> None:
    faces = simulated_faces()
    clock = GameClock("300")
    clock.start(0)
    faces.update(clock, 0)
    clock.press(W, 13 * S)
    faces.update(clock, 13 * S)
    faces.update(clock, 300 * S)  # Black has used 287 s: 13 s left, shown in tenths
    faces.update(clock, 313 * S)  # his flag falls
    assert faces.i2c.history[0x70] == [" 5:00.", " 4:47"]
    assert faces.i2c.history[0x71] == [" 5:00", " 5:00.", " 13.0.", "FLAG"]
    assert faces.shown(B) == FaceText("FLAG;")


def test_tenths_and_points_on_the_segments() -> None:
    faces = simulated_faces()
    faces.show(W, segment_time(5 * S + 300_000_000, running=True))
    assert faces.i2c.chips[0x70].text() == "  5.3."
    faces.show(W, segment_time(5025 * S))
    assert faces.i2c.chips[0x70].text() == "1H23"  # colon cleared again


def test_unchanged_face_is_not_written_again() -> None:
    faces = simulated_faces()
    face = segment_time(60 * S)
    assert faces.show(W, face)
    transfers = faces.i2c.transfers
    assert not faces.show(W, face)
    assert faces.i2c.transfers == transfers


def test_blinking_while_paused() -> None:
    faces = simulated_faces()
    clock = GameClock("300")
    clock.start(0)
    clock.pause(10 * S)
    faces.update(clock, 10 * S)
    assert faces.i2c.chips[0x70].blink == 2
    clock.resume(20 * S)
    faces.update(clock, 20 * S)
    assert faces.i2c.chips[0x70].blink == 0


def test_missing_face_is_a_hardware_error() -> None:
    with pytest.raises(HardwareError, match="black clock face at I2C address 0x71"):
        ClockFaces(RecordingI2C((0x70,)))


def test_same_address_twice_is_refused() -> None:
    with pytest.raises(HardwareError, match="both clock faces"):
        simulated_faces(0x70, 0x70)


def test_bad_brightness() -> None:
    with pytest.raises(HardwareError, match="brightness"):
        simulated_faces(brightness=2.0)


def test_face_that_stops_answering() -> None:
    faces = simulated_faces()
    del faces.i2c.chips[0x71]
    with pytest.raises(HardwareError, match="black clock face"):
        faces.show(B, segment_time(5 * S))


def test_close_blanks_the_faces() -> None:
    faces = simulated_faces()
    faces.show(W, segment_time(5 * S))
    faces.close()
    assert faces.i2c.chips[0x70].text() == "    "


def test_chip_keeps_ram_writes_at_an_offset() -> None:
    chip = SimulatedChip()
    chip.receive(bytes([0x06, 0x3F]))  # digit 2 (RAM byte 6) := '0'
    assert chip.text() == "  0 "


@pytest.mark.skipif(os.path.exists("/dev/i2c-1"), reason="a real I2C bus is present")
def test_real_faces_without_a_bus_fail_cleanly() -> None:
    with pytest.raises(HardwareError, match="I2C bus"):
        ClockFaces.real()


def test_simulated_faces_do_not_import_the_pi_board_module() -> None:
    import subprocess
    import sys

    code = (
        "import sys\nfrom hw.mock.faces import simulated_faces\nsimulated_faces()\n"
        "print('board' in sys.modules)"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "False"


def test_the_display_thread_sleeps_while_the_faces_stand_still() -> None:
    """boardctl.service.showing.Display wakes only when the faces can change: never before the
    clock starts (the set times stand still), at the faces' rate once it counts or an alarm
    blinks; whatever the referee posts wakes it at once."""
    import threading
    from types import SimpleNamespace

    from boardctl.service.showing import Display

    faces = simulated_faces()
    now = [0]
    display = Display(SimpleNamespace(leds=None, faces=faces), S // 20, lambda: now[0])
    assert display.wait_s() is None  # nothing posted yet
    clock = GameClock("300+5")
    display.publish(clock, 0)
    assert display.wait_s() is None  # 5:00 on both faces until the start
    display.alarm = "journal: disk full"
    assert display.wait_s() == 0.05
    display.alarm = None
    clock.start(0)
    display.publish(clock, 0)
    assert display.wait_s() == 0.05  # White's time counts down
    assert display._game_clock is not clock  # a copy: the referee's clock moves on alone

    idle = GameClock("300+5")
    display.publish(idle, 0)
    display.start()
    try:
        shown = threading.Event()
        for _ in range(200):  # the first post is drawn at once, then the thread sleeps
            if faces.shown(W).text:
                shown.set()
                break
            threading.Event().wait(0.01)
        assert shown.is_set() and display.wait_s() is None
        idle.start(0)
        now[0] = 2 * S
        display.publish(idle, 0)  # wakes it: White's face loses its 2 seconds
        want = segment_time(298 * S, running=True, tenths=True).text
        for _ in range(200):
            if faces.shown(W).text == want:
                break
            threading.Event().wait(0.01)
        assert faces.shown(W).text == want
    finally:
        display.stop()
