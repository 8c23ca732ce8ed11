"""The Pi's own library stack, imported as on a Pi: Adafruit Blinka told it runs on a Pi 4B,
a Pi 5 or a Zero 2 W (its BLINKA_FORCECHIP / BLINKA_FORCEBOARD variables), in a fresh
interpreter each, with what the test extra installs (the [pi] extra's Blinka stack).

Blinka 10 imports ``gpiod`` on a Pi as soon as anything imports ``digitalio``, and
``neopixel_spi`` does (through ``adafruit_bus_device.spi_device``); a missing ``gpiod``
becomes a RuntimeError there, not an ImportError. Without it the strip never opens on a Pi.
Off a Pi the devices are missing, so the strip and the faces must fail on exactly that (no
/dev/spidev0.0, no /dev/i2c-1), in one line, and never on an import."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

PROBE = """
import json, sys
result = {}
import board, digitalio, neopixel_spi
from adafruit_extended_bus import ExtendedI2C, ExtendedSPI
from adafruit_ht16k33.segments import Seg7x4
from adafruit_platformdetect import Detector
result["board"] = Detector().board.id
result["mosi"] = int(str(board.MOSI))
from hw.config import LedConfig
from hw.faces import ClockFaces
from hw.leds import open_real_strip
from firmware.errors import HardwareError
for name, opener in (("leds", lambda: open_real_strip(10, LedConfig(backend="spi"))),
                     ("faces", lambda: ClockFaces.real(1, 0x70, 0x71, 0.5))):
    try:
        opener()
        result[name] = "opened"
    except HardwareError as exc:
        result[name] = str(exc)
print(json.dumps(result))
"""


@pytest.mark.parametrize("board", ["RASPBERRY_PI_4B", "RASPBERRY_PI_5", "RASPBERRY_PI_ZERO_2_W"])
def test_the_pi_stack_imports_on_each_model(board: str) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("BLINKA_")}
    env.update(BLINKA_FORCECHIP="BCM2XXX", BLINKA_FORCEBOARD=board, PYTHONPATH=str(ROOT))
    proc = subprocess.run([sys.executable, "-c", PROBE], env=env, capture_output=True,
                          text=True, timeout=120, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr[-2000:]
    result = json.loads(proc.stdout.splitlines()[-1])
    assert result["board"] == board and result["mosi"] == 10
    for name, device in (("leds", "/dev/spidev0.0"), ("faces", "/dev/i2c-1")):
        if Path(device).exists():  # on a Pi with the interface on
            continue
        assert "\n" not in result[name]
        assert "gpiod" not in result[name] and "platform library" not in result[name]
    if not Path("/dev/spidev0.0").exists():
        assert result["leds"] == ("cannot open the LED strip: No device found for /dev/spidev0.0 "
                                  "(is SPI enabled? sudo raspi-config nonint do_spi 0)")


def test_without_gpiod_the_strip_says_so_in_one_line() -> None:
    """What a Pi without gpiod did before the [pi] extra had it (gpiod hidden here): Blinka's
    RuntimeError, not an ImportError; the strip is named missing, with the fix."""
    code = ("import sys\n"
            "sys.modules['gpiod'] = None  # not installed\n"
            "from hw.config import LedConfig\n"
            "from hw.leds import open_real_strip\n"
            "from firmware.errors import HardwareError\n"
            "try:\n"
            "    open_real_strip(10, LedConfig(backend='spi'))\n"
            "except HardwareError as exc:\n"
            "    print(exc)\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("BLINKA_")}
    env.update(BLINKA_FORCECHIP="BCM2XXX", BLINKA_FORCEBOARD="RASPBERRY_PI_ZERO_2_W",
               PYTHONPATH=str(ROOT))
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                          text=True, timeout=120, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr[-2000:]
    lines = proc.stdout.splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("cannot open the LED strip: The platform library 'gpiod' was "
                               "not found")
    assert lines[0].endswith("(sudo ./systemd/install.sh installs the [pi] extra's gpiod)")


#: A Pi's /proc/cpuinfo as Blinka reads it (its revision code: a Pi is any board that has one;
#: a forced board without it is not one to Blinka's dependency checks). The file is the one
#: thing faked: the interpreter's open() gives this text for that path.
REAL_PI = """
import builtins, io, sys
_open = builtins.open
def _cpuinfo(file, *args, **kwargs):
    if file == "/proc/cpuinfo":
        return io.StringIO("processor\\t: 0\\nRevision\\t: " + sys.argv[1] + "\\n")
    return _open(file, *args, **kwargs)
builtins.open = _cpuinfo
from hw.config import LedConfig
from hw.leds import open_real_strip
from firmware.errors import HardwareError
for backend in ("pwm", "spi"):
    try:
        open_real_strip(10, LedConfig(backend=backend))
        print(backend, "opened")
    except HardwareError as exc:
        print(backend, "|", exc)
"""


def _on_a_terminal(code: str, args: list[str], env: dict[str, str], answer: bytes) -> str:
    """Run ``code`` with a pseudo-terminal as stdin and stdout (hwtest in an ssh session),
    ``answer`` typed ahead; its whole output."""
    import pty

    master, slave = pty.openpty()
    try:
        os.write(master, answer)
        proc = subprocess.Popen([sys.executable, "-c", code, *args], stdin=slave, stdout=slave,
                                stderr=slave, env=env, cwd=ROOT)
        os.close(slave)
        slave = -1
        try:
            proc.wait(timeout=120)
        finally:
            if proc.poll() is None:
                os.kill(proc.pid, 9)
                proc.wait()
        out = b""
        while True:
            try:
                chunk = os.read(master, 65536)
            except OSError:  # EIO: the other end closed
                break
            if not chunk:
                break
            out += chunk
        return out.decode(errors="replace").replace("\r\n", "\n")
    finally:
        os.close(master)
        if slave >= 0:
            os.close(slave)


@pytest.mark.parametrize(("board", "revision", "library"), [
    ("RASPBERRY_PI_4B", "c03114", "_rpi_ws281x"),
    ("RASPBERRY_PI_5", "d04170", "adafruit_raspberry_pi5_neopixel_write"),
])
def test_the_pwm_strip_on_a_real_pi_names_its_own_fix_and_installs_nothing(
        board: str, revision: str, library: str) -> None:
    """On a Pi (a revision code in /proc/cpuinfo) ``import board`` offered, on a terminal, to
    pip-install rpi_ws281x and Blinka's PWM library into the venv, Enter meaning yes (hwtest
    under sudo would have changed /opt/boardctl); and the missing library was met with the
    gpiod hint, which install.sh's [pi] extra does not mend. Now: no offer, and the pwm
    backend's own reason in one line."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("BLINKA_")}
    env.update(BLINKA_FORCECHIP="BCM2XXX", BLINKA_FORCEBOARD=board, PYTHONPATH=str(ROOT))
    out = _on_a_terminal(REAL_PI, [revision], env, b"n\n")
    assert "Install them" not in out and "missing or outdated" not in out, out
    lines = [line for line in out.splitlines() if line.startswith(("pwm", "spi"))]
    assert len(lines) == 2, out
    pwm, spi = lines
    assert pwm.startswith(f"pwm | cannot open the LED strip: The platform library '{library}' "
                          "was not found"), pwm
    assert pwm.endswith('install.sh installs neither: use leds.backend = "spi")'), pwm
    assert "gpiod" not in pwm
    if not Path("/dev/spidev0.0").exists():
        assert spi == ("spi | cannot open the LED strip: No device found for /dev/spidev0.0 "
                       "(is SPI enabled? sudo raspi-config nonint do_spi 0)")
