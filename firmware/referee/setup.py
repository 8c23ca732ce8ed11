"""Setting up a position by the LEDs (issue 42 item 1): before a game starts, what the board
must change to show its start position (a ``new`` game's FEN, a puzzle, an adjourned game):
the squares to fill and the squares to empty, worked out from the sensed board at every scan,
not only at rest (the ``setup`` irregularity, 000 5.2, is the arbiter's report of a board at
rest; this is the guidance the hands follow meanwhile).

The sensors tell a square occupied, not by what: a man and a king, a white piece and a black
one, look alike to them. So the position's pieces are the FEN's (``pieces``: what each square
to fill takes), and a board whose occupied squares are the position's shows it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from firmware.referee.decisions import REMOVE, RESTORE
from firmware.rules.position import Piece, Position


def piece_letter(piece: Piece) -> str:
    """A piece in a guide's ``pieces``: its side's letter, a capital for a king (``w``, ``W``,
    ``b``, ``B``)."""
    letter = piece.side.value[0]
    return letter.upper() if piece.king else letter


@dataclass(frozen=True, slots=True)
class SetupGuide:
    """What the board must change to show a position: ``fill`` (algebraic squares a piece goes
    on, in square order), ``empty`` (squares to clear, light squares last), ``pieces`` (each
    square to fill and its piece, :func:`piece_letter`). Both lists empty: the board shows it."""

    fill: tuple[str, ...] = ()
    empty: tuple[str, ...] = ()
    pieces: dict[str, str] = field(default_factory=dict)

    @property
    def done(self) -> bool:
        return not self.fill and not self.empty

    def leds(self) -> dict[str, str]:
        """The LED picture of the guidance: ``restore`` (put a piece here) on the squares to
        fill, ``remove`` on the squares to empty (the referee shows a light square's piece
        ``wrong`` over it)."""
        picture = {sq: RESTORE for sq in self.fill}
        for sq in self.empty:
            picture[sq] = REMOVE
        return picture


def setup_guide(position: Position, sensed: Iterable[int], light: Iterable[str] = ()
                ) -> SetupGuide:
    """The guidance from the board as sensed (``sensed``: its occupied dark squares by number,
    ``light``: the light squares a piece stands on) to ``position``."""
    alg = position.rules.geometry.algebraic
    target = position.pieces()
    board = frozenset(sensed)
    fill = tuple(alg(sq) for sq in sorted(set(target) - board))
    empty = tuple(alg(sq) for sq in sorted(board - set(target))) + tuple(sorted(light))
    pieces = {alg(sq): piece_letter(target[sq]) for sq in sorted(set(target) - board)}
    return SetupGuide(fill, empty, pieces)

