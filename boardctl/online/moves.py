"""Moves as lidraughts writes them, both ways.

A square is two digits (``07``), numbered as the board numbers it (``boardctl.online.variants``).
A move is its start and every landing square: ``3228`` for a simple move or a one-piece
capture, ``322819`` for a capture of two (pydraughts' ``li_one_move``, lidraughts'
``Uci.Move.uci``). The Bot API takes a capture a step at a time, one request per step
(pydraughts' ``li_api_move``: ``["3228", "2819"]``; lidraughts' ``Player.applyUci`` plays a
request's origin and destination only).

A game's ``moves`` (lidraughts' ``UciDump`` of its PDN moves) hold each move as one entry,
except a capture played a step at a time, whose steps stay entries of their own (``3228
2819``) with the same side still to move until the last. :class:`MovesReader` reads both:
each step must take exactly one piece; a capture is the legal move that takes the same pieces
in the same order and ends where the last step ends (so a king's landing square between two
pieces on one line may be any of the free ones, as lidraughts lets it be).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from boardctl.online.errors import OnlineError, ProtocolError
from firmware.rules.notation import move_text
from firmware.rules.position import Move, Position
from firmware.rules.sets import RuleSet

log = logging.getLogger(__name__)

#: The longest entry read: a start and 24 landing squares (no capture takes more pieces).
MAX_ENTRY = 50


#: The 8x8 numberings: lidraughts' own (``Pos64``: PDN's, 1 = b8, the board's), pydraughts'
#: (1 = a1, 2 = c1 ... 32 = h8), or lidraughts' own until the server's moves are legal only
#: under pydraughts' (``auto``, the default).
NUMBERINGS = ("auto", "lidraughts", "a1")


class Numbering:
    """How the server numbers the squares: the board's own (PDN), or, on 8x8, from a1
    (pydraughts'). ``auto`` starts with the board's own and switches, once, when a game's
    moves replay only from a1 (:meth:`MovesReader.read`). One per game: its reader and its
    poster share it."""

    def __init__(self, rules: RuleSet, mode: str = "auto") -> None:
        if mode not in NUMBERINGS:
            raise OnlineError(f"--online-numbering {mode[:20]!r}: not one of "
                              f"{', '.join(NUMBERINGS)}")
        self.a1 = mode == "a1" and rules.size == 8
        self.auto = mode == "auto" and rules.size == 8
        self._to: dict[int, int] = {}
        if rules.size == 8:
            alg = rules.geometry.algebraic
            for sq in range(1, 33):
                name = alg(sq)
                self._to[sq] = (int(name[1:]) - 1) * 4 + (ord(name[0]) - ord("a")) // 2 + 1
        self._from = {v: k for k, v in self._to.items()}

    def to_server(self, sq: int) -> int:
        return self._to[sq] if self.a1 else sq

    def from_server(self, sq: int) -> int:
        return self._from.get(sq, 0) if self.a1 else sq

    def settle(self) -> None:
        """``auto`` found the server numbering from a1: so from now on."""
        self.auto = False
        log.info("lidraughts: the server numbers the 8x8 squares from a1 (1 = a1): read so")


def li_steps(move: Move, numbering: Numbering | None = None) -> tuple[str, ...]:
    """The requests that play ``move``: one per step (a simple move is one step)."""
    to = numbering.to_server if numbering is not None else (lambda sq: sq)
    r = move.route
    return tuple(f"{to(a):02d}{to(b):02d}" for a, b in zip(r, r[1:], strict=False))


def li_route(move: Move, numbering: Numbering | None = None) -> str:
    """The move as one entry of a game's ``moves``: its start and every landing square."""
    to = numbering.to_server if numbering is not None else (lambda sq: sq)
    return "".join(f"{to(sq):02d}" for sq in move.route)


def entry_squares(entry: str, numbering: Numbering | None = None) -> tuple[int, ...]:
    """The squares of one entry (the board's numbers); ProtocolError unless it is 2-digit
    squares, at least two."""
    if not (entry.isascii() and entry.isdigit()) or len(entry) % 2 or not 4 <= len(entry) \
            <= MAX_ENTRY:
        raise ProtocolError(f"cannot read the move {entry[:MAX_ENTRY]!r} (two-digit squares)")
    squares = tuple(int(entry[i:i + 2]) for i in range(0, len(entry), 2))
    if numbering is not None:
        squares = tuple(numbering.from_server(sq) for sq in squares)
    return squares


def jumped(position: Position, start: int, a: int, b: int) -> int | None:
    """The one piece a step from ``a`` to ``b`` passes over (the moving piece's ``start`` is
    empty by then), or None when the step passes over none, or over more than one, or is no
    diagonal."""
    g = position.rules.geometry
    if a not in g.rays or b not in g.rays:
        return None
    for ray in g.rays[a]:
        if b in ray:
            between = [sq for sq in ray[:ray.index(b)]
                       if sq != start and position.piece_at(sq) is not None]
            return between[0] if len(between) == 1 else None
    return None


def _taken(position: Position, squares: tuple[int, ...]) -> tuple[int, ...] | None:
    out = []
    for a, b in zip(squares, squares[1:], strict=False):
        piece = jumped(position, squares[0], a, b)
        if piece is None:
            return None
        out.append(piece)
    return tuple(out)


def match_steps(position: Position, squares: tuple[int, ...]) -> tuple[Move | None, bool]:
    """(the legal move ``squares`` complete, or None; whether they begin one still).

    ``squares``: a start and the landing squares so far."""
    legal = position.legal_moves()
    if not legal[:1] or not legal[0].is_capture:
        for m in legal:
            if m.route == squares:
                return m, False
        return None, False
    taken = _taken(position, squares)
    if taken is None:
        return None, False
    fits = [m for m in legal if m.start == squares[0] and m.captured[:len(taken)] == taken]
    done = [m for m in fits if len(m.captured) == len(taken) and m.end == squares[-1]]
    exact = [m for m in done if m.route == squares]
    if exact or done:
        return (exact or done)[0], False
    return None, any(len(m.captured) > len(taken) for m in fits)


def read_move(position: Position, text: str) -> Move:
    """The legal move one whole entry (``322819``) means; ProtocolError otherwise."""
    squares = entry_squares(text)
    move, _ = match_steps(position, squares)
    if move is None:
        raise ProtocolError(f"{text} is not a legal move in {position.fen()}")
    return move


@dataclass(frozen=True, slots=True)
class Replayed:
    """A game's moves as read: the whole plies, a capture under way (its start and landing
    squares so far; empty when none), and the position after the whole plies."""

    plies: tuple[Move, ...]
    pending: tuple[int, ...]
    position: Position


class MovesReader:
    """Reads the ``moves`` of each state of one game; a state that extends the last one read
    costs only its new entries."""

    def __init__(self, start: Position, numbering: Numbering | None = None) -> None:
        self.start = start
        self.numbering = numbering or Numbering(start.rules, "lidraughts")
        self._entries: tuple[str, ...] = ()
        self._last = Replayed((), (), start)

    def read(self, moves: str) -> Replayed:
        """The game after ``moves``; ProtocolError naming the entry that does not replay.
        With ``auto`` numbering, moves that replay only from a1 switch it (once)."""
        entries = tuple(moves.split())
        n = len(self._entries)
        try:
            if entries[:n] == self._entries:
                done = self._replay(self._last, entries[n:], n)
            else:
                done = self._replay(Replayed((), (), self.start), entries, 0)
        except ProtocolError:
            if not self.numbering.auto:
                raise
            self.numbering.a1 = True  # the whole game again, from a1
            try:
                done = self._replay(Replayed((), (), self.start), entries, 0)
            except ProtocolError:
                self.numbering.a1 = False
                raise
            self.numbering.settle()
        self._entries, self._last = entries, done
        return done

    def _replay(self, state: Replayed, entries: tuple[str, ...], offset: int) -> Replayed:
        plies, pending, position = list(state.plies), state.pending, state.position
        for i, entry in enumerate(entries, offset + 1):
            squares = entry_squares(entry, self.numbering)
            if pending:
                if squares[0] != pending[-1] or len(squares) != 2:
                    raise ProtocolError(f"entry {i} ({entry}) does not carry on the capture "
                                        f"under way from {pending[0]:02d}")
                squares = pending + squares[1:]
            move, more = match_steps(position, squares)
            if move is not None:
                plies.append(move)
                position = position.play(move)
                pending = ()
            elif more and len(entry) == 4:
                pending = squares
            else:
                raise ProtocolError(f"entry {i} ({entry}) is not a legal move in "
                                    f"{position.fen()}")
        return Replayed(tuple(plies), pending, position)


def describe(position: Position, move: Move) -> str:
    """A move in the board's notation, for messages (its lidraughts form when not legal)."""
    try:
        return move_text(position, move)
    except ValueError:
        return li_route(move)
