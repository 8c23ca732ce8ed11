"""The built-in engine: nodes per second, memory with the default table, and strength over
Hub against py-draughts 1.10.1's engines.

    python benchmarks/bench_engine.py [--games N] [--move-time S] [--skip-matches]
                                      [--only nps|memory|matches|russian|international]
                                      [--py-draughts DIR]

Matches: the built-in engine runs as ``boardctl engine`` behind the Hub client
(boardctl.engine.client), as the service will run it; py-draughts (which imports as ``draughts``
and so lives in its own directory, ``.venv/py-draughts``) runs in a helper process that answers
one position a line. Russian against SimpleEngine (target >= 60%), international against
TurboEngine (target >= 40%). Each opening (two random plies from the start, seeded) is played
twice, each engine White once. The referee is firmware.rules.game (its draw rules end games);
a game still going after 160 plies is adjudicated on material (a man ahead wins, else a draw).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path

from boardctl.engine.client import EngineClient, ThinkRequest, parse_engine
from firmware.engine.common import Limits
from firmware.engine.search import Engine
from firmware.rules.game import Game
from firmware.rules.position import Move, Position
from firmware.rules.sets import Side

ROOT = Path(__file__).resolve().parents[1]
MAX_PLIES = 160
#: CPython single-thread slowdown against this machine's core: the factor bench_scan.py uses
#: for a Pi Zero 2 W (Cortex-A53, 1 GHz), and a Pi 4 (A72, 1.5 GHz) at about 1/7 (the same
#: published pyperformance/pystone runs bench_scan.py names).
SLOWDOWN = {"Pi Zero 2 W": 25.0, "Pi 4": 7.0}

#: The py-draughts side: JSON {"fen", "variant", "engine", "time"} per line in, {"move": [start,
#: end, [captured]]} (PDN square numbers) out. Both numberings are PDN's: 1 = b8 on 8x8.
HELPER = r"""
import json, sys
from draughts.boards.russian import Board as Russian
from draughts.boards.standard import Board as Standard
from draughts.engines.simple import SimpleEngine
from draughts.engines.turbo import TurboEngine
engines = {}
for raw in sys.stdin:
    q = json.loads(raw)
    key = (q["engine"], q["variant"])
    if key not in engines:
        cls = SimpleEngine if q["engine"] == "simple" else TurboEngine
        engines[key] = cls(depth_limit=64, time_limit=q["time"])
    board = (Russian if q["variant"] == "russian" else Standard).from_fen(q["fen"])
    move = engines[key].get_best_move(board)
    print(json.dumps({"move": [move.square_list[0] + 1, move.square_list[-1] + 1,
                               [c + 1 for c in move.captured_list]]}), flush=True)
