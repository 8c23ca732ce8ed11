"""Finding wiring and sensor faults on the matrix, for ``boardctl hwtest`` and the service's
start-up check.

The board is held still while :func:`find_faults` scans it a number of times; each fault is
named by square (and by GPIO for line faults) with its likely cause, so that whoever builds or
repairs a board knows which switch or wire to look at.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from hw.parts import Matrix


@dataclass(frozen=True, slots=True)
class Fault:
    """One fault: ``kind`` is ``column-short``, ``unstable``, ``stuck-closed`` or
    ``stuck-open``; ``squares`` the squares it affects (algebraic, sensor order)."""

    kind: str
    squares: tuple[str, ...]
    message: str


def column_shorts(matrix: Matrix) -> list[Fault]:
    """The columns that read low with no row selected (one read of each column line: the
    service's ``sensors`` command asks between two scans)."""
    layout = matrix.layout
    faults = []
    for c in matrix.idle_columns():
        squares = tuple(sq for sq in layout.squares[c::layout.columns] if sq is not None)
        faults.append(Fault("column-short", squares,
                            f"column {c} ({matrix.column_gpio(c)}) reads low with no row "
                            f"selected: shorted to ground, so {', '.join(squares)} all read "
                            "occupied"))
    return faults


def find_faults(matrix: Matrix, expected: set[str] | None = None, samples: int = 20,
                on_scan: Callable[[], None] | None = None) -> list[Fault]:
    """Scan ``samples`` times and report faults, line faults first.

    ``expected``: the squares that should be occupied (``set()`` for an empty board, the
    start position while setting up); None checks only line shorts and chatter.
    ``on_scan`` runs between scans (a real test paces the scans with it).
    """
    layout = matrix.layout
    faults = column_shorts(matrix)
    shorted_squares = {sq for fault in faults for sq in fault.squares}
    closed_counts = [0] * len(layout.squares)
    changes = [0] * len(layout.squares)
    previous: int | None = None
    for _ in range(samples):
        mask = matrix.scan()
        for bit in range(len(layout.squares)):
            closed_counts[bit] += mask >> bit & 1
        if previous is not None:
            flips = mask ^ previous
            while flips:
                low = flips & -flips
                changes[low.bit_length() - 1] += 1
                flips ^= low
        previous = mask
        if on_scan is not None:
            on_scan()
    unstable = tuple(sq for bit, sq in enumerate(layout.squares)
                     if sq is not None and sq not in shorted_squares and changes[bit] >= 3)
    if unstable:
        faults.append(Fault("unstable", unstable,
                            f"{', '.join(unstable)}: the sensor flickers while the board is "
                            "still (loose wire, cracked reed, or a magnet at the edge of "
                            "its range)"))
    if expected is None:
        return faults
    closed = {sq for bit, sq in enumerate(layout.squares)
              if sq is not None and closed_counts[bit] * 2 > samples}
    skip = shorted_squares | set(unstable)
    extra = tuple(sq for sq in layout.squares
                  if sq is not None and sq in closed - expected and sq not in skip)
    missing = tuple(sq for sq in layout.squares
                    if sq is not None and sq in expected - closed and sq not in skip)
    if extra:
        faults.append(Fault("stuck-closed", extra,
                            f"{', '.join(extra)} read occupied but should be empty (a stuck "
                            "reed switch, a shorted diode, or a piece left there)"))
    if missing:
        faults.append(Fault("stuck-open", missing,
                            f"{', '.join(missing)} read empty but a piece should stand there "
                            "(a broken reed or wire, a diode the wrong way round, or a weak "
                            "magnet)"))
    return faults
