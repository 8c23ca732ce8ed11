"""Positions and moves: what is on the board, whose turn it is, and every legal move.

A Position is immutable and hashable (repetition counting uses it as a key); playing a move
returns a new one. Internally it is three bitboards (``firmware.rules._movegen``), so copying costs
nothing. Squares are PDN numbers (``firmware.rules.geometry``).

``legal_moves()`` lists every route the rules allow (seed 000 4.9: the player touches every
landing square), including routes that take the same pieces in another order and every final
landing square of a flying king; the referee matches the player's hand against them. See
``firmware.rules._movegen`` for the rules and the one route convention (a king carrying on along the
same line is routed through the first square behind the piece it took).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import NamedTuple

from firmware.errors import BoardError, IllegalMoveError, RulesError
from firmware.rules import _movegen as mg
from firmware.rules.fen import parse_fen
from firmware.rules.geometry import a_board, geometry
from firmware.rules.sets import RuleSet, Side, find_rules


@dataclass(frozen=True, slots=True)
class Move:
    """One legal move.

    ``route``: the start square, then every landing square (one per captured piece), the end
    last; a simple move is ``(start, end)``. ``captured``: the captured squares in capture
    order (empty for a simple move). ``promotes``: the moving man is a king when the move ends.
    """

    route: tuple[int, ...]
    captured: tuple[int, ...] = ()
    promotes: bool = False

    @property
    def start(self) -> int:
        return self.route[0]

    @property
    def end(self) -> int:
        return self.route[-1]

    @property
    def is_capture(self) -> bool:
        return bool(self.captured)

    @property
    def key(self) -> tuple[int, int, frozenset[int]]:
        """(start, end, captured set): what a move does to the board, whatever its route."""
        return (self.route[0], self.route[-1], frozenset(self.captured))

    def turns(self, size: int) -> tuple[int, ...]:
        """The route reduced to the start, every square where the direction changes, and the
        end (seed 000 8.5.5): landing squares on a straight line are left out. ``size`` is the
        board's (8 or 10)."""
        if len(self.route) <= 2:
            return self.route
        g = geometry(size)
        out = [self.route[0]]
        for prev, here, nxt in zip(self.route, self.route[1:], self.route[2:], strict=False):
            (x0, y0), (x1, y1), (x2, y2) = g.coords(prev), g.coords(here), g.coords(nxt)
            same = ((x1 - x0 > 0) == (x2 - x1 > 0)) and ((y1 - y0 > 0) == (y2 - y1 > 0))
            if not same:
                out.append(here)
        out.append(self.route[-1])
        return tuple(out)

    def __str__(self) -> str:
        sep = "x" if self.captured else "-"
        return sep.join(str(n) for n in self.route)


class Piece(NamedTuple):
    side: Side
    king: bool


#: The four pieces, by (white, king): shared, as a Piece is immutable.
_PIECES = {(w, k): Piece(Side.WHITE if w else Side.BLACK, k)
           for w in (True, False) for k in (True, False)}


@cache
def _square_names(rules: RuleSet) -> tuple[str, ...]:
    """Each square's name in the rule set's notation, by number (index 0 unused)."""
    return ("", *(rules.square_name(n) for n in range(1, rules.squares + 1)))


@cache
def move_flags(rules: RuleSet) -> mg.Flags:
    """The rule-set flags move generation reads (one object per rule set)."""
    return mg.Flags(
        rules.men_capture_backwards,
        rules.flying_kings,
        rules.majority_capture,
        rules.promote_during_capture,
        rules.king_must_capture_first,
    )


