"""The ``sensors`` control command and ``boardctl watch --sensors``: the reed matrix as the
sensing thread sees it, with faults injected into the simulated matrix (a shorted column, a
stuck reed), in-process and against a real ``boardctl run --sim``."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

from support.service_helpers import sim_service
from support.terminal_helpers import sim_service_process, stop_process
from test_watch_process import Lines

from boardctl.service.control import request
from boardctl.terminal.sensors import SensorsView


def _scan(service, clock, scans: int = 5) -> None:
    for _ in range(scans):
        clock.now += service.hw.scanner.period_ns
        service.step(clock.now)


def test_sensors_tells_closed_squares_and_injected_faults(tmp_path: Path) -> None:
    service, clock = sim_service(tmp_path / "state")
    service.boot()
    _scan(service, clock)
    answer = service.command({"cmd": "sensors"})
    assert answer["ok"] and answer["size"] == 10 and answer["faults"] == []
    assert len(answer["closed"]) == 40 and answer["closed"] == answer["expected"]
    board = service.hw.sim
    board.stick("e5", True)  # a stuck reed on an empty square
    board.short_column(3)
    _scan(service, clock)
    answer = service.command({"cmd": "sensors"})
    assert [f["kind"] for f in answer["faults"]] == ["column-short"]
    shorted = set(answer["faults"][0]["squares"])
    assert shorted and shorted <= set(answer["closed"])
    assert "e5" in answer["closed"] and "e5" not in answer["expected"]
    view = SensorsView()
    view.apply(answer)
    assert view.cell("e5", view.faulty(), set())[0] == "+# "
    square = sorted(shorted)[0]
    assert view.cell(square, view.faulty(), set())[0] == "!#!"
    assert "column-short" in view.report().plain
    service.close()


def test_watch_sensors_plain_against_a_real_service(tmp_path: Path) -> None:
    state = tmp_path / "state"
    service = sim_service_process(state, "russian")
    watch = None
    try:
        watch = subprocess.Popen([sys.executable, "-m", "boardctl", "watch", "--sensors",
                                  "--plain", "--state-dir", str(state)],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        out = Lines(watch)
        first = out.until(lambda line: line.startswith("closed:"))
        assert "c3" in first.split(";")[0] and "no faults" in first
        request(state / "control.sock", "sim", type="lift", square="c3")
        line = out.until(lambda line: line.startswith("closed:") and line != first)
        assert "c3" not in line.split(";")[0].split()
    finally:
        try:
            stop_process(watch, signal.SIGINT)
        finally:  # whatever became of Ctrl-C: both stopped by their pids
            stop_process(watch)
            stop_process(service)
