"""Benchmarks of the board service (issue 6): run ``python benchmarks/bench_service.py``.

1. Time from start to ready: ``boardctl run --sim`` as a process, from spawn to its sd_notify
   ``READY=1`` (the moment systemd would count it as started).
2. Resident memory and CPU while it scans an idle board at 100 Hz, the default (``/proc/PID``).
3. Time from the press to the move on the feed: the service loop on real time in a thread, a
   real game's moves made on the simulated board, the simulated clock button pressed, and the
   move line read from the other end of a pty (the serial cable).
4. Cost of one loop turn on an idle board, in process.
"""

from __future__ import annotations

import os
import pty
import select
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import tty
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

CLK_TCK = os.sysconf("SC_CLK_TCK")
PAGE = os.sysconf("SC_PAGE_SIZE")


def start_to_ready(runs: int = 5) -> tuple[list[float], subprocess.Popen[bytes], Path]:
    times = []
    proc: subprocess.Popen[bytes] | None = None
    tmp = Path(tempfile.mkdtemp(prefix="bench-service-"))
    for i in range(runs):
        note = tmp / f"notify{i}"
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        sock.bind(str(note))
        sock.settimeout(30)
        state = tmp / f"state{i}"
        t0 = time.perf_counter()
        proc = subprocess.Popen(
            [sys.executable, "-m", "boardctl", "run", "--sim", "--rules", "international",
             "--time-control", "5400+30", "--state-dir", str(state)],
            env={**os.environ, "NOTIFY_SOCKET": str(note)},
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        while not sock.recv(4096).startswith(b"READY=1"):
            pass
        times.append(time.perf_counter() - t0)
        sock.close()
        if i < runs - 1:
            proc.terminate()
            proc.wait()
    assert proc is not None
    return times, proc, tmp


def idle_usage(proc: subprocess.Popen[bytes], seconds: float = 5.0) -> tuple[float, float]:
    def cpu() -> int:
        fields = Path(f"/proc/{proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return int(fields[11]) + int(fields[12])  # utime + stime (fields 14, 15)

    time.sleep(1.0)  # let start-up work finish
    c0, t0 = cpu(), time.perf_counter()
    time.sleep(seconds)
    c1, t1 = cpu(), time.perf_counter()
    rss_pages = int(Path(f"/proc/{proc.pid}/statm").read_text().split()[1])
    return (c1 - c0) / CLK_TCK / (t1 - t0) * 100, rss_pages * PAGE / 2**20


def press_to_feed(plies: int = 30) -> list[float]:
    from boardctl.relay.serial import LineSplitter
    from boardctl.service.hardware import sim_hardware
    from boardctl.service.service import GameSetup, Service
    from firmware.formats.feed import decode_line
    from firmware.pdn import read_games

    data = HERE.parent / "boardctl" / "data" / "wk2003.pdn"
    game = next(read_games(data.read_text(), "wk2003.pdn")).replay()
    geo = game.start.rules.geometry
    master, slave = pty.openpty()
    tty.setraw(slave)
    os.set_blocking(master, False)
    splitter = LineSplitter()
    state = Path(tempfile.mkdtemp(prefix="bench-press-"))
    hw = sim_hardware(10, feed_url=os.ttyname(slave))
    service = Service(state, GameSetup("international", "5400+30"), hw, board="bench")
    stop = threading.Event()
    thread = threading.Thread(target=service.run, args=(stop,), daemon=True)
    thread.start()
    while service.session is None or not hw.feed.connected:
        time.sleep(0.01)
    service.command({"cmd": "start"})
    latencies = []

    def drain() -> list[dict]:
        out = []
        while True:
            try:
                chunk = os.read(master, 65536)
            except BlockingIOError:
                return out
            for line in splitter.feed(chunk):
                rec = decode_line(line)
                if rec is not None:
                    out.append(rec)

    drain()
    for move in game.moves[:plies]:
        sim = hw.sim
        sim.lift(geo.algebraic(move.start))
        sim.place(geo.algebraic(move.end))
        for sq in move.captured:
            sim.lift(geo.algebraic(sq))
        time.sleep(0.05)  # the debouncer confirms the squares
        side = service.session.position.turn.value
        drain()
        t0 = time.perf_counter()
        hw.press(side)
        while True:
            select.select([master], [], [], 0.5)  # wait without holding the GIL
            recs = drain()
            if any(r["type"] == "move" for r in recs):
                latencies.append(time.perf_counter() - t0)
                break
            if time.perf_counter() - t0 > 2:
                raise RuntimeError(f"no move line after the press ({move})")
    stop.set()
    thread.join()
    os.close(master)
    os.close(slave)
    return latencies


def loop_turn_cost(turns: int = 3000) -> float:
    from boardctl.service.hardware import sim_hardware
    from boardctl.service.service import GameSetup, Service

    now = [10**12]
    hw = sim_hardware(10, clock=lambda: now[0])
    service = Service(Path(tempfile.mkdtemp(prefix="bench-loop-")),
                      GameSetup("international", "5400+30"), hw, clock=lambda: now[0])
    service.boot()
    service.command({"cmd": "start"})
    t0 = time.perf_counter()
    for _ in range(turns):
        now[0] += 5_000_000
        service.step(now[0])
    cost = (time.perf_counter() - t0) / turns
    service.close()
    return cost


def main() -> None:
    times, proc, _ = start_to_ready()
    print(f"start to ready (boardctl run --sim, sd_notify READY=1): median "
          f"{statistics.median(times) * 1000:.0f} ms, min {min(times) * 1000:.0f} ms "
          f"over {len(times)} runs")
    cpu, rss = idle_usage(proc)
    print(f"idle board scanned at 100 Hz (simulated matrix): CPU {cpu:.1f}% of one core, "
          f"RSS {rss:.1f} MiB")
    proc.terminate()
    proc.wait()
    cost = loop_turn_cost()
    print(f"one loop turn on an idle board (scan 50 sensors, buttons, tick, LEDs, faces): "
          f"{cost * 1e6:.0f} us ({cost * 100 * 100:.1f}% of one core at 100 Hz)")
    lat = sorted(press_to_feed())
    p50 = statistics.median(lat)
    p95 = lat[int(len(lat) * 0.95) - 1]
    print(f"press to move line read from the pty: median {p50 * 1000:.1f} ms, "
          f"p95 {p95 * 1000:.1f} ms, max {max(lat) * 1000:.1f} ms over {len(lat)} moves")


if __name__ == "__main__":
    main()
