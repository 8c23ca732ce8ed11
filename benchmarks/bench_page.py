"""Benchmarks of the live page (issue 14): run ``python benchmarks/bench_page.py [--boards 200]``.

The relay's real HTTP server and state with the live hub on their hooks, in this process; a
hall of N boards, each playing a real game (WK 2003, boardctl/data/wk2003.pdn) with clocks;
Debian's headless Chromium on the page (tests/support/browser.py).

1. First load: the bytes of ``/``, ``live.js``, ``live.css`` (gzipped, as a browser asks) and
   of the event stream's first ``state`` event with every board; the time until the browser
   shows all N boards.
2. Page update latency: moves fed at a steady rate (default 20 a second, six times the issue's
   peak of 2 moves a board a minute for 200 boards) with routine snapshots (each board every
   10 s); for each move, seconds from the relay taking the line to the page's DOM showing it
   (``window.liveStats``, relay and browser on one machine, one wall clock); p50/p95/p99/max.
3. The relay process's CPU during that phase, and the cost of one tick of the delayed page's
   pump with N boards.
"""

from __future__ import annotations

import argparse
import gzip
import http.client
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE.parent / "tests"))

from support.browser import chrome  # noqa: E402
from support.live_helpers import game_records  # noqa: E402

from boardctl.relay.http import PdnServer  # noqa: E402
from boardctl.relay.live.web import LiveHub  # noqa: E402
from boardctl.relay.relay import Relay  # noqa: E402
from firmware.formats.feed import encode_line  # noqa: E402
from firmware.pdn import read_games  # noqa: E402
from firmware.rules.position import Position  # noqa: E402

START = Position.start("international").fen()


class Hall:
    def __init__(self, boards: int, plies: int, delay: float = 0.0) -> None:
        self.server = PdnServer(("127.0.0.1", 0))
        self.relay = Relay([], server=self.server)
        self.hub = LiveHub(delay=delay)
        self.observe_costs: list[float] = []

        def observe(source: str, record: Any) -> None:  # the live page's share, timed
            t = time.perf_counter()
            self.hub.observe(source, record)
            self.observe_costs.append(time.perf_counter() - t)

        self.relay.state.observers.append(observe)
        self.server.extra_handlers.append(self.hub.handle)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        data = HERE.parent / "boardctl" / "data" / "wk2003.pdn"
        games = sum(1 for _ in read_games(data.read_text(), "wk2003"))
        self.games = {f"B{i + 1}": game_records(f"g{i}", plies, number=i % games + 1,
                                                 board=str(i + 1), white=f"White {i + 1}",
                                                 black=f"Black {i + 1}")
                      for i in range(boards)}
        self.seq: dict[str, int] = {}

    def feed(self, board: str, record: dict[str, Any]) -> None:
        seq = self.seq.get(board, 0)
        self.seq[board] = seq + 1
        self.relay.state.feed_line(board, encode_line(record, seq))
        self.relay.publish()

    def snapshot(self, board: str, ply: int) -> dict[str, Any]:
        records = self.games[board]
        moves = [{k: r[k] for k in ("ply", "side", "move", "clock")} for r in records[2:2 + ply]]
        last = records[1 + ply]
        return {"type": "snapshot", "game": records[1]["game"], "rules": "international",
                "start_fen": START, "fen": last.get("fen"),
                "tags": records[1]["tags"], "moves": moves, "clock": last.get("clock"),
                "running": "black" if last.get("side") == "white" else "white"}

    @property
    def port(self) -> int:
        return int(self.server.server_address[1])


def get(port: int, path: str, gzipped: bool = True) -> bytes:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    conn.request("GET", path, headers={"Accept-Encoding": "gzip"} if gzipped else {})
    body = conn.getresponse().read()
    conn.close()
    return body


