"""Benchmark of the live page's audience (issue 32): ``python benchmarks/bench_viewers.py``.

A real Mosquitto on a free loopback port, the relay as a process (``boardctl relay --broker
... --hall BENCH``), one publisher playing N boards' feeds (benchmarks/bench_hall.py's
``SimBoards``: moves at the given rate, a snapshot every 10 s) and V viewers: V sockets held by
this process on one ``selectors`` loop, each opening ``/events`` (all at once, as a crowd does
when a round starts), reading the stream and noting when each move's ``board`` event arrives.
``--nginx`` puts a real nginx with the shipped configuration in between (docs/SCALE.md).

Printed: viewers served / refused / dropped, moves each viewer got of those published,
move-to-viewer latency percentiles over every (viewer, move) pair, the relay's CPU share and
resident memory before and with the viewers (memory per viewer).

Target (issue 32): 2,000 viewers all served, every move to every viewer, p99 < 2 s.
"""

from __future__ import annotations

import argparse
import json
import re
import resource
import selectors
import socket
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

from bench_hall import HALL, SimBoards, cpu_seconds  # noqa: E402
from support.mqtt_broker import Mosquitto, free_port  # noqa: E402
from support.nginx_proxy import Nginx  # noqa: E402
from support.processes import stop_by_pid  # noqa: E402

_BOARD = re.compile(rb'"board":"([^"]+)"')
_PLY = re.compile(rb'"ply":(\d+)')


