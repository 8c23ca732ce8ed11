"""Benchmark of the arbiter's desk (issue 31): ``python benchmarks/bench_desk.py``.

bench_hall's load (a real Mosquitto, the relay as a process, 200 simulated boards publishing
their feeds at 2 moves per board per minute with a snapshot every 10 s) plus real boards
(``boardctl run --sim --hall-key``) playing a game, and the relay started with ``--hall-key``
and ``--arbiter-token``. The desk then sends requests over HTTP (``POST /arbiter/BOARD``):
acts (``clock-set``, ``pause``, ``resume``, ``moves-set``) and queries (``status``,
``timeline``), one after another to the real boards in turn, and notes each round trip:
request -> relay -> broker -> board (checked, acted on the referee's thread, journaled)
-> signed reply -> relay -> answer.

Target (issue 31): p99 desk round trip under 500 ms with 200 boards on the broker.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE.parent / "tests"))

from bench_hall import HALL, SimBoards, cpu_seconds, pct  # noqa: E402
from support.mqtt_broker import Mosquitto, free_port  # noqa: E402
from support.processes import stop_by_pid  # noqa: E402

TOKEN = "bench-desk-token"
REQUESTS = [
    {"cmd": "status"},
    {"cmd": "clock-set", "side": "black", "seconds": 5000},
    {"cmd": "pause"},
    {"cmd": "resume"},
    {"cmd": "moves-set", "side": "white", "moves": 3},
    {"cmd": "timeline", "ply": 2},
]


def post(url: str, body: dict[str, object]) -> tuple[int, dict[str, object]]:
    request = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                     headers={"Authorization": f"Bearer {TOKEN}"})
    try:
        with urllib.request.urlopen(request, timeout=10) as resp:
            return resp.status, json.loads(resp.read())
    except urllib.error.HTTPError as exc:
        return exc.code, {}


def wait_ready(base: str, boards: list[str], deadline: float) -> None:
    for board in boards:
        while time.monotonic() < deadline:
            try:
                code, answer = post(f"{base}/arbiter/{board}", {"cmd": "start"})
            except OSError:  # the relay is not listening yet
                code = 0
            if code == 200:
                break
            time.sleep(0.2)
        else:
            raise SystemExit(f"board {board} never answered the desk")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--boards", type=int, default=200, help="simulated boards (one publisher)")
    ap.add_argument("--real", type=int, default=3, help="real boards the desk acts on")
    ap.add_argument("--rate", type=float, default=2.0, help="moves per board per minute")
    ap.add_argument("--requests", type=int, default=300, help="desk requests in all")
    ap.add_argument("--gap", type=float, default=0.1, help="seconds between desk requests")
    opts = ap.parse_args()

    tmp = Path(tempfile.mkdtemp(prefix="bench-desk-"))
    (tmp / "hall.key").write_text("bench-hall-key-0123456789abcdef\n")
    broker = Mosquitto(tmp / "broker").start()
    http_port = free_port()
    procs: list[subprocess.Popen[bytes]] = []
    stop = threading.Event()
    try:
        relay = subprocess.Popen([sys.executable, "-m", "boardctl", "relay", "--broker",
                                  broker.url, "--hall", HALL, "--http", f"127.0.0.1:{http_port}",
                                  "--arbiter-token", TOKEN, "--hall-key", str(tmp / "hall.key"),
                                  "--state-dir", str(tmp / "relay")],
                                 stderr=subprocess.DEVNULL)
        procs.append(relay)
        from support.service_helpers import game_log

        log = tmp / "game.jsonl"
        log.write_text("".join(json.dumps(e.record()) + "\n" for e in
                               game_log(40, seed=1, think=(0.5, 1.5), change_mind=0.0)))
        real = [f"r{n}" for n in range(opts.real)]
        for name in real:
            procs.append(subprocess.Popen(
                [sys.executable, "-m", "boardctl", "run", "--sim", "--rules", "international",
                 "--time-control", "5400+30", "--state-dir", str(tmp / name),
                 "--events", str(log), "--broker", broker.url, "--hall", HALL,
                 "--board", name, "--round", "1", "--hall-key", str(tmp / "hall.key")],
                stderr=subprocess.DEVNULL))
        base = f"http://127.0.0.1:{http_port}"
        wait_ready(base, real, time.monotonic() + 60)
        sim = SimBoards(broker.port, opts.boards, opts.rate)
        sim.begin()
        load = threading.Thread(target=sim.run, args=(3600.0, stop), daemon=True)
        load.start()
        time.sleep(3.0)  # the opening snapshots are in
        cpu0 = {p.pid: cpu_seconds(p.pid) for p in procs}
        wall0 = time.monotonic()
        times: list[float] = []
        codes: dict[int, int] = {}
        for i in range(opts.requests):
            board, body = real[i % len(real)], REQUESTS[i % len(REQUESTS)]
            t0 = time.perf_counter()
            code, _ = post(f"{base}/arbiter/{board}", body)
            times.append(time.perf_counter() - t0)
            codes[code] = codes.get(code, 0) + 1
            time.sleep(opts.gap)
        wall = time.monotonic() - wall0
        cpu = {pid: cpu_seconds(pid) - c for pid, c in cpu0.items()}
        stop.set()
        load.join(5)
        sim.close()
        times.sort()

        print(f"hall: {opts.boards} simulated boards at {opts.rate:g} moves/board/min "
              f"({sim.messages} messages), {opts.real} real boards with the hall's key")
        print(f"desk: {len(times)} requests over {wall:.0f} s, answers {codes}")
        print(f"desk round trip (ms): p50 {pct(times, 0.5):.0f}  p90 {pct(times, 0.9):.0f}  "
              f"p99 {pct(times, 0.99):.0f}  max {times[-1] * 1000:.0f}  "
              f"mean {statistics.mean(times) * 1000:.0f}")
        print(f"CPU (% of one core): relay {100 * cpu[relay.pid] / wall:.1f}  real boards "
              + " ".join(f"{100 * cpu[p.pid] / wall:.1f}" for p in procs[1:]))
        return 0
    finally:
        stop.set()
        for p in procs:
            stop_by_pid(p, 10)
        broker.stop()


if __name__ == "__main__":
    sys.exit(main())
