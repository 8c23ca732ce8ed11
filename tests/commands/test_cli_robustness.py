"""A hostile user at the command line: every bad input gets one clear ``boardctl: error:``
line and a non-zero exit, never a traceback, never a silent wrong answer, nothing lost.

Most checks run ``boardctl.cli.main`` in process; the ones about separate processes (a second
service on a state directory) start real ``boardctl`` processes.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from support.service_helpers import sim_service

from boardctl.cli import main
from boardctl.service.journal_file import create_journal
from firmware.errors import BoardError
from firmware.formats.journal import GameHeader

GAME_ID = "20260101T000000-abcdef"


def fails(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    """Run ``boardctl ARGV``; assert exit 2 with exactly one error line; return that line."""
    code = main(argv)
    captured = capsys.readouterr()
    lines = [line for line in captured.err.splitlines() if line.strip()]
    assert code == 2, (code, captured.err)
    assert len(lines) == 1, captured.err
    assert lines[0].startswith("boardctl: error: "), lines[0]
    assert "Traceback" not in captured.err + captured.out
    assert len(lines[0]) < 400, "a bad input must not be echoed whole"
    return lines[0]


def russian_journal(state_dir: Path, squares: tuple[str, str] = ("c3", "d4")) -> Path:
    """A real journal (written by the service's own writer) of a Russian game with one move."""
    header = GameHeader(GAME_ID, "russian", started=True, clocked=False)
    with create_journal(state_dir, header) as writer:
        writer.write({"type": "lift", "t": 1.0, "square": squares[0]})
        writer.write({"type": "place", "t": 1.2, "square": squares[1]})
        writer.write({"type": "note", "note": "clock", "t": 4.0})  # the board at rest: move made
    return state_dir / "games" / f"{GAME_ID}.jsonl"


# -- the state directory and its journal ----------------------------------------------------


def test_export_with_a_current_pointer_that_is_not_text(tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    russian_journal(tmp_path)
    (tmp_path / "current").write_bytes(b"\xff\xfe\n")
    assert "not UTF-8" in fails(["export", "--state-dir", str(tmp_path)], capsys)
    (tmp_path / "current").unlink()
    (tmp_path / "current").mkdir()
    assert "is a directory" in fails(["export", "--state-dir", str(tmp_path)], capsys)


def test_export_of_a_journal_whose_squares_are_not_on_its_board_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A 10x10 square in a Russian (8x8) journal: a damaged file or an edited header. Exporting
    # some other game from it would be a silent wrong answer.
    russian_journal(tmp_path, ("i5", "j6"))
    line = fails(["export", "--state-dir", str(tmp_path)], capsys)
    assert "line 2" in line and "'i5'" in line and "8x8" in line


def test_export_of_a_good_journal_still_works(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    russian_journal(tmp_path)
    assert main(["export", "--state-dir", str(tmp_path)]) == 0
    assert "1. c3-d4" in capsys.readouterr().out


def test_a_service_does_not_resume_a_game_of_another_board_size(tmp_path: Path) -> None:
    russian_journal(tmp_path)
    before = (tmp_path / "games" / f"{GAME_ID}.jsonl").read_bytes()
    service, _ = sim_service(tmp_path)  # a 10x10 simulated board
    with pytest.raises(BoardError, match="russian is played on an 8x8 board; this board is 10x10"):
        service.boot()
    service.close()
    assert (tmp_path / "games" / f"{GAME_ID}.jsonl").read_bytes() == before  # nothing written


def test_control_commands_with_a_state_dir_that_is_a_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    f = tmp_path / "file"
    f.write_text("x")
    assert "not running" in fails(["status", "--state-dir", str(f)], capsys)


def test_os_errors_name_the_file_without_errno_noise(tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    line = fails(["replay", "--rules", "russian", str(tmp_path)], capsys)
    assert line == f"boardctl: error: {tmp_path}: Is a directory"


# -- boardctl run: refused before anything starts ------------------------------------------


@pytest.mark.parametrize(
    ("extra", "expect"),
    [
        (["--snapshot-every", "nan"], "--snapshot-every"),
        (["--snapshot-every", "0"], "--snapshot-every"),
        (["--settle", "-5"], "--settle"),
        (["--feed", "bogus://x"], "protocol 'bogus' not known"),
        (["--feed", "/nonexistent-dir/feed.jsonl"], "no directory"),
    ],
)
def test_run_refuses_bad_options_before_starting(tmp_path: Path, extra: list[str], expect: str,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    state = tmp_path / "state"
    argv = ["run", "--sim", "--rules", "russian", "--state-dir", str(state), *extra]
    assert expect in fails(argv, capsys)
    assert not state.exists()  # no journal was started


def test_run_refuses_a_feed_that_is_a_directory_and_a_state_dir_that_is_a_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["run", "--sim", "--rules", "russian", "--state-dir", str(tmp_path / "s")]
    assert "is a directory" in fails([*argv, "--feed", str(tmp_path)], capsys)
    f = tmp_path / "file"
    f.write_text("keep")
    line = fails(["run", "--sim", "--rules", "russian", "--state-dir", str(f)], capsys)
    assert "not a directory" in line
    assert f.read_text() == "keep"


def test_run_checks_the_event_log_squares_before_a_journal_is_started(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "events.jsonl"
    log.write_text('{"t": 0, "type": "start"}\n{"t": 1, "type": "lift", "square": "z9"}\n')
    state = tmp_path / "state"
    line = fails(["run", "--sim", "--rules", "russian", "--state-dir", str(state),
                  "--events", str(log)], capsys)
    assert "line 2" in line and "'z9'" in line
    assert not state.exists()
    assert "is a directory" in fails(["run", "--sim", "--rules", "russian", "--state-dir",
                                      str(state), "--events", str(tmp_path)], capsys)


# -- relay, demo, clock ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("extra", "expect"),
    [
        (["--poll", "nan"], "--poll"),
        (["--poll", "inf"], "--poll"),
        (["bogus://x"], "protocol 'bogus' not known"),
    ],
)
def test_relay_refuses_bad_options(extra: list[str], expect: str,
                                   capsys: pytest.CaptureFixture[str]) -> None:
    ports = [] if any("://" in e for e in extra) else ["loop://"]
    assert expect in fails(["relay", "--http", "off", *ports, *extra], capsys)


def test_relay_refuses_an_output_that_is_a_directory(tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    line = fails(["relay", "--http", "off", "--out", str(tmp_path), "loop://"], capsys)
    assert "is a directory" in line


@pytest.mark.parametrize(
    ("extra", "expect"),
    [(["--game", "0"], "--game"), (["--speed", "nan"], "--speed")],
)
def test_demo_refuses_bad_options(extra: list[str], expect: str,
                                  capsys: pytest.CaptureFixture[str]) -> None:
    assert expect in fails(["demo", "--quiet", *extra], capsys)


def test_demo_refuses_a_state_dir_that_is_a_file(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    f = tmp_path / "file"
    f.write_text("keep")
    assert "not a directory" in fails(["demo", "--quiet", "--state-dir", str(f)], capsys)
    assert f.read_text() == "keep"


def test_clock_script_that_is_not_text_or_has_a_huge_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    script = tmp_path / "script"
    script.write_bytes(b"0 start\n\xff\xfe\n")
    assert "not UTF-8" in fails(["clock", "--script", str(script)], capsys)
    for text in ("x" * 100_000, "0 " + "y" * 100_000, "z" * 100_000 + " start"):
        script.write_text(text + "\n")
        assert "line 1: longer than 65536 bytes" in fails(["clock", "--script", str(script)],
                                                            capsys)
    for text in ("x" * 1000, "0 " + "y" * 1000):  # long but within a line's bound: clipped
        script.write_text(text + "\n")
        assert "..." in fails(["clock", "--script", str(script)], capsys)


# -- FEN -----------------------------------------------------------------------------------


@pytest.mark.parametrize("fen", ["W:WK:B1", "W:W-5:B20", "W:W31-:B1", "W:W1-2-3:B40"])
def test_fen_items_that_are_not_squares(fen: str, capsys: pytest.CaptureFixture[str]) -> None:
    line = fails(["moves", "--rules", "international", "--fen", fen], capsys)
    assert "is not a square or a range of squares" in line


def test_a_huge_fen_is_not_echoed_whole(capsys: pytest.CaptureFixture[str]) -> None:
    fen = "W:W" + ",".join(["31"] * 20_000) + ":B1"
    line = fails(["moves", "--rules", "international", "--fen", fen], capsys)
    assert "longer than any board's" in line and len(line) < 300
    fen = "W:W" + ",".join(["31"] * 1_000) + ":B1"  # within the bound, still one short line
    line = fails(["moves", "--rules", "international", "--fen", fen], capsys)
    assert "given twice" in line and len(line) < 300


def test_ranges_and_kings_still_read(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["moves", "--rules", "international", "--fen", "W:WK46,47-48:B1-3"]) == 0
    assert "47-42" in capsys.readouterr().out.split()


# -- one service per state directory (real processes) ------------------------------------------


def _wait_ready(proc: subprocess.Popen[str], state: Path) -> None:
    deadline = time.monotonic() + 15
    while not (state / "control.sock").exists():
        assert proc.poll() is None, proc.communicate()[1]
        assert time.monotonic() < deadline, "the service did not start"
        time.sleep(0.05)


def test_a_second_service_on_the_same_state_dir_touches_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    state = tmp_path / "state"
    cmd = [sys.executable, "-m", "boardctl", "run", "--sim", "--rules", "russian",
           "--time-control", "300", "--state-dir", str(state)]
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    first = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                             env=env)
    try:
        _wait_ready(first, state)
        # A new game of another board size is refused and changes nothing.
        line = fails(["new", "--rules", "international", "--state-dir", str(state)], capsys)
        assert "this board is 8x8" in line
        assert main(["status", "--json", "--state-dir", str(state)]) == 0
        assert json.loads(capsys.readouterr().out)["rules"] == "russian"
        journal = state / "games" / (state / "current").read_text().strip()
        assert main(["start", "--state-dir", str(state)]) == 0  # the clock runs
        before = journal.read_bytes()
        second = subprocess.run([*cmd[:-1], str(state), "--socket", str(tmp_path / "b.sock")],
                                capture_output=True, text=True, timeout=20, env=env)
        assert second.returncode == 2
        assert second.stderr.strip().splitlines() == [
            f"boardctl: error: {state}: another boardctl service is running on this state "
            "directory"
        ]
        after = journal.read_bytes()
        assert after.startswith(before)
        added = [json.loads(x) for x in after[len(before):].splitlines()]
        assert all(rec.get("note") == "clock" for rec in added), added  # heartbeats only
    finally:
        first.send_signal(signal.SIGTERM)
        first.communicate(timeout=15)
    assert first.returncode == 0
