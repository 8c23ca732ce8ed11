"""Plies a power cut lost (issue 30): ``boardctl run --sim`` played through its simulated hand,
killed -9, its journal cut after ply N as a power cut with the spill lost leaves it (whole
records), the simulated pieces standing after ply N+2 ($BOARDCTL_SIM_BOARD: the pieces as a
real board keeps them): the restart rebuilds the two plies from the board as sensed, journals
them, puts them on the feed and in the status; a board no legal sequence explains is named on
the feed and the game stays as the journal has it. Real processes, real files; waiting is for
a process to get somewhere, never a timing assertion."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from support.service_helpers import VirtualClock
from test_service_process import start as start_service
from test_service_process import status, wait_for

from boardctl.service.control import request
from boardctl.service.games import GameSetup
from boardctl.service.hardware import sim_hardware
from boardctl.service.journal_file import current_path, spill_path
from boardctl.service.service import Service
from firmware.formats.feed import decode_line
from firmware.pdn import read_games
from firmware.rules.notation import parse_move
from firmware.rules.position import Position

BOARDCTL = [sys.executable, "-m", "boardctl"]
PLIES = ["32-28", "19-23", "28x19", "14x23", "37-32"]


def start(state: Path, feed: Path, board: set[str] | None = None) -> subprocess.Popen[str]:
    """The service on ``state`` with its feed in a file; ``board``: the simulated pieces as a
    real board keeps them across the power cut ($BOARDCTL_SIM_BOARD)."""
    sim = {"BOARDCTL_SIM_BOARD": ",".join(sorted(board))} if board is not None else None
    return start_service(state, "--feed", str(feed), env=sim)


def ask(state: Path, cmd: str, **args: Any) -> dict[str, Any]:
    return request(state / "control.sock", cmd, timeout=2.0, **args)


def play(state: Path, texts: list[str], done: int) -> None:
    """Each ply through the simulated hand: lift, place, the captured pieces off, the press."""
    position = after(texts[:done])
    geo = position.rules.geometry
    for i, text in enumerate(texts[done:], done + 1):
        move = parse_move(position, text)
        side = position.turn.value
        acts = [("lift", move.start), ("place", move.end), *(("lift", sq) for sq in move.captured)]
        for kind, sq in acts:
            assert ask(state, "sim", type=kind, square=geo.algebraic(sq))["ok"]
        assert ask(state, "sim", type="press", side=side)["ok"]
        wait_for(lambda i=i: status(state)["ply"] == i, what=f"ply {i}")
        position = position.play(move)


def after(texts: list[str]) -> Position:
    position = Position.start("international")
    for text in texts:
        position = position.play(parse_move(position, text))
    return position


def squares(position: Position) -> set[str]:
    return {position.rules.geometry.algebraic(sq) for sq in position.occupied()}


def kill(proc: subprocess.Popen[str]) -> None:
    proc.kill()
    proc.wait(timeout=10)
    assert proc.stderr is not None
    proc.stderr.close()


def stop(proc: subprocess.Popen[str]) -> str:
    proc.terminate()
    _, err = proc.communicate(timeout=20)
    assert proc.returncode == 0, err
    return err


def cut_after_ply(journal: Path, ply: int) -> list[bytes]:
    """Whole records after the decision of move ``ply`` dropped, as a power cut that lost
    them leaves the journal; the records dropped."""
    lines = journal.read_bytes().splitlines(keepends=True)
    for i, line in enumerate(lines):
        rec = json.loads(line)
        inner = rec.get("record") or {}
        if rec.get("type") == "decision" and inner.get("type") == "move" and inner["ply"] == ply:
            journal.write_bytes(b"".join(lines[:i + 1]))
            return lines[i + 1:]
    raise AssertionError(f"no move {ply} in {journal}")


def exported(state: Path, env: dict[str, str] | None = None) -> list[str]:
    return export(state, env)[0]


def export(state: Path, env: dict[str, str] | None = None) -> tuple[list[str], str]:
    done = subprocess.run([*BOARDCTL, "export", "--state-dir", str(state)], capture_output=True,
                          text=True, timeout=60, check=True, env={**os.environ, **(env or {})})
    return [m.text for m in next(read_games(done.stdout, "export")).moves], done.stderr


def feed_records(feed: Path) -> list[dict[str, Any]]:
    return [r for line in feed.read_bytes().splitlines() if (r := decode_line(line))]


def gap_line(feed: Path, skip: int) -> dict[str, Any] | None:
    """The ``gap`` line of the run after the first ``skip`` lines (one at most)."""
    gaps = [r for r in feed_records(feed)[skip:] if r["type"] == "gap"]
    assert len(gaps) <= 1
    return gaps[0] if gaps else None


def to_ply_4(state: Path, feed: Path, end: Callable[[Any], Any]) -> dict[str, Any]:
    """A service started on ``state``, four plies played, then ended by ``end`` (a kill, a
    stop); its status before the end."""
    proc = start(state, feed)
    try:
        wait_for(lambda: status(state), what="the service")
        assert ask(state, "start")["ok"]
        play(state, PLIES[:4], 0)
        return status(state)
    finally:
        end(proc)


def played_to_ply_4(tmp_path: Path) -> tuple[Path, Path, dict[str, Any]]:
    state, feed = tmp_path / "state", tmp_path / "feed.jsonl"
    before = to_ply_4(state, feed, kill)  # the power cut ...
    journal = current_path(state)
    assert journal is not None
    assert cut_after_ply(journal, 2)  # ... took the journal's last records with it
    assert exported(state) == PLIES[:2]
    return state, feed, before


def test_two_plies_lost_are_rebuilt_from_the_board_as_sensed(tmp_path: Path) -> None:
    state, feed, before = played_to_ply_4(tmp_path)
    lines_before = len(feed_records(feed))
    proc = start(state, feed, board=squares(after(PLIES[:4])))
    try:
        now = wait_for(lambda: status(state), what="the restarted service")
        assert now["moves"] == PLIES[:4]
        assert now["gap"]["ply"] == 2 and now["gap"]["recovered"] == PLIES[2:4]
        assert now["running"] is None  # the clocks stay paused, as after any restart
        # The sensors then report the board as it stands: it shows the game, nothing to do.
        wait_for(lambda: status(state)["leds"] == {}, what="the LEDs to clear")
        gap = wait_for(lambda: gap_line(feed, lines_before), what="the gap line")
        new = feed_records(feed)[lines_before:]
        assert gap["recovered"] == PLIES[2:4] and gap["count"] == 1
        assert gap["text"].startswith("2 plies after ply 2 not in the journal (a power cut)")
        # The feed port connects after the recovery: its snapshot carries the rebuilt plies.
        (snapshot,) = [r for r in new if r["type"] == "snapshot"][:1]
        assert [m["move"] for m in snapshot["moves"]] == PLIES[:4]
        moves = snapshot["moves"][2:]
        # The recovered plies carry the clocks as the journal left them (no time is known).
        assert moves[0]["clock"] == moves[1]["clock"] == now["clock"]
        # Play goes on from there.
        assert ask(state, "resume")["ok"]
        play(state, PLIES, 4)
        assert status(state)["moves"] == PLIES
        err = stop(proc)
    finally:
        if proc.poll() is None:
            kill(proc)
    assert "rebuilt from the board as sensed: 28x19 14x23" in err, err
    assert exported(state) == PLIES  # the journal holds them: a replay gives the same game
    proc = start(state, feed)  # the next start: the board and the journal agree, no gap
    try:
        again = wait_for(lambda: status(state), what="the third start")
        assert again["moves"] == PLIES and "gap" not in again
    finally:
        stop(proc)


def test_a_board_no_legal_sequence_explains_is_named_and_left_to_the_arbiter(
        tmp_path: Path) -> None:
    state, feed, _ = played_to_ply_4(tmp_path)
    board = squares(after(PLIES[:4])) - {"a1"}  # and a piece gone that no move took
    lines_before = len(feed_records(feed))
    proc = start(state, feed, board=board)
    try:
        now = wait_for(lambda: status(state), what="the restarted service")
        assert now["moves"] == PLIES[:2]  # the game as the journal has it
        assert now["gap"] == {"ply": 2, "recovered": None, "candidates": [], "count": 0,
                              "text": now["gap"]["text"]}
        assert "no legal sequence of up to 4 plies" in now["gap"]["text"]
        # The referee shows the squares that differ, as for any board that does not match.
        wait_for(lambda: status(state)["leds"], what="the LEDs to show the squares")
        gap = wait_for(lambda: gap_line(feed, lines_before), what="the gap line")
        assert gap["recovered"] is None and gap["candidates"] == []
    finally:
        err = stop(proc)
    assert "does not show the journal's position after ply 2" in err
    assert exported(state) == PLIES[:2]


def test_export_reads_the_records_waiting_in_the_spill(tmp_path: Path) -> None:
    """Records spilled while the state directory was full and not yet taken back (the
    service stopped): `boardctl export` gives the whole game and says where they are, with
    nothing changed; a spill line that does not continue the journal is named, not used."""
    state, feed = tmp_path / "state", tmp_path / "feed.jsonl"
    to_ply_4(state, feed, stop)
    journal = current_path(state)
    assert journal is not None
    tail = cut_after_ply(journal, 2)  # as the writer leaves them: in the spill, in order
    env = {"BOARDCTL_SPILL_DIR": str(tmp_path / "spill")}
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("BOARDCTL_SPILL_DIR", env["BOARDCTL_SPILL_DIR"])
        spill = spill_path(state, journal)
    spill.parent.mkdir(parents=True)
    spill.write_bytes(b"".join(tail))
    kept = journal.read_bytes()
    moves, err = export(state, env)
    assert moves == PLIES[:4]
    assert f"{len(tail)} records read from its spill {spill} too" in err
    assert journal.read_bytes() == kept and spill.read_bytes() == b"".join(tail)
    assert exported(state) == PLIES[:2]  # without the spill: the journal alone
    spill.write_bytes(tail[0] + tail[2] + b"".join(tail[3:]))  # a record missing
    moves, err = export(state, env)
    assert len(moves) < 4 and "do not continue the journal" in err


def test_several_sequences_are_named_not_chosen(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """In process: a king ending whose board after a lost ply fits one ply and four alike
    (the kings went and came back): nothing is played, the candidates are named."""
    fen = "W:WK46:BK3"
    state = tmp_path / "state"

    def service() -> Service:
        clock = VirtualClock()
        return Service(state, GameSetup("international", None, fen=fen),
                       sim_hardware(10, clock=clock), board="3", clock=clock)

    first = service()
    first.boot()
    first.close()
    end = after_fen(fen, ["46-5"])
    monkeypatch.setenv("BOARDCTL_SIM_BOARD", ",".join(sorted(squares(end))))
    again = service()
    again.boot()
    try:
        now = again.command({"cmd": "status"})
        assert now["moves"] == []
        gap = now["gap"]
        assert gap["recovered"] is None and gap["ply"] == 0
        assert gap["candidates"][0] == ["46-5"] and len(gap["candidates"]) > 1
        assert all(len(c) in (1, 4) for c in gap["candidates"])
        assert len(gap["candidates"]) == 8 < gap["count"]
        assert f"{gap['count']} legal sequences lead there: 1 ply: 46-5; 4 plies: " in gap["text"]
    finally:
        again.close()


def after_fen(fen: str, texts: list[str]) -> Position:
    position = Position.from_fen("international", fen)
    for text in texts:
        position = position.play(parse_move(position, text))
    return position
