"""``boardctl watch``'s two targets (issue 29): a feed line on the screen within 100 ms of the
service writing it, and ``watch`` idle under 1% of a core.

1. Latency: a real ``boardctl run --sim`` plays a real game (WK 2003, human hands, short
   thinking times) writing its feed to a file; a thread here notes, to the millisecond, when
   each move line lands in that file; ``boardctl watch --plain`` (the same socket polling as
   the screen) runs as a process whose lines are stamped as they come out. The figure: the
   time from the line in the file to the move's sentence out of ``watch``; then the
   screen's own cost of showing it (Textual, headless: the view updated and the whole
   80x24 screen composed).
2. Idle CPU: ``boardctl watch`` (the full screen, on a pseudo-terminal, clocks ticking) and
   ``--plain`` against an idle service with a running clock, for ``--seconds``; CPU time from
   /proc/PID/stat. Also the service's CPU with and without a watcher (what the polling costs
   the board).

    python benchmarks/bench_watch.py [--plies 16] [--seconds 30]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import pty
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

BOARDCTL = [sys.executable, "-m", "boardctl"]
TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def start_service(state: Path, *extra: str) -> subprocess.Popen[str]:
    from support.terminal_helpers import sim_service_process

    return sim_service_process(state, "international", "--time-control", "300+5", *extra)


def stop(proc: subprocess.Popen[str]) -> None:
    os.kill(proc.pid, signal.SIGTERM)
    proc.wait(timeout=20)


def tail_moves(path: Path, stamps: dict[int, float], done: threading.Event) -> None:
    """When each move line lands in the feed file (polled every millisecond)."""
    from firmware.formats.feed import decode_line

    seen = 0
    while not done.is_set():
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            data = b""
        if len(data) > seen:
            now = time.monotonic()
            cut = data.rfind(b"\n") + 1
            for line in data[seen:cut].splitlines():
                rec = decode_line(line)
                if rec is not None and rec["type"] == "move":
                    stamps.setdefault(rec["ply"], now)
            seen = cut
        time.sleep(0.001)


def latency(plies: int) -> list[float]:
    from support.service_helpers import game_log

    from firmware.formats.events import iter_records

    with tempfile.TemporaryDirectory() as tmp:
        tmpdir = Path(tmp)
        log = tmpdir / "game.jsonl"
        log.write_text("".join(iter_records(game_log(plies, seed=4, think=(0.2, 0.6),
                                                     change_mind=0.0))))
        feed, state = tmpdir / "feed.jsonl", tmpdir / "state"
        service = start_service(state, "--events", str(log), "--feed", str(feed))
        written: dict[int, float] = {}
        done = threading.Event()
        tail = threading.Thread(target=tail_moves, args=(feed, written, done), daemon=True)
        tail.start()
        watch = subprocess.Popen([*BOARDCTL, "watch", "--state-dir", str(state), "--plain"],
                                 stdout=subprocess.PIPE, text=True, bufsize=1)
        shown: dict[int, float] = {}
        assert watch.stdout is not None
        ply = 0
        for line in watch.stdout:
            now = time.monotonic()
            if " by white" in line or " by black" in line:
                number = line.split(" ", 1)[0]
                ply = 2 * int(number.rstrip(".")) - (0 if number.endswith("...") else 1)
                shown[ply] = now
            if ply >= plies:
                break
        stop(watch)
        done.set()
        stop(service)
    return [shown[p] - written[p] for p in sorted(shown) if p in written]


def redraw_cost(rounds: int = 50) -> float:
    """Seconds to take one move line and compose the whole 80x24 screen (Textual, headless)."""
    from support.terminal_helpers import WK2003, demo_feed, records

    from boardctl.terminal.app import BoardApp
    from boardctl.terminal.view import BoardView

    with tempfile.TemporaryDirectory() as tmp:
        recs = records(demo_feed(Path(tmp) / "state", WK2003, 4, 60))
    moves = [r for r in recs if r["type"] == "move"]
    app = BoardApp(BoardView())
    costs: list[float] = []

    async def go() -> None:
        async with app.run_test(size=(80, 24)) as pilot:
            for rec in recs[:3]:
                app.take("record", rec)
            await pilot.pause()
            for rec in moves[:rounds]:
                t0 = time.perf_counter()
                app.take("record", rec)
                app.screen._compositor.render_strips()
                costs.append(time.perf_counter() - t0)
                await pilot.pause()

    asyncio.run(go())
    return statistics.median(costs)


def idle_cpu(seconds: float) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp:
        state = Path(tmp) / "state"
        service = start_service(state)
        from boardctl.service.control import request

        request(state / "control.sock", "start")  # White's clock runs: the faces tick
        out: dict[str, float] = {}
        time.sleep(2.0)
        before = cpu_seconds(service.pid)
        time.sleep(seconds)
        out["service alone"] = (cpu_seconds(service.pid) - before) / seconds
        for name, extra in (("watch (screen)", []), ("watch --plain", ["--plain"])):
            master, slave = pty.openpty()
            os.set_blocking(master, True)
            watch = subprocess.Popen([*BOARDCTL, "watch", "--state-dir", str(state), *extra],
                                     stdin=slave, stdout=slave, stderr=slave,
                                     env={**os.environ, "TERM": "xterm-256color",
                                          "COLUMNS": "80", "LINES": "24"}, text=True)
            os.close(slave)
            threading.Thread(target=_drain, args=(master,), daemon=True).start()
            time.sleep(5.0)  # started, first screen drawn
            w0, s0 = cpu_seconds(watch.pid), cpu_seconds(service.pid)
            time.sleep(seconds)
            out[name] = (cpu_seconds(watch.pid) - w0) / seconds
            out[f"service while {name}"] = (cpu_seconds(service.pid) - s0) / seconds
            stop(watch)
            os.close(master)
        stop(service)
    return out


def _drain(fd: int) -> None:
    try:
        while os.read(fd, 65536):
            pass
    except OSError:
        pass


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--plies", type=int, default=16)
    parser.add_argument("--seconds", type=float, default=30.0)
    args = parser.parse_args()
    print(f"machine: {os.cpu_count()} cores; Python {sys.version.split()[0]}")
    lat = latency(args.plies)
    ms = sorted(x * 1000 for x in lat)
    print(f"feed line written -> watch says it, {len(ms)} moves: median {statistics.median(ms):.1f}"
          f" ms, p90 {ms[int(0.9 * (len(ms) - 1))]:.1f} ms, max {ms[-1]:.1f} ms (target 100)")
    print(f"screen: a move line in and the whole 80x24 screen composed: "
          f"{redraw_cost() * 1000:.2f} ms (median)")
    for name, share in idle_cpu(args.seconds).items():
        print(f"idle CPU, {name}: {share * 100:.2f}% of a core (target for watch: 1%)")


if __name__ == "__main__":
    main()
