"""Which sensor of the reed matrix is which square (:class:`MatrixLayout`), for both wirings
(hw/matrix.py describes them): bit ``row * columns + column`` of a scan is one crossing, named
by its algebraic square (CONTRACT.md "Squares"), or None for a light-square crossing that
carries no sensor. Shared by the scanners (``hw.matrix``, ``hw.lgmatrix``), their twin
(``hw.mock.matrix``) and the parts' Protocols (``hw.parts``), so it depends on none of them.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from firmware.errors import HardwareError
from firmware.rules.geometry import a_board


class MatrixLayout:
    """Which sensor of the matrix is which square."""

    __slots__ = ("size", "wiring", "rows", "columns", "squares", "_bits")

    def __init__(self, size: int, wiring: str = "dark") -> None:
        if size not in (8, 10):
            raise ValueError(f"board size must be 8 or 10, not {size}")
        if wiring not in ("dark", "full"):
            raise ValueError(f"wiring must be 'dark' or 'full', not {wiring!r}")
        self.size = size
        self.wiring = wiring
        self.rows = size
        self.columns = size // 2 if wiring == "dark" else size
        #: squares[bit]: the algebraic square of that sensor, None for a light-square crossing.
        squares: list[str | None] = []
        for rank in range(size):
            for col in range(self.columns):
                file = 2 * col + rank % 2 if wiring == "dark" else col
                dark = (file + rank) % 2 == 0
                squares.append(f"{chr(ord('a') + file)}{rank + 1}" if dark else None)
        self.squares: tuple[str | None, ...] = tuple(squares)
        self._bits = {sq: bit for bit, sq in enumerate(squares) if sq is not None}

    @property
    def sensor_mask(self) -> int:
        """The bits that carry a sensor."""
        return sum(1 << bit for bit in self._bits.values())

    def bit(self, square: str) -> int:
        """The bit index of an algebraic square (HardwareError for a square with no sensor)."""
        try:
            return self._bits[square]
        except KeyError:
            raise HardwareError(
                f"{square!r} is not a dark square of {a_board(self.size)}"
            ) from None

    def position(self, square: str) -> tuple[int, int]:
        """(row, column) of a square's sensor in the matrix."""
        return divmod(self.bit(square), self.columns)

    def occupied(self, mask: int) -> set[str]:
        """The squares whose sensors are closed in a scan's bitmask."""
        out = set()
        while mask:
            low = mask & -mask
            sq = self.squares[low.bit_length() - 1]
            if sq is not None:
                out.add(sq)
            mask ^= low
        return out

    def mask(self, squares: Iterable[str]) -> int:
        """The bitmask with the given squares' sensors closed."""
        m = 0
        for sq in squares:
            m |= 1 << self.bit(sq)
        return m

    def check_pins(self, row_pins: Sequence[int], column_pins: Sequence[int]) -> None:
        """HardwareError unless there is a pin for every row and every column."""
        if len(row_pins) != self.rows or len(column_pins) != self.columns:
            raise HardwareError(
                f"{self.wiring} wiring of {a_board(self.size)} needs "
                f"{self.rows} row and {self.columns} column pins, "
                f"got {len(row_pins)} and {len(column_pins)}"
            )
