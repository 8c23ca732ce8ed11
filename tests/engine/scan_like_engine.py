"""A small Hub engine that answers as Scan does (protocol.txt: ``info`` with depth, mean depth,
score in men, nodes, time, speed and PV), for the analysis tests: ``python scan_like_engine.py
MODE``. It does not search: on ``go`` it writes three iterations' ``info`` lines over the
position's first legal moves, a fifth of a second apart (as iterations come), the third a
forced win as Scan scores one (99.97 men: a win in 3 plies), then waits for ``stop`` and
answers ``done``.

Modes: ``scan`` (the lines as Scan writes them), ``garbage`` (before them, ``info`` lines that
do not read: a score that is no number, one beyond a win, a negative depth, a PV move that
is not legal, a PV of a thousand tokens of noise), ``flood`` (5,000 lines at once, deeper and
deeper, the last of them depth 999 with the score 0.42)."""

from __future__ import annotations

import sys
import time

from firmware.engine.hub import move_text, parse_line, parse_position
from firmware.rules.sets import find_rules

GARBAGE = [
    'info depth=3 score=abc pv=""',
    "info depth=3 score=1e308",
    "info depth=-2 score=0.10",
    'info depth=4 score=0.10 pv="1-2"',
    'info depth=4 score=0.10 pv="' + " ".join(["zz-99x"] * 1000) + '"',
]


def infos(position: object) -> list[str]:
    line, at = [], position
    for _ in range(3):
        moves = at.legal_moves()  # type: ignore[attr-defined]
        if not moves:
            break
        line.append(moves[0])
        at = at.play(moves[0])  # type: ignore[attr-defined]
    out = []
    for depth, score in ((1, "0.12"), (2, "-0.25"), (3, "99.97")):
        pv = " ".join(move_text(m) for m in line[:depth])
        out.append(f'info depth={depth} mean-depth={depth}.4 score={score} nodes={depth * 1000} '
                   f'time=0.0{depth} nps=1.0 pv="{pv}"')
    return out


def main() -> int:
    mode = sys.argv[1]
    rules = find_rules("international")
    position = None
    searching = False
    for raw in sys.stdin:
        try:
            line = parse_line(raw)
        except ValueError:
            continue
        out = []
        if line.command == "hub":
            out += ["id name=scanlike version=3.1", 'param name=variant value=normal type=enum '
                    'values="normal killer"', "wait"]
        elif line.command == "init":
            out.append("ready")
        elif line.command == "pos":
            position = parse_position(rules, line.args["pos"])
        elif line.command == "go" and position is not None:
            searching = True
            if mode == "flood":
                first = move_text(position.legal_moves()[0])
                out += [f'info depth={1 + d * 998 // 4999} score={0.42 if d == 4999 else 0.01} '
                        f'pv="{first}"' for d in range(5000)]
            else:
                out += (GARBAGE if mode == "garbage" else []) + infos(position)
        elif line.command == "stop" and searching and position is not None:
            searching = False
            out.append("done move=" + move_text(position.legal_moves()[0]))
        elif line.command == "quit":
            return 0
        for text in out:
            print(text, flush=True)
            if text.startswith("info") and "mean-depth" in text:
                time.sleep(0.2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
