"""Shared helpers for the rules tests: random positions that are legal to hold."""

from __future__ import annotations

import random

from firmware.rules.position import Position
from firmware.rules.sets import RuleSet, Side


def random_position(rules: RuleSet, rng: random.Random) -> Position:
    """2 to 2/3-board pieces of both sides, a quarter of them kings (men never on the row where
    they would have been crowned), either side to move: captures in most of them."""
    n, h = rules.squares, rules.size // 2
    white: dict[int, bool] = {}
    black: dict[int, bool] = {}
    for sq in rng.sample(range(1, n + 1), rng.randint(2, n * 2 // 3)):
        is_white = rng.random() < 0.5
        king = rng.random() < 0.25 or (sq <= h if is_white else sq > n - h)
        (white if is_white else black)[sq] = king
    return Position(rules, rng.choice([Side.WHITE, Side.BLACK]), white, black)
