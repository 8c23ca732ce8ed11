"""The first move starts a game without an arbiter (issue 36 item 1), through real ``boardctl
run --sim`` processes driven by the control socket's ``sim`` requests: against the computer
the person moves first and presses, and the engine's clock then runs; without an engine a
move before any press starts the game; with the engine as White its first move is shown
before the start, and carrying it out starts the game; with ``--start press`` (and in a hall,
by default) the press starts it, as before. The start is journaled at the lift's time, so an
export after a restart (kill -9 included) and a replay give the same game."""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from support.mqtt_broker import Mosquitto
from support.processes import stop_by_pid
from support.service_helpers import wait_for

from boardctl.commands.replay import replay_lines
from boardctl.commands.service import _start_mode
from boardctl.service.control import request
from boardctl.settings import default_settings, load_config
from firmware.errors import EventLogError
from firmware.formats.events import Lift, Place
from firmware.formats.journal import GameHeader, StartMode
from firmware.session.session import BoardSession

BOARDCTL = [sys.executable, "-m", "boardctl"]
ENGINE = ["--engine", "builtin", "--engine-level", "1", "--engine-move-time", "0.05"]


class Board:
    """A ``boardctl run --sim`` process (russian, 300+5) on ``state``, stopped by its pid."""

    def __init__(self, state: Path, *extra: str) -> None:
        self.state = state
        self.sock = state / "control.sock"
        self.log = state.parent / f"{state.name}.stderr"
        state.parent.mkdir(parents=True, exist_ok=True)
        with open(self.log, "ab") as err:
            self.proc: subprocess.Popen[bytes] | None = subprocess.Popen(
                [*BOARDCTL, "run", "--sim", "--rules", "russian", "--time-control", "300+5",
                 "--state-dir", str(state), *extra],
                stdout=subprocess.DEVNULL, stderr=err)
        wait_for(lambda: self.status(), what="the service's socket")

    def status(self) -> dict[str, Any]:
        return request(self.sock, "status", timeout=5.0)

    def sim(self, kind: str, where: str) -> float:
        """A simulated act (``where``: a square, or a side for a press); its stamp, s."""
        key = "side" if kind == "press" else "square"
        return float(request(self.sock, "sim", type=kind, **{key: where})["t"])

    def move(self, text: str) -> float:
        """A simple move by hand (lift, place), no press; the lift's stamp."""
        start, end = text.split("-")
        at = self.sim("lift", start)
        self.sim("place", end)
        return at

    def until(self, what: str, predicate: Any, timeout: float = 30.0) -> dict[str, Any]:
        def reached() -> dict[str, Any] | None:
            status = self.status()
            return status if predicate(status) else None

        return wait_for(reached, timeout, what)

    def journal(self) -> list[dict[str, Any]]:
        files = sorted((self.state / "games").glob("*.jsonl"))
        assert files
        return [json.loads(line) for line in files[-1].read_text().splitlines() if line]

    def kill9(self) -> None:
        assert self.proc is not None
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=10)
        self.proc = None

    def stop(self) -> None:
        proc, self.proc = self.proc, None
        if proc is not None:
            assert stop_by_pid(proc) == 0, self.log.read_text(errors="replace")


def events_of(journal: list[dict[str, Any]]) -> list[tuple[str, float]]:
    return [(r["type"], r["t"]) for r in journal if r["type"] in ("start", "lift", "press")]


def starts_at_the_lift(journal: list[dict[str, Any]]) -> bool:
    """The journal's first events: a ``start`` at the first lift's time, then that lift."""
    (first, at), (second, lifted) = events_of(journal)[:2]
    return (first, second) == ("start", "lift") and at == lifted


def irregularities(journal: list[dict[str, Any]]) -> list[str]:
    return [r["record"]["kind"] for r in journal
            if r["type"] == "decision" and r["record"]["type"] == "irregularity"]


