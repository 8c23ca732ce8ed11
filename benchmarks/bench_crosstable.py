"""Crosstable cost: what one request to ``/HALL/crosstable.html`` or ``.csv`` pays (reading the
tournament file, reading every game of the hall's PDN, matching, scoring, rendering), for the
largest tournament the tables cover: 24 players, double round robin, 552 games, each carrying
the moves of a real game (World Championship 2003, boardctl/data/wk2003.pdn), as the relay's
``/HALL.pdn`` does at the end of the event.

Run: ``.venv/bin/python benchmarks/bench_crosstable.py [--repeat N] [--players N]``
Prints the best of N for each stage, the PDN's size, and the page's bytes.
"""

from __future__ import annotations

import argparse
import http.server
import random
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from boardctl.hall.crosstable_http import crosstable_handler  # noqa: E402
from boardctl.hall.files import build_crosstable, load_tournament, save_tournament  # noqa: E402
from firmware.pdn import read_games  # noqa: E402
from firmware.tournament.crosstable import render_csv, render_html  # noqa: E402
from firmware.tournament.players import Player, draw_numbers  # noqa: E402
from firmware.tournament.state import Tournament  # noqa: E402

GAME = Path(__file__).resolve().parent.parent / "boardctl" / "data" / "wk2003.pdn"


def hall_pdn(t: Tournament, rng: random.Random) -> str:
    """Every game of the tournament with the sample game's moves and a random result."""
    source = next(iter(read_games(GAME.read_bytes(), GAME.name)))
    first_body = GAME.read_text(encoding="utf-8").split("\n\n")[1]
    body = first_body.rsplit(source.result or "*", 1)[0]
    out = []
    for g in t.all_games():
        result = rng.choice(["2-0", "1-1", "0-2"])
        out.append(f'[Event "Bench"]\n[Round "{g.round}.{g.board}"]\n[White "{g.white}"]\n'
                   f'[Black "{g.black}"]\n[Result "{result}"]\n\n{body.strip()} {result}\n')
    return "\n".join(out)


def best(repeat: int, fn) -> float:  # type: ignore[no-untyped-def]
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def over_http(state: Path, pdn: str) -> tuple[float, float]:
    """Two GETs of the page through the handler on a plain http.server (the relay's hook)."""
    handler = crosstable_handler(state, lambda: pdn)

    class Request(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802
            if not handler(self, self.path):
                self.send_error(404)

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Request)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/hall/crosstable.html"
    times = []
    try:
        for _ in range(2):
            start = time.perf_counter()
            with urllib.request.urlopen(url, timeout=60) as response:
                response.read()
            times.append(time.perf_counter() - start)
    finally:
        server.shutdown()
        server.server_close()
    return times[0], times[1]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--players", type=int, default=24)
    args = parser.parse_args()
    rng = random.Random(1)
    names = [f"Player {i:02d}" for i in range(1, args.players + 1)]
    t = Tournament([Player(n) for n in names], event="Bench", cycles=2,
                   numbers=draw_numbers(names, rng))
    pdn = hall_pdn(t, rng)
    with tempfile.TemporaryDirectory() as tmp:
        state = Path(tmp) / "t.json"
        save_tournament(state, t)
        games = len(t.all_games())
        print(f"{args.players} players, double round robin: {games} games, "
              f"PDN {len(pdn.encode()) / 1024:.0f} KiB")
        load = best(args.repeat, lambda: load_tournament(state))
        parse = best(args.repeat, lambda: list(read_games(pdn, "hall")))
        table = build_crosstable(t, [lambda: pdn])
        whole = best(args.repeat, lambda: build_crosstable(load_tournament(state), [lambda: pdn]))
        html = best(args.repeat, lambda: render_html(t, table))
        csv = best(args.repeat, lambda: render_csv(t, table))
        page = render_html(t, table).encode()
        print(f"read tournament file  {load * 1000:8.2f} ms")
        print(f"read the hall's PDN   {parse * 1000:8.2f} ms")
        print(f"file + PDN + scoring  {whole * 1000:8.2f} ms")
        print(f"render HTML           {html * 1000:8.2f} ms  ({len(page)} bytes)")
        print(f"render CSV            {csv * 1000:8.2f} ms")
        print(f"one request (about)   {(whole + html) * 1000:8.2f} ms")
        first, again = over_http(state, pdn)
        print(f"HTTP GET, games new   {first * 1000:8.2f} ms")
        print(f"HTTP GET, unchanged   {again * 1000:8.2f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
