"""Issue 30, item 3: a board whose state directory is full (a real small tmpfs, filled for real)
keeps every record that reaches the feed in a spill file on another file system, says so at a
stop, and takes the records back at its next start: SIGTERM or SIGKILL while full, every ply
the feed broadcast is in the game after the restart (``boardctl export`` and the service)."""

from __future__ import annotations

import os
import signal
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from support.hall_helpers import BOARDCTL, wait_for, write_log
from support.processes import stop_by_pid
from support.service_helpers import TC, game_log

from boardctl.service.control import ControlError, request
from firmware.formats.feed import decode_line
from firmware.pdn import read_games


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A real 1 MiB tmpfs, unmounted after the test (root only: skipped elsewhere)."""
    mount = tmp_path / "disk"
    mount.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m,mode=0755", "tmpfs",
                           str(mount)], capture_output=True, text=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip()}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def fill(disk: Path) -> Path:
    """Fill the file system: a file written until ENOSPC (its path, to free the space)."""
    filler = disk / "filler"
    with open(filler, "wb", buffering=0) as f:
        try:
            while True:
                f.write(b"\0" * 4096)
        except OSError:
            pass
        try:
            while True:
                f.write(b"\0")
        except OSError:
            pass
    return filler


def fed_moves(feed: Path) -> list[str]:
    out: list[str] = []
    if not feed.exists():
        return out
    for line in feed.read_text(errors="replace").splitlines():
        record = decode_line(line)
        if record is not None and record["type"] == "move":
            out.append(record["move"])
    return out


def status(state: Path) -> dict | None:
    try:
        return request(state / "control.sock", "status", timeout=2)
    except (ControlError, OSError):
        return None


def exported(state: Path) -> list[str]:
    done = subprocess.run([*BOARDCTL, "export", "--state-dir", str(state), "--format", "pdn"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return [m.text for m in next(read_games(done.stdout, "export")).moves]


@pytest.mark.parametrize("how", ["SIGTERM", "SIGKILL"])
def test_a_stop_on_a_full_disk_loses_no_broadcast_move(small_disk: Path, tmp_path: Path,
                                                        how: str) -> None:
    state = small_disk / "state"
    feed = tmp_path / "feed.jsonl"
    # A long game (the board is stopped in its middle): however long the disk takes to be
    # full on a loaded machine, moves are still to come.
    log = write_log(tmp_path / "game.jsonl", game_log(40, seed=9, think=(0.02, 0.1),
                                                      change_mind=0.0))
    err = tmp_path / "board.stderr"
    args = [*BOARDCTL, "run", "--sim", "--rules", "international", "--time-control", TC,
            "--state-dir", str(state), "--feed", str(feed)]
    with open(err, "ab") as e:
        proc = subprocess.Popen([*args, "--events", str(log)], stdout=subprocess.DEVNULL,
                                stderr=e)
    try:
        wait_for(lambda: len(fed_moves(feed)) >= 3, 60, "the first moves on the feed")
        filler = fill(small_disk)
        wait_for(lambda: (status(state) or {}).get("alarm"), 30, "the journal's alarm")
        alarm = str((status(state) or {}).get("alarm"))
        assert "disk full" in alarm and "spill" in alarm, alarm
        full_at = len(fed_moves(feed))
        wait_for(lambda: len(fed_moves(feed)) >= full_at + 3, 60, "moves while the disk is full")
        os.kill(proc.pid, getattr(signal, how))
        assert proc.wait(timeout=30) == (0 if how == "SIGTERM" else -signal.SIGKILL)
    finally:
        stop_by_pid(proc)
    said = err.read_text(errors="replace")
    if how == "SIGTERM":
        assert "STOPPING with" in said and "taken back at the next start" in said, said
    broadcast = fed_moves(feed)
    assert len(broadcast) >= full_at + 3
    # The journal alone is short (the disk was full): export reads the spill too, and says so.
    done = subprocess.run([*BOARDCTL, "export", "--state-dir", str(state)], capture_output=True,
                          text=True, timeout=60, check=True)
    assert [m.text for m in next(read_games(done.stdout, "export")).moves] == broadcast
    assert "records read from its spill" in done.stderr, done.stderr
    filler.unlink()  # room again; the board is switched on again, no hand acting this time
    with open(err, "ab") as e:
        again = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=e)
    try:
        wait_for(lambda: status(state), 60, "the board back")
        assert (status(state) or {}).get("ply") == len(broadcast)
    finally:
        assert stop_by_pid(again) == 0
    assert exported(state) == broadcast
    assert "records taken back from" in err.read_text(errors="replace")
