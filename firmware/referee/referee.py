"""The referee: from timestamped lift/place/press events to moves and irregularities.

It keeps two things: the game position (the last committed move) and the board as sensed
(which dark squares are occupied, plus any piece on a light square, which is inactive,
003 5.3). At any moment the sensed board reads as the position, a legal move's result, a move
under way, or an irregularity (``analysis.MoveTable``). Contact bounce and a piece brushing the
squares it slides over only flicker the sensed board for milliseconds, so nothing is decided
on a flicker:

- with a clock, a move is committed by its player's press (released hand, 000 3.9, 3.11;
  004 §32): the board at the press must show a legal result; a press without one is refused;
- without a clock, when the board has rested on one legal result for ``settle_ns`` or the
  opponent starts to move (lifts one of his own pieces, or takes off the man he captures,
  003 4.16, or the board goes on to a picture only his reply explains).

A reply that came before the move was committed (a forgotten press, a quick opponent) is
caught up: a board showing a legal move and a legal reply gives both moves.

Irregularities (000 5.4) are reported with the LED picture and never end the game: the board
returning to the position, or showing a legal result, lets play go on; ``accept`` (the
opponent lets it stand, 000 5.4, 5.7) continues from the board as sensed, with the kings found
by following every piece through the lifts and places. Nobody has to call it: when the board
shows a legal move of the side not at fault from the irregular position as it stood, "the
opponent's next move accepts the position" (000 5.7) and the accept is applied by itself.
A reading of two plies at once must agree with the colours the hand carried (a knock within
the settle time is no move). A piece on a light square is out of play (003 5.3): reported as
a board mismatch until taken off.
"""

from __future__ import annotations

from dataclasses import dataclass

from firmware.errors import SquareError
from firmware.position import Move, Piece, Position
from firmware.referee.analysis import Board, MoveTable, Reading
from firmware.referee.decisions import (
    MUST_MOVE,
    WRONG,
    Accepted,
    Cleared,
    Decision,
    Irregularity,
    LedMark,
    MoveCommitted,
    PressRefused,
)
from firmware.rules import RuleSet, Side

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
#: The longest shortest-touch accepted (longer would let real touches go unreported).
TOUCH_MAX_NS = 2_000_000_000


def check_touch_min(seconds: float) -> int:
    """``--touch-min`` / ``touch_min`` in seconds as ns; BoardError (one line) when out of
    range: below the bounce window a flicker would count, above 2 s real touches would not."""
    import math

    from firmware.errors import BoardError

    if isinstance(seconds, bool) or not isinstance(seconds, int | float) or not math.isfinite(
        seconds
    ):
        raise BoardError(f"touch-min must be a number of seconds, not {seconds!r}")
    ns = round(seconds * 1_000_000_000)
    if not BOUNCE_NS <= ns <= TOUCH_MAX_NS:
        raise BoardError(
            f"touch-min must be between {BOUNCE_NS / 1e9:g} s (contact bounce is never a touch) "
            f"and {TOUCH_MAX_NS / 1e9:g} s, not {seconds:g}"
        )
    return ns

#: Irregularities about the mover's own move, which a clocked board judges only at the press
#: (the player may still change the move with the piece in hand, 000 3.11).
_MOVER_KINDS = frozenset(
    {"illegal-move", "missed-capture", "wrong-capture", "incomplete-removal", "extra-removal"}
)
#: Irregularities of the mover's move that his opponent's next move accepts (000 5.7).
_FAULT_KINDS = _MOVER_KINDS | {"own-piece-removed"}


@dataclass(slots=True)
class _Lift:
    square: int
    at: int


