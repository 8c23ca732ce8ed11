"""How long a person waits for the built-in engine: the first moves of a game per level and
rule set, on a clock, as the service asks it.

    python benchmarks/bench_engine_waits.py [--moves N] [--levels 1,5,10]
                                            [--games international:300+5,russian:600+5]

The engine runs as ``boardctl engine`` behind the Hub client (boardctl.engine.client), asked
as the engine player asks it (boardctl.engine.player): its clock's remaining time and the
increment (``level time=... inc=...``). Its clock is charged the wall time from the request to
its ``done`` line and given the increment after each move; the person's moves (a seeded
level-4 search in this process) cost the engine nothing. A wait is what the person sits
through: the request to the reply, process and pipes included. Each line: the level, the
waits of the engine's first N moves in seconds, then their median, largest and sum, and the
engine's clock at the end.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from boardctl.engine.client import EngineClient, ThinkRequest, parse_engine
from firmware.engine.common import Limits
from firmware.engine.search import Engine
from firmware.rules.game import Game
from firmware.rules.sets import Side

GAMES = "international:300+5,russian:600+5"


def person(rules: str, seed: int) -> Engine:
    """The person's side: a shallow search (level 4), seeded, answering at once."""
    return Engine(rules, level=4, tt_mib=8, seed=seed)


def waits(rules: str, level: int, base: float, inc: float, moves: int) -> tuple[list[float],
                                                                                   float]:
    """The engine (White) against the person: its waits for its first ``moves`` moves, and
    its clock at the end."""
    client = EngineClient(parse_engine("builtin", rules, str(level)),
                          handshake_timeout=120.0)  # a loaded machine starts it slowly
    other = person(rules, seed=level)
    game = Game(rules)
    remaining = base
    out: list[float] = []
    try:
        client.think(ThinkRequest(game, depth=1))  # the process started and warm
        client.replies.get(timeout=60)
        client.new_game()
        while len(out) < moves and game.outcome() is None:
            if game.position.turn is Side.WHITE:
                t0 = time.monotonic()
                client.think(ThinkRequest(game, remaining=remaining, increment=inc))
                reply = client.replies.get(timeout=max(60.0, remaining + 10))
                wait = time.monotonic() - t0
                if reply.move is None:
                    raise RuntimeError(f"level {level}: {reply.error}")
                out.append(wait)
                remaining = remaining - wait + inc
                game.push(reply.move)
            else:
                game.push(other.search(game, Limits(depth=3), time.monotonic).move)
    finally:
        client.close()
    return out, remaining


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--moves", type=int, default=20)
    ap.add_argument("--levels", default="1,2,3,4,5,6,7,8,9,10")
    ap.add_argument("--games", default=GAMES, help=f"RULES:BASE+INC,... (default {GAMES})")
    args = ap.parse_args()
    levels = [int(x) for x in args.levels.split(",")]
    for spec in args.games.split(","):
        rules, _, tc = spec.partition(":")
        base_text, _, inc_text = tc.partition("+")
        base, inc = float(base_text), float(inc_text or 0)
        print(f"{rules} {base:g}+{inc:g}: the engine's waits for its first {args.moves} moves, "
              "seconds", flush=True)
        for level in levels:
            random.seed(level)
            got, left = waits(rules, level, base, inc, args.moves)
            row = " ".join(f"{w:5.2f}" for w in got)
            print(f"  level {level:2}: {row} | median {statistics.median(got):4.1f} "
                  f"max {max(got):4.1f} sum {sum(got):5.1f} | clock {left:5.1f}", flush=True)


if __name__ == "__main__":
    main()
