"""Benchmark of many halls through bridged brokers (issue 32): ``python
benchmarks/bench_bridges.py``.

Three real Mosquitto processes on loopback ports: two halls' brokers bridging ``kabelaud/#``
to a central one with the shipped docs/mosquitto/bridge.conf, and one relay process on the
central broker (``boardctl relay --hall A --hall B``). Per hall one publisher plays N boards'
feeds (benchmarks/bench_hall.py's ``SimBoards``: moves at the given rate, a snapshot every
10 s) into its hall's broker; a poller per hall reads ``/A.pdn`` and ``/B.pdn`` every
``--poll`` seconds and notes when each move first appears. Halfway, hall A's broker is stopped
for ``--outage`` seconds (its bridge and its boards' link cut) and started again.

Printed: move-to-central-relay latency percentiles (including up to one poll interval) for
the moves the outage did not touch (hall B's, hall A's before it), how late hall A's moves
from the outage on came, and whether every
game was complete at the end; the relay's and brokers' CPU.

Target (issue 32): 2 halls x 100 boards, p99 move -> central relay < 1 s; after a 10 s bridge
outage every game complete.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE.parent / "tests"))

import paho.mqtt.client as mqtt  # noqa: E402
from bench_hall import SimBoards, count_moves, cpu_seconds, pct, poll  # noqa: E402
from support.mqtt_broker import Mosquitto, free_port  # noqa: E402
from support.processes import stop_by_pid  # noqa: E402

from firmware.formats.feed import encode_line  # noqa: E402

BRIDGE = HERE.parent / "docs" / "mosquitto" / "bridge.conf"


class HallBoards(SimBoards):
    """SimBoards publishing into one hall's topics."""

    def __init__(self, hall: str, port: int, boards: int, rate: float, seed: int) -> None:
        self.hall = hall
        super().__init__(port, boards, rate, seed)
        self.client.disconnect()
        self.client.loop_stop()
        self.client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2,
                                  client_id=f"bench-boards-{hall}", clean_session=False)
        self.client.max_inflight_messages_set(1000)
        self.client.max_queued_messages_set(0)
        self.client.connect("127.0.0.1", port)
        self.client.loop_start()

    def line(self, board: str, record: dict) -> None:
        payload = encode_line({**record, "game": f"g-{board}"}, self.seq[board]).rstrip("\n")
        self.seq[board] += 1
        self.client.publish(f"kabelaud/{self.hall}/{board}/feed", payload, qos=1)
        self.messages += 1


def bridge(hall: str, central: int) -> str:
    text = BRIDGE.read_text().replace("central.example.org:1883", f"127.0.0.1:{central}")
    return "\n".join(line for line in text.replace("HALL", hall).splitlines()
                     if not line.startswith("max_queued_messages"))




def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--boards", type=int, default=100, help="boards per hall")
    ap.add_argument("--rate", type=float, default=2.0, help="moves per board per minute")
    ap.add_argument("--seconds", type=float, default=60.0)
    ap.add_argument("--outage", type=float, default=10.0, help="hall A's broker away (s)")
    ap.add_argument("--poll", type=float, default=0.1, help="poller interval (s)")
    opts = ap.parse_args()

    tmp = Path(tempfile.mkdtemp(prefix="bench-bridges-"))
    central = Mosquitto(tmp / "central").start()
    brokers = {h: Mosquitto(tmp / h, extra=bridge(h, central.port)).start() for h in "AB"}
    http_port = free_port()
    relay = subprocess.Popen([sys.executable, "-m", "boardctl", "relay", "--broker",
                              central.url, "--hall", "A", "--hall", "B", "--http",
                              f"127.0.0.1:{http_port}", "--state-dir", str(tmp / "relay")],
                             stderr=subprocess.DEVNULL)
    stop = threading.Event()
    sims: dict[str, HallBoards] = {}
    try:
        base = f"http://127.0.0.1:{http_port}"
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            try:
                urllib.request.urlopen(f"{base}/A.pdn", timeout=1).read()
                break
            except OSError:
                time.sleep(0.1)
        time.sleep(1.0)  # the relay subscribes
        seen: dict[str, dict[tuple[str, int], float]] = {h: {} for h in "AB"}
        stats = {"200": 0}
        for seed, hall in enumerate("AB", 1):
            sims[hall] = HallBoards(hall, brokers[hall].port, opts.boards, opts.rate, seed)
            sims[hall].begin()
            threading.Thread(target=poll, args=(f"{base}/{hall}.pdn", opts.poll, stop,
                                                seen[hall], stats), daemon=True).start()
        time.sleep(3.0)  # the opening snapshots are through the bridges
        pids = {"relay": relay.pid, "central": central.proc.pid if central.proc else 0}
        cpu0 = {k: cpu_seconds(p) for k, p in pids.items()}
        wall0 = time.monotonic()
        runners = [threading.Thread(target=s.run, args=(opts.seconds, stop)) for s in
                   sims.values()]
        for r in runners:
            r.start()
        time.sleep(opts.seconds / 2)
        cut = time.time()
        brokers["A"].stop()
        time.sleep(opts.outage)
        brokers["A"].start()
        back = time.time()
        for r in runners:
            r.join()
        wall = time.monotonic() - wall0
        cpu = {k: cpu_seconds(p) - cpu0[k] for k, p in pids.items()}
        deadline = time.monotonic() + 60  # the held moves and the next snapshots come in

        def complete() -> bool:
            for hall, sim in sims.items():
                with urllib.request.urlopen(f"{base}/{hall}.pdn", timeout=5) as resp:
                    counts = count_moves(resp.read().decode())
                if any(counts.get(b, 0) < len(m) for b, m in sim.moves.items()):
                    return False
            return True

        while not complete() and time.monotonic() < deadline:
            time.sleep(0.5)
        done = complete()
        stop.set()
        normal, held = [], []
        for hall, sim in sims.items():
            for key, at in sim.sent.items():
                if key in seen[hall]:
                    late = seen[hall][key] - at
                    (held if hall == "A" and at >= cut - 1 else normal).append(late)
        normal.sort()
        held.sort()
        moves = sum(len(s.sent) for s in sims.values())
        print(f"halls: 2 x {opts.boards} boards through bridged brokers, {opts.rate:g} "
              f"moves/board/min, {wall:.0f} s: {moves} moves; hall A's broker away "
              f"{opts.outage:g} s")
        if normal:
            print(f"move-to-central-relay latency (ms, poll {opts.poll * 1000:.0f} ms "
                  f"included): p50 {pct(normal, 0.5):.0f}  p90 {pct(normal, 0.9):.0f}  "
                  f"p99 {pct(normal, 0.99):.0f}  max {normal[-1] * 1000:.0f} ({len(normal)}"
                  " moves: hall B's, and hall A's before its broker went)")
        if held:
            print(f"hall A's moves from its broker's stop on: {len(held)}, on the relay "
                  f"{pct(held, 0.5):.0f} ms (p50) to {held[-1] * 1000:.0f} ms (max) after "
                  f"they were made (the broker was back {back - cut:.0f} s after the stop)")
        print(f"every game complete afterwards: {'yes' if done else 'NO'}")
        print(f"CPU (% of one core): relay {100 * cpu['relay'] / wall:.1f}  central broker "
              f"{100 * cpu['central'] / wall:.1f}")
        return 0 if done else 1
    finally:
        stop.set()
        for sim in sims.values():
            sim.close()
        stop_by_pid(relay, 10)
        for broker in brokers.values():
            broker.stop()
        central.stop()


if __name__ == "__main__":
    sys.exit(main())
