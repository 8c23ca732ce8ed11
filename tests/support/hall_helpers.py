"""A hall for the tests: a real Mosquitto (tests/support/mqtt_broker.py), the relay in this process
(its state thread a test thread), boards as real ``boardctl run --sim`` processes. Waiting is
bounded polling on real processes, never a timing assertion."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from boardctl.hall.mqtt import parse_broker
from boardctl.relay.follower import HallFollower
from boardctl.relay.http import PdnServer, Timeline
from boardctl.relay.relay import Relay
from firmware.formats.events import Event
from support.processes import stop_by_pid
from support.service_helpers import TC

BOARDCTL = [sys.executable, "-m", "boardctl"]


def wait_for(predicate: Callable[[], Any], timeout: float = 60.0, what: str = "it") -> Any:
    """``predicate()``'s first true value, polled until ``timeout``: every 0.02 s at first,
    then less often, up to every 0.1 s (a predicate may ask a process over HTTP and parse its
    PDN: a long wait must not take the CPU the processes it waits for need)."""
    deadline = time.monotonic() + timeout
    pause = 0.02
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(pause)  # polling a real process, not test timing
        pause = min(pause * 1.5, 0.1)
    raise AssertionError(f"timed out waiting for {what}")


def write_log(path: Path, events: list[Event]) -> Path:
    path.write_text("".join(json.dumps(e.record()) + "\n" for e in events))
    return path


#: The test boards' ``[broker] reconnect_max`` and the in-process relay's (5 s by default): a
#: test that stops the broker waits for them to be back, and they are back within this of its
#: start.
RECONNECT_MAX = 0.5


class Board:
    """One ``boardctl run --sim`` board process in the hall; its config file (next to its state
    directory) says ``[broker] reconnect_max`` (``reconnect_max``)."""

    def __init__(self, broker_url: str, hall: str, name: str, state: Path,
                 events: Path | None = None, *extra: str,
                 reconnect_max: float = RECONNECT_MAX) -> None:
        self.config = state.parent / f"{state.name}.toml"
        self.args = [*BOARDCTL, "run", "--sim", "--rules", "international", "--time-control", TC,
                     "--state-dir", str(state), "--config", str(self.config),
                     "--broker", broker_url, "--hall", hall, "--board", name, *extra]
        self.reconnect_max = reconnect_max
        if events is not None:
            self.args += ["--events", str(events)]
        self.state = state
        self.err_path = state.parent / f"{state.name}.stderr"
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> Board:
        self.state.parent.mkdir(parents=True, exist_ok=True)
        self.config.write_text(f"[broker]\nreconnect_max = {self.reconnect_max}\n")
        err = open(self.err_path, "ab")
        self.proc = subprocess.Popen(self.args, stdout=subprocess.DEVNULL, stderr=err)
        err.close()
        return self

    def stderr(self) -> str:
        return self.err_path.read_text(errors="replace") if self.err_path.exists() else ""

    def kill9(self) -> None:
        assert self.proc is not None
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=10)
        self.proc = None

    def stop(self) -> None:
        proc, self.proc = self.proc, None
        if proc is None or proc.poll() is not None:
            return
        assert stop_by_pid(proc) == 0, self.stderr()


class HallRelay:
    """The relay of a hall in this process: follower, state thread, HTTP server."""

    def __init__(self, broker_url: str, hall: str, *, delay: float = 0.0,
                 now: Callable[[], float] = time.time) -> None:
        self.logs: list[str] = []
        self.follower = HallFollower(parse_broker(broker_url), hall, log=self.logs.append,
                                     reconnect_max=RECONNECT_MAX)
        self.timeline = Timeline(delay=delay, now=now)
        self.server = PdnServer(("127.0.0.1", 0), hall=hall, timeline=self.timeline)
        self.relay = Relay([], hall=self.follower, timeline=self.timeline, wall=now)
        self.hall = hall
        self._stop = threading.Event()
        self._lock = threading.Lock()
        # polled every 0.05 s (not REAP_EVERY): stop() waits a poll for the server to end
        self._threads = [threading.Thread(target=self.server.serve_forever, args=(0.05,),
                                          daemon=True),
                         threading.Thread(target=self._loop, daemon=True)]

    def _loop(self) -> None:
        while not self._stop.is_set():
            with self._lock:
                self.relay.poll()
            self.relay.wait(0.05)

    def start(self) -> HallRelay:
        self.follower.start()
        for t in self._threads:
            t.start()
        wait_for(self.follower.subscribed.is_set, what="the relay's subscription")
        return self

    def stop(self) -> None:
        self._stop.set()
        self._threads[1].join(5)
        self.follower.close()
        self.server.shutdown()
        self.server.server_close()

    def games(self, board: str | None = None) -> list[Any]:
        with self._lock:
            return [g for g in self.relay.state.games.values()
                    if board is None or g.board == board]

    def moves(self, board: str) -> list[str]:
        games = self.games(board)
        return [m["move"] for m in games[-1].moves] if games else []

    def get(self, path: str, headers: dict[str, str] | None = None) -> tuple[int, Any, bytes]:
        url = f"http://127.0.0.1:{self.server.server_address[1]}{path}"
        request = urllib.request.Request(url, headers=headers or {})
        try:
            with urllib.request.urlopen(request, timeout=5) as resp:
                return resp.status, resp.headers, resp.read()
        except urllib.error.HTTPError as exc:
            return exc.code, exc.headers, exc.read()


@contextmanager
def hall_relay(broker_url: str, hall: str = "H", **kwargs: Any) -> Iterator[HallRelay]:
    relay = HallRelay(broker_url, hall, **kwargs).start()
    try:
        yield relay
    finally:
        relay.stop()


class RelayProcess:
    """``boardctl relay --broker URL --hall HALL --http 127.0.0.1:0 ...`` as a real process;
    its address read from its own stderr (a file here, polled), stopped by pid."""

    def __init__(self, broker_url: str, hall: str, workdir: Path, *extra: str) -> None:
        self.args = [*BOARDCTL, "relay", "--broker", broker_url, "--hall", hall,
                     "--http", "127.0.0.1:0", "--broker-reconnect-max", str(RECONNECT_MAX),
                     *extra]
        self.err_path = workdir / "relay.stderr"
        self.proc: subprocess.Popen[bytes] | None = None
        self.url = ""
        self.urls: list[str] = []

    def start(self, following: bool = True) -> RelayProcess:
        """Start it; wait for its HTTP address, and with ``following`` for the broker too."""
        self.err_path.parent.mkdir(parents=True, exist_ok=True)
        with open(self.err_path, "ab") as err:
            self.proc = subprocess.Popen(self.args, stdout=subprocess.DEVNULL, stderr=err)

        def address() -> str | None:
            assert self.proc is not None and self.proc.poll() is None, self.stderr()
            found = re.search(r"live page at (http://127\.0\.0\.1:\d+/)", self.stderr())
            return found.group(1) if found else None

        self.url = wait_for(address, 30, "the relay's HTTP address")
        if following:
            wait_for(lambda: "relay: following" in self.stderr(), 30,
                     "the relay on the broker")
        # every server's address in the order ``boardctl relay`` says them (--http first)
        self.urls = re.findall(r"live page at (http://127\.0\.0\.1:\d+/)", self.stderr())
        return self

    def stderr(self) -> str:
        return self.err_path.read_text(errors="replace") if self.err_path.exists() else ""

    def get(self, path: str, base: str | None = None) -> tuple[int, bytes]:
        try:
            url = (base or self.url) + path.lstrip("/")
            with urllib.request.urlopen(url, timeout=5) as resp:
                return resp.status, resp.read()
        except urllib.error.HTTPError as exc:
            return exc.code, exc.read()

    def stop(self) -> int | None:
        """SIGTERM by pid (SIGKILL if it lingers); the exit status."""
        proc, self.proc = self.proc, None
        return stop_by_pid(proc)

    def kill9(self) -> None:
        """SIGKILL by pid: a crash, a power cut of the relay PC."""
        proc, self.proc = self.proc, None
        assert proc is not None
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
