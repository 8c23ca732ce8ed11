"""Move generation speed: perft leaves/s, a whole ``boardctl perft`` process, and the worst
legal_moves() time on capture-heavy positions.

    python benchmarks/bench_movegen.py [--quick] [--pydraughts /path/to/venv/bin/python]

``--pydraughts`` names a Python that has py-draughts 1.10.1 installed (a separate venv: it also
imports as ``draughts`` and must not go into the project's). Its international perft 7 then
runs side by side with ``boardctl perft --rules international --depth 7``, both as whole
processes (start-up and imports included).
"""

from __future__ import annotations

import argparse
import random
import shutil
import subprocess
import sys
import time
from pathlib import Path

from firmware.rules.perft import perft
from firmware.rules.position import Position
from firmware.rules.sets import RuleSet, Side, find_rules

PYDRAUGHTS_PERFT = """
import sys, time
from draughts.boards.standard import Board
from draughts.engines.turbo import perft_from_board
print(perft_from_board(Board(), int(sys.argv[1])))
"""


def bench_perft(quick: bool) -> None:
    print("perft from the start position (in process)")
    cases = [("international", 6), ("russian", 7), ("brazilian", 7)]
    if not quick:
        cases = [("international", 7), ("russian", 8), ("brazilian", 8)]
    for name, depth in cases:
        p = Position.start(name)
        t = time.perf_counter()
        n = perft(p, depth)
        dt = time.perf_counter() - t
        print(f"  {name:14} depth {depth}: {n:>9} leaves {dt:6.2f} s {n / dt:>10,.0f} leaves/s")


def whole_process(argv: list[str]) -> tuple[float, str]:
    t = time.perf_counter()
    out = subprocess.run(argv, capture_output=True, text=True, check=True).stdout
    return time.perf_counter() - t, out.strip().splitlines()[-1]


def bench_process(pydraughts: str | None, depth: int) -> None:
    print(f"international perft {depth} as a whole process (best of 3)")
    boardctl = shutil.which("boardctl", path=str(Path(sys.executable).parent)) or "boardctl"
    ours = [boardctl, "perft", "--rules", "international", "--depth", str(depth)]
    theirs = [pydraughts, "-c", PYDRAUGHTS_PERFT, str(depth)] if pydraughts else None
    runs, truns = [], []
    for _ in range(3):  # interleaved, so that both see the same machine load
        runs.append(whole_process(ours))
        if theirs:
            truns.append(whole_process(theirs))
    best = min(r[0] for r in runs)
    count = int(runs[0][1])
    print(f"  boardctl perft      {best:6.2f} s  {count / best:>10,.0f} leaves/s  ({count})")
    if truns:
        tbest = min(r[0] for r in truns)
        tcount = int(truns[0][1])
        print(f"  py-draughts 1.10.1  {tbest:6.2f} s  {tcount / tbest:>10,.0f} leaves/s "
              f"({tcount})")
        print(f"  boardctl is {tbest / best:.2f}x as fast")


def grid_position(rules: RuleSet, kings: list[str]) -> Position:
    """Black men on every odd file and odd rank inside the edge: a king can zigzag through all."""
    g = rules.geometry
    s = rules.size
    black = {g.number(f"{chr(97 + f)}{r + 1}"): False
             for f in range(1, s - 1, 2) for r in range(1, s - 1, 2)}
    white = {g.number(k): True for k in kings}
    return Position(rules, Side.WHITE, white, black)


def random_position(rules: RuleSet, rng: random.Random) -> Position:
    n, h = rules.squares, rules.size // 2
    white: dict[int, bool] = {}
    black: dict[int, bool] = {}
    for sq in rng.sample(range(1, n + 1), rng.randint(6, n * 2 // 3)):
        is_white = rng.random() < 0.5
        king = rng.random() < 0.3 or (sq <= h if is_white else sq > n - h)
        (white if is_white else black)[sq] = king
    return Position(rules, rng.choice([Side.WHITE, Side.BLACK]), white, black)


def timed_moves(p: Position, repeat: int = 1) -> tuple[float, int]:
    """Best of ``repeat`` timings of legal_moves() on a fresh copy (no cached move list)."""
    best = float("inf")
    n = 0
    for _ in range(repeat):
        fresh = Position.from_fen(p.rules, p.fen())
        t = time.perf_counter()
        n = len(fresh.legal_moves())
        best = min(best, time.perf_counter() - t)
    return best, n


def bench_worst(quick: bool) -> None:
    """The slowest positions found (and those with the most routes), each re-timed (best of
    7) so that a scheduler hiccup on a busy machine is not reported as the worst case."""
    print("worst legal_moves() time on capture-heavy positions")
    samples = 2000 if quick else 20000
    for name in ("international", "russian", "brazilian", "home"):
        rules = find_rules(name)
        kings = ["a1", "e1", "i1"] if rules.size == 10 else ["a1", "e1"]
        crafted = grid_position(rules, kings)
        dt, n = timed_moves(crafted, 7)
        print(f"  {name:14} grid of men vs {len(kings)} kings: {n:4} routes {dt * 1000:7.2f} ms")
        rng = random.Random(name)
        timings: list[tuple[float, int, Position]] = []
        total = 0.0
        for _ in range(samples):
            p = random_position(rules, rng)
            dt, n = timed_moves(p)
            total += dt
            timings.append((dt, n, p))
        slowest = sorted(timings, key=lambda item: item[0])[-20:]
        most_routes = sorted(timings, key=lambda item: item[1])[-20:]
        worst = max((timed_moves(p, 7) + (p.fen(),) for _, _, p in slowest + most_routes),
                    key=lambda item: item[0])
        print(f"  {name:14} {samples} random positions: mean {total / samples * 1e6:6.0f} us, "
              f"worst {worst[0] * 1000:.2f} ms ({worst[1]} routes) {worst[2]}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller runs")
    parser.add_argument("--pydraughts", metavar="PYTHON",
                        help="a Python with py-draughts 1.10.1, for the side-by-side run")
    args = parser.parse_args()
    bench_perft(args.quick)
    bench_process(args.pydraughts, 6 if args.quick else 7)
    bench_worst(args.quick)
    return 0


if __name__ == "__main__":
    sys.exit(main())
