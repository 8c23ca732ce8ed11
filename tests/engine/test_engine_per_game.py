"""The computer chosen per game (issue 39 item 2): one real ``boardctl run --sim`` process,
started with no engine, and ``new`` over its control socket (and ``boardctl new``) choosing
the built-in engine, none, a Hub engine the config does not allow (refused, nothing changed)
and one it allows (``dame hub``, the dame-rs test dependency), each played as a person plays
it: the engine's move read from ``status`` as the LEDs show it, carried out with ``sim``."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from test_engine_power_cut import engines_move, gone, sim, until

from boardctl.service.control import NULL, ControlError, request
from firmware.rules.position import Position
from firmware.rules.sets import find_rules

#: dame plays international draughts only.
RULES = find_rules("international")
#: Seconds a ``new`` choosing an engine may take to answer (the engine started once to read
#: its name, on a machine maybe busy): a wait, not a timing.
NEW_S = 60.0


def dame_bin() -> Path:
    found = shutil.which("dame", path=str(Path(sys.executable).parent)) or shutil.which("dame")
    assert found is not None, "dame-rs (a test dependency) is not installed"
    return Path(found).parent


def start(state: Path, config: Path) -> subprocess.Popen[str]:
    env = {**os.environ, "PATH": f"{dame_bin()}{os.pathsep}{os.environ.get('PATH', '')}"}
    return subprocess.Popen(
        [sys.executable, "-m", "boardctl", "run", "--sim", "--config", str(config),
         "--rules", RULES.name, "--time-control", "600+5", "--state-dir", str(state)],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env)


def persons_move(sock: Path) -> None:
    """White's move by hand (its first legal move in route order), his clock pressed."""
    status = request(sock, "status")
    move = min(Position.from_fen(RULES, status["fen"]).legal_moves(), key=lambda m: m.route)
    alg = RULES.geometry.algebraic
    sim(sock, "lift", alg(move.start))
    sim(sock, "place", alg(move.end))
    for sq in move.captured:
        sim(sock, "lift", alg(sq))
    sim(sock, "press", "white")
    until(lambda: len(request(sock, "status")["moves"]) > len(status["moves"]))


def refused(sock: Path, words: str, **args: Any) -> None:
    """``new`` with ``args`` is refused in one line naming ``words``, and nothing changes:
    the same game, the same engine (or none)."""
    before = request(sock, "status")
    with pytest.raises(ControlError) as err:
        request(sock, "new", NEW_S, force=True, **args)
    assert words in str(err.value) and "\n" not in str(err.value), str(err.value)
    after = request(sock, "status")
    assert after["game"] == before["game"]
    assert after.get("engine", {}).get("name") == before.get("engine", {}).get("name")


def new_game_against(sock: Path, **args: Any) -> dict[str, Any]:
    """A new game (the last one abandoned) with the engine ``args`` choose; the person (White)
    starts it and moves, and the engine's reply is carried out. The status then."""
    status = request(sock, "new", NEW_S, force=True, **args)
    sim(sock, "press", "black")  # the person with White starts the game
    persons_move(sock)
    engines_move(sock)
    assert len(request(sock, "status")["moves"]) == 2
    return status


def test_the_engine_is_chosen_per_game(tmp_path: Path) -> None:
    state = tmp_path / "state"
    sock = state / "control.sock"
    config = tmp_path / "config.toml"
    config.write_text('[engine]\nmove_time = 0.05\nallowed = ["dame hub"]\n')
    proc = start(state, config)
    pids: list[int] = []
    try:
        status = until(lambda: request(sock, "status"))
        assert "engine" not in status  # a game without an engine
        with pytest.raises(ControlError, match="no engine plays"):
            request(sock, "hint")
        # the built-in engine as Black, level 1: its move shown and carried out by hand
        status = new_game_against(sock, engine="builtin", engine_side="black", engine_level=1)
        engine = status["engine"]
        assert (engine["name"], engine["side"], engine["level"]) == ("builtin", "black", "1")
        assert status["tags"]["Black"].startswith("boardctl")
        assert status["tags"]["BlackLevel"] == "1"
        pids.append(request(sock, "status")["engine"]["pid"])
        # none, from the command line: the engine's process stops, the game has no engine
        out = subprocess.run([sys.executable, "-m", "boardctl", "new", "--engine", "none",
                              "--force", "--state-dir", str(state)],
                             capture_output=True, text=True, timeout=60)
        assert out.returncode == 0, out.stderr
        assert "engine" not in request(sock, "status")
        assert until(lambda: gone(pids[0]))
        # refused in one line, nothing changed
        ran = tmp_path / "ran"
        refused(sock, "not allowed", engine=f"hub:touch {ran}")
        assert not ran.exists()  # a command not allowed is never started, not even once
        refused(sock, "unknown engine", engine="stockfish")
        refused(sock, "unknown engine level", engine="builtin", engine_level="11")
        refused(sock, "'engine_side' must be white or black", engine="builtin",
                engine_side="red")
        refused(sock, "no-such-rules", engine="builtin", rules="no-such-rules")
        # an allowed Hub engine, its side and move time as chosen before
        status = new_game_against(sock, engine="hub:dame hub")
        assert (status["engine"]["name"], status["engine"]["side"]) == ("dame", "black")
        assert "dame" in status["tags"]["Black"].lower()
        pids.append(request(sock, "status")["engine"]["pid"])
        # the next new game without engine keys keeps it
        status = request(sock, "new", force=True)
        assert status["engine"]["name"] == "dame" and status["engine"]["side"] == "black"
        assert "dame" in status["tags"]["Black"].lower()
        # engine: null over the socket is none too
        assert "engine" not in request(sock, "new", force=True, engine=NULL)
    finally:
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    assert all(until(lambda pid=pid: gone(pid)) for pid in pids)  # no engine left running
