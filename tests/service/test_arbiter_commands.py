"""The control commands as data: every command the protocol accepts (boardctl.service.control.
COMMANDS) is answered by exactly one entry of the arbiter's tables, and the acts that need a
clock are refused, with the reason, in a game without one."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.service_helpers import sim_service

from boardctl.service import arbiter
from boardctl.service.control import COMMANDS


def test_every_command_has_one_handler() -> None:
    answers, acts = set(arbiter.ANSWERS), set(arbiter.ACTS)
    assert answers.isdisjoint(acts)
    assert answers | acts == set(COMMANDS)
    assert arbiter.QUERIES <= answers and arbiter.CLOCK_ONLY <= acts


@pytest.mark.parametrize("cmd", sorted(arbiter.CLOCK_ONLY))
def test_clock_acts_are_refused_without_a_clock(tmp_path: Path, cmd: str) -> None:
    args = {"clock-set": {"side": "white", "seconds": 60}, "moves-set": {"side": "white",
            "moves": 3}, "adjourn": {"sealed": "32-28"}}.get(cmd, {})
    service, _ = sim_service(tmp_path, None, tc=None)
    service.boot()
    try:
        answer = service.command({"cmd": cmd, **args})
        assert answer == {"ok": False,
                          "error": f"{cmd}: this game has no clock (no time control)"}
    finally:
        service.close()
