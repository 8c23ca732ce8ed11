"""Run ``boardctl`` on a real pseudo-terminal of a given width and act on it: keys typed,
the terminal resized (the child gets SIGWINCH), as a user at a terminal does."""

from __future__ import annotations

import fcntl
import os
import pty
import select
import struct
import sys
import termios
import time

import pytest


def set_size(fd: int, columns: int) -> None:
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 24, columns, 0, 0))


def run_on_pty(argv: list[str], columns: int, steps: list[tuple[str, bytes | int]],
         timeout: float = 20.0) -> tuple[int, str, list[int]]:
    """Run boardctl on a pty ``columns`` wide; after the first status line, do ``steps``:
    ("keys", b"..."), ("resize", COLUMNS), ("wait", SECONDS*10). Returns the exit code, the
    output, and the output length at each step."""
    pid, fd = pty.fork()
    if pid == 0:
        set_size(0, columns)
        os.execv(sys.executable, [sys.executable, "-m", "boardctl", *argv])
    output = b""
    marks: list[int] = []
    deadline = time.monotonic() + timeout
    pending = list(steps)
    started = False
    next_at = 0.0
    status = None
    while time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], 0.05)
        if ready:
            try:
                output += os.read(fd, 65536)
            except OSError:
                break
        started = started or b"not started" in output
        if started and pending and time.monotonic() >= next_at:
            kind, value = pending.pop(0)
            marks.append(len(output))
            if kind == "keys":
                assert isinstance(value, bytes)
                os.write(fd, value)
            elif kind == "resize":
                assert isinstance(value, int)
                set_size(fd, value)
            next_at = time.monotonic() + 0.4  # let the loop draw (it wakes every 50 ms)
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
    else:
        os.kill(pid, 9)
        os.waitpid(pid, 0)
        pytest.fail("boardctl clock did not quit: " + output.decode(errors="replace")[-500:])
    if status is None or not os.WIFEXITED(status):
        _, status = os.waitpid(pid, 0)
    return os.WEXITSTATUS(status), output.decode(errors="replace"), marks
