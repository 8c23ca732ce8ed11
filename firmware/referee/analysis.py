"""Reading a sensed board against a position: a legal move's result, a move under way, or an
irregularity and what the LEDs must show.

The sensors see occupancy only. Every legal move has one result occupancy (start emptied,
captured pieces off, end filled), so a board that shows a result names the move, and moves
with the same start and end are told apart by which pieces came off (issue 3 item 3). Routes
that take the same pieces in another order share a result; the landing squares the hand
touched choose among them (000 4.9).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache

from firmware.referee.decisions import MUST_MOVE, REMOVE, RESTORE, WRONG, Irregularity, LedMark
from firmware.referee.kinds import IrregularityKind
from firmware.rules.geometry import Geometry
from firmware.rules.position import Move, Position
from firmware.rules.sets import Side

Board = frozenset[int]


@cache
def _between(size: int, a: int, b: int) -> tuple[int, ...]:
    """Squares strictly between a and b on one diagonal (empty if not on one)."""
    from firmware.rules.geometry import geometry

    g = geometry(size)
    for ray in g.rays[a]:
        if b in ray:
            return ray[: ray.index(b)]
    return ()


def path_squares(size: int, move: Move) -> frozenset[int]:
    """Every square the moving piece passes over or lands on, the start excluded."""
    squares: set[int] = set()
    route = move.route
    for a, b in zip(route, route[1:], strict=False):
        squares.update(_between(size, a, b))
        squares.add(b)
    squares.discard(route[0])
    return frozenset(squares) - frozenset(move.captured)


@dataclass(frozen=True, slots=True)
class Reading:
    """What a sensed board means. ``kind``: ``same`` (the position), ``result`` (``moves``
    share this result), ``progress`` (a legal move half done, or a piece in hand), or
    ``irregular`` (``irregular`` names the kind, ``marks`` the LED picture)."""

    kind: str
    moves: tuple[Move, ...] = ()
    irregular: IrregularityKind | None = None
    side: Side | None = None
    marks: tuple[LedMark, ...] = ()

    def irregularity(self, at: int, side: Side | None) -> Irregularity:
        """The irregularity an ``irregular`` reading names, ``side``'s, at ``at``."""
        assert self.irregular is not None, "not an irregular reading"
        return Irregularity(at, self.irregular, side, self.marks)


SAME = Reading("same")
PROGRESS = Reading("progress")


