"""Issue 10 item 3: the state directory deleted mid-game, and a full file system (a real
64 KiB tmpfs where the test may mount one, else ENOSPC injected into the journal's writes).
Play goes on, the alarm names the path on the feed and in ``status``, the journal is written
again from memory or catches up when space returns, and the game is ``boardctl replay``'s."""

from __future__ import annotations

import errno
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from support.service_helpers import S, game_log, moves_of, replayed, run_until, sim_service

from boardctl.service.journal_file import current_path, load_journal
from boardctl.service.service import rebuild
from firmware.formats.feed import decode_line
from firmware.rules.sets import Side


def alarms(lines: list[str]) -> list[str | None]:
    return [r["alarm"] for r in map(decode_line, lines) if r and r["type"] == "alarm"]


@pytest.mark.parametrize("what", ["state directory", "current pointer"])
def test_state_directory_deleted_mid_game(tmp_path: Path, what: str) -> None:
    events = game_log(8, seed=14)
    want = replayed(events)
    state = tmp_path / "state"
    lines: list[str] = []
    service, clock = sim_service(state, events, lines=lines)
    service.boot()
    half = events[len(events) // 2].at / S
    run_until(service, clock, half)
    if what == "current pointer":
        (state / "current").unlink()
    else:
        shutil.rmtree(state)
    run_until(service, clock, half + 1.0)  # noticed within a second
    assert service.face.alarm is not None and str(state) in service.face.alarm
    assert service.command({"cmd": "status"})["alarm"] == service.face.alarm
    assert any(a and "deleted" in a and str(state) in a for a in alarms(lines))
    assert current_path(state) is not None  # written again from memory
    whole = int(service.game_time(clock.now) / S)
    run_until(service, clock, whole + (1.5 if whole % 2 == 0 else 2.5))  # an odd second
    faces = service.hw.faces
    assert faces.shown(Side.WHITE).text == faces.shown(Side.BLACK).text == "Err "
    run_until(service, clock, whole + (2.5 if whole % 2 == 0 else 3.5))  # the times go on
    assert faces.shown(Side.WHITE).text != "Err "
    run_until(service, clock, events[-1].at / S + 2)
    service.close()
    assert moves_of(service.session) == moves_of(want)
    again = rebuild(load_journal(current_path(state))).session  # sealed chain intact
    assert moves_of(again) == moves_of(want)


@pytest.fixture
def small_fs(tmp_path: Path) -> Iterator[tuple[Path, bool]]:
    """A 64 KiB tmpfs (True), or a plain directory (False) when mounting is not allowed."""
    mnt = tmp_path / "small"
    mnt.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(mnt)],
                             capture_output=True).returncode == 0
    try:
        yield mnt, mounted
    finally:
        if mounted:
            subprocess.run(["umount", "-l", str(mnt)], check=False)


def test_full_disk_never_stops_play(small_fs: tuple[Path, bool],
                                    monkeypatch: pytest.MonkeyPatch) -> None:
    mnt, mounted = small_fs
    events = game_log(12, seed=15)
    want = replayed(events)
    state = mnt / "state"
    lines: list[str] = []
    service, clock = sim_service(state, events, lines=lines)
    service.boot()
    run_until(service, clock, events[len(events) // 4].at / S)
    filler = mnt / "filler"
    full = [False]
    if mounted:  # fill the file system to its last byte
        fd = os.open(filler, os.O_WRONLY | os.O_CREAT)
        try:
            while True:
                os.write(fd, b"\0" * 512)
        except OSError as exc:
            assert exc.errno == errno.ENOSPC
        finally:
            os.close(fd)
    else:
        real_write = os.write

        def write(fd: int, data: bytes) -> int:
            if full[0]:
                raise OSError(errno.ENOSPC, "No space left on device")
            return real_write(fd, data)

        full[0] = True
        monkeypatch.setattr("boardctl.service.journal_file.os.write", write)
    plies = len(service.session.moves)
    run_until(service, clock, events[3 * len(events) // 4].at / S)
    assert len(service.session.moves) > plies, alarms(lines)  # play went on
    assert service.face.alarm is not None and "disk full" in service.face.alarm
    assert str(state) in service.face.alarm
    assert service.command({"cmd": "status"})["alarm"] == service.face.alarm
    filler.unlink(missing_ok=True)  # space returns
    full[0] = False
    run_until(service, clock, events[-1].at / S + 2)
    assert service.face.alarm is None
    assert alarms(lines)[-1] is None and any(a and "disk full" in a for a in alarms(lines))
    service.close()
    assert moves_of(service.session) == moves_of(want)
    again = rebuild(load_journal(current_path(state))).session  # caught up, chain intact
    assert moves_of(again) == moves_of(want)


def test_a_new_game_on_a_full_disk_waits_in_memory(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    import boardctl.service.outputs as outputs

    real = outputs.create_journal
    full = [True]

    def create(*args, **kwargs):  # type: ignore[no-untyped-def]
        if full[0]:
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(*args, **kwargs)

    service, clock = sim_service(tmp_path, None)
    service.boot()
    old = current_path(tmp_path)
    old_size = old.stat().st_size
    monkeypatch.setattr(outputs, "create_journal", create)
    assert service.command({"cmd": "new", "force": True})["ok"]
    new_id = service.header.id
    assert service.command({"cmd": "start"})["ok"]
    run_until(service, clock, 1.0)
    assert service.face.alarm is not None and "cannot be created" in service.face.alarm
    assert str(tmp_path / "games") in service.face.alarm
    assert old.stat().st_size == old_size  # nothing of the new game in the old journal
    full[0] = False
    run_until(service, clock, 3.0)
    assert service.face.alarm is None
    path = current_path(tmp_path)
    assert path is not None and path.name == f"{new_id}.jsonl"
    journal = load_journal(path)
    assert journal.verified and [e["type"] for e in journal.events][:1] == ["start"]
    service.close()
