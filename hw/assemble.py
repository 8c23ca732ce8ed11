"""Which matrix scanner a board gets: the one place the real-or-simulated choice is made for
the sensor matrix (STYLE.md lesson 11: the drivers never import their twins). ``hw.matrix``
(gpiozero pins) and ``hw.lgmatrix`` (lgpio group calls) are the real scanners, ``hw.sim`` the
simulated diode matrix."""

from __future__ import annotations

from typing import Any

from hw.config import BoardConfig
from hw.matrix import ReedMatrix


def open_matrix(config: BoardConfig, *, sim: bool = False,
                backend: Any = None) -> tuple[Any, Any]:
    """The scanner the config describes and, with ``sim``, the :class:`hw.sim.SimulatedBoard`
    it reads (None on real hardware). On real hardware the backend comes from ``[gpio]``
    (hw/gpio.py :func:`open_backend`, or ``backend``): lgpio scans with group calls
    (:class:`hw.lgmatrix.GroupMatrix`), RPi.GPIO through gpiozero (:class:`ReedMatrix`). The
    matrix's ``backend`` attribute names it (hwtest and the buttons follow it)."""
    if sim:
        from hw.gpio import mock_backend
        from hw.sim import simulated_matrix

        matrix, board = simulated_matrix(config.size, config.matrix)
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
