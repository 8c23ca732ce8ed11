"""An engine's lines as people and the feed read them: moves in the rule set's PDN notation,
scores in hundredths of a man for the side to move, a forced win as ``win`` (the winner's
moves: firmware.engine.scores.win_moves). What the ``analysis`` feed line, the ``hint``
answer's alternatives and ``status`` say."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from firmware.engine.hub import HubInfo
from firmware.engine.scores import win_moves
from firmware.rules.notation import move_text
from firmware.rules.position import Move, Position


def pdn_moves(position: Position, moves: Iterable[Move]) -> tuple[str, ...]:
    """``moves`` played from ``position``, each in PDN notation (shortest unambiguous)."""
    out = []
    for move in moves:
        out.append(move_text(position, move))
        position = position.play(move)
    return tuple(out)


def line_members(position: Position, info: HubInfo) -> dict[str, Any]:
    """One line: ``{"move", "score", "best"}`` (``best`` the whole line, ``move`` its first)
    and ``win`` in a forced win or loss."""
    best = pdn_moves(position, info.pv)
    said: dict[str, Any] = {"move": best[0] if best else None, "score": info.score,
                            "best": list(best)}
    win = win_moves(info.score) if info.score is not None else None
    if win is not None:
        said["win"] = win
    return said


def alternatives(position: Position, lines: Sequence[HubInfo]) -> list[dict[str, Any]]:
    """The lines with a move and a score, best first (a hint's alternatives)."""
    return [line_members(position, info) for info in lines
            if info.pv and info.score is not None]
