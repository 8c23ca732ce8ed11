"""``boardctl clock`` in a real pseudo-terminal (issue 11): the status line fits the terminal's
width (it used to pad to 110 columns, so a narrower terminal scrolled), is drawn again to the
new width on a resize (SIGWINCH), and ``--plain`` writes plain lines a screen reader reads."""

from __future__ import annotations

import fcntl
import os
import select
import struct
import sys
import termios
import time

import pytest

pty = pytest.importorskip("pty")


def _set_size(fd: int, columns: int) -> None:
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 24, columns, 0, 0))


def _run(argv: list[str], columns: int, steps: list[tuple[str, bytes | int]],
         timeout: float = 20.0) -> tuple[int, str, list[int]]:
    """Run boardctl on a pty ``columns`` wide; after the first status line, do ``steps``:
    ("keys", b"..."), ("resize", COLUMNS), ("wait", SECONDS*10). Returns the exit code, the
    output, and the output length at each step."""
    pid, fd = pty.fork()
    if pid == 0:
        _set_size(0, columns)
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
                _set_size(fd, value)
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


def _status_lines(text: str) -> list[str]:
    return [part.replace("\x1b[K", "").rstrip("\n") for part in text.split("\r")
            if "\x1b[K" in part]


def test_status_line_fits_the_width_and_follows_a_resize() -> None:
    code, out, marks = _run(["clock", "-t", "300+3"], 40,
                            [("keys", b"s"), ("resize", 90), ("keys", b"q")])
    assert code == 0 and "Traceback" not in out, out
    narrow = _status_lines(out[: marks[1]])
    wide = _status_lines(out[marks[1]: marks[2]])
    assert narrow and all(len(line) <= 39 for line in narrow), narrow
    assert wide and all(len(line) <= 89 for line in wide)
    assert any(len(line) > 39 for line in wide), wide  # redrawn to the new width
    assert "| move 1" in wide[-1]  # the full line fits now
    assert all(" " * 20 not in line for line in narrow + wide)  # no padding to 110


def test_plain_mode_writes_lines_for_a_screen_reader() -> None:
    code, out, _ = _run(["clock", "--plain", "-t", "300+3"], 80,
                        [("keys", b"s"), ("keys", b"z"), ("keys", b"t"), ("keys", b"q")])
    assert code == 0 and "Traceback" not in out, out
    assert "\x1b[K" not in out  # nothing is drawn in place
    lines = [line.strip() for line in out.replace("\r", "").split("\n")
             if line.startswith("White ")]
    assert lines[0].startswith("White 5:00, Black 5:00") and "not started" in lines[0]
    assert any("Black to move, move 1" in line for line in lines)  # the press, once
    told = [line for line in lines if "Black to move" in line]
    assert len(told) == 2  # the press, then the t key; the ticking seconds are no news