def export(state: Path) -> str:
    done = subprocess.run([*BOARDCTL, "export", "--state-dir", str(state)],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_against_the_engine_the_person_moves_first_then_presses(tmp_path: Path) -> None:
    board = Board(tmp_path / "state", *ENGINE, "--engine-side", "black")
    try:
        status = board.status()
        assert status["start"] == "move" and not status["started"]
        board.move("c3-d4")
        board.sim("press", "white")
        status = board.until("the first move", lambda s: s["ply"] >= 1)
        assert status["moves"] == ["c3-d4"] and status["irregularity"] is None
        assert status["started"] and status["running"] == "black"  # the engine's clock runs
        assert 295 < status["clock"]["white"] <= 305  # White's ran from the lift: + 5 s
        shown = board.until("the engine's move", lambda s: s["engine"]["move"])
        board.move(shown["engine"]["move"]["move"])  # carried out for it, no press
        status = board.until("the engine's move made", lambda s: s["ply"] >= 2)
        assert status["running"] == "white"
        journal = board.journal()
        assert starts_at_the_lift(journal)
        assert "setup" not in irregularities(journal)
        assert journal[0]["start"] == "move"
    finally:
        board.stop()


def test_without_an_engine_a_move_before_any_press_starts_the_game(tmp_path: Path) -> None:
    state = tmp_path / "state"
    board = Board(state)
    try:
        board.move("c3-d4")
        status = board.until("the start", lambda s: s["started"])
        assert status["running"] == "white" and status["ply"] == 0
        board.sim("press", "white")
        board.until("the first move", lambda s: s["ply"] >= 1 and s["running"] == "black")
        board.move("f6-e5")
        board.sim("press", "black")
        board.until("the reply", lambda s: s["ply"] >= 2)
        assert starts_at_the_lift(board.journal())
        before = export(state)
        assert "1. c3-d4" in before and "f6-e5" in before
        board.kill9()
        board = Board(state)  # the same game, rebuilt from the journal
        status = board.status()
        assert status["moves"] == ["c3-d4", "f6-e5"] and status["start"] == "move"
        assert export(state) == before
        files = sorted((state / "games").glob("*.jsonl"))
        journal = files[-1].read_bytes().splitlines(keepends=True)
        assert replay_lines(journal, "journal") == before  # boardctl replay: the same game
    finally:
        board.stop()


def test_with_the_engine_as_white_its_first_move_is_shown_before_the_start(
        tmp_path: Path) -> None:
    board = Board(tmp_path / "state", *ENGINE, "--engine-side", "white")
    try:
        status = board.until("the engine's first move", lambda s: s["engine"]["move"])
        assert not status["started"] and status["running"] is None  # nobody pressed
        board.move(status["engine"]["move"]["move"])
        status = board.until("the engine's move made", lambda s: s["ply"] >= 1)
        assert status["started"] and status["running"] == "black"
        journal = board.journal()
        assert starts_at_the_lift(journal)
        lifted = events_of(journal)[1][1]
        press = next(t for kind, t in events_of(journal) if kind == "press")
        white = next(r["record"]["clock"]["white"] for r in journal
                     if r["type"] == "decision" and r["record"]["type"] == "move")
        assert white == pytest.approx(300 + 5 - (press - lifted), abs=0.01)  # from the lift
    finally:
        board.stop()


def test_with_start_press_the_press_starts_the_game_as_before(tmp_path: Path) -> None:
    board = Board(tmp_path / "state", "--start", "press")
    try:
        assert board.status()["start"] == "press"
        board.move("c3-d4")
        board.sim("press", "white")
        status = board.until("the start", lambda s: s["started"])
        assert status["ply"] == 0 and status["running"] == "white"  # the press started it
        assert board.until("the set-up", lambda s: s["irregularity"] == "setup")
        assert [kind for kind, _ in events_of(board.journal())][:2] == ["lift", "start"]
    finally:
        board.stop()


def test_in_a_hall_the_press_starts_the_game_by_default(tmp_path: Path) -> None:
    with Mosquitto(tmp_path / "broker") as broker:
        board = Board(tmp_path / "b1", "--broker", broker.url, "--hall", "H", "--board", "b1")
        try:
            assert board.status()["start"] == "press"
            board.move("c3-d4")
            assert board.until("the set-up", lambda s: s["irregularity"] == "setup")
            assert not board.status()["started"]  # a move before the arbiter's start
        finally:
            board.stop()


# -- the mode's sources: options, config, journal, replay ---------------------------------


def test_the_start_mode_chosen_by_option_config_and_place(tmp_path: Path) -> None:
    config = default_settings(8)
    given = argparse.Namespace(start=None)
    assert _start_mode(given, config, arbiter=False) is StartMode.MOVE
    assert _start_mode(given, config, arbiter=True) is StartMode.PRESS  # a hall, a log
    path = tmp_path / "board.toml"
    path.write_text('size = 8\nstart = "press"\n')
    assert _start_mode(given, load_config(path), arbiter=False) is StartMode.PRESS
    assert _start_mode(argparse.Namespace(start="move"), load_config(path),
                       arbiter=True) is StartMode.MOVE
    path.write_text('size = 8\nstart = "moves"\n')
    with pytest.raises(Exception, match="start"):
        load_config(path)


def test_the_game_record_keeps_the_start_mode() -> None:
    header = GameHeader("g", "russian", start=StartMode.MOVE)
    rec = header.record()
    assert rec["start"] == "move" and GameHeader.from_record(rec).start is StartMode.MOVE
    assert "start" not in GameHeader("g", "russian").record()  # press: as before
    assert GameHeader.from_record({k: v for k, v in rec.items() if k != "start"}).start \
        is StartMode.PRESS
    for bad in ("Move", 1, None, ["move"]):
        with pytest.raises(EventLogError, match="'start' must be"):
            GameHeader.from_record({**rec, "start": bad})


def test_only_a_lift_of_the_side_to_move_from_the_start_position_starts_it() -> None:
    session = BoardSession("russian", "300", start_mode=StartMode.MOVE)
    assert not session.starts_game(Lift(1, "f6"))  # Black's piece
    assert not session.starts_game(Lift(1, "b1"))  # a light square
    assert not session.starts_game(Place(1, "c3"))
    assert session.starts_game(Lift(1, "c3"))
    session.handle(Lift(1, "a3"))
    session.handle(Place(2, "b4"))  # the board is not the start position now
    assert not session.starts_game(Lift(3, "c3"))
    assert not BoardSession("russian", "300").starts_game(Lift(1, "c3"))  # press mode


def test_replay_of_a_log_starts_on_its_first_move_with_start_move() -> None:
    # Black touches a piece of his before anything; then White's first move and press.
    log = [b'{"type":"lift","t":0.2,"square":"f6"}', b'{"type":"place","t":0.4,"square":"f6"}',
           b'{"type":"lift","t":1.0,"square":"c3"}', b'{"type":"place","t":1.5,"square":"d4"}',
           b'{"type":"press","t":3.0,"side":"white"}']

    def first_move(start: str | None) -> dict[str, Any]:
        out = replay_lines(log, "log", rules="russian", time_control="300", start=start,
                           fmt="feed")
        return [json.loads(line) for line in out.splitlines()][1]

    moved = first_move("move")
    assert moved["move"] == "c3-d4" and moved["clock"]["white"] == 298.0  # from White's lift
    assert first_move(None)["clock"]["white"] == 297.2  # a plain log: from its first event
