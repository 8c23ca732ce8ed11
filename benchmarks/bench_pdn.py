"""PDN and game-record speed: reading, replaying (notation + rules + draw counters) and writing
the real games in tests/data/pdn.

Run: ``.venv/bin/python benchmarks/bench_pdn.py [--repeat N]``

Prints per stage the games/s and plies/s, best of N runs, and the slowest single ply of the
replay (parse_move + Game.push: what a board pays per move on top of move generation).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from firmware.errors import PdnError  # noqa: E402
from firmware.pdn import PdnGame, format_game, read_games  # noqa: E402
from firmware.rules.game import Game  # noqa: E402
from firmware.rules.notation import parse_move  # noqa: E402

DATA = Path(__file__).resolve().parent.parent / "tests" / "data" / "pdn"


def load() -> list[tuple[str, bytes]]:
    return [(p.name, p.read_bytes()) for p in sorted(DATA.glob("*.pdn"))]


def read_all(files: list[tuple[str, bytes]]) -> list[PdnGame]:
    return [g for name, data in files for g in read_games(data, name)]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    files = load()
    games = read_all(files)
    plies = sum(len(g.moves) for g in games)
    print(f"{len(files)} files, {len(games)} games, {plies} plies")

    def best(fn: object) -> float:
        times = []
        for _ in range(args.repeat):
            t = time.perf_counter()
            fn()  # type: ignore[operator]
            times.append(time.perf_counter() - t)
        return min(times)

    t_read = best(lambda: read_all(files))
    print(f"read:    {t_read:7.3f} s  {len(games) / t_read:9.0f} games/s  "
          f"{plies / t_read:9.0f} plies/s")
    records: list[Game] = []
    t_replay = best(lambda: records.__setitem__(slice(None), [g.replay() for g in games]))
    print(f"replay:  {t_replay:7.3f} s  {len(games) / t_replay:9.0f} games/s  "
          f"{plies / t_replay:9.0f} plies/s")
    t_write = best(lambda: [format_game(r, g.tags) for r, g in zip(records, games, strict=True)])
    print(f"write:   {t_write:7.3f} s  {len(games) / t_write:9.0f} games/s  "
          f"{plies / t_write:9.0f} plies/s")

    worst = 0.0
    for g in games:
        record = Game(g.rules())
        for m in g.moves:
            t = time.perf_counter()
            record.push(parse_move(record.position, m.text))
            worst = max(worst, time.perf_counter() - t)
    print(f"slowest ply (parse_move + push): {worst * 1e3:.2f} ms")

    # Hostile input: comments that never balance. Each "{" once scanned to the end of the
    # file, so reading took time growing with the square of the size.
    for count in (10_000, 30_000, 100_000):
        text = "[Event \"x\"]\n1. 32-28 " + "{{}" * count + " *\n"
        t = time.perf_counter()
        try:
            list(read_games(text, "hostile"))
        except PdnError:
            pass
        print(f"unbalanced comments {{{{}} x {count}: read in {time.perf_counter() - t:.3f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