class Referee:
    """Pure move inference for one game. Feed ``lift``/``place``/``press`` and ``tick``.

    ``position`` is the game's position; ``clocked`` commits moves by presses; ``started``
    False means the game is in set-up (000 5.2): board changes are checked against the start
    position, no move is made until :meth:`start`.
    """

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
        self.over = False
        self.ply = 0
        self._table: MoveTable | None = MoveTable(self.position)
        self.previous: Board | None = None
        self.sensed: set[int] = set(self.table.occupied)
        self.light: dict[str, Piece] = {}
        self.pieces: dict[int, Piece] = dict(self.position.pieces())
        self.hand: list[Piece] = []
        #: Squares where a piece was set down while the hand held pieces of both colours.
        self._mixed: set[int] = set()
        #: When the sensed board last changed, and whether its rest has been judged.
        self.changed_at: int | None = None
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
        self._held: dict[int, int] = {}  # the first lift of each own piece this turn
        self._landings: list[tuple[int, int]] = []
        self._place_at: dict[int, int] = {}
        self._light_reported: frozenset[str] = frozenset()
        #: Without a clock: the last legal result the board showed this turn, and the table of
        #: the position after it (the reply may start before the move is seen to rest).
        self._candidate: tuple[Move, ...] | None = None
        self._candidate_table: MoveTable | None = None
        #: A sealed move played on resumption, not yet carried out on the board.
        self._sync: tuple[MoveTable, Move] | None = None
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
        #: The dark squares lifted at the latest event time, with their pieces: a press at
        #: that same instant came first if the opponent's lift spoils the mover's result
        #: (one sensor scan sees the reply start and the button; the log orders them anyhow).
        self._instant: tuple[int, list[tuple[int, Piece | None]]] = (-1, [])
        #: A sensor event came before the start (the set-up is under way).
        self._setup_seen = False

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

    # -- the sensed board --------------------------------------------------------------------

    def board(self) -> Board:
        return frozenset(self.sensed)

    def _dark(self, square: str) -> int | None:
        """The square's number, or None for a light square."""
        return self._numbers.get(square)

    def _check(self, square: str) -> None:
        """A sensor name off the board is an error, never a silent no-op."""
        if square not in self._cells:
            size = self.geometry.size
            raise SquareError(f"square {square!r} is not on a {size}x{size} board")

    def lift(self, square: str, at: int) -> list[Decision]:
        self._check(square)
        out = self.tick(at)
        sq = self._dark(square)
        if sq is None:
            piece = self.light.pop(square, None)
            if piece is not None:
                self.hand.append(piece)
                self._changed(at)
            return out
        self._setup_seen = self._setup_seen or not self.started
        if sq not in self.sensed:
            return out  # a sensor cannot open twice: a glitch, nothing changed
        if not self.clocked and self.started and not self.over:
            out += self._opponent_starts(sq, at)
        if self._base is None and sq in self.table.opp and self.started and not self.over:
            self._note_unreported()
        self.sensed.discard(sq)
        self._mixed.discard(sq)
        piece = self.pieces.pop(sq, None)
        if piece is not None:
            self.hand.append(piece)
        if self._instant[0] != at:
            self._instant = (at, [])
        self._instant[1].append((sq, piece))
        placed = self._place_at.pop(sq, None)
        if placed is not None and self._landings and self._landings[-1][0] == sq:
            self._landings[-1] = (sq, at - placed)
        if sq in self.table.own and sq not in self._open_lifts:
            drop = self._drops.get(sq)
            bounce = drop is not None and at - drop[1] < BOUNCE_NS
            self._open_lifts[sq] = drop[0] if bounce and drop is not None else at
            self._lifted_at.setdefault(sq, at)
        self._changed(at)
        out += self._follow(at)
        return out + self._accepted_by_reply(at)

    def place(self, square: str, at: int) -> list[Decision]:
        self._check(square)
        out = self.tick(at)
        sq = self._dark(square)
        if sq is None:
            if square not in self.light:
                self.light[square] = self._from_hand()
                self._changed(at)
            return out
        if sq in self.sensed:
            if self.started or self._setup_seen:
                return out
            # The first set-down before the start closes a sensor thought closed: the board
            # was empty, set up from the box (000 5.2 is checked at the start).
            self.sensed.clear()
            self.pieces.clear()
        self._setup_seen = self._setup_seen or not self.started
        self.sensed.add(sq)
        if len({p.side for p in self.hand}) > 1:
            self._mixed.add(sq)  # which piece the hand set down is not known
        else:
            self._mixed.discard(sq)
        self.pieces[sq] = self._from_hand()
        lifted = self._open_lifts.pop(sq, None)
        if lifted is not None:
            self._drops[sq] = (lifted, at)
        if lifted is not None and at - lifted >= self.touch_ns and sq in self.table.starts:
            self._touch(sq, at - lifted)
        self._landings.append((sq, 0))
        self._place_at[sq] = at
        self._quick_lift = None
        self._changed(at)
        out += self._follow(at)
        return out + self._accepted_by_reply(at)

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

    # -- time --------------------------------------------------------------------------------

    def tick(self, at: int) -> list[Decision]:
        """Judge a board that has rested for the settle time (call it often, and before every
        event; an event at ``at`` first lets the rest before it count)."""
        if self.judged or self.changed_at is None or at - self.changed_at < self.settle_ns:
            return []
        self.judged = True
        return self._at_rest(self.changed_at + self.settle_ns)

    def _at_rest(self, at: int) -> list[Decision]:
        sensed = self.board()
        if not self.started:
            return self._setup_check(at, sensed)
        if self.over:
            return []
        out = self._judge(at, sensed)
        light = frozenset(self.light)
        if light != self._light_reported:
            self._light_reported = light
            if light:  # a piece on a light square is out of play (003 5.3): never silent
                marks = tuple(LedMark(sq, WRONG) for sq in sorted(light))
                out.append(Irregularity(at, "board-mismatch", self.position.turn, marks))
            elif not out and self.notice is None:
                out.append(Cleared(at))  # the light squares are empty again
        return out

    def _judge(self, at: int, sensed: Board) -> list[Decision]:
        if self._quick_lift is not None and sensed == self.table.occupied - {self._quick_lift}:
            return self._extra_removed(at, sensed)
        reading = self._read(sensed)
        if reading.kind == "result":
            if not self.clocked or self._ends_game(reading.moves):
                return self._commit(reading.moves, at, pressed=False)
            return self._clear(at)
        if reading.kind == "irregular":
            pre: list[Decision] = []
            if self._base is None and self._unreported is not None:
                pre = self._report_unreported(at, sensed)
            if self._base is not None:
                accepted = self._accepted_by_reply(at)
                if accepted:
                    return pre + accepted + self._judge(at, sensed)
                if self._base_table_of().plausible(sensed):
                    return pre  # the opponent's reply under way from the irregular position
            if not self.clocked and self._sync is None:
                plies = self._two_plies(sensed)
                if plies is not None:  # the reply came before the move was seen to rest
                    return self._commit(plies[0], at, False) + self._commit(plies[1], at, False)
            if self.clocked and reading.irregular in _MOVER_KINDS and self.table.own - sensed:
                return []  # the mover's move is under way: judged at his press
            return self._report(reading, at, sensed)
        if reading.kind == "progress" and self.notice is not None:
            if self.notice.kind != "touch-move":  # keep showing what is left to do
                marks = self._progress_refusal(sensed, at, self.position.turn).marks
                if marks:
                    self.notice = Irregularity(at, self.notice.kind, self.notice.side, marks)
                    return []
        return self._clear(at)

    def _two_plies(self, sensed: Board) -> tuple[tuple[Move, ...], tuple[Move, ...]] | None:
        """A legal move and the opponent's reply that ``sensed`` shows, if the pieces standing
        on their end squares are the movers' own as followed through lifts and places (the
        occupancy alone may match pieces knocked off and a piece of the other colour)."""
        plies = self.table.two_plies(sensed)
        if plies is None:
            return None
        turn = self.position.turn

        def fits(m: Move, side: Side) -> bool:
            piece = self.pieces.get(m.end)
            return piece is None or piece.side is side or m.end in self._mixed

        second = tuple(m for m in plies[1] if fits(m, turn.other))
        first = tuple(m for m in plies[0] if fits(m, turn))
        return (first, second) if first and second else None

    def _ends_game(self, moves: tuple[Move, ...]) -> bool:
        after = self.position.play(moves[0])
        return not after.legal_moves()

    # -- reading -----------------------------------------------------------------------------

    def _read(self, sensed: Board) -> Reading:
        if self._sync is not None:
            table, move = self._sync
            if sensed == self.table.occupied:
                self._sync = None
            elif sensed == table.occupied or table.in_progress(sensed, [move]):
                marks = table.marks_towards(sensed, self.table.occupied)
                return Reading("progress", (), "", None, tuple(marks))
        reading = self.table.read(sensed)
        if reading.kind == "irregular":
            return self.table.classify(sensed, self.previous, self.ply)
        return reading

    def _progress_refusal(self, sensed: Board, at: int, side: Side) -> Irregularity:
        """Why a press on a move under way is refused: the capture stopped half way (000
        5.4.9), or captured pieces still on the board (000 5.4.10-12), or no move at all."""
        table = self.table
        added = sensed - table.occupied
        removed = table.occupied - sensed
        if not added:
            marks = [LedMark(self.geometry.algebraic(sq), "restore") for sq in sorted(removed)]
            return Irregularity(at, "press-without-move", side, tuple(marks))
        if len(added) != 1:
            return Irregularity(at, "press-without-move", side, ())
        (e,) = added
        for m in table.moves:
            if m.start in removed and e in table.path(m):
                target = table.result_of(m)
                kind = "incomplete-removal" if e == m.end else "wrong-capture"
                return Irregularity(at, kind, side, tuple(table.marks_towards(sensed, target)))
        return Irregularity(at, "press-without-move", side, ())

    # -- presses -----------------------------------------------------------------------------

    def press(self, side: Side, at: int) -> list[Decision]:
        """``side`` pressed its clock: commit its move if the board shows one (004 §32)."""
        out = self.tick(at)
        if not self.clocked:
            self.clocked = True  # the log has presses: the released hand ends at the press
        if not self.started or self.over:
            return out
        if side is not self.position.turn and self._base is None and self._unreported:
            # The mover's irregular move was never pressed, and the opponent replied from it.
            reported = self._report_unreported(at, self.board())
            out += reported + (self._accepted_by_reply(at) if reported else [])
        if side is not self.position.turn:
            sensed = self.board()
            # The mover forgot to press and the opponent replied: both moves stand, the
            # forgetful player's clock having run meanwhile (004 §32).
            plies = self._two_plies(sensed) if self._sync is None else None
            if plies is not None:
                out += self._commit(plies[0], at, pressed=True)
                out += self._commit(plies[1], at, pressed=True)
            elif self._sync is None and sensed in self.table.flipped().results:
                # He moved out of turn: a second move in a row (000 5.4.1), or first of all.
                kind = "two-moves" if self.ply > 0 else "wrong-side"
                marks = tuple(self.table.marks_towards(sensed, self.table.occupied))
                irr = Irregularity(at, kind, side, marks)
                self.notice = irr
                self._reported = (kind, sensed, frozenset(self.light))
                self._keep_base(irr, sensed)
                out += [irr, PressRefused(at, side)]
            return out
        sensed = self.board()
        reading = self._read(sensed)
        if reading.kind == "result":
            return out + self._commit(reading.moves, at, pressed=True)
        same = self._same_instant_reply(sensed, at)
        if same is not None:
            return out + same
        if reading.kind == "same":
            irr = Irregularity(at, "press-without-move", side, ())
        elif reading.kind == "progress":
            irr = self._progress_refusal(sensed, at, side)
        elif reading.irregular in ("two-moves", "wrong-side"):
            # The player to move pressed with the opponent's piece moved: he moved it (5.4.5).
            irr = Irregularity(at, "wrong-side", side, reading.marks)
        else:
            irr = Irregularity(at, reading.irregular, reading.side, reading.marks)
        self.notice = irr if irr.marks else self.notice
        self._reported = (irr.kind, sensed, frozenset(self.light))
        self._keep_base(irr, sensed)
        return out + [irr, PressRefused(at, side)]

    def _same_instant_reply(self, sensed: Board, at: int) -> list[Decision] | None:
        """The press and the opponent's first lift came at the same instant, the lift logged
        first: if the board with those pieces back shows the mover's legal result, the press
        commits it (004 §32) and the lifted pieces are the opponent's move under way."""
        when, lifted = self._instant
        if when != at or not lifted:
            return None
        # the opponent's pieces, or the man just moved that he takes off to capture (003 4.16)
        back = [(sq, p) for sq, p in lifted if sq not in self.sensed]
        if not back:
            return None
        reading = self._read(sensed | {sq for sq, _ in back})
        if reading.kind != "result":
            return None
        hand = [p for _, p in back if p is not None]
        for p in hand:
            if p in self.hand:
                self.hand.remove(p)
        out = self._commit(reading.moves, at, pressed=True)
        self.hand.extend(hand)
        for sq, _ in back:  # the opponent's lifts open his turn (touch-move, 000 3.10)
            if sq in self.table.own:
                self._open_lifts[sq] = at
                self._lifted_at.setdefault(sq, at)
        self._changed(at)
        return out

    # -- commits -----------------------------------------------------------------------------

    def _commit(self, moves: tuple[Move, ...], at: int, pressed: bool) -> list[Decision]:
        move = self.table.choose(moves, self._landings)
        before = self.position
        after = before.play(move)
        side = before.turn
        out: list[Decision] = [MoveCommitted(at, move, side, before, after, pressed)]
        touch_first = self._first_touch(move)
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
        self._table = None  # built when first needed: the game record may lend its position
        self._candidate = None
        self._candidate_table = None
        self.pieces = {sq: p for sq, p in position.pieces().items() if sq in self.sensed}
        self.hand.clear()
        self._mixed.clear()
        self.notice = None
        self._reported = None
        self._open_lifts.clear()
        self._touched.clear()
        self._lifted_at.clear()
        self._drops.clear()
        self._held.clear()
        self._landings.clear()
        self._place_at.clear()
        self._base = None
        self._base_table = None
        self._unreported = None
        self._quick_lift = None
        self.judged = True

    def _follow(self, at: int) -> list[Decision]:
        """Without a clock: when the board leaves the last legal result it showed for a picture
        the mover's move cannot explain but the opponent's reply can (he started at once, say
        by taking off the man just moved, 003 4.16), that result was the move."""
        if self.clocked or not self.started or self.over or self._sync is not None:
            return []
        sensed = self.board()
        moves = self.table.results.get(sensed)
        if moves:
            if self._candidate is None or self._candidate[0] not in moves:
                self._candidate = tuple(moves)
                self._candidate_table = None
            return []
        if self._candidate is None or self.table.plausible(sensed):
            return []
        if self._candidate_table is None:
            self._candidate_table = MoveTable(self.position.play(self._candidate[0]))
        if not self._candidate_table.plausible(sensed):
            return []
        out = self._commit(self._candidate, at, pressed=False)
        self.judged = False  # the reply under way comes to rest in its turn
        return out

    def _opponent_starts(self, sq: int, at: int) -> list[Decision]:
        """Without a clock, the opponent starting his move ends the move on the board (issue 3
        item 1): he lifts one of his own pieces, unless it is one a longer capture would take
        (000 4.11), or he takes off a piece he is about to capture (003 4.16; accepted under
        every rule set: the board cannot mistake it)."""
        sensed = self.board()
        moves = self.table.results.get(sensed)
        if not moves:
            return []
        piece = self.position.piece_at(sq)
        if piece is not None and piece.side is self.position.turn.other:
            for m in self.table.moves:
                if sq in m.captured and any(
                    m.start == c.start and m.end == c.end and set(c.captured) < set(m.captured)
                    for c in moves
                ):
                    return []
            out = self._commit(tuple(moves), at, pressed=False)
            if moves[0].is_capture:
                # Lifted while the capturer may still be taking pieces off (before the move
                # was seen to rest): if the board rests with only it off, he took it (F4).
                self._quick_lift = sq
            return out
        if (
            piece is not None
            and all(sq != c.end for c in moves)
            and any(m.captured == (sq,) for m in self.position.play(moves[0]).legal_moves())
        ):
            return self._commit(tuple(moves), at, pressed=False)
        return []

    # -- irregularities ----------------------------------------------------------------------

    def _report(self, reading: Reading, at: int, sensed: Board) -> list[Decision]:
        key = (reading.irregular, sensed, frozenset(self.light))
        irr = Irregularity(at, reading.irregular, reading.side, reading.marks)
        self.notice = irr
        if self._reported == key:
            return []
        self._reported = key
        self._keep_base(irr, sensed)
        return [irr]

    def _extra_removed(self, at: int, sensed: Board) -> list[Decision]:
        """Without a clock, the lift of the opponent's piece that ended the move was the
        mover taking off a piece he did not capture (000 5.4.13): the board rested with only
        that piece off. Show where it goes back; the mover is at fault."""
        marks = tuple(self.table.marks_towards(sensed, self.table.occupied))
        reading = Reading("irregular", (), "extra-removal", self.position.turn.other, marks)
        return self._report(reading, at, sensed)

    # -- the opponent's reply accepts an irregular move (000 5.7) -----------------------------

    def _keep_base(self, irr: Irregularity, sensed: Board) -> None:
        """Remember the irregular position the mover left (his fault, 000 5.4): if nobody
        corrects it and the opponent replies from it, his reply accepts it (000 5.7)."""
        if irr.kind in _FAULT_KINDS and irr.side is self.position.turn:
            fault = irr.side
        elif irr.kind in ("two-moves", "wrong-side") and irr.side is not None:
            fault = irr.side  # a move out of turn: the player to move may reply from it
        else:
            return
        pieces = {sq: p for sq, p in self.pieces.items() if sq in sensed}
        self._base = (sensed, pieces, fault)
        self._base_table = None

    def _note_unreported(self) -> None:
        """The opponent lifts one of his pieces: if the board (before the lift) is an
        irregular move of the mover not yet reported, keep it: a reply from it accepts it."""
        if self._sync is not None:
            return
        board = self.board()
        reading = self._read(board)
        if (
            reading.kind == "irregular"
            and reading.irregular in _FAULT_KINDS
            and reading.side is self.position.turn
        ):
            pieces = {sq: p for sq, p in self.pieces.items() if sq in board}
            self._unreported = (board, pieces, reading)

    def _report_unreported(self, at: int, sensed: Board) -> list[Decision]:
        """The board shows a legal reply from the irregular board kept by
        :meth:`_note_unreported`: report that irregularity now (its base is then kept)."""
        assert self._unreported is not None
        board, pieces, reading = self._unreported
        side = self.position.turn
        table = MoveTable(self._position_from(board, pieces, side.other))
        if sensed not in table.results:
            return []
        self._unreported = None
        irr = Irregularity(at, reading.irregular, side, reading.marks)
        self.notice = irr
        self._reported = (irr.kind, board, frozenset(self.light))
        self._base = (board, pieces, side)
        self._base_table = table
        return [irr]

    def _base_table_of(self) -> MoveTable:
        assert self._base is not None
        if self._base_table is None:
            board, pieces, fault = self._base
            self._base_table = MoveTable(self._position_from(board, pieces, fault.other))
        return self._base_table

    def _accepted_by_reply(self, at: int) -> list[Decision]:
        """The board shows a legal move of the side not at fault from the irregular position
        as it stood (kings followed through lifts and places): his move accepts that position
        (000 5.7, "the opponent's next move accepts the position"). The accept decision is
        applied, and the reply is then a move under the released hand like any other (the
        press, the settle time or the other side starting to move commits it)."""
        if self._base is None or self.over or not self.started or self._sync is not None:
            return []
        sensed = self.board()
        table = self._base_table_of()
        moves = table.results.get(sensed)
        if not moves or sensed == self.table.occupied or sensed in self.table.results:
            return []
        if self.table.in_progress(sensed):
            return []
        fault = self._base[2]
        before = self.position
        pieces, hand, mixed = dict(self.pieces), list(self.hand), set(self._mixed)
        self._advance(table.position, None)
        self.ply -= 1
        self._table = table
        self.pieces, self.hand, self._mixed = pieces, hand, mixed
        self.judged = False
        self._candidate = tuple(moves)
        passes = fault is before.turn  # the mover's irregular move stands: the turn passes
        return [Accepted(at, before, table.position, passes, fault)]

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

    def _clear(self, at: int) -> list[Decision]:
        self._reported = None
        self._base = None
        self._base_table = None
        self._quick_lift = None
        if self.notice is not None and self.notice.kind != "touch-move":
            self.notice = None
            return [Cleared(at)]
        return []

    def _setup_check(self, at: int, sensed: Board) -> list[Decision]:
        """Before the start: the start position and the board's orientation (000 5.1, 5.2);
        a piece on a light square means a board turned the wrong way."""
        marks = self.table.marks_towards(sensed, self.table.occupied)
        marks += [LedMark(sq, WRONG) for sq in sorted(self.light)]
        if not marks:
            return self._clear(at)
        reading = Reading("irregular", (), "setup", None, tuple(marks))
        return self._report(reading, at, sensed)

    def start(self, at: int) -> list[Decision]:
        """The arbiter starts the game: check the set-up (000 5.2)."""
        out = self.tick(at)
        self.started = True
        self.judged = True
        for sq, piece in self.position.pieces().items():
            if sq in self.sensed:  # the men set up from the box are the position's
                self.pieces[sq] = piece
        marks = self.table.marks_towards(self.board(), self.table.occupied)
        marks += [LedMark(sq, WRONG) for sq in sorted(self.light)]
        if marks:
            irr = Irregularity(at, "setup", None, tuple(marks))
            self.notice = irr
            key = ("setup", self.board(), frozenset(self.light))
            if self._reported != key:  # said once: the board at rest before the start
                out.append(irr)
            self._reported = key
        return out

    # -- the arbiter -------------------------------------------------------------------------

    def accept(self, at: int) -> list[Decision]:
        """The opponent lets the board stand (000 5.4, 5.7): continue from the board as sensed,
        each piece keeping its crown (followed through lifts and places); a man left on its
        far row is crowned (000 3.6)."""
        out = self.tick(at)
        sensed = self.board()
        reading = self._read(sensed)
        if reading.kind == "result":
            return out + self._commit(reading.moves, at, pressed=True)
        if reading.kind == "same" or not self.started:
            self.notice = None
            self._reported = None
            return out
        passes = self._passes_turn(reading, sensed)
        before = self.position
        side = before.turn
        position = self._position_from(sensed, self.pieces, side.other if passes else side)
        self._advance(position, None)
        self.ply -= 1
        return out + [Accepted(at, before, position, passes, side)]

    def _passes_turn(self, reading: Reading, sensed: Board) -> bool:
        """Does accepting this board let the mover's irregular move stand (the turn passes)?
        Yes when the mover's pieces changed and the opponent's only lost pieces, or when a
        move was taken back (the player who took it back moves again)."""
        if reading.irregular == "take-back":
            return True
        turn = self.position.turn
        mine = {sq for sq in sensed if (p := self.pieces.get(sq)) is not None and p.side is turn}
        theirs = {sq for sq in sensed if sq not in mine}
        return mine != set(self.table.own) and theirs <= set(self.table.opp)

    def force(self, move: Move, at: int) -> list[Decision]:
        """Play ``move`` without the board (a sealed move on resumption, 004 §35): the board
        must then be made to follow; the LEDs show how."""
        before = self.position
        after = before.play(move)
        old = self.table
        out: list[Decision] = [MoveCommitted(at, move, before.turn, before, after, True)]
        self._advance(after, before.occupied())
        self._sync = (old, move)
        self._changed(at)
        self.judged = True
        return out

    def finish(self, at: int) -> list[Decision]:
        """The log ended: a board resting on a legal result is the last move made.

        With a clock too: the last move of a game is often left unpressed (the opponent
        resigns, the flag falls, the log was cut), and the board shows it complete."""
        out = self.tick(at)
        if self.started and not self.over:
            self.judged = True
            reading = self._read(self.board())
            if reading.kind == "result":
                out += self._commit(reading.moves, at, pressed=False)
        return out

    # -- what to show ------------------------------------------------------------------------

    def leds(self) -> dict[str, str]:
        """The LED picture: algebraic square -> meaning."""
        picture: dict[str, str] = {}
        if self._sync is not None:
            reading = self._read(self.board())
            for mark in reading.marks:
                picture[mark.square] = mark.meaning
        if self.notice is not None:
            for mark in self.notice.marks:
                picture[mark.square] = mark.meaning
        for square in self.light:
            picture[square] = WRONG
        return picture