class MoveTable:
    """A position's legal moves indexed by their result occupancy, built once per position."""

    __slots__ = (
        "position", "occupied", "moves", "results", "own", "opp", "starts", "capturing",
        "geometry", "_paths", "_flipped", "_children",
    )  # fmt: skip

    def __init__(self, position: Position) -> None:
        self.position = position
        self.geometry: Geometry = position.rules.geometry
        self.occupied: Board = position.occupied()
        self.moves: list[Move] = position.legal_moves()
        self.own = position.squares_of(position.turn)
        self.opp = position.squares_of(position.turn.other)
        self.starts = frozenset(m.start for m in self.moves)
        self.capturing = bool(self.moves) and self.moves[0].is_capture
        self.results: dict[Board, list[Move]] = {}
        for m in self.moves:
            self.results.setdefault(self.result_of(m), []).append(m)
        self._paths: dict[Move, frozenset[int]] = {}
        self._flipped: MoveTable | None = None
        self._children: dict[Board, MoveTable] = {}

    def result_of(self, move: Move) -> Board:
        return (self.occupied - {move.start} - frozenset(move.captured)) | {move.end}

    def path(self, move: Move) -> frozenset[int]:
        p = self._paths.get(move)
        if p is None:
            p = self._paths[move] = path_squares(self.geometry.size, move)
        return p

    def flipped(self) -> MoveTable:
        """The same pieces with the other side to move (a second move in a row, 000 5.4.1)."""
        if self._flipped is None:
            pos = self.position
            pieces = pos.pieces()
            white = {sq: p.king for sq, p in pieces.items() if p.side is Side.WHITE}
            black = {sq: p.king for sq, p in pieces.items() if p.side is Side.BLACK}
            self._flipped = MoveTable(Position(pos.rules, pos.turn.other, white, black))
        return self._flipped

    def two_plies(self, sensed: Board) -> tuple[tuple[Move, ...], tuple[Move, ...]] | None:
        """Does ``sensed`` show a legal move and the opponent's reply (the first never
        committed: no press, or the reply came before the settle time)?"""
        for result, first in self.results.items():
            extra = sensed - result  # the reply's end square, if it is not its start
            missing = result - sensed  # the reply's start and the pieces it took
            if len(extra) > 1 or not missing or (extra and not missing & self.opp):
                continue
            child = self._children.get(result)
            if child is None:
                child = self._children[result] = MoveTable(self.position.play(first[0]))
            second = child.results.get(sensed)
            if second:
                return tuple(first), tuple(second)
        return None

    # -- reading a board ---------------------------------------------------------------------

    def in_progress(self, sensed: Board, moves: Iterable[Move] | None = None) -> bool:
        """Is ``sensed`` a legal move under way: the piece in hand or set down on its path,
        some of its captured pieces off (in any order, 000 4.11; before the jump, 003 4.16)?"""
        removed = self.occupied - sensed
        added = sensed - self.occupied
        if len(added) > 1:
            return False
        for m in self.moves if moves is None else moves:
            if added:
                if m.start not in removed or not added <= self.path(m):
                    continue
            if removed <= ({m.start} | set(m.captured)):
                return True
        return False

    def plausible(self, sensed: Board) -> bool:
        """Is ``sensed`` the position, a legal result, a move under way or a piece in hand?"""
        if sensed == self.occupied or sensed in self.results or self.in_progress(sensed):
            return True
        removed = self.occupied - sensed
        return not (sensed - self.occupied) and len(removed) == 1 and removed <= self.own

    def read(self, sensed: Board) -> Reading:
        """Same position, a move's result, a move under way, or a piece in hand."""
        if sensed == self.occupied:
            return SAME
        moves = self.results.get(sensed)
        if moves:
            return Reading("result", tuple(moves))
        if self.in_progress(sensed):
            return PROGRESS
        removed = self.occupied - sensed
        if not (sensed - self.occupied) and len(removed) == 1 and removed <= self.own:
            return PROGRESS  # a piece in hand, even one that cannot move: no consequence yet
        return self.classify(sensed)

    def marks_towards(self, sensed: Board, target: Board) -> list[LedMark]:
        """The LED picture that turns ``sensed`` into ``target``: ``restore`` where a piece is
        missing, ``remove`` for a piece of the position to take off (a captured piece),
        ``wrong`` for a piece standing where it has no business."""
        alg = self.geometry.algebraic
        marks = [LedMark(alg(sq), RESTORE) for sq in sorted(target - sensed)]
        marks += [
            LedMark(alg(sq), REMOVE if sq in self.occupied else WRONG)
            for sq in sorted(sensed - target)
        ]
        return marks

    def classify(self, sensed: Board, previous: Board | None = None, ply: int = 0) -> Reading:
        """Name the irregularity a sensed board shows (000 5.4) and the LED picture."""
        turn = self.position.turn
        removed = self.occupied - sensed
        added = sensed - self.occupied
        own_removed = removed & self.own
        if own_removed and len(added) == 1:
            reading = self._mover_moved(sensed, removed, added, own_removed)
            if reading is not None:
                return reading
        if previous is not None and sensed == previous:
            # The board shows the position before the last move: a move taken back (000 5.4.4).
            return self._irregular(IrregularityKind.TAKE_BACK, turn.other, sensed)
        if added or (removed - self.opp):
            flipped = self.flipped()
            if sensed in flipped.results or flipped.in_progress(sensed):
                kind = IrregularityKind.TWO_MOVES if ply > 0 else IrregularityKind.WRONG_SIDE
                return self._irregular(kind, turn.other, sensed)
            if added and not own_removed and len(removed) == 1:
                # One of the opponent's pieces went from one square to another: he moved it
                # out of turn. Several of his pieces gone at once are knocked over (000 5.3):
                # a board mismatch, below.
                return self._irregular(IrregularityKind.WRONG_SIDE, turn.other, sensed)
        if not added and removed and not own_removed:
            return self._irregular(IrregularityKind.EXTRA_REMOVAL, turn, sensed)
        if not added and own_removed:
            return self._irregular(IrregularityKind.OWN_PIECE_REMOVED, turn, sensed)
        return self._irregular(IrregularityKind.BOARD_MISMATCH, turn, sensed)

    def _irregular(self, kind: IrregularityKind, side: Side, sensed: Board) -> Reading:
        """An irregularity whose LEDs show the way back to the position."""
        return Reading("irregular", (), kind, side, tuple(self.marks_towards(sensed,
                                                                             self.occupied)))

    def _mover_moved(self, sensed: Board, removed: Board, added: Board,
                     own_removed: Board) -> Reading | None:
        """The mover's piece went from s to e: compare with the legal moves from s to e (the
        removals then wrong), else the move itself is wrong."""
        turn = self.position.turn
        (e,) = added
        for s in sorted(own_removed):
            same_ends = [m for m in self.moves if m.start == s and m.end == e]
            if not same_ends:
                continue
            others = removed - {s}

            def cost(m: Move, others: frozenset[int] = others) -> int:
                return len(others ^ frozenset(m.captured))

            best = min(same_ends, key=cost)
            still_on = frozenset(best.captured) & sensed
            extra = others - frozenset(best.captured)
            if not extra and still_on:
                kind = IrregularityKind.INCOMPLETE_REMOVAL
            elif extra & self.own:
                kind = IrregularityKind.OWN_PIECE_REMOVED
            else:
                kind = IrregularityKind.EXTRA_REMOVAL
            marks = self.marks_towards(sensed, self.result_of(best))
            return Reading("irregular", (best,), kind, turn, tuple(marks))
        if len(own_removed) != 1:
            return None
        opp_removed = removed & self.opp
        marks = self.marks_towards(sensed, self.occupied)
        if self.capturing and not opp_removed:
            kind = IrregularityKind.MISSED_CAPTURE
            alg = self.geometry.algebraic
            marks += [LedMark(alg(sq), MUST_MOVE) for sq in sorted(self.starts) if sq in sensed]
        elif opp_removed:
            kind = IrregularityKind.WRONG_CAPTURE
        else:
            kind = IrregularityKind.ILLEGAL_MOVE
        return Reading("irregular", (), kind, turn, tuple(marks))

    def choose(self, moves: Sequence[Move], touched: Sequence[tuple[int, int]]) -> Move:
        """Among moves with one result, the route whose landing squares the hand touched in
        order (000 4.9); ``touched`` is (square, dwell ns) per set-down. Else the first."""
        if len(moves) == 1:
            return moves[0]
        best = moves[0]
        best_score = (-1, -1)
        for m in moves:
            landings = m.route[1:-1]
            matched = dwell = 0
            for sq, ns in touched:
                if matched < len(landings) and sq == landings[matched]:
                    matched += 1
                    dwell += ns
            score = (matched, dwell)
            if score > best_score:
                best, best_score = m, score
        return best
