"""Benchmark of a tournament hall (issue 13): ``python benchmarks/bench_hall.py``.

A real Mosquitto on a free loopback port, the relay as a process (``boardctl relay --broker
... --hall BENCH``), a few real boards (``boardctl run --sim --broker ... --events``) and one
publisher (this process) playing the feeds of N more boards: each board's game starts with
some moves made already, gets moves at the given rate (per board per minute, at random
moments) and a snapshot every 10 s, as a board does. A poller reads ``/BENCH.pdn`` every
``--poll`` seconds (with If-None-Match, as broadcast sites do) and notes when each move first
appears. Printed: messages and moves per second, move-to-PDN latency percentiles (including
up to one poll interval), and the CPU share of the relay, the broker and the real boards.

Target (issue 13): 200 boards, 2 moves/board/min, p99 move-to-PDN < 1 s, relay < 25% of a core.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
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
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE.parent / "tests"))

import paho.mqtt.client as mqtt  # noqa: E402
from support.mqtt_broker import Mosquitto, free_port  # noqa: E402
from support.processes import stop_by_pid  # noqa: E402

from firmware.formats.feed import encode_line  # noqa: E402
from firmware.pdn import read_games  # noqa: E402

CLK_TCK = os.sysconf("SC_CLK_TCK")
HALL = "BENCH"
#: The boards play real games (WK 2003): the relay takes only moves that play.
GAMES = [[m.text for m in g.moves] for g in read_games(
    (HERE.parent / "boardctl" / "data" / "wk2003.pdn").read_text(), "wk2003.pdn")]


def pct(values: list[float], p: float) -> float:
    """The ``p`` quantile of sorted seconds, in milliseconds."""
    return values[min(len(values) - 1, int(p * len(values)))] * 1000


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLK_TCK


class SimBoards:
    """N boards' feeds from one MQTT client."""

    def __init__(self, port: int, boards: int, rate: float, seed: int = 1) -> None:
        self.client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="bench-boards")
        self.client.max_inflight_messages_set(1000)
        self.client.connect("127.0.0.1", port)
        self.client.loop_start()
        self.rng = random.Random(seed)
        self.names = [f"s{n:03d}" for n in range(1, boards + 1)]
        self.seq = dict.fromkeys(self.names, 0)
        self.moves: dict[str, list[str]] = {}
        self.games = {b: GAMES[k % len(GAMES)] for k, b in enumerate(self.names)}
        self.rate = rate
        self.sent: dict[tuple[str, int], float] = {}
        self.messages = 0

    def line(self, board: str, record: dict) -> None:
        payload = encode_line({**record, "game": f"g-{board}"}, self.seq[board]).rstrip("\n")
        self.seq[board] += 1
        self.client.publish(f"kabelaud/{HALL}/{board}/feed", payload, qos=1)
        self.messages += 1

    def snapshot(self, board: str) -> None:
        moves = [{"ply": i + 1, "side": "white" if i % 2 == 0 else "black", "move": m,
                  "clock": {"white": 3000.0 - i, "black": 3000.0 - i}}
                 for i, m in enumerate(self.moves[board])]
        self.line(board, {"type": "snapshot", "rules": "international", "moves": moves,
                          "tags": {"Round": "1", "Board": board[1:].lstrip("0"),
                                   "White": f"W {board}", "Black": f"B {board}"},
                          "time_control": "5400+30"})

    def begin(self) -> None:
        for board in self.names:
            game = self.games[board]
            self.moves[board] = game[:self.rng.randrange(0, min(60, len(game) // 2))]
            self.line(board, {"type": "game", "rules": "international", "time_control": "5400+30",
                              "tags": {"Round": "1", "Board": board[1:].lstrip("0")}})
            self.snapshot(board)

    def run(self, seconds: float, stop: threading.Event) -> None:
        per_second = self.rate * len(self.names) / 60.0
        start = time.monotonic()
        next_snap = {b: start + self.rng.uniform(0, 10) for b in self.names}
        next_move = start
        while not stop.is_set() and time.monotonic() - start < seconds:
            now = time.monotonic()
            if now >= next_move:
                board = self.rng.choice(self.names)
                ply = len(self.moves[board]) + 1
                if ply > len(self.games[board]):  # that game is over
                    next_move += self.rng.expovariate(per_second)
                    continue
                text = self.games[board][ply - 1]
                self.moves[board].append(text)
                self.sent[(board, ply)] = time.time()
                self.line(board, {"type": "move", "ply": ply,
                                  "side": "white" if ply % 2 else "black", "move": text,
                                  "clock": {"white": 3000.0, "black": 3000.0}})
                next_move += self.rng.expovariate(per_second)
            for board, at in next_snap.items():
                if now >= at:
                    self.snapshot(board)
                    next_snap[board] = at + 10.0
            time.sleep(0.005)

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


_COMMENT = re.compile(r"\{[^}]*\}")
_MOVE = re.compile(r"\b\d{1,2}[-x]\d{1,2}\b")
_BOARD = re.compile(r'\[Board "([^"]+)"\]')


def count_moves(body: str) -> dict[str, int]:
    counts = {}
    for block in body.split("[Event ")[1:]:
        m = _BOARD.search(block)
        if m:
            moves = _COMMENT.sub("", block.split("\n\n", 1)[-1])
            counts[m.group(1)] = len(_MOVE.findall(moves))
    return counts


def poll(url: str, every: float, stop: threading.Event, seen: dict[tuple[str, int], float],
         stats: dict[str, int]) -> None:
    etag = None
    while not stop.is_set():
        request = urllib.request.Request(url, headers={"If-None-Match": etag} if etag else {})
        try:
            with urllib.request.urlopen(request, timeout=5) as resp:
                body = resp.read().decode()
                etag = resp.headers["ETag"]
                stats["200"] += 1
        except urllib.error.HTTPError as exc:
            stats[str(exc.code)] = stats.get(str(exc.code), 0) + 1
            stop.wait(every)
            continue
        except OSError:
            stop.wait(every)
            continue
        now = time.time()
        for board, n in count_moves(body).items():
            for ply in range(1, n + 1):
                seen.setdefault((board, ply), now)
        stop.wait(every)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--boards", type=int, default=200, help="simulated boards (one publisher)")
    ap.add_argument("--real", type=int, default=3, help="real boardctl run --sim boards")
    ap.add_argument("--rate", type=float, default=2.0, help="moves per board per minute")
    ap.add_argument("--seconds", type=float, default=60.0)
    ap.add_argument("--poll", type=float, default=0.1, help="poller interval (s)")
    opts = ap.parse_args()

    tmp = Path(tempfile.mkdtemp(prefix="bench-hall-"))
    broker = Mosquitto(tmp / "broker").start()
    http_port = free_port()
    procs: list[subprocess.Popen[bytes]] = []
    stop = threading.Event()
    try:
        relay = subprocess.Popen([sys.executable, "-m", "boardctl", "relay", "--broker",
                                  broker.url, "--hall", HALL, "--http",
                                  f"127.0.0.1:{http_port}", "--state-dir", str(tmp / "relay")],
                                 stderr=subprocess.DEVNULL)
        procs.append(relay)
        from support.service_helpers import game_log

        log = tmp / "game.jsonl"
        log.write_text("".join(json.dumps(e.record()) + "\n" for e in
                               game_log(40, seed=1, think=(0.5, 1.5), change_mind=0.0)))
        for n in range(opts.real):
            procs.append(subprocess.Popen(
                [sys.executable, "-m", "boardctl", "run", "--sim", "--rules", "international",
                 "--time-control", "5400+30", "--state-dir", str(tmp / f"real{n}"),
                 "--events", str(log), "--broker", broker.url, "--hall", HALL,
                 "--board", f"r{n}", "--round", "1"], stderr=subprocess.DEVNULL))
        url = f"http://127.0.0.1:{http_port}/{HALL}.pdn"
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            try:
                urllib.request.urlopen(url, timeout=1).read()
                break
            except OSError:
                time.sleep(0.1)
        time.sleep(1.0)  # the relay subscribes
        sim = SimBoards(broker.port, opts.boards, opts.rate)
        sim.begin()
        seen: dict[tuple[str, int], float] = {}
        stats = {"200": 0}
        poller = threading.Thread(target=poll, args=(url, opts.poll, stop, seen, stats),
                                  daemon=True)
        poller.start()
        time.sleep(2.0)  # the opening snapshots are in
        cpu0 = {p.pid: cpu_seconds(p.pid) for p in procs}
        broker_pid = broker.proc.pid if broker.proc else 0
        cpu0[broker_pid] = cpu_seconds(broker_pid)
        wall0, sent0 = time.monotonic(), sim.messages
        sim.run(opts.seconds, stop)
        wall = time.monotonic() - wall0
        cpu = {pid: cpu_seconds(pid) - c for pid, c in cpu0.items()}
        time.sleep(2.0)  # the last moves reach the PDN
        stop.set()
        poller.join(5)
        sim.close()
        latencies = sorted(seen[k] - t for k, t in sim.sent.items() if k in seen)
        missing = sum(1 for k in sim.sent if k not in seen)
        moves = len(sim.sent)

        print(f"hall: {opts.boards} simulated boards + {opts.real} real boardctl run --sim, "
              f"{opts.rate:g} moves/board/min, {wall:.0f} s, poll every {opts.poll * 1000:.0f} ms")
        print(f"throughput: {(sim.messages - sent0) / wall:.1f} messages/s published, "
              f"{moves / wall:.2f} moves/s; {stats['200']} PDN fetches (200), "
              f"{stats.get('304', 0)} not modified")
        if latencies:
            print(f"move-to-PDN latency (ms): p50 {pct(latencies, 0.5):.0f}  "
                  f"p90 {pct(latencies, 0.9):.0f}  p99 {pct(latencies, 0.99):.0f}  "
                  f"max {latencies[-1] * 1000:.0f}  "
                  f"mean {statistics.mean(latencies) * 1000:.0f}  ({len(latencies)} moves, "
                  f"{missing} not seen)")
        print(f"CPU (% of one core): relay {100 * cpu[relay.pid] / wall:.1f}  "
              f"mosquitto {100 * cpu[broker_pid] / wall:.1f}  real boards "
              + " ".join(f"{100 * cpu[p.pid] / wall:.1f}" for p in procs[1:]))
        return 0
    finally:
        stop.set()
        for p in procs:
            stop_by_pid(p, 10)
        broker.stop()


if __name__ == "__main__":
    sys.exit(main())
