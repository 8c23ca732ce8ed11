"""Plies a power cut lost: the legal move sequences that lead from the position a journal
reaches to the occupancy the sensors report (issue 30).

The board is occupancy-only: it knows which piece stands where by following the game. When its
journal is short of the game (a power cut while the state disk was full loses the spill), the
pieces stand ahead of it; :func:`find_gap` searches every legal sequence of 1 to ``bound`` plies
from the journal's position and keeps those whose resulting occupancy is the sensed one.

What counts as one answer: sequences whose plies do the same thing to the board (the same
start, end and captured pieces, :attr:`Move.key`) are one candidate, whatever the route a
capture took (two routes over the same pieces between the same squares: the game goes on the
same). Any two candidates that differ in a ply's effect, or in their number of plies, are
several answers: the caller must not pick one.

The work is bounded: a sequence is cut as soon as it cannot reach the sensed occupancy in the
plies left (each ply fills at most one square that was empty: its end), and at most
``max_nodes`` positions are visited; past that the result says so (``exhausted``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from firmware.rules.notation import move_text
from firmware.rules.position import Move, Position

#: Plies searched by default: a spill lost by a power cut holds the last few moves.
BOUND = 4
#: Positions visited at most (a king ending branches some 30 ways a ply: 4 plies stay under).
MAX_NODES = 200_000


@dataclass(frozen=True)
class Candidate:
    """One sequence of plies from the journal's position to the sensed occupancy."""

    moves: tuple[Move, ...]
    #: The position after the last ply.
    position: Position


@dataclass
class Gap:
    """What :func:`find_gap` found."""

    #: Every distinct candidate (module docstring), shortest first.
    candidates: list[Candidate] = field(default_factory=list)
    #: The node budget ran out: candidates may be missing.
    exhausted: bool = False
    #: Positions visited.
    nodes: int = 0

    @property
    def unique(self) -> Candidate | None:
        """The one answer, or None when there is none, several, or the search was cut."""
        if self.exhausted or len(self.candidates) != 1:
            return None
        return self.candidates[0]


def find_gap(position: Position, sensed: Iterable[int], bound: int = BOUND, *,
             max_nodes: int = MAX_NODES) -> Gap:
    """Every legal sequence of 1..``bound`` plies from ``position`` whose resulting occupied
    squares are exactly ``sensed`` (square numbers). An occupancy equal to the position's own
    is no gap (no candidates)."""
    target = frozenset(sensed)
    gap = Gap()
    if target == position.occupied() or bound < 1:
        return gap
    seen: set[tuple[tuple[int, int, frozenset[int]], ...]] = set()
    _search(position, target, bound, (), gap, seen, max_nodes)
    gap.candidates.sort(key=lambda c: len(c.moves))
    return gap


def _search(position: Position, target: frozenset[int], left: int, done: tuple[Move, ...],
            gap: Gap, seen: set[tuple[tuple[int, int, frozenset[int]], ...]],
            max_nodes: int) -> None:
    for move in position.legal_moves():
        if gap.nodes >= max_nodes:
            gap.exhausted = True
            return
        gap.nodes += 1
        after = position.play(move)
        moves = (*done, move)
        occupied = after.occupied()
        if occupied == target:
            keys = tuple(m.key for m in moves)
            if keys not in seen:
                seen.add(keys)
                gap.candidates.append(Candidate(moves, after))
        if left > 1 and _reachable(occupied, target, left - 1):
            _search(after, target, left - 1, moves, gap, seen, max_nodes)


def _reachable(occupied: frozenset[int], target: frozenset[int], plies: int) -> bool:
    """Can ``plies`` more plies turn ``occupied`` into ``target``? Pieces are never added, and
    each ply fills one square at most (its end)."""
    return len(occupied) >= len(target) and len(target - occupied) <= plies


def plies_text(position: Position, moves: Iterable[Move]) -> list[str]:
    """The PDN text of each ply of a sequence played from ``position``."""
    out = []
    for move in moves:
        out.append(move_text(position, move))
        position = position.play(move)
    return out