def first_state(port: int) -> bytes:
    """The event stream's bytes up to the end of its first ``state`` event."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    conn.request("GET", "/events")
    resp = conn.getresponse()
    got = b""
    while b"event: state" not in got or not got.endswith(b"\n\n"):
        got += resp.read1(65536)
    conn.close()
    return got


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--boards", type=int, default=200)
    parser.add_argument("--moves", type=int, default=400, help="moves fed in the timed phase")
    parser.add_argument("--rate", type=float, default=20.0, help="moves a second")
    args = parser.parse_args()
    preload = 20
    hall = Hall(args.boards, preload + args.moves // args.boards + 2)
    for board, records in hall.games.items():
        for record in records[: 2 + preload]:
            hall.feed(board, record)

    print(f"live page with {args.boards} boards, {preload} plies each")
    sizes = {path: (len(get(hall.port, path, False)), len(get(hall.port, path)))
             for path in ("/", "/static/live.js", "/static/live.css")}
    state = first_state(hall.port)
    for path, (plain, packed) in sizes.items():
        print(f"  {path:18} {plain:7d} B, gzipped {packed:6d} B")
    print(f"  {'state event':18} {len(state):7d} B, gzipped {len(gzip.compress(state)):6d} B"
          " (sent plain)")
    total = sum(p for _, p in sizes.values()) + len(state)
    print(f"  first load: {total} B on the wire ({total / 1e6 * 8 / 100 * 1000:.0f} ms at "
          "100 Mbit/s)")

    driver = chrome(Path(tempfile.mkdtemp(prefix="bench-page-")))
    try:
        t0 = time.perf_counter()
        driver.get(f"http://127.0.0.1:{hall.port}/")
        while driver.execute_script(
                "return document.querySelectorAll('[data-board][data-fen]').length") < args.boards:
            time.sleep(0.01)
        shown = time.perf_counter() - t0
        nav = driver.execute_script(
            "var n = performance.getEntriesByType('navigation')[0];"
            "return [n.domContentLoadedEventEnd, liveStats.stateAt, liveStats.stateMs];")
        print(f"  browser: DOMContentLoaded {nav[0]:.0f} ms, all {args.boards} boards drawn "
              f"{nav[1]:.0f} ms after navigation start (state event handled in {nav[2]:.0f} ms; "
              f"{shown * 1000:.0f} ms seen from the test driver)")

        driver.execute_script("window.liveStats.lat.length = 0; window.liveStats.n = 0;")
        hall.observe_costs.clear()
        boards = list(hall.games)
        cpu0, wall0 = time.process_time(), time.perf_counter()
        period = 1.0 / args.rate
        snap_period = 10.0 / args.boards  # every board once in 10 s
        next_move = next_snap = time.perf_counter()
        fed = snaps = 0
        ply = {b: preload for b in boards}
        feed_costs = []
        while fed < args.moves:
            now = time.perf_counter()
            if now >= next_move:
                board = boards[fed % len(boards)]
                ply[board] += 1
                t = time.perf_counter()
                hall.feed(board, hall.games[board][1 + ply[board]])
                feed_costs.append(time.perf_counter() - t)
                fed += 1
                next_move += period
            if now >= next_snap:
                board = boards[snaps % len(boards)]
                hall.feed(board, hall.snapshot(board, ply[board]))
                snaps += 1
                next_snap += snap_period
            time.sleep(max(0.0, min(next_move, next_snap) - time.perf_counter()))
        time.sleep(1.0)  # the last events reach the page
        cpu = (time.process_time() - cpu0) / (time.perf_counter() - wall0)
        lat = [float(x) for x in driver.execute_script("return window.liveStats.lat")]
        print(f"update latency, {fed} moves at {args.rate:g}/s with {snaps} snapshots "
              f"({len(lat)} board events on the page):")
        print(f"  relay line -> page DOM: p50 {pct(lat, 50) * 1000:.1f} ms, "
              f"p95 {pct(lat, 95) * 1000:.1f} ms, p99 {pct(lat, 99) * 1000:.1f} ms, "
              f"max {max(lat) * 1000:.1f} ms")
        median, p99 = statistics.median(feed_costs) * 1e3, pct(feed_costs, 99) * 1e3
        print(f"  relay taking one move line (state, PDN, live hub): median {median:.2f} ms, "
              f"p99 {p99:.2f} ms")
        costs = hall.observe_costs
        print(f"  of which the live hub (view, JSON, publish): median "
              f"{statistics.median(costs) * 1e3:.2f} ms, p99 {pct(costs, 99) * 1e3:.2f} ms")
        print(f"  relay process CPU (this process, browser apart): {cpu * 100:.1f}% of one core")
    finally:
        driver.quit()

    hall.hub.delay = 120.0
    t = time.perf_counter()
    for _ in range(50):
        hall.hub.tick()
    print(f"delayed page pump: {(time.perf_counter() - t) / 50 * 1000:.2f} ms a tick with "
          f"{args.boards} boards (a tick every 0.2 s)")
    hall.hub.close()
    hall.server.shutdown()
    hall.server.server_close()


if __name__ == "__main__":
    main()
