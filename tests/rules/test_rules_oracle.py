"""An independent oracle: pydraughts 0.6.7 (MIT; ``pip install --no-deps pydraughts==0.6.7``,
imports as ``draughts``) on random positions of the rule sets it knows, comparing the set of
(start, end, captured pieces) of the legal moves.

pydraughts is slow (international ~25 ms a position), so the default run checks a few hundred
positions per rule set; ``BOARDCTL_ORACLE_POSITIONS=3000`` runs more (3000 each agreed when
this was written)."""

from __future__ import annotations

import os
import random
from collections.abc import Callable

import pytest
from support.rules_helpers import random_position

from firmware.rules.position import Position
from firmware.rules.sets import RuleSet, find_rules

#: Sweeps of whole game collections or another implementation: not the fast core.
pytestmark = pytest.mark.integration

draughts = pytest.importorskip("draughts")
if not hasattr(draughts, "Board") or getattr(draughts, "__version__", "") != "0.6.7":
    pytest.skip("the oracle is pydraughts 0.6.7 (not py-draughts)", allow_module_level=True)

DEFAULT = {"international": 100, "russian": 300, "brazilian": 300}
CHUNKS = 4
VARIANT = {"international": "standard", "russian": "russian", "brazilian": "brazilian"}

Key = tuple[int, int, frozenset[int]]


def their_square(rules: RuleSet) -> Callable[[int], int]:
    """pydraughts numbers 8x8 squares from a1 (1) row by row from White's side."""
    if rules.size == 10:
        return lambda n: n
    g = rules.geometry

    def convert(n: int) -> int:
        rank, k = divmod(n - 1, 4)
        file = 2 * k + rank % 2
        return g.number(f"{chr(ord('a') + file)}{rank + 1}")

    return convert


def theirs(rules: RuleSet, p: Position) -> set[Key]:
    convert = their_square(rules)
    board = draughts.Board(variant=VARIANT[rules.name], fen=p.fen())
    out = set()
    for m in board.legal_moves():
        steps = m.steps_move
        taken = frozenset(convert(c) for c in m.captures if c is not None)
        out.add((convert(steps[0]), convert(steps[-1]), taken))
    return out


@pytest.mark.parametrize("chunk", range(CHUNKS))
@pytest.mark.parametrize("name", sorted(DEFAULT))
def test_legal_moves_agree_with_pydraughts(name: str, chunk: int) -> None:
    rules = find_rules(name)
    total = int(os.environ.get("BOARDCTL_ORACLE_POSITIONS", DEFAULT[name]))
    rng = random.Random(f"{name}/{chunk}")
    captures = 0
    for _ in range(total // CHUNKS):
        p = random_position(rules, rng)
        ours = {(m.start, m.end, frozenset(m.captured)) for m in p.legal_moves()}
        assert ours == theirs(rules, p), p.fen()
        captures += p.has_capture()
    assert captures > total // CHUNKS // 3
