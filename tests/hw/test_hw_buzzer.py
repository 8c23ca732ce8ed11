"""The buzzer (issue 11): gpiozero Buzzer / TonalBuzzer on MockFactory pins, the beeper's
reading of feed records (flag, irregularity, 10 s left) on an injected timer, the config
section, ``hwtest`` and the service calling it."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path

import pytest
from gpiozero.pins.mock import MockFactory, MockPWMPin
from support.service_helpers import run_until, sim_service

from boardctl.cli import main
from boardctl.service.hardware import sim_hardware
from firmware.errors import ConfigError
from firmware.formats.events import Start
from firmware.formats.records import ClockRecord, IrregularityRecord, MoveRecord, ResultRecord
from hw.buzzer import Beeper, GpioBuzzer
from hw.config import parse_config
from hw.mock.buzzer import RecordingBuzzer

S = 1_000_000_000


class Timers:
    """An injected schedule: timers fire when the test says."""

    def __init__(self) -> None:
        self.armed: list[tuple[int, Callable[[], None], list[bool]]] = []

    def __call__(self, delay_ns: int, callback: Callable[[], None]) -> Callable[[], None]:
        state = [True]
        self.armed.append((delay_ns, callback, state))

        def cancel() -> None:
            state[0] = False

        return cancel

    def live(self) -> list[int]:
        return [delay for delay, _, state in self.armed if state[0]]

    def fire(self) -> None:
        for _, callback, state in self.armed:
            if state[0]:
                state[0] = False
                callback()


def _wait_high(pin: object, timeout: float = 5.0) -> bool:
    """Until gpiozero's blink thread has driven the pin high (a bounded wait for a thread)."""
    done = threading.Event()
    for _ in range(int(timeout * 200)):
        if any(s.state for s in pin.states):  # type: ignore[attr-defined]
            return True
        done.wait(0.005)
    return False


def test_active_buzzer_on_a_mock_pin_beeps() -> None:
    factory = MockFactory()
    buzzer = GpioBuzzer(7, pin_factory=factory)
    try:
        buzzer.sound("flag")
        assert _wait_high(factory.pin(7))
        assert buzzer.played == ["flag"]
    finally:
        buzzer.close()


def test_tonal_buzzer_on_a_mock_pwm_pin_plays_a_tone() -> None:
    factory = MockFactory(pin_class=MockPWMPin)
    buzzer = GpioBuzzer(12, tonal=True, pin_factory=factory)
    try:
        buzzer.sound("irregularity")
        pin = factory.pin(12)
        assert pin.frequency == pytest.approx(660.0)  # the tone starts in the caller's thread
    finally:
        buzzer.close()


def test_beeper_flag_and_irregularity() -> None:
    rec = RecordingBuzzer()
    beeper = Beeper(rec, schedule=Timers())
    assert beeper.on_record(IrregularityRecord("touch-move", "white", ("c3",), {})) \
        == "irregularity"
    assert beeper.on_record(ResultRecord("0-2", "time forfeit")) == "flag"
    assert beeper.on_record(ResultRecord("1-1", "agreement")) is None
    assert beeper.on_record(ResultRecord("0-2", "default: 30 minutes late (004 §32)")) == "flag"
    assert rec.played == ["irregularity", "flag", "flag"]


def test_beeper_ten_seconds_left_on_the_running_clock() -> None:
    timers = Timers()
    rec = RecordingBuzzer()
    beeper = Beeper(rec, ten_seconds=True, schedule=timers)
    beeper.on_record(MoveRecord(1, "white", "32-28", None, {"white": 50.0, "black": 25.5}))
    assert timers.live() == [15_500_000_000]  # Black runs: 10 s left in 15.5 s
    beeper.on_record(ClockRecord("pause", {"white": 50.0, "black": 20.0}, None))
    assert timers.live() == []  # paused: disarmed
    beeper.on_record(ClockRecord("resume", {"white": 50.0, "black": 20.0}, "black"))
    assert timers.live() == [10 * S]
    timers.fire()
    assert rec.played == ["ten-seconds"]
    beeper.on_record(MoveRecord(2, "black", "19-23", None, {"white": 8.0, "black": 9.0}))
    assert timers.live() == []  # already under 10 s: no warning
    off = Beeper(RecordingBuzzer(), ten_seconds=False, schedule=(spare := Timers()))
    off.on_record(MoveRecord(1, "white", "32-28", None, {"white": 50.0, "black": 25.0}))
    assert spare.armed == []


def test_buzzer_config_section() -> None:
    config = parse_config({"buzzer": {"pin": 7, "tonal": True, "ten_seconds": True}})
    assert (config.buzzer.pin, config.buzzer.tonal, config.buzzer.ten_seconds) == (7, True, True)
    assert parse_config({}).buzzer.pin == 0
    with pytest.raises(ConfigError, match="buzzer.pin"):
        parse_config({"buzzer": {"pin": 14}})  # White's button
    with pytest.raises(ConfigError, match="buzzer.tonal"):
        parse_config({"buzzer": {"tonal": "yes"}})
    with pytest.raises(ConfigError, match="did you mean 'pin'"):
        parse_config({"buzzer": {"pins": 7}})


def test_hwtest_beeps_the_configured_buzzer(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    cfg = tmp_path / "board.toml"
    cfg.write_text("[buzzer]\npin = 7\n")
    assert main(["hwtest", "--sim", "--once", "--config", str(cfg), "--skip", "leds"]) == 0
    assert "buzzer: GPIO7 (active, Buzzer) beeped twice" in capsys.readouterr().out
    assert main(["hwtest", "--sim", "--once", "--skip", "leds"]) == 0
    assert "buzzer: none fitted" in capsys.readouterr().out


def test_sim_hardware_builds_the_beeper_on_its_mock_pins() -> None:
    config = parse_config({"buzzer": {"pin": 7}})
    hw = sim_hardware(10, config)
    try:
        assert isinstance(hw.beeper, Beeper)
        assert isinstance(hw.beeper.buzzer, GpioBuzzer) and hw.beeper.buzzer.pin == 7
    finally:
        hw.close()


def test_service_beeps_on_a_flag(tmp_path: Path) -> None:
    # 004 §32: the flag ends the game; the buzzer sounds it (service _emit -> Beeper).
    service, clock = sim_service(tmp_path / "state", [Start(S)], tc="5")
    rec = RecordingBuzzer()
    service.hw.beeper = Beeper(rec, schedule=Timers())
    try:
        service.boot()
        run_until(service, clock, 8)
        assert "flag" in rec.played
    finally:
        service.close()
