"""Benchmark of a tournament hall (issues 13, 37): ``python benchmarks/bench_hall.py``.

A real Mosquitto on a free loopback port, the relay as a process (``boardctl relay --broker
... --hall BENCH --state-dir ...``), a few real boards (``boardctl run --sim --broker ...
--events``) and one publisher (this process) playing the feeds of N more boards: each board's
game starts with some moves made already, gets moves at the given rate (per board per minute,
at random moments) and a snapshot every 10 s, as a board does. A poller reads the PDN every
``--poll`` seconds (with If-None-Match, as broadcast sites do) and notes when each move first
appears. ``--outage S`` kills the broker halfway through for S seconds (every board then sends
its snapshot again, the relay reconnects and catches up).

Printed: messages and moves per second, move-to-PDN latency percentiles (including up to one
poll interval), the CPU share of the relay, the broker and the real boards, and per move the
relay's CPU and what its store (``--state-dir``) wrote: bytes and fsyncs, counted by strace
(``write``/``fsync`` calls on files of the state directory, and of ``--out`` with ``--out``)
when strace is installed.

``--rounds N`` is the long-event mode: N rounds one after the other, each board a new game a
round (its first moves made already, then ``--seconds`` of live moves, then the whole game and
its result in a last snapshot), the games of earlier rounds kept by the relay, as over an
event; the poller follows the round's URL (``/BENCH/round/R.pdn``), as a broadcast site does.
One line a round shows whether the cost of a move grows with what the hall has played.

Targets: issue 13, 200 boards, 2 moves/board/min, p99 move-to-PDN < 1 s, relay < 25% of a core;
issue 37, relay < 12% of a core at 156-200 boards, a few fsyncs a second at most whatever the
move rate, and the last round's CPU a move within 20% of the first's over 11 rounds.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

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
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / CLK_TCK


def clock(ply: int) -> dict[str, float]:
    """The clocks after ply ``ply``, the same in its move line and in every snapshot after it
    (as a board sends them: a snapshot that repeats the moves changes nothing)."""
    return {"white": 3000.0 - ply, "black": 3000.0 - ply}


class SimBoards:
    """N boards' feeds from one MQTT client."""

    def __init__(self, port: int, boards: int, rate: float, seed: int = 1,
                 same_games: bool = False) -> None:
        self.client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="bench-boards")
        self.client.max_inflight_messages_set(1000)
        self.client.reconnect_delay_set(0.2, 2)
        self.connects = 0
        self.client.on_connect = self._connected
        self.client.connect("127.0.0.1", port)
        self.client.loop_start()
        self.seed = seed
        self.rng = random.Random(seed)
        #: Every round the first round's games from the same plies, with the same moves'
        #: timing (new game ids): the rounds differ only in the games the relay keeps.
        self.same_games = same_games
        self.names = [f"s{n:03d}" for n in range(1, boards + 1)]
        self.seq = dict.fromkeys(self.names, 0)
        self.moves: dict[str, list[str]] = {}
        self.games: dict[str, list[str]] = {}
        self.round = 1
        self.rate = rate
        self.sent: dict[tuple[str, int, int], float] = {}
        self.messages = 0

    def _connected(self, *args: Any) -> None:
        self.connects += 1  # paho's thread: the run loop sends the snapshots

    def line(self, board: str, record: dict[str, Any]) -> None:
        game = f"g-{board}" if self.round == 1 else f"g-{board}-r{self.round}"
        payload = encode_line({**record, "game": game}, self.seq[board]).rstrip("\n")
        self.seq[board] += 1
        self.client.publish(f"kabelaud/{HALL}/{board}/feed", payload, qos=1)
        self.messages += 1

    def tags(self, board: str) -> dict[str, str]:
        return {"Round": str(self.round), "Board": board[1:].lstrip("0"),
                "White": f"W {board}", "Black": f"B {board}"}

    def snapshot(self, board: str, result: str | None = None) -> None:
        moves = [{"ply": i + 1, "side": "white" if i % 2 == 0 else "black", "move": m,
                  "clock": clock(i + 1)} for i, m in enumerate(self.moves[board])]
        record: dict[str, Any] = {"type": "snapshot", "rules": "international", "moves": moves,
                                  "tags": self.tags(board), "time_control": "5400+30"}
        if result is not None:
            record["result"] = result
        self.line(board, record)

    def begin(self, round_: int = 1) -> None:
        """Each board's game of round ``round_``: a game line, then a snapshot of the moves
        made already."""
        self.round = round_
        if self.same_games:
            self.rng = random.Random(self.seed)
        for k, board in enumerate(self.names):
            game = self.games[board] = GAMES[(k + (0 if self.same_games else round_ - 1))
                                             % len(GAMES)]
            self.moves[board] = game[:self.rng.randrange(0, min(60, len(game) // 2))]
            self.line(board, {"type": "game", "rules": "international",
                              "time_control": "5400+30", "tags": self.tags(board)})
            self.snapshot(board)

    def finish(self) -> None:
        """Each board's game played out: the whole game and its result in a last snapshot."""
        for board in self.names:
            self.moves[board] = list(self.games[board])
            self.snapshot(board, result="1-1")

    def run(self, seconds: float, stop: threading.Event) -> None:
        per_second = self.rate * len(self.names) / 60.0
        start = time.monotonic()
        next_snap = {b: start + self.rng.uniform(0, 10) for b in self.names}
        next_move = start
        connects = self.connects
        while not stop.is_set() and time.monotonic() - start < seconds:
            now = time.monotonic()
            if self.connects != connects:  # back after an outage: a board's snapshot then
                connects = self.connects
                for board in self.names:
                    next_snap[board] = now
            if now >= next_move:
                self.move(self.rng.choice(self.names))
                next_move += self.rng.expovariate(per_second)
            for board, at in next_snap.items():
                if now >= at:
                    self.snapshot(board)
                    next_snap[board] = at + 10.0
            time.sleep(0.005)

    def move(self, board: str) -> None:
        ply = len(self.moves[board]) + 1
        if ply > len(self.games[board]):  # that game is over
            return
        text = self.games[board][ply - 1]
        self.moves[board].append(text)
        self.sent[(board, self.round, ply)] = time.time()
        self.line(board, {"type": "move", "ply": ply, "side": "white" if ply % 2 else "black",
                          "move": text, "clock": clock(ply)})

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


_COMMENT = re.compile(r"\{[^}]*\}")
_MOVE = re.compile(r"\b\d{1,2}[-x]\d{1,2}\b")
_BOARD = re.compile(r'\[Board "([^"]+)"\]')
_ROUND = re.compile(r'\[Round "(\d+)')


def count_moves(body: str) -> dict[tuple[str, int], int]:
    """Each (board, round)'s moves in a PDN."""
    counts = {}
    for block in body.split("[Event ")[1:]:
        m, r = _BOARD.search(block), _ROUND.search(block)
        if m:
            moves = _COMMENT.sub("", block.split("\n\n", 1)[-1])
            counts[(m.group(1), int(r.group(1)) if r else 1)] = len(_MOVE.findall(moves))
    return counts


def fetch(url: str, etag: str | None = None) -> tuple[str | None, str | None]:
    """(body, ETag) of ``url``; (None, etag) for 304 Not Modified."""
    request = urllib.request.Request(url, headers={"If-None-Match": etag} if etag else {})
    try:
        with urllib.request.urlopen(request, timeout=5) as resp:
            return resp.read().decode(), resp.headers["ETag"]
    except urllib.error.HTTPError as exc:
        if exc.code == 304:
            return None, etag
        raise


def poll(urls: list[list[str]], every: float, stop: threading.Event,
         seen: dict[tuple[str, int, int], float], stats: dict[str, int]) -> None:
    """Fetch the URLs ``urls[0]`` (the box lets the round's URLs change) every ``every``
    seconds, with If-None-Match, as a broadcast site does."""
    etags: dict[str, str | None] = {}
    while not stop.is_set():
        for url in urls[0]:
            try:
                body, etags[url] = fetch(url, etags.get(url))
            except OSError:
                continue
            stats["200" if body is not None else "304"] += 1
            now = time.time()
            for (board, round_), n in count_moves(body or "").items():
                for ply in range(1, n + 1):
                    seen.setdefault((board, round_, ply), now)
        stop.wait(every)


_CALL = re.compile(r"^\d+\s+([\d.]+)\s+(\w+)\(\d+<([^>]*)>.*\)\s+=\s+(-?\d+)")


class StoreCalls:
    """The relay's ``write`` and ``fsync`` calls on the files of its state directory (and of
    ``--out``), from strace's log: what its store costs the disk."""

    def __init__(self, log: Path, paths: list[str]) -> None:
        self.log = log
        self.paths = list(paths)
        self.calls: list[tuple[float, str, str, int]] = []  # (time, call, path, result)
        self._offset = 0

    def read(self) -> None:
        if not self.log.exists():
            return
        with self.log.open("rb") as f:
            f.seek(self._offset)
            data = f.read()
        whole = data[:data.rfind(b"\n") + 1]
        self._offset += len(whole)
        for line in whole.decode("utf-8", "replace").splitlines():
            m = _CALL.match(line)
            if m and any(m.group(3).startswith(p) for p in self.paths):
                self.calls.append((float(m.group(1)), m.group(2), m.group(3),
                                   int(m.group(4))))

    def between(self, t0: float, t1: float, *paths: str) -> tuple[int, int]:
        """(bytes written, fsyncs) from ``t0`` to ``t1`` (wall clock), under ``paths`` (all
        when none is given)."""
        self.read()
        calls = [c for c in self.calls if t0 <= c[0] < t1
                 and (not paths or any(c[2].startswith(p) for p in paths))]
        written = sum(c[3] for c in calls if c[1] in ("write", "pwrite64", "writev")
                      and c[3] > 0)
        return written, sum(1 for c in calls if c[1] in ("fsync", "fdatasync"))


@dataclass
class Phase:
    """One measured stretch: the relay's CPU and its store's calls from ``t0`` to ``t1``."""

    name: str
    wall0: float
    t0: float
    cpu0: dict[int, float]
    moves0: int
    messages0: int
    wall: float = 0.0
    t1: float = 0.0
    cpu: dict[int, float] = field(default_factory=dict)
    moves: int = 0
    messages: int = 0


class Hall:
    """The broker, the relay (under strace when it is installed) and the real boards."""

    def __init__(self, tmp: Path, opts: argparse.Namespace) -> None:
        self.tmp, self.opts = tmp, opts
        self.broker = Mosquitto(tmp / "broker").start()
        self.http_port = free_port()
        self.state = tmp / "relay"
        self.out = tmp / "hall.pdn" if opts.out else None
        self.trace = tmp / "relay.strace"
        self.boards: list[subprocess.Popen[bytes]] = []
        self.broker_cpu = 0.0  # of the brokers stopped (an outage starts a new one)
        strace = shutil.which("strace") if opts.strace else None
        command = [sys.executable, "-m", "boardctl", "relay", "--broker", self.broker.url,
                   "--hall", HALL, "--http", f"127.0.0.1:{self.http_port}",
                   "--state-dir", str(self.state)]
        if self.out is not None:
            command += ["--out", str(self.out)]
        if strace:
            command = [strace, "-f", "--seccomp-bpf", "-qq", "-y", "-s", "0", "-ttt",
                       "-e", "trace=write,pwrite64,writev,fsync,fdatasync", "-o",
                       str(self.trace), *command]
        self.err = open(tmp / "relay.stderr", "wb")
        self.proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=self.err)
        self.relay_pid = self._traced_pid() if strace else self.proc.pid
        # --out is written to a temporary file beside it (.NAME.XXXX), then renamed
        self.out_paths = [str(self.out), str(self.out.parent / f".{self.out.name}.")] \
            if self.out is not None else []
        self.calls = StoreCalls(self.trace, [str(self.state), *self.out_paths]) \
            if strace else None

    def _traced_pid(self) -> int:
        """The relay's pid: strace's child running it (strace forks test children first)."""
        children = Path(f"/proc/{self.proc.pid}/task/{self.proc.pid}/children")
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            for pid in children.read_text().split() if children.exists() else []:
                try:
                    command = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
                except OSError:
                    continue
                if command[0] == sys.executable.encode() and b"relay" in command:
                    return int(pid)
            time.sleep(0.01)
        raise RuntimeError("strace did not start the relay")

    def _signal(self, signum: int) -> None:
        try:
            os.kill(self.relay_pid, signum)
        except ProcessLookupError:
            pass

    def start_boards(self) -> None:
        from support.service_helpers import game_log

        log = self.tmp / "game.jsonl"
        log.write_text("".join(json.dumps(e.record()) + "\n" for e in
                               game_log(40, seed=1, think=(0.5, 1.5), change_mind=0.0)))
        for n in range(self.opts.real):
            self.boards.append(subprocess.Popen(
                [sys.executable, "-m", "boardctl", "run", "--sim", "--rules", "international",
                 "--time-control", "5400+30", "--state-dir", str(self.tmp / f"real{n}"),
                 "--events", str(log), "--broker", self.broker.url, "--hall", HALL,
                 "--board", f"r{n}", "--round", "1"], stderr=subprocess.DEVNULL))

    def url(self, round_: int | None = None) -> str:
        path = f"/{HALL}.pdn" if round_ is None else f"/{HALL}/round/{round_}.pdn"
        return f"http://127.0.0.1:{self.http_port}{path}"

    def urls(self, round_: int | None = None) -> list[str]:
        """The hall's PDN, or a round's URLs (64 games each: ``R.pdn``, ``R-2.pdn``, ...)."""
        if round_ is None:
            return [self.url()]
        parts = -(-(self.opts.boards + self.opts.real) // 64)
        return [self.url(round_)] + [self.url(round_).replace(".pdn", f"-{k}.pdn")
                                     for k in range(2, parts + 1)]

    def wait_served(self) -> None:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            try:
                urllib.request.urlopen(self.url(), timeout=1).read()
                return
            except OSError:
                time.sleep(0.1)
        raise RuntimeError("the relay does not serve")

    def broker_pid(self) -> int:
        return self.broker.proc.pid if self.broker.proc else 0

    def broker_total(self) -> float:
        """The brokers' CPU seconds so far (an outage's broker and the one after it)."""
        return self.broker_cpu + cpu_seconds(self.broker_pid())

    def outage(self, seconds: float) -> None:
        """The broker killed, and started again ``seconds`` later on the same port."""
        self.broker_cpu += cpu_seconds(self.broker_pid())
        proc, self.broker.proc = self.broker.proc, None
        if proc is not None:
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait(timeout=10)
            if proc.stderr is not None:
                proc.stderr.close()
        time.sleep(seconds)
        self.broker.start()

    def begin(self, name: str, sim: SimBoards) -> Phase:
        if self.calls is not None:
            self.calls.read()
        pids = [self.relay_pid, *(p.pid for p in self.boards)]
        cpu0 = {pid: cpu_seconds(pid) for pid in pids}
        cpu0[0] = self.broker_total()
        return Phase(name, time.monotonic(), time.time(), cpu0, len(sim.sent), sim.messages)

    def end(self, phase: Phase, sim: SimBoards) -> Phase:
        phase.wall = time.monotonic() - phase.wall0
        phase.t1 = time.time()
        phase.cpu = {pid: cpu_seconds(pid) - c for pid, c in phase.cpu0.items()}
        phase.cpu[0] = self.broker_total() - phase.cpu0[0]
        phase.moves = len(sim.sent) - phase.moves0
        phase.messages = sim.messages - phase.messages0
        return phase

    def stop(self) -> None:
        for p in self.boards:
            stop_by_pid(p, 10)
        if self.proc.poll() is None:  # the relay by its pid (strace follows it out)
            self._signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self._signal(signal.SIGKILL)
                stop_by_pid(self.proc, 5)
        self.err.close()
        self.broker.stop()


def store_line(hall: Hall, phase: Phase) -> str:
    """The relay's CPU and its store's writes per move in ``phase``."""
    moves = max(phase.moves, 1)
    text = (f"relay {100 * phase.cpu[hall.relay_pid] / phase.wall:.1f}% of a core, "
            f"{1000 * phase.cpu[hall.relay_pid] / moves:.2f} ms CPU a move")
    if hall.calls is None:
        return text + " (strace not found: the store's writes not counted)"
    written, syncs = hall.calls.between(phase.t0, phase.t1, str(hall.state))
    text += (f"; store {written / moves:,.0f} bytes and {syncs / moves:.2f} fsyncs a move "
             f"({syncs / phase.wall:.1f} fsyncs/s, {written / phase.wall / 1e3:,.0f} kB/s)")
    if hall.out is not None:
        out_bytes, out_syncs = hall.calls.between(phase.t0, phase.t1, *hall.out_paths)
        text += (f"; --out {out_bytes / moves:,.0f} bytes and {out_syncs / moves:.2f} fsyncs "
                 "a move")
    return text


def latency_line(sim: SimBoards, seen: dict[tuple[str, int, int], float],
                 keys: list[tuple[str, int, int]]) -> str:
    latencies = sorted(seen[k] - sim.sent[k] for k in keys if k in seen)
    missing = sum(1 for k in keys if k not in seen)
    if not latencies:
        return "move-to-PDN latency: no move seen"
    return (f"move-to-PDN latency (ms): p50 {pct(latencies, 0.5):.0f}  "
            f"p90 {pct(latencies, 0.9):.0f}  p99 {pct(latencies, 0.99):.0f}  "
            f"max {latencies[-1] * 1000:.0f}  mean {statistics.mean(latencies) * 1000:.0f}  "
            f"({len(latencies)} moves, {missing} not seen)")


def served_all(sim: SimBoards, urls: list[str], seconds: float = 60.0) -> None:
    """Wait (at most ``seconds``) until ``urls`` serve every move the boards have sent of
    this round, so that a burst of snapshots is not counted in the next measured stretch."""
    deadline = time.monotonic() + seconds
    want = {(b, sim.round): len(m) for b, m in sim.moves.items() if m}
    while time.monotonic() < deadline:
        counts: dict[tuple[str, int], int] = {}
        try:
            for url in urls:
                counts.update(count_moves(fetch(url)[0] or ""))
        except OSError:
            pass
        if all(counts.get(k, 0) >= n for k, n in want.items()):
            time.sleep(0.5)  # what the relay does after serving them
            return
        time.sleep(0.2)
    print(f"(the relay did not serve every move sent within {seconds:.0f} s)")


def settle(sim: SimBoards, seen: dict[tuple[str, int, int], float],
           keys: list[tuple[str, int, int]], seconds: float) -> None:
    """Wait (at most ``seconds``) until the poller has seen every move of ``keys``."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and not all(k in seen for k in keys):
        time.sleep(0.1)


def one_round(hall: Hall, sim: SimBoards, opts: argparse.Namespace, stop: threading.Event,
              seen: dict[tuple[str, int, int], float], stats: dict[str, int]) -> None:
    """The issue-13 run: one round, measured over ``--seconds`` (an outage halfway)."""
    phase = hall.begin("run", sim)
    outage = threading.Timer(opts.seconds / 2, hall.outage, (opts.outage,))
    if opts.outage:  # the boards play on meanwhile, as a hall's boards do
        outage.start()
    sim.run(opts.seconds, stop)
    if opts.outage:
        outage.join()
    hall.end(phase, sim)
    settle(sim, seen, list(sim.sent), 15.0 if opts.outage else 2.0)
    cpu, wall = phase.cpu, phase.wall
    down = f", the broker down {opts.outage:g} s halfway" if opts.outage else ""
    print(f"hall: {opts.boards} simulated boards + {opts.real} real boardctl run --sim, "
          f"{opts.rate:g} moves/board/min, {wall:.0f} s{down}, poll every "
          f"{opts.poll * 1000:.0f} ms")
    print(f"throughput: {phase.messages / wall:.1f} messages/s published, "
          f"{phase.moves / wall:.2f} moves/s; {stats['200']} PDN fetches (200), "
          f"{stats.get('304', 0)} not modified")
    print(latency_line(sim, seen, list(sim.sent)))
    print(f"CPU (% of one core): relay {100 * cpu[hall.relay_pid] / wall:.1f}  "
          f"mosquitto {100 * cpu[0] / wall:.1f}  real boards "
          + " ".join(f"{100 * cpu[p.pid] / wall:.1f}" for p in hall.boards))
    print("per move: " + store_line(hall, phase))


def long_event(hall: Hall, sim: SimBoards, opts: argparse.Namespace, stop: threading.Event,
               seen: dict[tuple[str, int, int], float], urls: list[list[str]]) -> None:
    """``--rounds``: round after round, the earlier rounds' games kept by the relay."""
    print(f"long event: {opts.rounds} rounds of {opts.boards} simulated boards, "
          f"{opts.rate:g} moves/board/min for {opts.seconds:g} s a round, each game finished "
          "with its result before the next round")
    per_move = []
    for r in range(1, opts.rounds + 1):
        if r > 1:
            urls[0] = hall.urls(r)
            sim.begin(r)
            served_all(sim, hall.urls(r))  # the round's opening snapshots are in
        phase = hall.begin(f"round {r}", sim)
        sim.run(opts.seconds, stop)
        hall.end(phase, sim)
        keys = [k for k in sim.sent if k[1] == r]
        settle(sim, seen, keys, 2.0)
        per_move.append(phase.cpu[hall.relay_pid] / max(phase.moves, 1))
        print(f"round {r:2d}: {phase.moves} moves; " + store_line(hall, phase) + "; p99 "
              + (f"{pct(sorted(seen[k] - sim.sent[k] for k in keys if k in seen), 0.99):.0f}"
                 if any(k in seen for k in keys) else "-") + " ms")
        sim.finish()
        served_all(sim, hall.urls(r))  # the games played out are in
    print(f"CPU a move, last round / first: {per_move[-1] / per_move[0]:.2f} "
          "(target: within 1.20)")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--boards", type=int, default=200, help="simulated boards (one publisher)")
    ap.add_argument("--real", type=int, default=3, help="real boardctl run --sim boards")
    ap.add_argument("--rate", type=float, default=2.0, help="moves per board per minute")
    ap.add_argument("--seconds", type=float, default=60.0, help="measured (a round's) seconds")
    ap.add_argument("--poll", type=float, default=0.1, help="poller interval (s)")
    ap.add_argument("--outage", type=float, default=0.0,
                    help="the broker down this many seconds halfway through")
    ap.add_argument("--rounds", type=int, default=0,
                    help="the long-event mode: this many rounds, earlier games kept")
    ap.add_argument("--same-games", action="store_true",
                    help="with --rounds: every round the first round's games and timing (new "
                    "ids), so that the rounds differ only in the games the relay keeps (the "
                    "default rotates the games: each round's positions cost their own)")
    ap.add_argument("--out", action="store_true", help="the relay writes --out too")
    ap.add_argument("--no-strace", dest="strace", action="store_false",
                    help="do not count the store's writes with strace")
    ap.add_argument("--keep", action="store_true",
                    help="keep the temporary folder (the relay's store, the strace log)")
    opts = ap.parse_args()

    tmp = Path(tempfile.mkdtemp(prefix="bench-hall-"))
    hall = Hall(tmp, opts)
    stop = threading.Event()
    sim: SimBoards | None = None
    try:
        hall.start_boards()
        hall.wait_served()
        time.sleep(1.0)  # the relay subscribes
        sim = SimBoards(hall.broker.port, opts.boards, opts.rate,
                        same_games=opts.same_games)
        sim.begin()
        seen: dict[tuple[str, int, int], float] = {}
        stats = {"200": 0, "304": 0}
        urls = [hall.urls(1) if opts.rounds else hall.urls()]
        poller = threading.Thread(target=poll, args=(urls, opts.poll, stop, seen, stats),
                                  daemon=True)
        poller.start()
        served_all(sim, urls[0])  # the opening snapshots are in
        if opts.rounds:
            long_event(hall, sim, opts, stop, seen, urls)
        else:
            one_round(hall, sim, opts, stop, seen, stats)
        stop.set()
        poller.join(5)
        return 0
    finally:
        stop.set()
        if sim is not None:
            sim.close()
        hall.stop()
        if opts.keep:
            print(f"kept: {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
