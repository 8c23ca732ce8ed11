"""A game against the built-in engine in a real ``boardctl run --sim --engine`` process,
played through its control socket as a person would (the engine's move read from ``status``
as the LEDs show it, carried out with ``sim``), with a power cut mid-game: ``kill -9`` of the
service, the engine's process gone with it, a start on the same state directory, the engine
restarted and the game going on; ``boardctl export`` of the journal gives the same game."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

from support.service_helpers import wait_for

from boardctl.service.control import request
from firmware.pdn import read_games
from firmware.rules.position import Position
from firmware.rules.sets import find_rules

RULES = find_rules("russian")
#: Real seconds a process may take (a start, an engine's reply): waits, not timings.
WAIT_S = 30.0


def start(state: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "boardctl", "run", "--sim", "--rules", "russian",
         "--time-control", "600+5", "--state-dir", str(state), "--engine", "builtin",
         "--engine-side", "black", "--engine-level", "1", "--engine-move-time", "0.05"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=dict(os.environ))


def until(predicate: Any) -> Any:
    return wait_for(predicate, WAIT_S, "the service")


def sim(sock: Path, kind: str, where: str) -> None:
    if kind == "press":
        request(sock, "sim", type=kind, side=where)
    else:
        request(sock, "sim", type=kind, square=where)


def persons_move(sock: Path) -> None:
    status = request(sock, "status")
    position = Position.from_fen(RULES, status["fen"])
    move = min(position.legal_moves(), key=lambda m: m.route)
    alg = RULES.geometry.algebraic
    sim(sock, "lift", alg(move.start))
    sim(sock, "place", alg(move.end))
    for sq in move.captured:
        sim(sock, "lift", alg(sq))
    sim(sock, "press", "white")
    ply = len(status["moves"]) + 1
    until(lambda: len(request(sock, "status")["moves"]) >= ply)


def engines_move(sock: Path) -> str:
    """Carry out the engine's move as ``status`` (the LEDs) shows it; its text."""
    move = until(lambda: request(sock, "status")["engine"]["move"])
    leds = request(sock, "status")["leds"]
    assert leds[move["route"][0]] == "must-move"
    ply = move["ply"]
    sim(sock, "lift", move["route"][0])
    sim(sock, "place", move["route"][-1])
    for sq in move["captured"]:
        sim(sock, "lift", sq)
    until(lambda: len(request(sock, "status")["moves"]) >= ply)
    assert request(sock, "status")["moves"][ply - 1] == move["move"]
    return str(move["move"])


def gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    try:  # a zombie of a process that was ours is gone too
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(") ")[1].startswith("Z")
    except OSError:
        return True


def test_power_cut_mid_game_against_the_engine(tmp_path: Path) -> None:
    state = tmp_path / "state"
    sock = state / "control.sock"
    proc = start(state)
    try:
        until(lambda: request(sock, "status"))
        sim(sock, "press", "black")  # the person with White starts the game
        for _ in range(2):
            persons_move(sock)
            engines_move(sock)
        persons_move(sock)
        until(lambda: request(sock, "status")["engine"]["move"])  # shown, not carried out
        engine_pid = request(sock, "status")["engine"]["pid"]
        before = request(sock, "status")["moves"]
        proc.send_signal(signal.SIGKILL)  # the power cut
        proc.wait(timeout=10)
        assert until(lambda: gone(engine_pid))  # its input closed: the engine quits too
        proc = start(state)
        status = until(lambda: request(sock, "status"))
        assert status["moves"] == before and status["running"] is None  # clocks paused
        request(sock, "resume")  # as after any restart, the clocks go again
        engines_move(sock)  # the engine restarted, thinks again, and the game goes on
        persons_move(sock)
        engines_move(sock)
        moves = request(sock, "status")["moves"]
        assert len(moves) == len(before) + 3
        assert request(sock, "status")["engine"]["pid"] != engine_pid
        tags = request(sock, "status")["tags"]
        assert tags["Black"].startswith("boardctl") and tags["BlackLevel"] == "1"
    finally:
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err
    out = subprocess.run([sys.executable, "-m", "boardctl", "export", "--state-dir",
                          str(state)], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    game = next(read_games(out.stdout, "export"))
    assert [m.text.replace("x", ":") for m in game.moves] == moves  # PDN writes x
    assert game.tags["BlackLevel"] == "1"
    journal = next((state / "games").glob("*.jsonl"))
    out = subprocess.run([sys.executable, "-m", "boardctl", "replay", str(journal)],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    replayed = next(read_games(out.stdout, "replay"))
    assert [m.text for m in replayed.moves] == [m.text for m in game.moves]
