"""A move as a person reads it aloud: its squares in order, whether it captures, whether the
man is crowned, which pieces come off.

From a feed ``move`` record the PDN text is read in the position before it, when the narrator
knows that position (``firmware.rules.notation.parse_move``): a multi-capture then has every
landing square of its route, even when the text gives only start and end (``28x10``), and a
promotion is known. Without the position (a narrator that joined late) the squares are the
ones the text writes. From an ``engine-move`` or ``remote-move`` record the route and the
captured squares come with the record (algebraic), and the position only adds the promotion.

Squares are kept as the rule set's notation writes them (``"32"``, ``"c3"``): the words table
says them (``boardctl.voice.words.Words.square``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from firmware.errors import BoardError
from firmware.rules.notation import parse_move
from firmware.rules.position import Move, Position
from firmware.rules.sets import RuleSet

_SPLIT = re.compile(r"\s*[-xX:×]\s*")
_CAPTURE = re.compile(r"[xX:×]")
#: The most squares a move read aloud names (a real route has at most 21: 20 captures).
MAX_SQUARES = 24


@dataclass(frozen=True, slots=True)
class SpokenMove:
    """``squares``: start, every landing square, end; ``captured``: the pieces taken."""

    squares: tuple[str, ...]
    capture: bool
    promotes: bool = False
    captured: tuple[str, ...] = ()


def from_move(rules: RuleSet, move: Move) -> SpokenMove:
    name = rules.square_name
    return SpokenMove(tuple(name(sq) for sq in move.route), move.is_capture, move.promotes,
                      tuple(name(sq) for sq in move.captured))


def from_text(rules: RuleSet, before: Position | None, text: str) -> SpokenMove | None:
    """A feed ``move``'s PDN text; None for a text that names no two squares."""
    if before is not None:
        try:
            return from_move(rules, parse_move(before, text))
        except (BoardError, ValueError):
            pass  # said as written: the record is the board's word, not ours
    parts = [p for p in _SPLIT.split(text.strip()) if p]
    if not 2 <= len(parts) <= MAX_SQUARES or not all(_is_square(rules, p) for p in parts):
        return None
    return SpokenMove(tuple(_notation(rules, p) for p in parts), bool(_CAPTURE.search(text)))


def from_route(rules: RuleSet, before: Position | None, route: Sequence[str],
               captured: Sequence[str]) -> SpokenMove | None:
    """An ``engine-move``'s or ``remote-move``'s route and captured squares (algebraic, as
    CONTRACT.md has them); None when they are not squares of this board."""
    if not 2 <= len(route) <= MAX_SQUARES or len(captured) > MAX_SQUARES:
        return None
    if not all(isinstance(s, str) and _is_square(rules, s) for s in (*route, *captured)):
        return None
    squares = tuple(_notation(rules, s) for s in route)
    taken = tuple(_notation(rules, s) for s in captured)
    promotes = False
    if before is not None:
        start, end = _number(rules, route[0]), _number(rules, route[-1])
        promotes = any(m.promotes for m in before.legal_moves()
                       if m.start == start and m.end == end)
    return SpokenMove(squares, bool(taken), promotes, taken)


def _is_square(rules: RuleSet, name: str) -> bool:
    try:
        _number(rules, name)
    except (BoardError, ValueError):
        return False
    return True


def _number(rules: RuleSet, name: str) -> int:
    return rules.geometry.parse_square(name)


def _notation(rules: RuleSet, name: str) -> str:
    return rules.square_name(_number(rules, name))
