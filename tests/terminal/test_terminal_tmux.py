"""``boardctl watch`` in a real terminal: tmux (its own server on a socket in the test's
directory) runs it at 80x24 against a real ``boardctl run --sim``; the test reads the pane
(capture-pane) and types (send-keys). Waiting is for the screen to get somewhere, never a
timing assertion."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from support.service_helpers import PACE, TC, game_log
from support.terminal_helpers import WK2003, pdn_moves, sim_service_process, stop_process

from firmware.formats.events import iter_records


class Tmux:
    """A tmux server of the test's own, one session (80x24 unless told) running ``command``."""

    def __init__(self, where: Path, command: list[str], size: tuple[int, int] = (80, 24)
                 ) -> None:
        program = shutil.which("tmux")
        if program is None:
            message = "tmux is not installed (run tests/install-system-deps.sh)"
            if os.environ.get("CI"):
                pytest.fail(message)
            pytest.skip(message)
        self.base = [program, "-S", str(where / "tmux.sock")]
        line = " ".join(shlex.quote(part) for part in command)
        subprocess.run([*self.base, "new-session", "-d", "-x", str(size[0]), "-y", str(size[1]),
                        f"{line}; echo EXIT=$?; sleep 60"], check=True, timeout=10,
                       env={**{k: v for k, v in os.environ.items()
                               if k not in ("COLUMNS", "LINES")},  # pytest-xdist sets 80x24
                            "TERM": "xterm-256color"})

    def screen(self) -> str:
        return subprocess.run([*self.base, "capture-pane", "-p"], capture_output=True,
                              text=True, timeout=10, check=True).stdout

    def resize(self, columns: int, lines: int) -> None:
        subprocess.run([*self.base, "resize-window", "-x", str(columns), "-y", str(lines)],
                       check=True, timeout=10)

    def keys(self, *keys: str) -> None:
        subprocess.run([*self.base, "send-keys", *keys], check=True, timeout=10)

    def until(self, predicate: Callable[[str], bool], timeout: float = 30.0) -> str:
        deadline = time.monotonic() + timeout
        screen = ""
        while time.monotonic() < deadline:
            screen = self.screen()
            if predicate(screen):
                return screen
            time.sleep(0.1)
        raise AssertionError(f"the screen never got there:\n{screen}")

    def close(self) -> None:
        subprocess.run([*self.base, "kill-server"], capture_output=True, timeout=10)


@pytest.fixture
def service(tmp_path: Path) -> Iterator[Path]:
    """A real ``boardctl run --sim`` playing 8 plies of WK 2003 game 1; its state dir."""
    events = game_log(8, seed=3, think=(0.1, 0.2), change_mind=0.0, pace=PACE)
    log = tmp_path / "game.jsonl"
    log.write_text("".join(iter_records(events)))
    state = tmp_path / "state"
    proc = sim_service_process(state, "international", "--time-control", TC, "--events",
                               str(log))
    try:
        yield state
    finally:
        stop_process(proc)


def test_watch_in_a_real_terminal(tmp_path: Path, service: Path) -> None:
    tmux = Tmux(tmp_path, [sys.executable, "-m", "boardctl", "watch", "--state-dir",
                           str(service)])
    try:
        moves = pdn_moves(WK2003, 1, 8)
        screen = tmux.until(lambda s: f"Last move: 4... {moves[7]}" in s)
        lines = screen.splitlines()
        assert lines[10][:34].split() == list("abcdefghij")  # the 10x10 board, drawn whole
        assert lines[0].startswith("10 ") and lines[9].startswith(" 1 ")
        assert "White" in screen and "Black" in screen and "300+5" in screen
        assert f"4. {moves[6]}" in screen
        tmux.keys("C-c")
        tmux.until(lambda s: "EXIT=" in s)
        assert "EXIT=0" in tmux.screen() and "Traceback" not in tmux.screen()
    finally:
        tmux.close()


def test_play_in_a_real_terminal(tmp_path: Path) -> None:
    tmux = Tmux(tmp_path, [sys.executable, "-m", "boardctl", "play", "--rules", "russian",
                           "--time-control", "300+5", "--state-dir", str(tmp_path / "state")])
    try:
        screen = tmux.until(lambda s: "White to move" in s, timeout=60)
        assert screen.splitlines()[8][:28].split() == list("abcdefgh")  # 8x8, drawn whole
        tmux.keys("c3-d4", "Enter")
        tmux.until(lambda s: "Last move: 1. c3-d4" in s)
        tmux.keys("f6-e5", "Enter")
        screen = tmux.until(lambda s: "Last move: 1... f6-e5" in s)
        assert "Black" in screen and "<" in screen.split("White", 1)[1]  # White's clock runs
        tmux.keys("quit", "Enter")
        tmux.until(lambda s: "EXIT=" in s)
        assert "EXIT=0" in tmux.screen()
        assert not (tmp_path / "state" / "control.sock").exists()  # the service stopped
    finally:
        tmux.close()


def test_play_s_messages_use_the_width_of_the_terminal(tmp_path: Path) -> None:
    """Issue 36: the message area wrapped at about 30 columns in a 120-column terminal (help
    and errors over 3-7 lines, a FEN split mid-token). Now the notices run across the whole
    width: at 120 columns the help is one line and a FEN is whole; at 80 an error is one line."""
    from boardctl.terminal.play import HELP
    from firmware.rules.position import Position

    tmux = Tmux(tmp_path, [sys.executable, "-m", "boardctl", "play", "--rules",
                           "international", "--state-dir", str(tmp_path / "state")],
                size=(120, 30))
    try:
        tmux.until(lambda s: "White to move" in s, timeout=60)
        tmux.keys("help", "Enter")
        screen = tmux.until(lambda s: "lift or place one piece" in s)
        assert any(line.strip() == HELP for line in screen.splitlines()), screen
        tmux.keys("24-29", "Enter")  # no piece there: the answer names the position's FEN
        fen = Position.start("international").fen()
        screen = tmux.until(lambda s: "no piece on 24" in s)
        assert any(fen in line for line in screen.splitlines()), screen  # whole on one line
        tmux.resize(80, 24)
        tmux.keys("32-28xx", "Enter")
        error = "cannot read '32-28xx' as a move: a separator without a square on each side"
        screen = tmux.until(lambda s: "cannot read" in s)
        assert any(line.strip() == error for line in screen.splitlines()), screen
        assert screen.splitlines()[10][:34].split() == list("abcdefghij")  # the board whole
        tmux.keys("quit", "Enter")
        tmux.until(lambda s: "EXIT=" in s)
        assert "EXIT=0" in tmux.screen()
    finally:
        tmux.close()