"""


def numeric_fen(p: Position) -> str:
    def side(s: Side) -> str:
        return ",".join(("K" if p.piece_at(sq).king else "") + str(sq)  # type: ignore[union-attr]
                        for sq in sorted(p.squares_of(s)))
    return f"{p.turn.letter}:W{side(Side.WHITE)}:B{side(Side.BLACK)}"


class PyDraughts:
    def __init__(self, directory: Path) -> None:
        env = dict(os.environ, PYTHONPATH=str(directory))
        self.proc = subprocess.Popen([sys.executable, "-s", "-c", HELPER], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True, env=env, bufsize=1)

    def move(self, game: Game, engine: str, seconds: float) -> Move:
        variant = "russian" if game.rules.size == 8 else "standard"
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(json.dumps({"fen": numeric_fen(game.position), "variant": variant,
                                          "engine": engine, "time": seconds}) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError("the py-draughts helper died")
        start, end, caps = json.loads(line)["move"]
        for m in game.position.legal_moves():
            if m.start == start and m.end == end and set(m.captured) == set(caps):
                return m
        raise RuntimeError(f"py-draughts played {start}-{end} x {caps}: not legal here")

    def close(self) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=10)


def material(p: Position, side: Side) -> int:
    kings = 3 if p.rules.size == 10 else 2
    return p.count(side, king=False) + kings * p.count(side, king=True)


def play(rules: str, opening: list[Move], ours_white: bool, other: PyDraughts, engine: str,
         client: EngineClient, seconds: float) -> float:
    """One game; our score (1, 0.5, 0)."""
    game = Game(rules)
    for m in opening:
        game.push(m)
    client.new_game()
    ours = Side.WHITE if ours_white else Side.BLACK
    while game.outcome() is None and len(game.moves) < MAX_PLIES:
        if game.position.turn is ours:
            client.think(ThinkRequest(game, move_time=seconds))
            reply = client.replies.get(timeout=60)
            if reply.move is None:
                raise RuntimeError(f"built-in engine: {reply.error}")
            game.push(reply.move)
        else:
            game.push(other.move(game, engine, seconds))
    outcome = game.outcome()
    if outcome is not None:
        return 0.5 if outcome.winner is None else float(outcome.winner is ours)
    diff = material(game.position, ours) - material(game.position, ours.other)
    return 1.0 if diff >= 1 else (0.0 if diff <= -1 else 0.5)


def match(rules: str, engine: str, games: int, seconds: float, helper: PyDraughts) -> None:
    client = EngineClient(parse_engine("builtin", rules))
    rng = random.Random(f"{rules}-{engine}")
    total, played, t0 = 0.0, 0, time.perf_counter()
    try:
        while played < games:
            p = Position.start(rules)
            opening = []
            for _ in range(2):
                m = rng.choice(p.legal_moves())
                opening.append(m)
                p = p.play(m)
            for ours_white in (True, False):
                if played >= games:
                    break
                score = play(rules, opening, ours_white, helper, engine, client, seconds)
                total += score
                played += 1
                print(f"    game {played}: {'White' if ours_white else 'Black'} "
                      f"{score:.1f}", flush=True)
    finally:
        client.close()
    print(f"  {rules} vs {engine} at {seconds} s a move: {total:.1f}/{played} = "
          f"{100 * total / played:.0f}% ({time.perf_counter() - t0:.0f} s)", flush=True)


def bench_nps() -> None:
    print("nodes per second (in process, depth-limited search, best of 3; per second of this "
          "process's CPU time, and of wall time: they differ on a loaded machine)")
    for rules, plies in (("international", 9), ("russian", 10), ("home", 10)):
        game = Game(rules)
        rng = random.Random(rules)
        while len(game.moves) < 6 or len(game.position.legal_moves()) < 4:
            game.push(rng.choice(game.position.legal_moves()))
        cpu = wall = 0.0
        nodes = 0
        for _ in range(3):
            engine = Engine(rules, seed=1)
            t, c = time.perf_counter(), time.process_time()
            result = engine.search(game, Limits(depth=plies), time.monotonic)
            dc, dt = time.process_time() - c, time.perf_counter() - t
            nodes = result.nodes
            cpu, wall = max(cpu, nodes / dc), max(wall, nodes / dt)
        print(f"  {rules:14} depth {plies}: {nodes:>8} nodes {cpu:>10,.0f} nodes/s CPU "
              f"{wall:>10,.0f} nodes/s wall")
        print("  " + ", ".join(f"{pi}: ~{cpu / f:,.0f} nodes/s" for pi, f in SLOWDOWN.items()))


def bench_memory(seconds: float) -> None:
    print(f"engine process memory, default table (64 MiB), after {seconds:.0f} s of search")
    proc = subprocess.Popen([sys.executable, "-m", "boardctl", "engine", "--rules",
                             "international"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            text=True, bufsize=1)
    assert proc.stdin is not None and proc.stdout is not None
    start = "W" + "b" * 20 + "e" * 10 + "w" * 20
    proc.stdin.write("hub\ninit\nping\n")
    proc.stdin.flush()
    for line in proc.stdout:
        if line.startswith("pong"):
            break
    base = _rss(proc.pid, "VmRSS")
    proc.stdin.write(f"pos pos={start}\nlevel move-time={seconds}\ngo think\n")
    proc.stdin.flush()
    last = ""
    for line in proc.stdout:
        if line.startswith("info"):
            last = line.strip()
        if line.startswith("done"):
            break
    peak = _rss(proc.pid, "VmHWM")
    proc.stdin.write("quit\n")
    proc.stdin.flush()
    proc.wait(timeout=10)
    print(f"  RSS after init {base:.0f} MiB, peak {peak:.0f} MiB; last {last}")


def _rss(pid: int, field: str) -> float:
    status = Path(f"/proc/{pid}/status").read_text()
    return int(next(x for x in status.splitlines() if x.startswith(field)).split()[1]) / 1024


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10, help="games per match")
    parser.add_argument("--move-time", type=float, default=0.25)
    parser.add_argument("--memory-seconds", type=float, default=30.0)
    parser.add_argument("--skip-matches", action="store_true")
    parser.add_argument("--only", choices=("nps", "memory", "matches", "russian",
                                           "international"))
    parser.add_argument("--py-draughts", type=Path, default=ROOT / ".venv" / "py-draughts")
    args = parser.parse_args()
    if args.only in (None, "nps"):
        bench_nps()
    if args.only in (None, "memory"):
        bench_memory(args.memory_seconds)
    if args.skip_matches or args.only in ("nps", "memory"):
        return 0
    if not (args.py_draughts / "draughts").is_dir():
        print(f"py-draughts not in {args.py_draughts}: "
              "pip install --target .venv/py-draughts py-draughts==1.10.1")
        return 1
    print(f"matches over Hub ({os.cpu_count()} cores)")
    helper = PyDraughts(args.py_draughts)
    try:
        if args.only in (None, "matches", "russian"):
            match("russian", "simple", args.games, args.move_time, helper)
        if args.only in (None, "matches", "international"):
            match("international", "turbo", args.games, args.move_time, helper)
    finally:
        helper.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
