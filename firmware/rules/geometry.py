"""Board geometry: the dark playing squares of an 8x8 or 10x10 board and their names.

Squares are numbered 1..N (32 or 50) the way PDN numbers them: from Black's side, left to right
as White sees the board, row by row (seed 003 2.6). On 10x10, 1 is b10, 5 is j10, 46 is a1; on
8x8, 1 is b8, 4 is h8, 29 is a1, 32 is g1. Algebraic names are from White's side with ``a1`` dark
(CONTRACT.md, seed 004 §14).

Every public API in ``firmware`` speaks square numbers (``int``); algebraic names are for the
sensors, the LEDs and 8x8 notation.
"""

from __future__ import annotations

from functools import cache

from firmware.errors import SquareError
from firmware.limits import ascii_digits


def a_board(size: int) -> str:
    """``an 8x8 board``, ``a 10x10 board``: a board's size in words, with its article."""
    said = str(size)
    article = "an" if said.startswith("8") or said in ("11", "18") else "a"
    return f"{article} {said}x{said} board"


#: The four diagonal directions as (file step, rank step) seen from White: NW, NE, SW, SE.
DIRECTIONS: tuple[tuple[int, int], ...] = ((-1, 1), (1, 1), (-1, -1), (1, -1))


class Geometry:
    """The dark squares of a ``size`` x ``size`` board."""

    __slots__ = ("size", "half", "count", "_alg", "_num", "_coords", "rays", "neighbours")

    def __init__(self, size: int) -> None:
        if size not in (8, 10):
            raise ValueError(f"board size must be 8 or 10, not {size}")
        self.size = size
        self.half = size // 2
        self.count = size * size // 2
        self._alg: dict[int, str] = {}
        self._num: dict[str, int] = {}
        self._coords: dict[int, tuple[int, int]] = {}
        for n in range(1, self.count + 1):
            f, r = self._file_rank(n)
            name = f"{chr(ord('a') + f)}{r + 1}"
            self._alg[n] = name
            self._num[name] = n
            self._coords[n] = (f, r)
        by_coords = {fr: n for n, fr in self._coords.items()}
        #: rays[n][d]: the squares met walking from n in direction DIRECTIONS[d], nearest first.
        self.rays: dict[int, tuple[tuple[int, ...], ...]] = {}
        #: neighbours[n][d]: the adjacent square in direction d, or 0 off the board.
        self.neighbours: dict[int, tuple[int, ...]] = {}
        for n, (f, r) in self._coords.items():
            rays = []
            for df, dr in DIRECTIONS:
                ray = []
                ff, rr = f + df, r + dr
                while (ff, rr) in by_coords:
                    ray.append(by_coords[(ff, rr)])
                    ff += df
                    rr += dr
                rays.append(tuple(ray))
            self.rays[n] = tuple(rays)
            self.neighbours[n] = tuple(ray[0] if ray else 0 for ray in rays)

    def _file_rank(self, n: int) -> tuple[int, int]:
        row, k = divmod(n - 1, self.half)  # row 0 is the top row (Black's side)
        file = 2 * k + 1 if row % 2 == 0 else 2 * k
        return file, self.size - 1 - row

    @property
    def squares(self) -> range:
        """All square numbers, 1..N."""
        return range(1, self.count + 1)

    def algebraic(self, square: int) -> str:
        """``46`` -> ``'a1'`` on 10x10."""
        try:
            return self._alg[square]
        except KeyError:
            raise SquareError(f"no square {square!r} on {a_board(self.size)}") from None

    def number(self, name: str) -> int:
        """``'a1'`` -> ``46`` on 10x10. Light squares and names off the board raise SquareError."""
        key = name.strip().lower()
        try:
            return self._num[key]
        except KeyError:
            raise SquareError(
                f"{name!r} is not a dark square of {a_board(self.size)}"
            ) from None

    def parse_square(self, text: str) -> int:
        """A square given either as a number (``'32'``) or algebraically (``'c3'``)."""
        t = text.strip()
        if ascii_digits(t):
            n = int(t)
            if 1 <= n <= self.count:
                return n
            raise SquareError(f"no square {t} on {a_board(self.size)}")
        return self.number(t)

    def coords(self, square: int) -> tuple[int, int]:
        """(file, rank), both 0-based, from White's side."""
        return self._coords[square]

    def row_from_white(self, square: int) -> int:
        """0 for White's back row, size-1 for Black's back row."""
        return self._coords[square][1]

    def is_dark(self, name: str) -> bool:
        return name.strip().lower() in self._num

    def all_cells(self) -> list[str]:
        """Every cell of the board, dark and light, algebraic (for sensors on full matrices)."""
        return [f"{chr(ord('a') + f)}{r + 1}" for r in range(self.size) for f in range(self.size)]


@cache
def geometry(size: int) -> Geometry:
    """The shared Geometry for a board size."""
    return Geometry(size)
