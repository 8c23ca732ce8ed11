"""The board as the referee senses it: which squares are occupied, the pieces followed
through the hand (lifts and places), the touches of this turn, and the move committed
(``firmware.referee.referee`` has the whole story; this is its bottom layer)."""

from __future__ import annotations

from firmware.errors import SquareError
from firmware.referee.analysis import Board, MoveTable, Reading
from firmware.referee.decisions import MUST_MOVE, Decision, Irregularity, LedMark, MoveCommitted
from firmware.rules.geometry import a_board
from firmware.rules.position import Move, Piece, Position
from firmware.rules.sets import RuleSet, Side

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
    """The referee's state and its bottom layer: the sensed board, the pieces in the hand,
    this turn's touches (000 3.9-3.11), and committing a move."""

    _table: MoveTable | None

    def __init__(
        self,
        rules: RuleSet,
        position: Position | None = None,
        *,
        clocked: bool = False,
        settle_ns: int = SETTLE_NS,
        touch_ns: int | None = None,
        started: bool = True,
    ) -> None:
        self.rules = rules
        self.geometry = rules.geometry
        self._numbers = {self.geometry.algebraic(n): n for n in self.geometry.squares}
        self._cells = frozenset(self.geometry.all_cells())
        self.position = position if position is not None else Position.start(rules)
        self.clocked = clocked
        self.settle_ns = settle_ns
        self.touch_ns = max(BOUNCE_NS, TOUCH_NS if touch_ns is None else touch_ns)
        self.started = started
        #: Sides whose moves a machine decides and a person carries out (an engine's): the
        #: touch-move rule (000 3.10) binds a player deciding his move, not the hand carrying
        #: out the engine's, so a piece of theirs touched first is no irregularity.
        self.machine_sides: frozenset[Side] = frozenset()
        self.over = False
        self.ply = 0
        self.previous: Board | None = None
        self.sensed: set[int] = set(self.position.occupied())
        self.light: dict[str, Piece] = {}
        #: When the sensed board last changed (its rest is judged once, ``judged``).
        self.changed_at: int | None = None
        self._light_reported: frozenset[str] = frozenset()
        #: A sealed move played on resumption, not yet carried out on the board.
        self._sync: tuple[MoveTable, Move] | None = None
        #: Moves taken back: the board must show the position again before play goes on.
        self._restore = False
        #: The dark squares lifted at the latest event time, with their pieces: a press at
        #: that same instant came first if the opponent's lift spoils the mover's result
        #: (one sensor scan sees the reply start and the button; the log orders them anyhow).
        self._instant: tuple[int, list[tuple[int, Piece | None]]] = (-1, [])
        #: A sensor event came before the start (the set-up is under way).
        self._setup_seen = False
        self._new_turn()
        self._table = MoveTable(self.position)

    def _new_turn(self) -> None:
        """What the referee knows of one turn, from nothing (a new game, a move committed)."""
        self._table = None  # built when first needed (the game record may lend its position)
        self.pieces: dict[int, Piece] = {
            sq: p for sq, p in self.position.pieces().items() if sq in self.sensed}
        self.hand: list[Piece] = []
        #: Squares where a piece was set down while the hand held pieces of both colours.
        self._mixed: set[int] = set()
        self.judged = True
        #: The current LED notice (an irregularity still on the board, or a touch-move).
        self.notice: Irregularity | None = None
        self._reported: tuple[str, Board, frozenset[str]] | None = None
        #: This turn: lifts of the mover's own pieces (touch-move), set-downs (landing squares).
        self._open_lifts: dict[int, int] = {}
        self._touched: list[int] = []
        self._lifted_at: dict[int, int] = {}
        #: The last set-down of each own piece: (when its hold began, when it was set down),
        #: so that a bounce right after the set-down continues the same hold.
        self._drops: dict[int, tuple[int, int]] = {}
        #: How long each touched piece was held, ns (the touch-move feed line says it).
        self._held: dict[int, int] = {}
        self._landings: list[tuple[int, int]] = []
        self._place_at: dict[int, int] = {}
        #: Without a clock: the last legal result the board showed this turn, and the table of
        #: the position after it (the reply may start before the move is seen to rest).
        self._candidate: tuple[Move, ...] | None = None
        self._candidate_table: MoveTable | None = None
        #: The irregular position of the mover's fault last reported (the board, its pieces,
        #: the side at fault) and its table: the opponent's next move accepts it (000 5.7).
        self._base: tuple[Board, dict[int, Piece], Side] | None = None
        self._base_table: MoveTable | None = None
        #: The board the opponent started from while the mover's irregular move was not yet
        #: reported (a clock not yet pressed, a quick reply), with its reading.
        self._unreported: tuple[Board, dict[int, Piece], Reading] | None = None
        #: Without a clock: the opponent's own piece whose lift ended the move (quickly); if
        #: the board then rests with only it off, the mover took it off (an extra removal).
        self._quick_lift: int | None = None

    @property
    def table(self) -> MoveTable:
        """The position's legal moves indexed by result (built once per position)."""
        if self._table is None:
            self._table = MoveTable(self.position)
        return self._table

    def adopt(self, position: Position) -> None:
        """Use ``position``, equal to the current one, from now on (the game record's object,
        whose legal moves are already worked out: nothing is computed twice)."""
        if self._table is None and position == self.position:
            self.position = position

    def board(self) -> Board:
        return frozenset(self.sensed)

    def _dark(self, square: str) -> int | None:
        """The square's number, or None for a light square."""
        return self._numbers.get(square)

    def _check(self, square: str) -> None:
        """A sensor name off the board is an error, never a silent no-op."""
        if square not in self._cells:
            size = self.geometry.size
            raise SquareError(f"square {square!r} is not on {a_board(size)}")

    def _from_hand(self) -> Piece:
        if self.hand:
            return self.hand.pop()
        return Piece(self.position.turn, False)

    def _touch(self, sq: int, held: int) -> None:
        if sq not in self._touched:
            self._touched.append(sq)
        self._held[sq] = max(held, self._held.get(sq, 0))

    def _changed(self, at: int) -> None:
        self.changed_at = at
        self.judged = False

    # -- commits ---------------------------------------------------------------------------

    def _commit(self, moves: tuple[Move, ...], at: int, pressed: bool) -> list[Decision]:
        move = self.table.choose(moves, self._landings)
        before = self.position
        after = before.play(move)
        side = before.turn
        out: list[Decision] = [MoveCommitted(at, move, side, before, after, pressed)]
        touch_first = self._first_touch(move) if side not in self.machine_sides else None
        held = self._held.get(touch_first, 0) if touch_first is not None else None
        self._advance(after, before.occupied())
        if touch_first is not None:
            alg = self.geometry.algebraic
            irr = Irregularity(at, "touch-move", side, (LedMark(alg(touch_first), MUST_MOVE),),
                               held_ns=held)
            self.notice = irr
            out.append(irr)
        return out

    def _first_touch(self, move: Move) -> int | None:
        """The first own piece with a legal move the player lifted this turn, if it is not the
        piece he moved (000 3.10, 004 §11)."""
        if self._touched and self._touched[0] != move.start:
            first = self._touched[0]
            started = self._lifted_at.get(move.start)
            if started is None or self._lifted_at.get(first, started) < started:
                return first  # touched before the piece moved (a knock after it is not)
        return None

    def _advance(self, position: Position, previous: Board | None) -> None:
        self.position = position
        self.previous = previous
        self.ply += 1
        self._new_turn()

    def _position_from(self, sensed: Board, pieces: dict[int, Piece], turn: Side) -> Position:
        """The board as sensed as a position: each piece keeps its crown (followed through
        lifts and places), a man left on its far row is crowned (000 3.6)."""
        white: dict[int, bool] = {}
        black: dict[int, bool] = {}
        g = self.geometry
        for sq in sorted(sensed):
            piece = pieces.get(sq) or Piece(self.position.turn, False)
            row = g.row_from_white(sq)
            far = g.size - 1 if piece.side is Side.WHITE else 0
            king = piece.king or row == far
            (white if piece.side is Side.WHITE else black)[sq] = king
        return Position(self.rules, turn, white, black)
