"""Choosing the gpiozero pin factory: the one place the GPIO backend is decided.

gpiozero drives the pins; this module only says which of its backends to use
(``[gpio] backend``):

* ``auto`` (default): on a Pi 5, lgpio (RPi.GPIO cannot reach the Pi 5's RP1 chip); on a
  Pi 0-4, RPi.GPIO when it is installed, because its reads and writes are register accesses
  through ``/dev/gpiomem`` while lgpio makes a system call for each, and a 100 Hz matrix
  scan makes 70 of them (benchmarks/bench_scan.py); otherwise gpiozero's own order.
* ``rpigpio`` / ``lgpio``: that backend, or a HardwareError saying why not.
* ``gpiozero``: gpiozero's own order (lgpio first in gpiozero 2.0).

``[gpio] chip`` names the gpiochip for lgpio (a Pi 5 has its header on gpiochip4 with kernels
before 6.6.45, gpiochip0 after). Nothing here imports a Pi-only library at module level, and
nothing in the project imports RPi.GPIO itself: gpiozero's factories do.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from firmware.errors import HardwareError
from hw.config import GpioConfig

MODEL_FILE = Path("/proc/device-tree/model")


def board_model(path: Path = MODEL_FILE) -> str:
    """The board's model string (``Raspberry Pi Zero 2 W Rev 1.0``), empty when unknown."""
    try:
        return path.read_bytes().rstrip(b"\0").decode("ascii", "replace")
    except OSError:
        return ""


def is_pi5(model: str) -> bool:
    return model.startswith(("Raspberry Pi 5", "Raspberry Pi Compute Module 5"))


def real_pin_factory(config: GpioConfig, model: str | None = None) -> Any | None:
    """The pin factory for real hardware, or None to let gpiozero choose."""
    model = board_model() if model is None else model
    backend = config.backend
    if backend == "auto":
        if config.chip >= 0 or is_pi5(model):
            backend = "lgpio"
        elif model.startswith("Raspberry Pi"):
            try:
                return _rpigpio()
            except HardwareError:
                return None  # RPi.GPIO missing: gpiozero's order (lgpio) still works
        else:
            return None
    if backend == "gpiozero":
        return None
    if backend == "rpigpio":
        if is_pi5(model):
            raise HardwareError("gpio.backend = \"rpigpio\" cannot drive a Raspberry Pi 5 "
                                "(its GPIOs are on the RP1 chip); use \"lgpio\" or \"auto\"")
        return _rpigpio()
    try:
        from gpiozero.pins.lgpio import LGPIOFactory
    except ImportError as exc:
        raise HardwareError(f"gpio.backend needs lgpio, which is not installed ({exc}); "
                            "pip install 'boardctl[pi]' or apt install python3-lgpio") from None
    try:
        return LGPIOFactory(chip=None if config.chip < 0 else config.chip)
    except Exception as exc:  # lgpio raises its own error type for a missing chip
        chip = "the default gpiochip" if config.chip < 0 else f"/dev/gpiochip{config.chip}"
        raise HardwareError(f"cannot open {chip} with lgpio: {exc}") from None


def _rpigpio() -> Any:
    try:
        from gpiozero.pins.rpigpio import RPiGPIOFactory
    except ImportError as exc:
        raise HardwareError(f"gpio.backend needs RPi.GPIO, which is not installed ({exc}); "
                            "pip install 'boardctl[pi]'") from None
    except Exception as exc:  # RPi.GPIO raises RuntimeError on import off a Pi 0-4
        raise HardwareError(f"cannot use RPi.GPIO: {exc}") from None
    try:
        return RPiGPIOFactory()
    except Exception as exc:
        raise HardwareError(f"cannot use RPi.GPIO: {exc}") from None


def mock_pin_factory() -> Any:
    """A fresh gpiozero MockFactory (the simulated board's pins are made on it)."""
    from gpiozero.pins.mock import MockFactory

    return MockFactory()
