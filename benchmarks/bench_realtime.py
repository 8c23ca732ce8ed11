"""Benchmarks of issue 10 (the real-time core): run ``python benchmarks/bench_realtime.py``.

Every figure works on the code before issue 10 too (same public API), so that the before and
after numbers come from one script:

1. press -> move line on the pty, p50/p99 (the service on real time, a normal disk);
2. ``status`` round trip p50/p99 while four clients pipeline ``status`` without reading;
3. journal tamper detection: random single edits that keep every line valid JSON (a digit,
   a time, a deleted, swapped or repeated line), counted as named / silently a different game
   / harmless; false alarms on the intact journal and on torn last records;
4. idle ``boardctl run --sim`` with the matrix scanned at 200 Hz: CPU share and RSS (the
   median of 21 alternating windows of 10 s: a virtual machine's host lends its core
   unevenly, and a window in five or so reads half as much again), against a bare thread
   waking as often (in Python, and in C where a C compiler is found: what the machine alone
   charges for the wake-ups);
5. referee latency: the time the referee spends deciding one event (``Referee.lift`` /
   ``place`` / ``press``) and the referee thread's whole path for it (``DataPath.handle``),
   p50/p99, over a real game on the simulated board with the journal on the real disk;
6. fast presses (4-30 ms after the set-down) on ``boardctl run --sim --events``: plies the
   service plays as ``boardctl replay`` does.
"""

from __future__ import annotations

import json
import os
import random
import re
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

CLK_TCK = os.sysconf("SC_CLK_TCK")
PAGE = os.sysconf("SC_PAGE_SIZE")
S = 1_000_000_000


def play_on_virtual_clock(service: Any, now: list[int], events: list,
                          booted: Any = None) -> None:
    """Boot the service (then call ``booted(service)`` if given), step it every 5 ms of the
    virtual clock ``now[0]`` until 2 s after the log's last event, close it."""
    service.boot()
    if booted is not None:
        booted(service)
    end = service.origin + events[-1].at + 2 * S
    while now[0] < end:
        now[0] += 5_000_000
        service.step(now[0])
    service.close()


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(len(values) * q))]


