"""Analysis on the board (issue 42 item 4): how soon a new position has its first score, and
how deep the built-in engine gets in a second, as ``boardctl run --analyse`` asks it.

    python benchmarks/bench_analysis.py [--games 4] [--every 6] [--lines 1,3]
                                        [--slowdown 25] [--nice 10]

The engine runs as ``boardctl engine`` behind the Hub client (boardctl.engine.client), asked as
the analysis player asks it (boardctl.engine.analysis): ``level infinite``, ``go analyze``,
``multipv`` lines, the engine's table kept from one position to the next (a game played on,
as on the board). The positions: WK 2003's games (boardctl/data/wk2003.pdn), from ply 10 on,
every ``--every`` plies, each studied for a second. For each: the time from the request to
the first ``info`` line read by the client (the first score: process and pipes included), the
depth of the last ``info`` line before 1 s, and the depth before ``1 s / --slowdown`` (what a
machine that many times slower reaches in a second: a Pi Zero 2 W's CPython is reckoned 25
times slower than the 2-core x86 test machine, hw/README.md "Timing", an estimate, not
measured on a Pi). Each line: the lines asked for, then median and largest first score (ms),
median and least depth in 1 s, median and least depth in the slowed second. The engine runs at
nice 10 as the service starts it (``--nice``): on a machine other jobs load, a nice-10 process
waits behind them (seconds at a load average of 6 on 2 cores), which says nothing of a board,
whose engine has its CPU to itself; ``--nice 0`` measures the engine then, and ``--cpu``
runs the same search in this process on its CPU time (the search's clock is
``time.process_time``: the first score and the depth in a CPU second, whatever else runs; the
process and pipes, a few milliseconds, left out).
"""

from __future__ import annotations

import argparse
import os
import statistics
import threading
import time

from boardctl.engine.client import EngineClient, EngineInfo, ThinkRequest, parse_engine
from firmware.pdn import read_games
from firmware.rules.game import Game

DATA = "boardctl/data/wk2003.pdn"
SECOND = 1.0


def positions(games: int, every: int) -> list[Game]:
    """Games of WK 2003 at their plies 10, 10 + every, ... (each a Game with its history)."""
    out = []
    with open(DATA, encoding="utf-8") as f:
        text = f.read()
    for played in list(read_games(text, DATA))[:games]:
        replay = played.replay()
        for ply in range(10, len(replay.moves) + 1, every):
            game = Game("international", replay.start)
            for move in replay.moves[:ply]:
                game.push(move)
            if game.outcome() is None and game.position.has_legal_move():
                out.append(game)
    return out


def study(client: EngineClient, infos: list[tuple[float, EngineInfo]], done: threading.Event,
          game: Game, lines: int) -> tuple[float, int, list[tuple[float, int]]]:
    """One position for a second: the first score's time, and (time, depth) of each line."""
    infos.clear()
    done.clear()
    t0 = time.monotonic()
    number = client.think(ThinkRequest(game, infinite=SECOND, analyse=True, lines=lines))
    done.wait(SECOND + 10)
    got = [(t - t0, i.info.depth) for t, i in infos
           if i.request == number and i.info is not None and i.info.line == 1]
    first = got[0][0] if got else float("inf")
    return first, number, got


def run(games: int, every: int, lines: int, slowdown: float, nice: int) -> str:
    infos: list[tuple[float, EngineInfo]] = []
    done = threading.Event()
    client = EngineClient(parse_engine("builtin", "international"), grace=0.05, nice=nice,
                          on_info=lambda i: infos.append((time.monotonic(), i)),
                          on_reply=lambda r: done.set())
    firsts, depths, slowed = [], [], []
    try:
        client.think(ThinkRequest(Game("international"), move_time=0.05))  # started, warm
        done.wait(30)
        for game in positions(games, every):
            first, _, got = study(client, infos, done, game, lines)
            firsts.append(first * 1000)
            depths.append(max((d for t, d in got if t <= SECOND), default=0))
            slowed.append(max((d for t, d in got if t <= SECOND / slowdown), default=0))
    finally:
        client.close()
    return (f"lines {lines}, nice {nice}: {len(firsts)} positions; first score median "
            f"{statistics.median(firsts):.0f} ms, largest {max(firsts):.0f} ms; depth in "
            f"{SECOND:g} s median {statistics.median(depths):g}, least {min(depths)}; in "
            f"{SECOND / slowdown * 1000:.0f} ms (a {slowdown:g} times slower second) median "
            f"{statistics.median(slowed):g}, least {min(slowed)}")


def cpu_run(games: int, every: int, lines: int, slowdown: float) -> str:
    """The same positions searched in this process, on its CPU time (``--cpu``)."""
    from firmware.engine.common import Info, Limits
    from firmware.engine.search import Engine

    engine = Engine("international")
    firsts, depths, slowed = [], [], []
    for game in positions(games, every):
        t0 = time.process_time()
        got: list[tuple[float, int]] = []

        def seen(info: Info, t0: float = t0, got: list[tuple[float, int]] = got) -> None:
            got.append((time.process_time() - t0, info.depth))

        engine.search(game, Limits(hard=SECOND), time.process_time, on_info=seen,
                      lines=lines, analyse=True)
        firsts.append(got[0][0] * 1000)
        depths.append(max(d for t, d in got if t <= SECOND))
        slowed.append(max((d for t, d in got if t <= SECOND / slowdown), default=0))
    return (f"lines {lines}, CPU time in-process: {len(firsts)} positions; first score median "
            f"{statistics.median(firsts):.1f} ms, largest {max(firsts):.1f} ms; depth in "
            f"{SECOND:g} s median {statistics.median(depths):g}, least {min(depths)}; in "
            f"{SECOND / slowdown * 1000:.0f} ms median {statistics.median(slowed):g}, least "
            f"{min(slowed)}")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--games", type=int, default=4)
    p.add_argument("--every", type=int, default=6)
    p.add_argument("--lines", default="1,3")
    p.add_argument("--slowdown", type=float, default=25.0)
    p.add_argument("--nice", type=int, default=10)
    p.add_argument("--cpu", action="store_true", help="search in this process on CPU time")
    a = p.parse_args()
    print(f"load average {' '.join(f'{x:.1f}' for x in os.getloadavg())}", flush=True)
    for lines in (int(x) for x in a.lines.split(",")):
        print(cpu_run(a.games, a.every, lines, a.slowdown) if a.cpu
              else run(a.games, a.every, lines, a.slowdown, a.nice), flush=True)
    print(f"load average {' '.join(f'{x:.1f}' for x in os.getloadavg())}", flush=True)


if __name__ == "__main__":
    main()
