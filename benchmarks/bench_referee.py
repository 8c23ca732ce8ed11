"""Events per second through the referee (BoardSession: referee + clock + record) on a noisy
100-move international game, and the worst / p99 per-event time.

Target (issue 3): p99 per event under 1 ms, which keeps a Pi Zero 2 within one 10 ms scan.

    .venv/bin/python benchmarks/bench_referee.py [--games N] [--unclocked]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from firmware.rules.game import Game
from firmware.session.handling import NOISY, handle_game
from firmware.session.session import BoardSession


def noisy_international_game(seed: int, plies: int = 200) -> Game:
    """A legal international game of 100 moves (200 plies), played by a cautious random
    player (a move that leaves no capture when there is one): the first seed from ``seed`` on
    whose game lasts that long."""
    while True:
        rng = random.Random(seed)
        game = Game("international")
        while len(game.moves) < plies and game.outcome() is None:
            legal = game.position.legal_moves()
            safe = [m for m in legal if not game.position.play(m).has_capture()]
            game.push(rng.choice(safe or legal))
        if len(game.moves) == plies:
            return game
        seed += 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--unclocked", action="store_true", help="settle time instead of presses")
    args = parser.parse_args()
    clocked = not args.unclocked
    times: list[float] = []
    cpu: list[float] = []
    total_events = 0
    total_moves = 0
    wall = 0.0
    for seed in range(args.games):
        game = noisy_international_game(seed + 2)
        events = handle_game(game.start, game.moves, seed=seed, clocked=clocked, style=NOISY)
        session = BoardSession("international", "5400+30" if clocked else None)
        moves = 0
        t_all = time.perf_counter()
        for e in events:
            c0 = time.thread_time()
            t0 = time.perf_counter()
            out = session.handle(e)
            times.append(time.perf_counter() - t0)
            cpu.append(time.thread_time() - c0)
            moves += sum(1 for r in out if r.type == "move")
        moves += sum(1 for r in session.finish() if r.type == "move")
        wall += time.perf_counter() - t_all
        assert moves == len(game.moves), (moves, len(game.moves))
        total_events += len(events)
        total_moves += moves
    times.sort()
    cpu.sort()
    p99 = times[int(len(times) * 0.99)]
    cpu99 = cpu[int(len(cpu) * 0.99)]
    print(f"games: {args.games} international, {total_moves} moves, {total_events} events "
          f"({'clocked' if clocked else 'settle time'}, noisy hands)")  # fmt: skip
    print(f"events/s: {total_events / wall:,.0f}")
    print(f"per event: median {statistics.median(times) * 1e6:.1f} us, "
          f"p99 {p99 * 1e6:.1f} us, worst {times[-1] * 1e6:.1f} us")  # fmt: skip
    print(f"CPU time per event (preemption left out): p99 {cpu99 * 1e6:.1f} us, "
          f"worst {cpu[-1] * 1e6:.1f} us")  # fmt: skip
    print(f"p99 target < 1000 us: {'met' if p99 < 1e-3 else 'NOT met'}")


if __name__ == "__main__":
    main()
