"""One name for a board (issue 31): ``--name`` and ``--board`` mean the same (the feed's name,
the hall's, the PDN Board tag); two different names are refused in one line."""

from __future__ import annotations

import subprocess
from pathlib import Path

from support.hall_helpers import BOARDCTL, wait_for
from support.processes import stop_by_pid

from boardctl.service.control import ControlError
from boardctl.service.control import request as socket_request


def test_two_names_are_refused_in_one_line(tmp_path: Path) -> None:
    done = subprocess.run([*BOARDCTL, "run", "--sim", "--state-dir", str(tmp_path / "s"),
                           "--name", "b1", "--board", "b2"], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "boardctl: error: --name 'b1' and --board 'b2' both name this board (one meaning: "
        "the feed's name, the hall's and the Board tag); give one"]


def test_name_is_board(tmp_path: Path) -> None:
    """``--name b12`` names the board on the feed and in the game's Board tag, as ``--board``
    does."""
    state = tmp_path / "s"
    proc = subprocess.Popen([*BOARDCTL, "run", "--sim", "--rules", "international",
                             "--state-dir", str(state), "--name", "b12"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def status() -> dict[str, object] | None:
        try:
            return socket_request(state / "control.sock", "status")
        except ControlError:
            return None

    try:
        got = wait_for(status, 30, "the board")
        assert got["board"] == "b12" and got["tags"]["Board"] == "b12"
    finally:
        assert stop_by_pid(proc) == 0