def rss(pid: int) -> int:
    """Resident memory of ``pid`` in bytes."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    return 0


class Viewer:
    __slots__ = ("sock", "buf", "head", "status", "moves", "closed", "plies", "chunked", "raw")

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.buf = b""
        self.head = True
        self.status = 0
        self.moves = 0
        self.closed = False
        self.plies: dict[str, int] = {}  # board: the latest ply this viewer has of it
        self.chunked = False  # through a proxy: Transfer-Encoding: chunked
        self.raw = b""  # chunked bytes not decoded yet

    def dechunk(self, data: bytes) -> bytes:
        """The payload of the whole chunks in ``raw + data`` (the rest kept)."""
        self.raw += data
        out = []
        while True:
            line, sep, rest = self.raw.partition(b"\r\n")
            if not sep:
                break
            size = int(line.split(b";")[0], 16)
            if len(rest) < size + 2:
                break
            out.append(rest[:size])
            self.raw = rest[size + 2:]
        return b"".join(out)


class Audience:
    """V viewers of ``/events`` on one selectors loop (its own thread)."""

    def __init__(self, host: str, port: int, path: str, count: int,
                 sent: dict[tuple[str, int], float]) -> None:
        self.host, self.port, self.path = host, port, path
        self.sent = sent
        self.sel = selectors.DefaultSelector()
        self.viewers: list[Viewer] = []
        self.latencies: list[float] = []
        self.reached: dict[tuple[str, int], int] = {}  # move: how many viewers it reached
        self.stop = threading.Event()
        self.ended = 0
        for _ in range(count):
            sock = socket.socket()
            sock.setblocking(False)
            sock.connect_ex((host, port))
            viewer = Viewer(sock)
            self.viewers.append(viewer)
            self.sel.register(sock, selectors.EVENT_WRITE, viewer)
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self) -> None:
        request = (f"GET {self.path} HTTP/1.1\r\nHost: {self.host}\r\n"
                   "Accept: text/event-stream\r\n\r\n").encode()
        while not self.stop.is_set():
            for key, events in self.sel.select(0.2):
                viewer: Viewer = key.data
                if events & selectors.EVENT_WRITE:
                    try:
                        viewer.sock.send(request)
                    except OSError:
                        self.end(viewer)
                        continue
                    self.sel.modify(viewer.sock, selectors.EVENT_READ, viewer)
                elif events & selectors.EVENT_READ:
                    self.read(viewer)

    def read(self, viewer: Viewer) -> None:
        try:
            data = viewer.sock.recv(262144)
        except OSError:
            data = b""
        if not data:
            self.end(viewer)
            return
        now = time.time()
        if viewer.head:
            viewer.buf += data
            if b"\r\n\r\n" not in viewer.buf:
                return
            head, _, data = viewer.buf.partition(b"\r\n\r\n")
            viewer.buf = b""
            viewer.status = int(head.split(b" ", 2)[1])
            viewer.chunked = b"transfer-encoding: chunked" in head.lower()
            viewer.head = False
        viewer.buf += viewer.dechunk(data) if viewer.chunked else data
        *frames, viewer.buf = viewer.buf.split(b"\n\n")
        for frame in frames:
            if b"event: state\n" in frame:
                state = json.loads(frame.split(b"data: ", 1)[1])
                viewer.plies = {b["board"]: b["ply"] for b in state["boards"]}
                continue
            if b"event: board\n" not in frame:
                continue
            board, ply = _BOARD.search(frame), _PLY.search(frame)
            if board is None or ply is None:
                continue
            move = (board.group(1).decode(), int(ply.group(1)))
            at = self.sent.get(move)
            viewer.plies[move[0]] = max(viewer.plies.get(move[0], 0), move[1])
            if at is not None:
                viewer.moves += 1
                self.reached[move] = self.reached.get(move, 0) + 1
                self.latencies.append(now - at)

    def end(self, viewer: Viewer) -> None:
        if not viewer.closed:
            viewer.closed = True
            self.ended += 1
            try:
                self.sel.unregister(viewer.sock)
            except (KeyError, ValueError):
                pass
            viewer.sock.close()

    def close(self) -> None:
        self.stop.set()
        self.thread.join(5)
        for viewer in self.viewers:
            if not viewer.closed:
                viewer.sock.close()


def pct(values: list[float], p: float) -> float:
    return values[min(len(values) - 1, int(p * len(values)))] * 1000


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--viewers", type=int, default=2000)
    ap.add_argument("--boards", type=int, default=200, help="simulated boards (one publisher)")
    ap.add_argument("--rate", type=float, default=2.0, help="moves per board per minute")
    ap.add_argument("--seconds", type=float, default=30.0)
    ap.add_argument("--nginx", action="store_true", help="viewers go through a real nginx "
                    "with the shipped docs/examples/nginx configuration")
    opts = ap.parse_args()
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    if hard < opts.viewers + 256:
        print(f"open files limit {hard} is too low for {opts.viewers} viewers", file=sys.stderr)
        return 2

    tmp = Path(tempfile.mkdtemp(prefix="bench-viewers-"))
    broker = Mosquitto(tmp / "broker", persistence=False).start()
    http_port = free_port()
    relay = subprocess.Popen([sys.executable, "-m", "boardctl", "relay", "--broker",
                              broker.url, "--hall", HALL, "--http", f"127.0.0.1:{http_port}",
                              # its own: not the games a former run (or bench_hall) kept
                              "--state-dir", str(tmp / "relay")],
                             stderr=subprocess.DEVNULL)
    proxy = Nginx(tmp / "nginx", http_port, connections=opts.viewers * 3 + 256) \
        if opts.nginx else None
    sim: SimBoards | None = None
    audience: Audience | None = None
    stop = threading.Event()
    try:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{http_port}/{HALL}.pdn",
                                       timeout=1).read()
                break
            except OSError:
                time.sleep(0.1)
        time.sleep(1.0)  # the relay subscribes
        if proxy is not None:
            proxy.start()
        sim = SimBoards(broker.port, opts.boards, opts.rate)
        sim.begin()
        time.sleep(2.0)  # the opening snapshots are in
        rss0 = rss(relay.pid)
        port = proxy.port if proxy is not None else http_port
        t0 = time.monotonic()
        audience = Audience("127.0.0.1", port, "/events", opts.viewers, sim.sent)
        while time.monotonic() - t0 < 60 and sum(
                1 for v in audience.viewers if v.status or v.closed) < opts.viewers:
            time.sleep(0.05)
        connected = time.monotonic() - t0
        served = sum(1 for v in audience.viewers if v.status == 200)
        time.sleep(1.0)
        rss1 = rss(relay.pid)
        cpu0, wall0 = cpu_seconds(relay.pid), time.monotonic()
        sim.run(opts.seconds, stop)
        wall = time.monotonic() - wall0
        cpu = cpu_seconds(relay.pid) - cpu0
        time.sleep(3.0)  # the last moves reach the viewers
        rss2 = rss(relay.pid)
        audience.stop.set()
        audience.thread.join(5)
        moves = len(sim.sent)
        refused = sum(1 for v in audience.viewers if v.status not in (0, 200))
        complete = sum(1 for v in audience.viewers if v.status == 200 and all(
            v.plies.get(board, 0) >= ply for board, ply in sim.sent))
        lat = sorted(audience.latencies)
        print(f"viewers: {opts.viewers} opened /events at once"
              + (" through nginx" if proxy is not None else "")
              + f"; {served} served (200) within {connected:.1f} s, {refused} refused, "
              f"{audience.ended} streams ended early")
        print(f"hall: {opts.boards} simulated boards, {opts.rate:g} moves/board/min, "
              f"{wall:.0f} s: {moves} moves published; {complete} of {served} viewers got "
              f"every one")
        short = sum(1 for m in sim.sent if audience.reached.get(m, 0) < served)
        if short:
            print(f"{short} moves came to some viewers only within a later event (or in the "
                  "state they opened with), not in an event of their own")
        if lat:
            print(f"move-to-viewer latency (ms) over {len(lat)} deliveries: p50 "
                  f"{pct(lat, 0.5):.0f}  p90 {pct(lat, 0.9):.0f}  p99 {pct(lat, 0.99):.0f}  "
                  f"max {lat[-1] * 1000:.0f}")
        print(f"relay: CPU {100 * cpu / wall:.1f}% of one core while streaming; RSS "
              f"{rss0 / 2**20:.1f} MiB before the viewers, {rss1 / 2**20:.1f} MiB with them, "
              f"{rss2 / 2**20:.1f} MiB at the end: {(rss1 - rss0) / max(1, served) / 1024:.1f}"
              f" KiB a viewer")
        return 0 if served == opts.viewers and complete == served else 1
    finally:
        stop.set()
        if audience is not None:
            audience.close()
        if sim is not None:
            sim.close()
        if proxy is not None:
            proxy.stop()
        stop_by_pid(relay, 10)
        broker.stop()


if __name__ == "__main__":
    sys.exit(main())
