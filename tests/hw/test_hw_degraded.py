"""Degraded mode: a real-hardware board (boardctl.service.hardware.pi_hardware) with parts missing
starts without them, names them (status, feed, journal of systemd), and referees on; without
the sensor matrix it stops in one line. The real parts' openers fail as they do on a machine
without the parts (no /dev/i2c-1, no /dev/spidev0.0); the matrix runs on lgpio's group
interface over the simulated board (hw.mock.matrix.SimulatedChip)."""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from support.service_helpers import RealClock, VirtualClock

from boardctl.service.hardware import pi_hardware
from boardctl.service.service import GameSetup, Service
from firmware.errors import HardwareError
from hw.config import LedConfig, default_config
from hw.gpio import GpioBackend
from hw.mock.matrix import SimulatedBoard, SimulatedChip

ROOT = Path(__file__).resolve().parents[2]
NO_I2C = not Path("/dev/i2c-1").exists()
NO_SPI = not Path("/dev/spidev0.0").exists()


@pytest.fixture
def lgpio_board(monkeypatch: pytest.MonkeyPatch) -> tuple[SimulatedBoard, GpioBackend]:
    config = default_config(10)
    board = SimulatedBoard.from_config(10, config.matrix)
    monkeypatch.setitem(sys.modules, "lgpio", SimulatedChip(board))  # type: ignore[arg-type]
    return board, GpioBackend("lgpio", board.factory, chip=0)


