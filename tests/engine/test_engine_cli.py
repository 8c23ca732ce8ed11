"""The engine game from the command line: ``boardctl status`` tells the engine's part, and
``boardctl hint``, ``offer-draw`` and ``resign`` act on a real ``boardctl run --sim --engine
builtin`` process; without an engine each is one line of refusal."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from support.terminal_helpers import sim_service_process, stop_process

BOARDCTL = [sys.executable, "-m", "boardctl"]


def boardctl(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*BOARDCTL, *args], capture_output=True, text=True, timeout=60)


def test_status_hint_draw_and_resign_against_the_engine(tmp_path: Path) -> None:
    state = tmp_path / "state"
    service = sim_service_process(state, "russian", "--engine", "builtin", "--engine-side",
                                  "black")
    try:
        at = ("--state-dir", str(state))
        said = boardctl("status", *at)
        assert said.returncode == 0, said.stderr
        engine = [line for line in said.stdout.splitlines() if line.startswith("engine:")]
        assert len(engine) == 1 and "plays black, level" in engine[0], engine
        assert boardctl("start", *at).returncode == 0
        hint = boardctl("hint", *at)
        assert hint.returncode == 0 and hint.stdout.startswith("hint asked"), hint
        draw = boardctl("offer-draw", *at)  # no evaluation yet: not taken
        assert draw.returncode == 0 and draw.stdout.startswith("the engine declines"), draw
        resign = boardctl("resign", *at)
        assert resign.returncode == 0 and resign.stdout.strip() == "resigned: the engine wins"
        after = boardctl("status", *at).stdout
        assert "result: 0-1 (resignation)" in after, after
        again = boardctl("resign", *at)
        assert again.returncode == 2 and again.stderr.count("\n") == 1
        assert "over already" in again.stderr and "Traceback" not in again.stderr
    finally:
        stop_process(service)


def test_without_an_engine_each_is_refused_in_one_line(tmp_path: Path) -> None:
    state = tmp_path / "state"
    service = sim_service_process(state, "russian")
    try:
        for cmd in ("hint", "resign", "offer-draw"):
            said = boardctl(cmd, "--state-dir", str(state))
            assert said.returncode == 2 and said.stderr.count("\n") == 1, (cmd, said)
            assert "engine" in said.stderr and "Traceback" not in said.stderr
        assert "engine:" not in boardctl("status", "--state-dir", str(state)).stdout
    finally:
        stop_process(service)
