"""What the referee's sensors show and the hand holds: the dark squares occupied, any piece on
a light square (out of play, 003 5.3), each piece followed through lifts and places (its colour
and crown), the pieces in the hand, and when the board last changed (its rest is judged once).
A part of :class:`firmware.referee.referee.Referee`."""

from __future__ import annotations

from collections.abc import Iterable

from firmware.errors import SquareError
from firmware.referee.analysis import Board
from firmware.rules.geometry import Geometry, a_board
from firmware.rules.position import Piece, Position
from firmware.rules.sets import Side

#: Default settle time without a clock (issue 3 item 1).
SETTLE_NS = 1_500_000_000
#: The shortest touch: a lift of one's own piece held at least this long (from the first lift
#: edge to the set-down, bounces in between ignored) is a touch (000 3.9-3.11: a piece lifted
#: and put back within 0.3 s has been touched). ``--touch-min`` / config ``touch_min``.
TOUCH_NS = 250_000_000
#: Contact bounce: a reed switch chatters for a few ms, a knocked piece settles within this. A
#: set-down and a lift of the same square closer than this are one flicker, never a touch, and
#: no shortest touch may be set below it.
BOUNCE_NS = 20_000_000


class SensedBoard:
    """The board as sensed. ``squares``: the dark squares occupied (PDN numbers); ``light``:
    pieces on light squares (algebraic); ``pieces``: what stands on each occupied dark square
    as followed through the hand; ``hand``: the pieces lifted and not set down, last on top;
    ``mixed``: squares where the hand set a piece down while holding both colours (which one
    is not known)."""

    __slots__ = ("geometry", "_numbers", "_cells", "squares", "light", "pieces", "hand", "mixed",
                 "instant", "changed_at", "judged", "setup_seen")  # fmt: skip

    def __init__(self, geometry: Geometry, occupied: Iterable[int]) -> None:
        self.geometry = geometry
        self._numbers = {geometry.algebraic(n): n for n in geometry.squares}
        self._cells = frozenset(geometry.all_cells())
        self.squares: set[int] = set(occupied)
        self.light: dict[str, Piece] = {}
        self.pieces: dict[int, Piece] = {}
        self.hand: list[Piece] = []
        self.mixed: set[int] = set()
        #: The dark squares lifted at the latest event time, with their pieces: a press at
        #: that same instant came first if the opponent's lift spoils the mover's result
        #: (one sensor scan sees the reply start and the button; the log orders them anyhow).
        self.instant: tuple[int, list[tuple[int, Piece | None]]] = (-1, [])
        #: When the board last changed; ``judged``: its rest has been judged since.
        self.changed_at: int | None = None
        self.judged = True
        #: A sensor event came before the start (the set-up is under way).
        self.setup_seen = False

    def board(self) -> Board:
        return frozenset(self.squares)

    def dark(self, square: str) -> int | None:
        """The square's number, or None for a light square."""
        return self._numbers.get(square)

    def check(self, square: str) -> None:
        """A sensor name off the board is an error, never a silent no-op."""
        if square not in self._cells:
            size = self.geometry.size
            raise SquareError(f"square {square!r} is not on {a_board(size)}")

    def new_turn(self, position: Position) -> None:
        """A new turn: each piece standing is the position's, the hand is empty."""
        self.follow(position)
        self.hand = []
        self.mixed = set()
        self.judged = True

    def follow(self, position: Position, squares: Board | set[int] | None = None) -> None:
        """Each piece standing (on ``squares``: the board as read) is ``position``'s."""
        if squares is None:
            squares = self.squares
        self.pieces = {sq: p for sq, p in position.pieces().items() if sq in squares}

    def set_up(self, position: Position) -> None:
        """The game starts: the men set up from the box on ``position``'s squares are its
        pieces (a piece standing elsewhere keeps what it was followed as)."""
        for sq, piece in position.pieces().items():
            if sq in self.squares:
                self.pieces[sq] = piece

    def changed(self, at: int) -> None:
        self.changed_at = at
        self.judged = False

    def lift(self, sq: int, at: int) -> Piece | None:
        """The piece on dark square ``sq`` goes into the hand (None: not followed)."""
        self.squares.discard(sq)
        self.mixed.discard(sq)
        piece = self.pieces.pop(sq, None)
        if piece is not None:
            self.hand.append(piece)
        if self.instant[0] != at:
            self.instant = (at, [])
        self.instant[1].append((sq, piece))
        return piece

    def place(self, sq: int, turn: Side) -> None:
        """The hand sets a piece down on dark square ``sq`` (the last lifted; a man of the
        side to move, ``turn``, when the hand is empty)."""
        self.squares.add(sq)
        if len({p.side for p in self.hand}) > 1:
            self.mixed.add(sq)  # which piece the hand set down is not known
        else:
            self.mixed.discard(sq)
        self.pieces[sq] = self.from_hand(turn)

    def from_hand(self, turn: Side) -> Piece:
        if self.hand:
            return self.hand.pop()
        return Piece(turn, False)

    def lift_light(self, square: str) -> bool:
        """A piece lifted off a light square; False when none stood there."""
        piece = self.light.pop(square, None)
        if piece is None:
            return False
        self.hand.append(piece)
        return True

    def place_light(self, square: str, turn: Side) -> bool:
        """A piece set down on a light square; False when one stood there already."""
        if square in self.light:
            return False
        self.light[square] = self.from_hand(turn)
        return True

    def emptied(self) -> None:
        """The board was empty: the first set-down before the start closed a sensor thought
        closed (set up from the box; 000 5.2 is checked at the start)."""
        self.squares.clear()
        self.pieces.clear()
