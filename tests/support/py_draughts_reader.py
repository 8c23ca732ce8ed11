"""Run by tests/pdn/test_pdn_oracles.py with py-draughts on PYTHONPATH: JSON list of
``{"variant", "pdn"}`` on stdin; for each, py-draughts' ``Board.from_pdn`` replays the game and
the final position is printed as an algebraic (8x8) or numeric (10x10) FEN; JSON on stdout."""

from __future__ import annotations

import json
import sys
from typing import Any


def main() -> int:
    import draughts

    boards = {
        "standard": draughts.StandardBoard,
        "russian": draughts.RussianBoard,
        "brazilian": draughts.BrazilianBoard,
    }
    out: list[dict[str, Any]] = []
    for item in json.load(sys.stdin):
        cls = boards[item["variant"]]
        try:
            board = cls.from_pdn(item["pdn"])
        except Exception as exc:  # noqa: BLE001 - any failure to read is the answer
            out.append({"ok": False, "error": repr(exc)[:300]})
            continue
        out.append({"ok": True, "fen": _fen(board.fen, list(getattr(cls, "SQUARE_NAMES", [])))})
    json.dump(out, sys.stdout)
    return 0


def _fen(text: str, names: list[str]) -> str:
    """``[FEN "W:W21,22:B1"]`` -> ``W:Wc3,...`` (their 8x8 numbers through their square names)."""
    body = text.strip()
    if body.startswith("[FEN"):
        body = body.split('"')[1]
    if not names:
        return body
    turn, *sides = body.split(":")
    parts = [turn]
    for side in sides:
        colour, squares = side[:1], side[1:]
        named = []
        for sq in filter(None, squares.split(",")):
            king = sq.startswith("K")
            number = int(sq[1:] if king else sq)
            named.append(("K" if king else "") + names[number - 1])
        parts.append(colour + ",".join(named))
    return ":".join(parts)


if __name__ == "__main__":
    sys.exit(main())
