"""Choosing the gpiozero pin factory: the one place the GPIO backend is decided.

On a Raspberry Pi gpiozero picks the backend itself (lgpio, else RPi.GPIO; a Pi 5 needs lgpio
because RPi.GPIO cannot reach its RP1 chip). ``[gpio] chip`` in the config names the gpiochip
for lgpio explicitly (a Pi 5 has its header on gpiochip4 with kernels before 6.6.45 and on
gpiochip0 after). The simulated board uses gpiozero's MockFactory. Nothing here imports a
Pi-only library at module level, and nothing in the project imports RPi.GPIO itself.
"""

from __future__ import annotations

from typing import Any

from firmware.errors import HardwareError
from hw.config import GpioConfig


def real_pin_factory(config: GpioConfig) -> Any | None:
    """The pin factory for real hardware: None lets gpiozero choose (its default order),
    an ``LGPIOFactory(chip=...)`` when the config names a chip."""
    if config.chip < 0:
        return None
    try:
        from gpiozero.pins.lgpio import LGPIOFactory
    except ImportError as exc:  # pragma: no cover - depends on the machine
        raise HardwareError(f"gpio.chip is set but lgpio is not installed ({exc})") from None
    try:
        return LGPIOFactory(chip=config.chip)
    except Exception as exc:  # lgpio raises its own error type for a missing chip
        raise HardwareError(f"cannot open /dev/gpiochip{config.chip}: {exc}") from None


def mock_pin_factory() -> Any:
    """A fresh gpiozero MockFactory (the simulated board's pins are made on it)."""
    from gpiozero.pins.mock import MockFactory

    return MockFactory()
