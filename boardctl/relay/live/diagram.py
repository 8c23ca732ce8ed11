"""What the page draws of a position: the pieces square by square, the squares a move touches,
and the positions a list of move texts leads to (the firmware's own rules and notation)."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from firmware.errors import BoardError
from firmware.rules.sets import RuleSet, find_rules


def rule_set(name: str | None) -> RuleSet | None:
    """The rule set of that name, or None for a name the firmware does not know."""
    if not name:
        return None
    try:
        return find_rules(name)
    except (BoardError, ValueError, KeyError):
        return None


@lru_cache(maxsize=8192)
def pieces(rules_name: str | None, fen: str | None) -> str:
    """The dark squares 1..N in PDN order (from Black's side, row by row), one letter each:
    ``w``/``b`` men, ``W``/``B`` kings, ``.`` empty (what the page draws); empty for a FEN
    that does not read."""
    from firmware.rules.position import Position

    rules = rule_set(rules_name) or find_rules("international")
    if not fen:
        return ""
    try:
        position = Position.from_fen(rules, fen)
    except (BoardError, ValueError):
        return ""
    out = []
    for square in range(1, rules.squares + 1):
        piece = position.piece_at(square)
        if piece is None:
            out.append(".")
        else:
            letter = "w" if piece.side.value == "white" else "b"
            out.append(letter.upper() if piece.king else letter)
    return "".join(out)


def move_view(rules_name: str | None, move: Any) -> dict[str, Any] | None:
    """The last move as the page shows it: its text, ply, side and the squares to highlight."""
    if move is None:
        return None
    return {"ply": move.ply, "side": move.side, "move": move.move,
            "hl": move_squares(rules_name, move.move)}


def move_squares(rules_name: str | None, text: str) -> list[int]:
    """The squares a move's text names (its start, the squares it passes, its end), by
    number; empty for a text that does not read."""
    rules = rule_set(rules_name) or find_rules("international")
    try:
        return [rules.geometry.parse_square(p) for p in re.split(r"[-x:]", text)]
    except BoardError:
        return []


def replay(rules_name: str | None, fen: str | None, moves: list[str]) -> list[str | None]:
    """The position after each move text, played from ``fen``; None from the first move that
    does not play (the page then shows the feed's own FEN)."""
    from firmware.rules.notation import parse_move
    from firmware.rules.position import Position

    rules = rule_set(rules_name)
    out: list[str | None] = [None] * len(moves)
    if rules is None or fen is None:
        return out
    try:
        position = Position.from_fen(rules, fen)
        for i, text in enumerate(moves):
            position = position.play(parse_move(position, text))
            out[i] = position.fen()
    except (BoardError, ValueError):
        pass
    return out
