"""``boardctl clock --sim`` in a real pseudo-terminal: keys drive the mock button pins, the real
HT16K33 driver writes the simulated faces, and the terminal shows both."""

from __future__ import annotations

import os
import select
import sys
import time

import pytest

pty = pytest.importorskip("pty")


def _run_keys(argv: list[str], keys: bytes, timeout: float = 20.0) -> tuple[int, str]:
    pid, fd = pty.fork()
    if pid == 0:  # the child: boardctl on the pty
        os.execv(sys.executable, [sys.executable, "-m", "boardctl", *argv])
    output = b""
    deadline = time.monotonic() + timeout
    sent = False
    status = None
    while time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], 0.05)
        if ready:
            try:
                output += os.read(fd, 65536)
            except OSError:
                break
        if not sent and b"not started" in output:  # the loop runs, in cbreak mode
            for key in keys:
                os.write(fd, bytes([key]))
            sent = True
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
    else:
        os.kill(pid, 9)
        os.waitpid(pid, 0)
        pytest.fail("boardctl clock did not quit: " + output.decode(errors="replace")[-500:])
    if status is None or not os.WIFEXITED(status):
        _, status = os.waitpid(pid, 0)
    return os.WEXITSTATUS(status), output.decode(errors="replace")


def test_sim_clock_in_a_terminal() -> None:
    code, out = _run_keys(["clock", "--sim", "-t", "60+1"], b"szm]q")
    assert code == 0, out
    last = [part for part in out.split("\r") if "move" in part][-1]
    assert "> White" in last  # both pressed: White runs again
    assert "move 3" in last  # 2 moves by White (one press, one arbiter +1), next is 3
    assert last.lstrip().startswith("[")  # the faces read back from the simulated chips
    assert "Traceback" not in out
