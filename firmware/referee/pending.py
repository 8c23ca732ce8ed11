"""The irregularity pending (000 5.4, 5.7): what the LEDs show now, what was last reported (so
that a board at rest is reported once), the irregular position of the mover's fault kept until
it is corrected or accepted, the one seen but not yet reported, and the lift that may have
been an extra removal. A part of :class:`firmware.referee.referee.Referee`."""

from __future__ import annotations

from firmware.referee.analysis import Board, MoveTable, Reading
from firmware.referee.decisions import Irregularity
from firmware.referee.kinds import IrregularityKind
from firmware.referee.play import position_from
from firmware.rules.position import Piece, Position
from firmware.rules.sets import Side

#: What a report is said once for: its kind, the board, the pieces on light squares.
ReportKey = tuple[IrregularityKind, Board, frozenset[str]]


class IrregularBase:
    """An irregular position of one side's fault as it stood (the board and its pieces as
    followed): if nobody corrects it and the other side replies from it, his reply accepts
    it (000 5.7). Its move table is built when first asked for."""

    __slots__ = ("board", "pieces", "fault", "_table")

    def __init__(self, board: Board, pieces: dict[int, Piece], fault: Side,
                 table: MoveTable | None = None) -> None:
        self.board = board
        self.pieces = pieces
        self.fault = fault
        self._table = table

    def table(self, position: Position) -> MoveTable:
        """The moves of the side not at fault from it (``position``: the game's, for its rules)."""
        if self._table is None:
            self._table = MoveTable(position_from(position, self.board, self.pieces,
                                                  self.fault.other))
        return self._table


class Pending:
    """The irregularity pending. ``notice``: the irregularity the LEDs show (one still on the
    board, or a touch-move); ``reported``: the last report's key; ``base``: the irregular
    position kept for acceptance; ``unreported``: the board the opponent started from while
    the mover's irregular move was not yet reported (a clock not yet pressed, a quick reply),
    with its reading; ``quick_lift``: without a clock, the opponent's own piece whose lift
    ended the move (if the board then rests with only it off, the mover took it off)."""

    __slots__ = ("notice", "reported", "light_reported", "base", "unreported", "quick_lift")

    def __init__(self) -> None:
        #: The pieces on light squares last reported (a board mismatch, 003 5.3).
        self.light_reported: frozenset[str] = frozenset()
        self.new_turn()

    def new_turn(self) -> None:
        self.notice: Irregularity | None = None
        self.reported: ReportKey | None = None
        self.base: IrregularBase | None = None
        self.unreported: tuple[Board, dict[int, Piece], Reading] | None = None
        self.quick_lift: int | None = None

    def show(self, irr: Irregularity, key: ReportKey) -> None:
        """``irr`` is reported (its key ``key``) and shown."""
        self.notice = irr
        self.reported = key

    def dismiss(self) -> None:
        """The arbiter let the board stand: nothing is shown or reported."""
        self.notice = None
        self.reported = None

    def report(self, irr: Irregularity, key: ReportKey) -> bool:
        """Show ``irr``; True when it is new (not the board last reported)."""
        self.notice = irr
        if self.reported == key:
            return False
        self.reported = key
        return True

    def clear(self) -> bool:
        """The board reads legal again: forget what was reported and kept. True when the LEDs'
        notice goes away (a touch-move stays shown for the rest of the turn)."""
        self.reported = None
        self.base = None
        self.quick_lift = None
        if self.notice is not None and self.notice.kind is not IrregularityKind.TOUCH_MOVE:
            self.notice = None
            return True
        return False
