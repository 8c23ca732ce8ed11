"""Game results as a crosstable counts them (seed 004 §37).

§37: a win is one point, a draw half a point; the table shows 1 for the winner, 0 for the
loser, 1/2 for each drawer. A game that did not take place, lost for not appearing (§32, §38),
is written ``+`` instead of 1 and ``-`` instead of 0, and counts the same. §32: when neither
player appears, the game is lost by both.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from firmware.errors import TournamentError

ONE = Fraction(1)
HALF = Fraction(1, 2)
ZERO = Fraction(0)


@dataclass(frozen=True, slots=True)
class Result:
    """Points for White and Black, and whether the game was played over the board."""

    white: Fraction
    black: Fraction
    played: bool = True

    @property
    def text(self) -> str:
        """The arbiter's notation: ``1-0``, ``0-1``, ``1/2-1/2``, ``0-0``, ``+-``, ``-+``,
        ``--``."""
        if not self.played:
            return symbol(self.white, False) + symbol(self.black, False)
        if self.white == self.black == HALF:
            return "1/2-1/2"
        return f"{self.white}-{self.black}"

    def points(self, white: bool) -> Fraction:
        return self.white if white else self.black

    def reversed(self) -> Result:
        """The same game seen with the colours swapped."""
        return Result(self.black, self.white, self.played)


WHITE_WINS = Result(ONE, ZERO)
BLACK_WINS = Result(ZERO, ONE)
DRAW = Result(HALF, HALF)
BOTH_LOSE = Result(ZERO, ZERO)
WHITE_BY_FORFEIT = Result(ONE, ZERO, played=False)
BLACK_BY_FORFEIT = Result(ZERO, ONE, played=False)
BOTH_FORFEIT = Result(ZERO, ZERO, played=False)

#: Every text a result may be written in: PDN results of both board sizes (2-0, 1-1, 0-2 on
#: 100 squares) and the arbiter's forfeit marks of §37.
_TEXTS = {
    "1-0": WHITE_WINS, "2-0": WHITE_WINS,
    "0-1": BLACK_WINS, "0-2": BLACK_WINS,
    "1/2-1/2": DRAW, "½-½": DRAW, "1-1": DRAW,
    "0-0": BOTH_LOSE,
    "+-": WHITE_BY_FORFEIT, "+:-": WHITE_BY_FORFEIT,
    "-+": BLACK_BY_FORFEIT, "-:+": BLACK_BY_FORFEIT,
    "--": BOTH_FORFEIT, "-:-": BOTH_FORFEIT,
}


def parse_result(text: str) -> Result:
    """A result in any of its written forms; TournamentError for anything else (``*``, the
    PDN mark of a game still in play, included)."""
    key = text.strip().replace(" ", "").replace("\u2014", "-").replace("\u2013", "-")
    try:
        return _TEXTS[key]
    except KeyError:
        raise TournamentError(
            f"unknown result {text.strip()[:20]!r} (known: 1-0, 0-1, 1/2-1/2, 0-0, "
            "+- and -+ for a forfeit, -- when neither came)"
        ) from None


def symbol(points: Fraction, played: bool) -> str:
    """The crosstable's mark for one side of a game (seed 004 §37): 1, ½, 0, or + and -."""
    if not played:
        return "+" if points else "-"
    if points == HALF:
        return "½"
    return str(int(points))


def format_points(points: Fraction) -> str:
    """``7½``, ``½``, ``0``: points as a crosstable prints them."""
    whole = int(points)
    half = points - whole == HALF
    if half:
        return f"{whole}½" if whole else "½"
    return str(whole)
