"""``boardctl watch`` shows the menus at the board (issue 40 item 2): a real ``boardctl watch
--plain`` on a real ``boardctl run --sim``, the simulated hand holding pause and stepping."""

from __future__ import annotations

import queue
import subprocess
import sys
import threading
import time
from pathlib import Path

from support.hand_helpers import WAIT_S, press, until
from support.processes import stop_by_pid

from boardctl.service.control import request


def test_watch_shows_the_menus_faces(tmp_path: Path) -> None:
    state = tmp_path / "state"
    sock = state / "control.sock"
    service = subprocess.Popen(
        [sys.executable, "-m", "boardctl", "run", "--sim", "--rules", "russian",
         "--time-control", "russian-blitz", "--state-dir", str(state)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    watch = None
    try:
        until(lambda: request(sock, "status"))
        watch = subprocess.Popen([sys.executable, "-m", "boardctl", "watch", "--state-dir",
                                  str(state), "--plain"], stdout=subprocess.PIPE,
                                 stderr=subprocess.DEVNULL, text=True)
        lines: queue.Queue[str] = queue.Queue()
        out = watch.stdout
        assert out is not None
        threading.Thread(target=lambda: [lines.put(line.rstrip("\n")) for line in out],
                         daemon=True).start()

        def said(what: str) -> None:
            deadline = time.monotonic() + WAIT_S
            seen = []
            while time.monotonic() < deadline:
                try:
                    line = lines.get(timeout=0.1)
                except queue.Empty:
                    continue
                seen.append(line)
                if line == what:
                    return
            raise AssertionError(f"{what!r} not said; said: {seen}")

        said_first = lines.get(timeout=WAIT_S)
        assert said_first.startswith("board ")
        press(sock, "pause", 2000)
        said("menu: time-control (faces 'CLoC' '3.2')")  # Russian blitz: 3 min + 2 s
        press(sock, "black")
        said("menu: computer (faces 'CoPU' 'oFF')")
        press(sock, "pause")
        said("menu: computer, choosing off (faces 'CoPU.' 'oFF')")
        press(sock, "pause", 2000)
        said("menu closed")
    finally:
        stop_by_pid(watch)
        assert stop_by_pid(service) == 0