@pytest.mark.skipif(not (NO_I2C and NO_SPI), reason="this machine has I2C/SPI devices")
def test_missing_faces_and_leds_degrade_and_are_named(
        lgpio_board: tuple[SimulatedBoard, GpioBackend], tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    board, backend = lgpio_board
    config = dataclasses.replace(default_config(10), leds=LedConfig(backend="spi"))
    clock = VirtualClock()
    feed = tmp_path / "feed.jsonl"
    service: Service | None = None

    def on_connect() -> list[str] | None:
        return service.port_connected() if service is not None else None

    hw = pi_hardware(config, clock=clock, feed_url=str(feed), backend=backend,
                     on_connect=on_connect)
    assert hw.leds is None and hw.faces is None and hw.buttons is not None
    assert [m.split(":")[0] for m in hw.missing] == ["LED strip", "clock faces"]
    assert "spidev0.0" in hw.missing[0] and "I2C bus 1" in hw.missing[1]
    logged = capsys.readouterr().err
    assert "running without the LED strip" in logged and "running without the clock faces" in logged

    service = Service(tmp_path / "state", GameSetup("international", "300+5"), hw,
                      clock=clock)
    service.boot()
    try:
        assert hw.feed is not None and hw.feed.wait_connected()
        assert service.status(clock.now)["missing"] == hw.missing
        # it referees on: the group scan sees the pieces, the journal records them
        board.set_pieces(["e5", "f6"])
        for _ in range(5):
            clock.now += hw.scanner.period_ns
            service.step(clock.now)
    finally:
        service.close()
    journal = "".join(p.read_text() for p in (tmp_path / "state").rglob("*.jsonl"))
    seen = {json.loads(line).get("square") for line in journal.splitlines()}
    assert {"e5", "f6"} <= seen
    records = [json.loads(line) for line in feed.read_text().splitlines() if line.strip()]
    missing = [r for r in records if r["type"] == "hardware"]
    assert len(missing) == 1 and missing[0]["missing"] == hw.missing


def test_without_the_matrix_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    config = default_config(10)
    board = SimulatedBoard.from_config(10, config.matrix)
    monkeypatch.setitem(sys.modules, "lgpio", SimulatedChip(board, chips=()))  # type: ignore[arg-type]
    with pytest.raises(HardwareError) as err:
        pi_hardware(config, backend=GpioBackend("lgpio", board.factory, chip=0))
    text = str(err.value)
    assert text.startswith("the sensor matrix cannot start: ") and "\n" not in text
    assert "/dev/gpiochip0" in text


def test_boardctl_run_without_pi_hardware(tmp_path: Path) -> None:
    """`boardctl run` as under the unit, on a machine without the board: the GPIO libraries
    fail the way they do off a Pi; one short line naming what is missing, non-zero exit."""
    site = tmp_path / "site"
    (site / "RPi").mkdir(parents=True)
    (site / "lgpio.py").write_text("class error(Exception):\n    pass\n"
                                   "def gpiochip_open(chip):\n"
                                   "    raise error(\"'can not open gpiochip'\")\n"
                                   "SET_PULL_UP, SET_PULL_DOWN, SET_PULL_NONE = 32, 64, 128\n"
                                   "SET_BIAS_PULL_UP = SET_BIAS_PULL_DOWN = SET_BIAS_DISABLE = 0\n"
                                   "RISING_EDGE, FALLING_EDGE, BOTH_EDGES = 1, 2, 3\n")
    (site / "RPi" / "__init__.py").write_text("")
    (site / "RPi" / "GPIO.py").write_text(
        'raise RuntimeError("This module can only be run on a Raspberry Pi!")\n')
    env = dict(os.environ, PYTHONPATH=f"{site}{os.pathsep}{ROOT}", LG_WD=str(tmp_path))
    ro = tmp_path / "ro"
    ro.mkdir()
    proc = subprocess.run(
        [sys.executable, "-m", "boardctl", "run", "--config",
         str(ROOT / "hw" / "config.example.toml"), "--state-dir", str(tmp_path / "st")],
        cwd=ro, env=env, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 69  # EX_UNAVAILABLE: the unit's RestartPreventExitStatus
    assert proc.stdout == ""
    lines = proc.stderr.splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("boardctl: error: the sensor matrix cannot start: no GPIO backend")
    assert "lgpio: no header gpiochip (pinctrl-rp1" in lines[0]
    assert "RPi.GPIO: import failed" in lines[0] and "Traceback" not in proc.stderr


def test_spi_clock_advice() -> None:
    from hw.leds import spi_clock_advice

    pi4, pi3 = "Raspberry Pi 4 Model B Rev 1.4", "Raspberry Pi 3 Model B Plus Rev 1.3"
    advice = spi_clock_advice(pi4, "dtparam=spi=on\n# core_freq=500\n")
    assert advice is not None and "core_freq=500 and core_freq_min=500" in advice
    assert "neither is set" in advice
    assert spi_clock_advice(pi4, "core_freq=500\ncore_freq_min=500\n") is None
    half = spi_clock_advice(pi3, "core_freq=250\n")
    assert half is not None and "core_freq=250" in half and "(core_freq=250)" in half
    assert spi_clock_advice(pi3, "core_freq=250\ncore_freq_min=250 # fixed\n") is None
    assert spi_clock_advice("Raspberry Pi Zero 2 W Rev 1.0", "") is not None
    assert spi_clock_advice("Raspberry Pi 5 Model B Rev 1.0", "") is None
    assert spi_clock_advice("", "") is None
    # config.txt's sections: a stock bookworm file ends "[cm4] ... [cm5] ... [all]"; what the
    # README's step appends after "[all]" counts, what sits under another model's filter not
    stock = "dtparam=audio=on\n[cm4]\notg_mode=1\n[cm5]\ndtoverlay=dwc2,dr_mode=host\n[all]\n"
    assert spi_clock_advice(pi4, stock + "\n[all]\ncore_freq=500\ncore_freq_min=500\n") is None
    assert spi_clock_advice(pi4, stock.replace("otg_mode=1", "core_freq=500\ncore_freq_min=500"))
    assert spi_clock_advice(pi4, "[pi4]\ncore_freq=500\ncore_freq_min=500\n") is None
    assert spi_clock_advice(pi3, "[pi4]\ncore_freq=250\ncore_freq_min=250\n") is not None
    zero2 = "Raspberry Pi Zero 2 W Rev 1.0"
    assert spi_clock_advice(zero2, "[pi02]\ncore_freq=250\ncore_freq_min=250\n") is None
    assert spi_clock_advice(zero2, "[none]\ncore_freq=250\ncore_freq_min=250\n") is not None


@pytest.mark.skipif(not NO_I2C, reason="this machine has /dev/i2c-1")
def test_real_faces_without_i2c_say_so() -> None:
    from hw.faces import ClockFaces

    with pytest.raises(HardwareError, match=r"cannot open I2C bus 1 .*i2c-1.*do_i2c"):
        ClockFaces.real(1)


def test_present_faces_name_a_missing_strip_then_show_the_clock(
        lgpio_board: tuple[SimulatedBoard, GpioBackend], tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Faces on the I2C bus (a recording bus at Blinka's ExtendedI2C), no LED strip: the faces
    say so for NOTICE_SECONDS, then run the clock."""
    import adafruit_extended_bus

    from boardctl.service.hardware import NOTICE_SECONDS
    from hw.mock.faces import RecordingI2C

    _, backend = lgpio_board
    bus = RecordingI2C((0x70, 0x71))
    monkeypatch.setattr(adafruit_extended_bus, "ExtendedI2C", lambda number: bus)
    config = dataclasses.replace(default_config(10), leds=LedConfig(backend="spi"))
    clock = VirtualClock()
    hw = pi_hardware(config, clock=clock, backend=backend)
    if not NO_SPI:
        pytest.skip("this machine has /dev/spidev0.0")
    assert [m.split(":")[0] for m in hw.missing] == ["LED strip"]
    service = Service(tmp_path / "state", GameSetup("international", "300+5"), hw, clock=clock)
    service.boot()
    try:
        for _ in range(20):
            clock.now += 100_000_000
            service.step(clock.now)
        assert bus.history[0x70][-1] == "LEd5" and bus.history[0x71][-1] == " oFF"
        clock.now += round(NOTICE_SECONDS * 1e9)
        service.step(clock.now)
        assert bus.history[0x70][-1] == " 5:00" or ":" in bus.history[0x70][-1]
        assert bus.history[0x71][-1] != " oFF"
    finally:
        service.close()


def _run_until_it_stops(service: Service) -> BaseException | None:
    """Service.run on real time in a thread (the sensing thread's error ends it); what it
    raised."""
    import threading

    raised: list[BaseException] = []

    def run() -> None:
        try:
            service.run(threading.Event())
        except BaseException as exc:  # noqa: BLE001 - the test looks at it
            raised.append(exc)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(60)
    assert not thread.is_alive()
    return raised[0] if raised else None


def test_the_chip_failing_mid_game_stops_the_service_in_one_line(
        lgpio_board: tuple[SimulatedBoard, GpioBackend], tmp_path: Path) -> None:
    """The gpiochip's handle gone mid-game (lgpio answers 'unknown handle'): the sensing
    thread stops with a HardwareError naming lgpio's reason, the service closes with the
    journal whole (what was played exports)."""
    board, backend = lgpio_board
    hw = pi_hardware(default_config(10), clock=RealClock(), feed_url=str(tmp_path / "feed"),
                     backend=backend)
    chip = sys.modules["lgpio"]
    assert hw.scanner.matrix.direct  # type: ignore[union-attr]
    service = Service(tmp_path / "state", GameSetup("international", "300+5"), hw,
                      clock=RealClock())
    scans = hw.scanner.matrix.scan  # type: ignore[union-attr]

    def scan() -> int:
        if hw.scanner.scans == 20:
            chip.gpiochip_close(hw.scanner.matrix._handle)  # type: ignore[attr-defined,union-attr]
        return scans()

    hw.scanner.matrix.scan = scan  # type: ignore[method-assign,union-attr]
    error = _run_until_it_stops(service)
    assert isinstance(error, HardwareError)
    assert "lgpio cannot select a row: unknown handle (-5)" in str(error)
    proc = subprocess.run([sys.executable, "-m", "boardctl", "export", "--state-dir",
                           str(tmp_path / "state")], capture_output=True, text=True, timeout=60,
                          cwd=ROOT)
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr


def test_any_sensing_failure_is_a_hardware_error(tmp_path: Path) -> None:
    """A scanner failing with anything (a pin library's own exception) ends the service with
    a HardwareError saying what, which the command line prints in one line."""
    from support.service_helpers import sim_service

    service, _ = sim_service(tmp_path / "state", None, clock=RealClock())

    def broken() -> int:
        raise RuntimeError("pin 17 went away")

    service.hw.scanner.matrix.scan = broken  # type: ignore[method-assign]
    error = _run_until_it_stops(service)
    assert isinstance(error, HardwareError)
    assert str(error) == "sensing stopped: RuntimeError: pin 17 went away"


def test_boardctl_run_on_a_pi_without_its_header_chip_is_restarted(tmp_path: Path) -> None:
    """`boardctl run` on a Pi 5 whose header chip is not there (a kernel that numbers it
    otherwise and has not probed RP1 yet): it waits for the chip (shortened here), then
    fails with an ordinary status, which the unit restarts on (not 69, which it does not)."""
    site = tmp_path / "site"
    site.mkdir()
    (site / "lgpio.py").write_text("class error(Exception):\n    pass\n"
                                   "def gpiochip_open(chip):\n"
                                   "    raise error(\"'can not open gpiochip'\")\n"
                                   "SET_PULL_UP, SET_PULL_DOWN, SET_PULL_NONE = 32, 64, 128\n"
                                   "SET_BIAS_PULL_UP = SET_BIAS_PULL_DOWN = SET_BIAS_DISABLE = 0\n"
                                   "RISING_EDGE, FALLING_EDGE, BOTH_EDGES = 1, 2, 3\n")
    (tmp_path / "dev").mkdir()
    (tmp_path / "dev" / "gpiochip10").touch()  # a chip, not the header's
    (tmp_path / "model").write_bytes(b"Raspberry Pi 5 Model B Rev 1.0\0")
    code = ("import sys\nfrom pathlib import Path\nimport hw.gpio as g\n"
            f"g.MODEL_FILE, g.DEV, g.SYS = Path({str(tmp_path / 'model')!r}), "
            f"Path({str(tmp_path / 'dev')!r}), Path({str(tmp_path / 'sys')!r})\n"
            "g.CHIP_WAIT_S = 0.5\n"
            "from boardctl.cli import main\n"
            f"sys.exit(main(['run', '--state-dir', {str(tmp_path / 'st')!r}]))\n")
    env = dict(os.environ, PYTHONPATH=f"{site}{os.pathsep}{ROOT}", LG_WD=str(tmp_path))
    proc = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=60)
    from hw.gpio import EXIT_NO_GPIO

    assert proc.returncode not in (0, EXIT_NO_GPIO), proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("boardctl: error: the sensor matrix cannot start: no GPIO "
                               "backend on a Raspberry Pi 5 Model B Rev 1.0: lgpio: no header "
                               "gpiochip (pinctrl-rp1 / pinctrl-bcm2711 / pinctrl-bcm2835) "
                               "after 0.5 s; chips: gpiochip10 (label unknown)")
    assert lines[0].endswith("systemd starts the service again")
