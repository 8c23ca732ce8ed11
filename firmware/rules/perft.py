"""Perft: the number of leaf nodes of the legal-move tree, to check move generation.

Counting convention (the one of the published tables: Aart Bik's BikDam blog, the
rhalbersma/dctl test tables): moves with the same start square, end square and set of captured
pieces count once, however many routes (orders of capture, landing squares on the way) lead to
them; two such moves that differ in whether the man is crowned count twice. The last ply is
counted without making the moves (bulk counting).

Checked against the published start-position counts: international to depth 8 (6483961),
russian and brazilian to depth 9 (4570586, 4431766): tests/rules/test_rules_perft.py.
"""

from __future__ import annotations

from firmware.errors import RulesError
from firmware.rules import _movegen as mg
from firmware.rules.position import Move, Position, move_flags
from firmware.rules.sets import Side


def perft(position: Position, depth: int) -> int:
    """Leaf nodes ``depth`` plies from ``position`` (1 for depth 0)."""
    if not isinstance(depth, int) or depth < 0:
        raise RulesError(f"perft depth must be a whole number 0 or more, not {depth!r}")
    white, black, kings = position.bitboards
    return mg.perft(mg.tables(position.rules.size), move_flags(position.rules), white, black,
                    kings, position.turn is Side.WHITE, depth)


def divide(position: Position, depth: int) -> list[tuple[Move, int]]:
    """Perft per distinct first move (one route shown for each), for debugging counts."""
    out: list[tuple[Move, int]] = []
    seen: set[tuple[int, int, frozenset[int], bool]] = set()
    for move in position.legal_moves():
        key = (move.start, move.end, frozenset(move.captured), move.promotes)
        if key in seen:
            continue
        seen.add(key)
        out.append((move, perft(position.play(move), depth - 1)))
    return out
