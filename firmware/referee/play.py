"""The game as the referee plays it: the position, its move table (built once per position,
when first needed), the plies made, the board before the last move, the last legal result the
board showed this turn, a sealed move still to be carried out on the board and the arbiter's
take-back still to be restored. A part of :class:`firmware.referee.referee.Referee`."""

from __future__ import annotations

from firmware.referee.analysis import Board, MoveTable
from firmware.rules.position import Move, Piece, Position
from firmware.rules.sets import Side


class Play:
    """The position and its move table, and what holds play back."""

    __slots__ = ("position", "_table", "previous", "ply", "candidate", "candidate_table",
                 "sync", "restore")  # fmt: skip

    def __init__(self, position: Position) -> None:
        self.position = position
        self._table: MoveTable | None = MoveTable(position)
        self.previous: Board | None = None
        self.ply = 0
        #: Without a clock: the last legal result the board showed this turn, and the table of
        #: the position after it (the reply may start before the move is seen to rest).
        self.candidate: tuple[Move, ...] | None = None
        self.candidate_table: MoveTable | None = None
        #: A sealed move played on resumption, not yet carried out on the board: the table
        #: it was played from, and the move.
        self.sync: tuple[MoveTable, Move] | None = None
        #: Moves taken back: the board must show the position again before play goes on.
        self.restore = False

    @property
    def table(self) -> MoveTable:
        """The position's legal moves indexed by result (built once per position)."""
        table = self._table
        if table is None:
            table = self._table = MoveTable(self.position)
        return table

    @property
    def ready(self) -> bool:
        """The move table is built (the next event finds it ready)."""
        return self._table is not None

    def adopt(self, position: Position) -> None:
        """Use ``position``, equal to the current one, from now on (the game record's object,
        whose legal moves are already worked out: nothing is computed twice)."""
        if self._table is None and position == self.position:
            self.position = position

    def advance(self, position: Position, previous: Board | None, *, counts: bool = True,
                table: MoveTable | None = None) -> None:
        """Play goes on from ``position`` (its ``table`` when already built); ``counts``: a
        ply was made (an accepted board is none); ``previous``: the board before it."""
        self.position = position
        self._table = table
        self.previous = previous
        if counts:
            self.ply += 1
        self.candidate = None
        self.candidate_table = None

    def take_back(self, position: Position, plies: int) -> None:
        """The arbiter took ``plies`` plies back: play goes on from ``position`` once the board
        shows it again (:attr:`restore`)."""
        self.advance(position, None, counts=False)
        self.ply = max(0, self.ply - plies)
        self.sync = None
        self.restore = True

    def ends_game(self, moves: tuple[Move, ...]) -> bool:
        """Does the first of ``moves`` leave the opponent without a move?"""
        return not self.position.play(moves[0]).legal_moves()

    def after_candidate(self) -> MoveTable:
        """The table of the position after the candidate move (built once)."""
        assert self.candidate is not None
        if self.candidate_table is None:
            self.candidate_table = MoveTable(self.position.play(self.candidate[0]))
        return self.candidate_table


def position_from(position: Position, sensed: Board, pieces: dict[int, Piece],
                  turn: Side) -> Position:
    """The board as sensed as a position of ``position``'s rules with ``turn`` to move: each
    piece keeps its crown (followed through lifts and places; one not followed is a man of
    the side to move in ``position``), a man left on its far row is crowned (000 3.6)."""
    white: dict[int, bool] = {}
    black: dict[int, bool] = {}
    g = position.rules.geometry
    unknown = Piece(position.turn, False)
    for sq in sorted(sensed):
        piece = pieces.get(sq) or unknown
        row = g.row_from_white(sq)
        far = g.size - 1 if piece.side is Side.WHITE else 0
        king = piece.king or row == far
        (white if piece.side is Side.WHITE else black)[sq] = king
    return Position(position.rules, turn, white, black)
