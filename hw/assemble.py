"""Which matrix scanner and LED strip a board gets: the one place in ``hw`` the
real-or-simulated choice is made (STYLE.md lesson 11: the drivers never import their twins,
``hw/mock/``). ``hw.matrix``
(gpiozero pins) and ``hw.lgmatrix`` (lgpio group calls) are the real scanners,
``hw.mock.matrix`` the simulated diode matrix."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from hw.config import BoardConfig, LedConfig
from hw.matrix import ReedMatrix

if TYPE_CHECKING:
    from hw.leds import LedStrip


def open_matrix(config: BoardConfig, *, sim: bool = False,
                backend: Any = None) -> tuple[Any, Any]:
    """The scanner the config describes and, with ``sim``, the
    :class:`hw.mock.matrix.SimulatedBoard` it reads (None on real hardware). On real hardware
    the backend comes from ``[gpio]`` (hw/gpio.py :func:`open_backend`, or ``backend``):
    lgpio scans with group calls (:class:`hw.lgmatrix.GroupMatrix`), RPi.GPIO through gpiozero
    (:class:`ReedMatrix`). The matrix's ``backend`` attribute names it (hwtest and the
    buttons follow it). Simulated, the scanner is the one the backend order starts with
    (lgpio's group scan for ``auto``, the gpiozero pin scan for ``rpigpio``), over the
    simulated matrix on gpiozero's MockFactory."""
    if sim:
        from hw.gpio import mock_backend, scans_by_groups
        from hw.mock.matrix import simulated_matrix

        matrix, board = simulated_matrix(config.size, config.matrix,
                                         groups=scans_by_groups(config.gpio))
        matrix.backend = mock_backend(matrix.pin_factory)
        return matrix, board
    from hw.gpio import open_backend

    if backend is None:
        backend = open_backend(config.gpio)
    if backend.name == "lgpio":
        from hw.lgmatrix import GroupMatrix

        group = GroupMatrix.from_config(config.size, config.matrix, chip=backend.chip,
                                        pin_factory=backend.factory)
        group.backend = backend
        return group, None
    matrix = ReedMatrix.from_config(config.size, config.matrix, pin_factory=backend.factory)
    matrix.backend = backend
    return matrix, None


def open_strip(size: int, config: LedConfig) -> LedStrip:
    """The strip the config names. ``none`` and ``sim`` give the recording twin
    (:class:`hw.mock.leds.RecordingPixels`; ``none`` keeps a single frame); ``pwm`` and
    ``spi`` open the real hardware (:func:`hw.leds.open_real_strip`: HardwareError with the
    reason when it cannot)."""
    from hw.leds import LedStrip, PixelMap, open_real_strip

    if config.backend not in ("none", "sim"):
        return open_real_strip(size, config)
    from hw.mock.leds import RecordingPixels

    pixel_map = PixelMap(size, config.layout)
    pixels = RecordingPixels(pixel_map.count, pixel_order=config.pixel_order,
                             brightness=config.brightness,
                             keep=1 if config.backend == "none" else 1000)
    return LedStrip(pixels, pixel_map, config.colours)