def game_events(plies: int, seed: int, fast: bool = False) -> list:
    from firmware.formats.events import Press
    from firmware.pdn import read_games
    from firmware.session.handling import NOISY, handle_game

    data = HERE.parent / "boardctl" / "data" / "wk2003.pdn"
    game = next(read_games(data.read_text(), "wk2003.pdn")).replay()
    style = replace(NOISY, think_ns=(3 * S // 10, 6 * S // 10))
    events = handle_game(game.start, game.moves[:plies], seed=seed, clocked=True, style=style,
                         t0=S // 2)
    if not fast:
        return events
    rng = random.Random(seed)
    out, last = [], 0
    for e in events:
        if isinstance(e, Press):
            e = replace(e, at=last + rng.randrange(4_000_000, 30_000_000))
        else:
            last = e.at
        out.append(e)
    return out


def start_service(state: Path, *extra: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "boardctl", "run", "--sim", "--rules", "international",
         "--time-control", "300+5", "--state-dir", str(state), *extra],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def request(path: Path, line: bytes = b'{"cmd":"status"}\n', timeout: float = 10.0) -> dict:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.settimeout(timeout)
        s.connect(str(path))
        s.sendall(line)
        buf = b""
        while b"\n" not in buf:
            chunk = s.recv(65536)
            if not chunk:
                raise ConnectionError("closed")
            buf += chunk
        return json.loads(buf.split(b"\n", 1)[0])


def wait_status(path: Path, timeout: float = 30.0) -> dict:
    deadline = time.monotonic() + timeout
    while True:
        try:
            return request(path)
        except (OSError, ValueError):
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)


# -- 2 -------------------------------------------------------------------------------------


def status_under_flood(requests: int = 100, budget_s: float = 60.0) -> tuple[list[float], int]:
    state = Path(tempfile.mkdtemp(prefix="bench-flood-"))
    proc = start_service(state)
    path = state / "control.sock"
    wait_status(path)
    stop = threading.Event()

    def flood() -> None:
        chunk = b'{"cmd":"status"}\n' * 4096
        while not stop.is_set():
            try:
                with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
                    s.connect(str(path))
                    s.setblocking(False)
                    while not stop.is_set():
                        try:
                            s.send(chunk)
                        except BlockingIOError:
                            stop.wait(0.002)
            except OSError:
                stop.wait(0.01)

    threads = [threading.Thread(target=flood, daemon=True) for _ in range(4)]
    for t in threads:
        t.start()
    time.sleep(1.0)
    times, failed = [], 0
    deadline = time.monotonic() + budget_s
    for _ in range(requests):
        if time.monotonic() > deadline:
            break
        t0 = time.perf_counter()
        try:
            request(path, timeout=10.0)
            times.append(time.perf_counter() - t0)
        except (OSError, ValueError):
            failed += 1
        time.sleep(0.01)
    stop.set()
    proc.send_signal(signal.SIGTERM)
    proc.wait(timeout=30)
    return times, failed


# -- 3 -------------------------------------------------------------------------------------


def tamper(edits_wanted: int = 150) -> dict[str, int]:
    from boardctl.service.hardware import EventScript, sim_hardware
    from boardctl.service.journal_file import current_path
    from boardctl.service.service import GameSetup, Service, rebuild
    from firmware.errors import BoardError
    from firmware.formats.journal import read_journal

    events = game_events(10, seed=9)
    now = [7 * 10**12]
    hw = sim_hardware(10, clock=lambda: now[0])
    state = Path(tempfile.mkdtemp(prefix="bench-tamper-"))
    service = Service(state, GameSetup("international", "300+5"), hw, clock=lambda: now[0],
                      script=EventScript(events))
    play_on_virtual_clock(service, now, events)
    path = current_path(state)
    assert path is not None
    data = path.read_bytes()

    def game(raw: bytes) -> list[str]:
        journal = read_journal(raw.splitlines(keepends=True), "j")
        return [m["move"] for m in rebuild(journal, "j").session.moves]

    moves = game(data)
    lines = data.splitlines(keepends=True)
    rng = random.Random(3)
    out = {"edits": 0, "named": 0, "silent": 0, "harmless": 0, "false_alarms": 0,
           "torn_tails": 0}
    kinds = ["digit", "time", "delete", "swap", "repeat"]
    while out["edits"] < edits_wanted:
        kind = rng.choice(kinds)
        n = len(lines)
        edited = list(lines)
        if kind == "digit":
            i = rng.randrange(n)
            digits = [m.start() for m in re.finditer(rb"\d", lines[i])]
            if not digits:
                continue
            k = rng.choice(digits)
            new = lines[i][:k] + bytes([48 + (lines[i][k] - 48 + rng.randrange(1, 10)) % 10]) \
                + lines[i][k + 1:]
            try:
                json.loads(new)
            except ValueError:
                continue
            edited[i] = new
        elif kind == "time":
            i = rng.randrange(1, n)
            rec = json.loads(lines[i])
            if "t" not in rec:
                continue
            rec["t"] = round(rec["t"] + rng.choice([-0.5, 0.25, 1.0]), 3)
            edited[i] = json.dumps(rec, separators=(",", ":")).encode() + b"\n"
        elif kind == "delete":
            del edited[rng.randrange(n - 1)]  # not the last: that is a power cut's truncation
        elif kind == "swap":
            i, j = rng.sample(range(n), 2)
            edited[i], edited[j] = edited[j], edited[i]
            if edited == lines:
                continue
        else:
            i = rng.randrange(n)
            edited.insert(i, lines[i])
        out["edits"] += 1
        try:
            got = game(b"".join(edited))
        except BoardError:
            out["named"] += 1
            continue
        out["silent" if got != moves else "harmless"] += 1
    for cut in [*range(1, 40, 2), -1]:  # torn last records: recovered, never an alarm
        try:
            game(b"".join(lines[:-1]) + lines[-1][:cut])
            out["torn_tails"] += 1
        except BoardError:
            out["false_alarms"] += 1
    try:
        game(data)
    except BoardError:
        out["false_alarms"] += 1
    return out


# -- 4 -------------------------------------------------------------------------------------


#: A process doing nothing but wake a thread 200 times a second: what the wake-ups alone cost
#: on this machine (a virtual machine's timer makes them dear), the floor under figure 4.
WAKE_FLOOR = """
import threading, time
def loop():
    next_at = time.monotonic()
    while True:
        next_at += 0.005
        time.sleep(max(0.0, next_at - time.monotonic()))
threading.Thread(target=loop, daemon=True).start()
time.sleep(3600)
"""

#: The same in C (built where a C compiler is found): what the kernel and the machine alone
#: charge for 200 wake-ups a second, with no interpreter at all.
WAKE_FLOOR_C = r"""
#include <time.h>
int main(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    for (;;) {
        t.tv_nsec += 5000000;
        if (t.tv_nsec >= 1000000000) { t.tv_nsec -= 1000000000; t.tv_sec++; }
        clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &t, 0);
    }
}
"""


def _c_floor(tmp: Path) -> list[str] | None:
    """The command of the C floor, built in ``tmp``; None without a C compiler."""
    import shutil

    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        return None
    source, program = tmp / "wake.c", tmp / "wake"
    source.write_text(WAKE_FLOOR_C)
    built = subprocess.run([cc, "-O2", "-o", str(program), str(source)], capture_output=True)
    return [str(program)] if built.returncode == 0 else None


def _cpu_ns(task: Path) -> int:
    """CPU time of a process or thread in ns: schedstat's exact run time where the kernel
    keeps it, else utime + stime in clock ticks."""
    try:
        return int((task / "schedstat").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        fields = (task / "stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) * 10**9 // CLK_TCK


def _threads(pid: int) -> dict[str, int]:
    """CPU ns so far of process ``pid``, by thread name."""
    out: dict[str, int] = {}
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            name = (task / "comm").read_text().strip()
            out[name] = out.get(name, 0) + _cpu_ns(task)
        except OSError:  # a thread that ended meanwhile
            pass
    return out


def _usage(pids: list[int], seconds: float) -> list[tuple[float, dict[str, float]]]:
    """CPU share of each process in ``pids`` over the same ``seconds``, in all and by thread
    name (measured side by side, so that a virtual machine's drift touches all alike)."""
    th0, t0 = [_threads(pid) for pid in pids], time.perf_counter()
    time.sleep(seconds)
    th1, t1 = [_threads(pid) for pid in pids], time.perf_counter()
    out = []
    for before, after in zip(th0, th1, strict=True):
        per = {name: (after[name] - before.get(name, 0)) / 1e9 / (t1 - t0) * 100
               for name in after}
        out.append((sum(per.values()), per))
    return out


def _alone(command: list[str], seconds: float) -> float:
    """CPU share of ``command`` run alone for ``seconds`` (after a second to settle)."""
    proc = subprocess.Popen(command)
    try:
        time.sleep(1.0)
        ((share, _),) = _usage([proc.pid], seconds)
    finally:
        proc.kill()
        proc.wait()
    return share


@dataclass
class Idle:
    """Figure 4: each list holds one figure per window, the windows alternating."""

    service: list[float]
    rss_mib: float
    threads: dict[str, float]  # the service's share by thread, median
    floor: list[float]  # a bare Python thread waking at 200 Hz
    floor_c: list[float]  # the same in C; empty without a C compiler


def idle_200hz(rounds: int = 21, seconds: float = 10.0) -> Idle:
    """Idle service at 200 Hz: CPU share, RSS, the share by thread, and the floors (a bare
    thread waking as often, in a process of its own, in Python and in C), over ``rounds``
    windows of ``seconds`` each; the service's and the floors' windows alternate (one at a
    time: two processes waking 200 times a second on two cores disturb each other), so that
    a virtual machine's drift touches all alike."""
    tmp = Path(tempfile.mkdtemp(prefix="bench-idle-"))
    config = tmp / "board.toml"
    example = (HERE.parent / "hw" / "config.example.toml").read_text()
    config.write_text(re.sub(r"(?m)^scan_hz = \d+", "scan_hz = 200", example))
    c_floor = _c_floor(tmp)
    proc = start_service(tmp / "state", "--config", str(config))
    idle = Idle([], 0.0, {}, [], [])
    threads: dict[str, list[float]] = {}
    try:
        wait_status(tmp / "state" / "control.sock")
        time.sleep(1.0)
        for _ in range(rounds):
            proc.send_signal(signal.SIGSTOP)  # the floors alone
            try:
                idle.floor.append(_alone([sys.executable, "-c", WAKE_FLOOR], seconds))
                if c_floor is not None:
                    idle.floor_c.append(_alone(c_floor, seconds))
            finally:
                proc.send_signal(signal.SIGCONT)
            time.sleep(1.0)
            ((cpu, per),) = _usage([proc.pid], seconds)
            idle.service.append(cpu)
            for name, share in per.items():
                threads.setdefault(name, []).append(share)
        idle.rss_mib = int(Path(f"/proc/{proc.pid}/statm").read_text().split()[1]) * PAGE / 2**20
    finally:
        proc.send_signal(signal.SIGCONT)
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=30)
        import shutil

        shutil.rmtree(tmp, ignore_errors=True)
    idle.threads = {name: statistics.median(v) for name, v in threads.items()}
    return idle


# -- 5 -------------------------------------------------------------------------------------


def referee_latency(plies: int = 80, seeds: int = 3) -> tuple[list[float], list[float]]:
    """Per event, over ``seeds`` games of ``plies`` plies on the virtual clock (the simulated
    board scanned between events as in the service, the journal on the real disk, the
    collector frozen after boot as ``Service.run`` does): the referee's own decision
    (``Referee.lift``/``place``/``press``: what the board shows, touch-move, the commit) and
    the referee thread's whole path (``DataPath.handle``: the referee, the clock, the game
    record and its feed and journal records handed to the writer)."""
    import gc
    import shutil

    from boardctl.service.hardware import EventScript, sim_hardware
    from boardctl.service.service import GameSetup, Service
    from boardctl.service.showing import Display
    from firmware.referee.referee import Referee

    decide: list[float] = []
    handle: list[float] = []

    def timing(method: Any, times: list[float]) -> Any:
        def timed(*args: Any) -> Any:
            t0 = time.perf_counter()
            try:
                return method(*args)
            finally:
                times.append(time.perf_counter() - t0)

        return timed

    for seed in range(5, 5 + seeds):
        events = game_events(plies, seed=seed)
        now = [7 * 10**12]

        def clock(now: list[int] = now) -> int:
            return now[0]

        hw = sim_hardware(10, clock=clock)
        state = Path(tempfile.mkdtemp(prefix="bench-referee-", dir=HERE.parent))  # real disk
        service = Service(state, GameSetup("international", "300+5"), hw,
                          clock=clock, script=EventScript(events))
        service.face.display = Display(hw, service.faces_ns, service.clock)  # posted to, not run
        service.path.handle = timing(service.path.handle, handle)  # type: ignore[method-assign]

        def booted(service: Any) -> None:
            referee = service.session.referee
            assert isinstance(referee, Referee)
            for name in ("lift", "place", "press"):
                setattr(referee, name, timing(getattr(referee, name), decide))
            gc.freeze()

        play_on_virtual_clock(service, now, events, booted)
        gc.unfreeze()
        shutil.rmtree(state)
    return decide, handle


# -- 6 -------------------------------------------------------------------------------------


def fast_press_game(plies: int = 46) -> tuple[int, int]:
    from firmware.formats.events import iter_records
    from firmware.pdn import read_games

    tmp = Path(tempfile.mkdtemp(prefix="bench-fast-"))
    log = tmp / "game.jsonl"
    log.write_text("".join(iter_records(game_events(plies, seed=1, fast=True))))
    replay = subprocess.run([sys.executable, "-m", "boardctl", "replay", "--rules",
                             "international", "--time-control", "300+5", str(log)],
                            capture_output=True, text=True, check=True).stdout
    want = [m.text for m in next(read_games(replay, "replay")).moves]
    proc = start_service(tmp / "state", "--events", str(log))
    path = tmp / "state" / "control.sock"
    wait_status(path)
    last = time.monotonic()
    ply = -1
    while time.monotonic() - last < 8:  # until nothing has happened for 8 s
        status = wait_status(path)
        if status["ply"] != ply:
            ply, last = status["ply"], time.monotonic()
        if ply >= len(want):
            break
        time.sleep(0.5)
    got = status["moves"]
    proc.send_signal(signal.SIGTERM)
    proc.wait(timeout=30)
    same = 0
    for a, b in zip(got, want, strict=False):
        if a != b:
            break
        same += 1
    return same, len(want)


def main() -> None:
    import bench_service

    lat = bench_service.press_to_feed(40)
    print(f"press -> move line on the pty: p50 {statistics.median(lat) * 1e3:.1f} ms, "
          f"p99 {pct(lat, 0.99) * 1e3:.1f} ms, max {max(lat) * 1e3:.1f} ms "
          f"over {len(lat)} moves")
    times, failed = status_under_flood()
    if times:
        print(f"status under 4 flooding clients: p50 {statistics.median(times) * 1e3:.1f} ms, "
              f"p99 {pct(times, 0.99) * 1e3:.1f} ms, {failed} of {len(times) + failed} failed")
    else:
        print(f"status under 4 flooding clients: all {failed} requests failed")
    t = tamper()
    print(f"journal tamper: {t['edits']} random semantic edits: {t['named']} named, "
          f"{t['silent']} silently a different game, {t['harmless']} harmless; "
          f"{t['false_alarms']} false alarms ({t['torn_tails']} torn tails recovered)")
    idle = idle_200hz()

    def figures(shares: list[float]) -> str:
        return f"{statistics.median(shares):.2f}% ({', '.join(f'{c:.2f}' for c in shares)})"

    print(f"idle boardctl run --sim at 200 Hz: CPU {figures(idle.service)} of one core, the "
          f"median of {len(idle.service)} windows; RSS {idle.rss_mib:.1f} MiB; by thread: "
          + ", ".join(f"{k} {v:.3f}%" for k, v in sorted(idle.threads.items()) if v))
    print(f"  alone in the windows between: a bare Python thread waking at 200 Hz "
          f"{figures(idle.floor)}"
          + (f"; the same in C {figures(idle.floor_c)}" if idle.floor_c else
             "; (no C compiler: no C floor)"))
    decide, handle = referee_latency()
    print(f"referee latency, its decision (Referee.lift/place/press): "
          f"p50 {statistics.median(decide) * 1e6:.0f} us, p99 {pct(decide, 0.99) * 1e6:.0f} us, "
          f"max {max(decide) * 1e6:.0f} us over {len(decide)} events")
    print(f"referee thread, one event's whole path (DataPath.handle: referee, clock, record, "
          f"journal and feed hand-off): p50 {statistics.median(handle) * 1e6:.0f} us, "
          f"p99 {pct(handle, 0.99) * 1e6:.0f} us, max {max(handle) * 1e3:.1f} ms "
          f"over {len(handle)} events")
    same, total = fast_press_game()
    print(f"presses 4-30 ms after the set-down (boardctl run --sim --events): "
          f"{same} of {total} plies as boardctl replay plays them")


if __name__ == "__main__":
    main()
