"""``boardctl relay`` as a process: a pty feed in, the PDN read back with urllib and from the
file, the relay stopped cleanly; a bad --http is a one-line error."""

from __future__ import annotations

import os
import pty
import re
import signal
import subprocess
import sys
import time
import tty
import urllib.request
from pathlib import Path

from firmware.formats.feed import encode_line, header_record
from firmware.pdn import read_games


def test_relay_process_serves_pdn_over_http(tmp_path: Path) -> None:
    master, slave = pty.openpty()
    tty.setraw(slave)
    port = os.ttyname(slave)
    out = tmp_path / "live.pdn"
    proc = subprocess.Popen(
        [sys.executable, "-m", "boardctl", "relay", port, "--out", str(out),
         "--http", "127.0.0.1:0"],
        stderr=subprocess.PIPE, text=True,
    )
    try:
        assert proc.stderr is not None
        first = proc.stderr.readline()
        match = re.search(r"http://127\.0\.0\.1:(\d+)/", first)
        assert match, first
        url = f"http://127.0.0.1:{match.group(1)}/games.pdn"  # `/` is the live page
        assert "connected" in proc.stderr.readline()  # the port is open: lines now arrive
        records = [
            header_record("9", "run", "russian"),
            {"type": "game", "game": "g", "rules": "russian", "fen": None, "time_control": None,
             "tags": {"Round": "2", "White": "A", "Black": "B"}},
            {"type": "move", "game": "g", "ply": 1, "side": "white", "move": "c3-d4", "fen": "x"},
            {"type": "move", "game": "g", "ply": 2, "side": "black", "move": "f6-g5", "fen": "x"},
            # a good crc, a wrong move (c3 is empty): refused, told, never published
            {"type": "move", "game": "g", "ply": 3, "side": "white", "move": "c3-b4", "fen": "x"},
        ]
        lines = [encode_line(r, i) for i, r in enumerate(records)]
        os.write(master, ("garbage\n" + "".join(lines) + lines[2][:9]).encode())
        deadline = time.monotonic() + 20
        body = ""
        while time.monotonic() < deadline:
            with urllib.request.urlopen(url, timeout=5) as resp:
                body = resp.read().decode()
            if "f6-g5" in body:
                break
            time.sleep(0.05)
        game = next(read_games(body, "http"))
        assert [m.text for m in game.moves] == ["c3-d4", "f6-g5"]
        assert game.tags["Round"] == "2.9" and game.tags["GameType"] == "25"
        assert out.read_text() == body
    finally:
        proc.send_signal(signal.SIGTERM)
        _, said = proc.communicate(timeout=10)
        os.close(master)
        os.close(slave)
    assert proc.returncode == 0
    assert "board 9, game g: move refused at ply 3 ('c3-b4'): c3-b4 is not legal" in said


def test_relay_bad_address_is_one_line() -> None:
    done = subprocess.run([sys.executable, "-m", "boardctl", "relay", "loop://", "--http", "x"],
                          capture_output=True, text=True, timeout=30)
    assert done.returncode == 2
    assert done.stderr.startswith("boardctl: error: --http") and done.stderr.count("\n") == 1


def test_the_help_tells_the_paths_as_they_are_served() -> None:
    """An unknown path is a 404 (issue 31); the help said it served the whole PDN there."""
    done = subprocess.run([sys.executable, "-m", "boardctl", "relay", "--help"],
                          capture_output=True, text=True, timeout=30)
    text = " ".join(done.stdout.split())
    assert done.returncode == 0 and "any other path is 404" in text
    assert "the whole PDN at /games.pdn" in text
