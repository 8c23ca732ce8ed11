"""Issue 10 on ``boardctl run --sim`` as a real process: presses within 30 ms of the set-down
with every fsync delayed 1.5 s in the kernel (strace's syscall fault injection), and a control
socket flooded by clients that never read. Each game is compared with ``boardctl replay`` of
the same log. Waiting here is for the subprocess to get somewhere, never a timing assertion."""

from __future__ import annotations

import json
import os
import select
import shutil
import signal
import socket
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from support.service_helpers import TC, fast_presses, game_log
from test_service_process import BOARDCTL, run, status, wait_for

from firmware.formats.events import iter_records
from firmware.pdn import read_games

STRACE = shutil.which("strace")


def game_file(tmp_path: Path, plies: int, seed: int) -> tuple[Path, list[str]]:
    events = fast_presses(game_log(plies, seed=seed, think=(0.1, 0.25), change_mind=0.0),
                          4, 30, seed)
    log = tmp_path / "game.jsonl"
    log.write_text("".join(iter_records(events)))
    replay = run("replay", "--rules", "international", "--time-control", TC, str(log)).stdout
    want = [m.text for m in next(read_games(replay, "replay")).moves]
    assert len(want) == plies
    return log, want


def service_cmd(state: Path, log: Path) -> list[str]:
    return [*BOARDCTL, "run", "--sim", "--rules", "international", "--time-control", TC,
            "--state-dir", str(state), "--events", str(log)]


def exported_moves(state: Path) -> list[str]:
    return [m.text for m in next(read_games(run("export", "--state-dir", str(state)).stdout,
                                            "export")).moves]


def child_of(pid: int) -> int:
    """The service under strace (strace's only child)."""
    return wait_for(lambda: int(Path(f"/proc/{pid}/task/{pid}/children").read_text().split()[0])
                    if Path(f"/proc/{pid}/task/{pid}/children").read_text().strip() else None,
                    what="strace to start the service")


@pytest.mark.skipif(STRACE is None and not os.environ.get("CI"), reason="strace not installed")
def test_fsync_delayed_1_5_s_in_the_kernel_and_fast_presses(tmp_path: Path) -> None:
    assert STRACE is not None, "CI needs strace for syscall fault injection"
    log, want = game_file(tmp_path, 4, seed=31)
    state = tmp_path / "state"
    proc = subprocess.Popen(
        [STRACE, "-f", "-qq", "-o", "/dev/null", "-e", "trace=fsync,fdatasync",
         "-e", "inject=fsync:delay_enter=1500000", *service_cmd(state, log)],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        final = wait_for(lambda: (s := status(state))["ply"] == len(want) and s, timeout=60,
                         what="the game to finish")
        assert final["moves"] == want
    finally:
        service = child_of(proc.pid)
        os.kill(service, signal.SIGTERM)
        _, err = proc.communicate(timeout=30)
    assert "Traceback" not in err
    assert exported_moves(state) == want  # the journal has it all, after the slow syncs


def flood(path: Path, stop: threading.Event, sent: list[int]) -> None:
    """Pipeline `status` requests and never read a reply."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.connect(str(path))
    sock.setblocking(False)
    chunk = b'{"cmd":"status"}\n' * 4096
    while not stop.is_set():
        try:
            sent[0] += sock.send(chunk)
        except BlockingIOError:
            stop.wait(0.005)
        except OSError:  # dropped by the service, as it should: connect again
            sock.close()
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                sock.connect(str(path))
                sock.setblocking(False)
            except OSError:
                stop.wait(0.01)
    sock.close()


def test_flooding_and_idle_control_clients_change_nothing(tmp_path: Path) -> None:
    log, want = game_file(tmp_path, 4, seed=32)
    state = tmp_path / "state"
    proc = subprocess.Popen(service_cmd(state, log), stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    path = state / "control.sock"
    stop = threading.Event()
    idle: list[socket.socket] = []
    try:
        wait_for(lambda: status(state))
        for _ in range(200):  # one client holding 200 idle connections
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.connect(str(path))
            idle.append(s)
        sent = [0]
        floods = [threading.Thread(target=flood, args=(path, stop, sent)) for _ in range(4)]
        for t in floods:
            t.start()
        final = wait_for(lambda: (s := status(state))["ply"] == len(want) and s, timeout=60,
                         what="the game to finish")
        assert final["moves"] == want
        assert sent[0] > 1 << 16  # they did flood: more than one 64 KiB read of requests, even
        # on a slow machine (the game runs on the clock, the flood as fast as it can)
        refused = 0
        readable, _, _ = select.select(idle, [], [], 1.0)
        for s in readable:  # beyond the cap, connections were told so and closed
            data = s.recv(4096)
            if data:
                refused += "too many clients" in json.loads(data.splitlines()[0])["error"]
        assert refused >= 200 - 32
    finally:
        stop.set()
        for s in idle:
            s.close()
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=30)
    assert proc.returncode == 0 and "Traceback" not in err
    assert exported_moves(state) == want


if __name__ == "__main__":  # pragma: no cover
    sys.exit(pytest.main([__file__, "-n", "0"]))