class Position:
    """The pieces on the board and the side to move, under one rule set."""

    __slots__ = ("rules", "turn", "_white", "_black", "_kings", "_t", "_moves", "_hash")

    rules: RuleSet
    turn: Side

    def __init__(
        self,
        rules: RuleSet | str,
        turn: Side = Side.WHITE,
        white: dict[int, bool] | None = None,
        black: dict[int, bool] | None = None,
    ) -> None:
        """A position from {square: is_king} per side. Prefer ``from_fen`` or ``start``.
        RulesError for a square off the board, two pieces on one square, or a man on the row
        where it would have been crowned."""
        rs = find_rules(rules)
        t = mg.tables(rs.size)
        w = b = k = 0
        for squares, is_white in ((white or {}), True), ((black or {}), False):
            for sq, king in squares.items():
                if not isinstance(sq, int) or not 1 <= sq <= t.count:
                    raise RulesError(f"no square {sq!r} on {a_board(rs.size)}")
                bit = t.bit[sq]
                if (w | b) & bit:
                    raise RulesError(f"two pieces on square {rs.square_name(sq)}")
                if is_white:
                    w |= bit
                else:
                    b |= bit
                if king:
                    k |= bit
                elif bit & t.promotion[is_white]:
                    raise RulesError(
                        f"a {'white' if is_white else 'black'} man on {rs.square_name(sq)} "
                        "would have been crowned (000 4.15, 003 3.5)"
                    )
        self._init(rs, turn, w, b, k)

    def _init(self, rules: RuleSet, turn: Side, white: int, black: int, kings: int) -> None:
        self.rules = rules
        self.turn = turn
        self._white = white
        self._black = black
        self._kings = kings
        self._t = mg.tables(rules.size)
        self._moves: list[Move] | None = None
        self._hash: int | None = None

    @classmethod
    def _from_bits(
        cls, rules: RuleSet, turn: Side, white: int, black: int, kings: int
    ) -> Position:
        p = cls.__new__(cls)
        p._init(rules, turn, white, black, kings)
        return p

    @classmethod
    def start(cls, rules: RuleSet | str) -> Position:
        """The opening position (000 2.2, 003 2.8, 004 §2, §18): White moves first."""
        rs = find_rules(rules)
        rows = 3 if rs.size == 8 else 4
        n = rows * rs.size // 2
        black = {sq: False for sq in range(1, n + 1)}
        white = {sq: False for sq in range(rs.squares - n + 1, rs.squares + 1)}
        return cls(rs, Side.WHITE, white, black)

    @classmethod
    def from_fen(cls, rules: RuleSet | str, fen: str) -> Position:
        """Read a FEN (firmware.rules.fen); FenError if it cannot be read."""
        rs = find_rules(rules)
        f = parse_fen(rs, fen)
        white = {sq: False for sq in f.white_men} | {sq: True for sq in f.white_kings}
        black = {sq: False for sq in f.black_men} | {sq: True for sq in f.black_kings}
        return cls(rs, f.turn, white, black)

    @classmethod
    def from_pieces(
        cls, rules: RuleSet | str, turn: Side, pieces: dict[int, Piece]
    ) -> Position:
        """A position from {square: Piece}, e.g. a board as sensed plus the kings the game
        knows of. RulesError for a square off the board."""
        white = {sq: p.king for sq, p in pieces.items() if p.side is Side.WHITE}
        black = {sq: p.king for sq, p in pieces.items() if p.side is Side.BLACK}
        return cls(rules, turn, white, black)

    def with_turn(self, turn: Side) -> Position:
        """The same pieces with ``turn`` to move."""
        return Position._from_bits(self.rules, turn, self._white, self._black, self._kings)

    def fen(self) -> str:
        """This position as FEN: algebraic squares on 8x8, numbers on 10x10 (CONTRACT.md);
        what ``firmware.rules.fen.write_fen`` writes, from the bitboards directly (a FEN goes out
        with every committed move)."""
        t, kings = self._t, self._kings
        names = _square_names(self.rules)
        bit = t.bit
        white = ",".join(("K" if bit[sq] & kings else "") + names[sq]
                         for sq in t.squares_of(self._white))
        black = ",".join(("K" if bit[sq] & kings else "") + names[sq]
                         for sq in t.squares_of(self._black))
        return f"{self.turn.letter}:W{white}:B{black}"

    def _side_dict(self, bb: int) -> dict[int, bool]:
        t = self._t
        return {sq: bool(t.bit[sq] & self._kings) for sq in t.squares_of(bb)}

    # -- what is on the board --------------------------------------------------------------

    def piece_at(self, square: int) -> Piece | None:
        t = self._t
        if not isinstance(square, int) or not 1 <= square <= t.count:
            return None
        bit = t.bit[square]
        if self._white & bit:
            return Piece(Side.WHITE, bool(self._kings & bit))
        if self._black & bit:
            return Piece(Side.BLACK, bool(self._kings & bit))
        return None

    def pieces(self) -> dict[int, Piece]:
        """Every piece by square, in square order."""
        t, white, kings = self._t, self._white, self._kings
        bit = t.bit
        return {sq: _PIECES[bool(white & bit[sq]), bool(kings & bit[sq])]
                for sq in t.squares_of(white | self._black)}

    def occupied(self) -> frozenset[int]:
        return frozenset(self._t.squares_of(self._white | self._black))

    def squares_of(self, side: Side, king: bool | None = None) -> frozenset[int]:
        """Squares holding ``side``'s pieces: all of them, or only kings (True) or men (False)."""
        bb = self._white if side is Side.WHITE else self._black
        if king is True:
            bb &= self._kings
        elif king is False:
            bb &= ~self._kings
        return frozenset(self._t.squares_of(bb))

    def count(self, side: Side, king: bool | None = None) -> int:
        """How many pieces ``side`` has (all, kings only or men only)."""
        bb = self._white if side is Side.WHITE else self._black
        if king is True:
            bb &= self._kings
        elif king is False:
            bb &= ~self._kings
        return bb.bit_count()

    # -- moves -------------------------------------------------------------------------------

    @property
    def bitboards(self) -> tuple[int, int, int]:
        """(white, black, kings) as move generation holds them (bit ``i`` is square ``i``)."""
        return self._white, self._black, self._kings

    def legal_moves(self) -> list[Move]:
        """Every legal move, every route: captures only when one exists (000 4.1), in route
        order. Computed once per position."""
        if self._moves is None:
            self._moves = self._generate()
        return list(self._moves)

    def _generate(self) -> list[Move]:
        t = self._t
        f = move_flags(self.rules)
        white = self.turn is Side.WHITE
        mover, opp = (self._white, self._black) if white else (self._black, self._white)
        sq = t.square
        caps = mg.captures(t, f, white, mover, opp, self._kings)
        if caps:
            moves = [
                Move(tuple(sq[b] for b in route), tuple(sq[b] for b in taken), promotes)
                for route, taken, promotes in caps
            ]
        else:
            promo = t.promotion[white]
            kings = self._kings
            moves = [
                Move((sq[a], sq[b]), (), bool(b & promo and not a & kings))
                for a, b in mg.quiet_moves(t, f, white, mover, opp, kings)
            ]
        moves.sort(key=lambda m: (m.route, m.captured))
        return moves

    def has_legal_move(self) -> bool:
        """Whether the side to move has a legal move (none loses: 000 6.1, 004 §15), without
        generating the moves when they are not known yet (``_movegen.has_move``)."""
        if self._moves is not None:
            return bool(self._moves)
        white = self.turn is Side.WHITE
        mover, opp = (self._white, self._black) if white else (self._black, self._white)
        return mg.has_move(self._t, move_flags(self.rules), white, mover, opp, self._kings)

    def has_capture(self) -> bool:
        """The side to move must capture (000 4.1)."""
        moves = self.legal_moves()
        return bool(moves) and moves[0].is_capture

    def play(self, move: Move) -> Position:
        """The position after ``move``; IllegalMoveError if it is not legal here."""
        if self._moves is None:
            self._moves = self._generate()
        if move not in self._moves:
            sep = "x" if move.captured else "-"
            try:
                text = sep.join(self.rules.square_name(sq) for sq in move.route)
            except BoardError:
                text = str(move)
            raise IllegalMoveError(f"{text} is not a legal move in {self.fen()}")
        return self._apply(move)

    def _apply(self, move: Move) -> Position:
        t = self._t
        frm, to = t.bit[move.start], t.bit[move.end]
        mask = 0
        for sq in move.captured:
            mask |= t.bit[sq]
        white = self.turn is Side.WHITE
        mover, opp = (self._white, self._black) if white else (self._black, self._white)
        mover = mover ^ frm ^ to
        opp &= ~mask
        kings = self._kings & ~mask
        if kings & frm:
            kings = kings ^ frm ^ to
        elif move.promotes:
            kings |= to
        if white:
            return Position._from_bits(self.rules, Side.BLACK, mover, opp, kings)
        return Position._from_bits(self.rules, Side.WHITE, opp, mover, kings)

    # -- identity ----------------------------------------------------------------------------

    def _key(self) -> tuple[str, Side, int, int, int]:
        return (self.rules.name, self.turn, self._white, self._black, self._kings)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Position) and self._key() == other._key()

    def __hash__(self) -> int:
        if self._hash is None:
            self._hash = hash(self._key())
        return self._hash

    def __repr__(self) -> str:
        return f"Position({self.rules.name!r}, {self.fen()!r})"
