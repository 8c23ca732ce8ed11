"""The simulated hand over the control socket (``{"cmd": "sim", ...}``, issue 28 item 4): a
whole game played through it, in-process on the virtual clock and over the real control
socket of a ``boardctl run --sim`` process; its acts reach the referee through the simulated
matrix and buttons (debounced, stamped, merged), and bad acts are refused, nothing done."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from support.service_helpers import VirtualClock, sim_service

from boardctl.service.control import ControlError, request
from boardctl.service.service import Service
from firmware.pdn import read_games
from firmware.pdn.model import PdnGame
from firmware.rules.game import parse_result, result_text
from firmware.rules.sets import find_rules

DATA = Path(__file__).resolve().parents[2] / "boardctl" / "data" / "wk2003.pdn"


def source_game() -> PdnGame:
    return next(read_games(DATA.read_text(), "wk2003.pdn"))


def acts(game: PdnGame) -> list[list[dict[str, Any]]]:
    """Each ply as the simulated hand's requests: lift, place, the captured pieces off, and
    the press of the side that moved."""
    played = game.replay()
    geo = played.rules.geometry
    plies = []
    for i, move in enumerate(played.moves):
        side = "white" if i % 2 == 0 else "black"
        ply = [{"cmd": "sim", "type": "lift", "square": geo.algebraic(move.start)},
               {"cmd": "sim", "type": "place", "square": geo.algebraic(move.end)}]
        ply += [{"cmd": "sim", "type": "lift", "square": geo.algebraic(sq)}
                for sq in move.captured]
        ply.append({"cmd": "sim", "type": "press", "side": side})
        plies.append(ply)
    return plies


def same_game(pdn: str, game: PdnGame) -> None:
    got = next(read_games(pdn, "service"))
    assert [m.text for m in got.moves] == [m.text for m in game.moves]
    # in the rule set's own form (the file writes 1/2-1/2; a 100-square board writes 1-1)
    assert got.result == result_text(find_rules("international"), parse_result(game.result)[0])


def steps(service: Service, clock: VirtualClock, n: int) -> None:
    period = service.hw.scanner.period_ns
    for _ in range(n):
        clock.now += period
        service.step(clock.now)


def test_a_whole_game_through_sim_in_process(tmp_path: Path) -> None:
    game = source_game()
    service, clock = sim_service(tmp_path / "state", tc="5400+30")
    service.boot()
    try:
        assert service.command({"cmd": "start"})["ok"]
        for ply, requests in enumerate(acts(game), 1):
            for req in requests:
                answer = service.command(req)
                assert answer["ok"], (ply, req, answer)
                assert answer["sim"] == req["type"]
                clock.now += 3_000_000  # a hand's few milliseconds between acts
            steps(service, clock, 8)  # the debouncer confirms, the merge releases
            assert service.session is not None and len(service.session.moves) == ply, ply
        assert service.command({"cmd": "result", "result": game.result,
                                "reason": "agreement"})["ok"]
        same_game(service.command({"cmd": "pdn"})["pdn"], game)
    finally:
        service.close()


def test_sim_acts_are_stamped_when_asked_and_refused_when_impossible(tmp_path: Path) -> None:
    service, clock = sim_service(tmp_path / "state", tc="5400+30")
    service.boot()
    try:
        clock.now += 2_000_000_000
        lift = service.command({"cmd": "sim", "type": "lift", "square": "b4"})
        assert lift["ok"] and lift["t"] == pytest.approx(2.0)  # stamped at the request
        assert service.command({"cmd": "sim", "type": "place", "square": "a5"})["ok"]
        clock.now += 1_000_000  # the scan that saw the place was at 2.0 s too
        steps(service, clock, 8)
        assert service.flush()
        assert service.header is not None
        journal = tmp_path / "state" / "games" / f"{service.header.id}.jsonl"
        sensed = [json.loads(line) for line in journal.read_text().splitlines()]
        sensed = [(r["type"], r.get("square"), r.get("t")) for r in sensed
                  if r.get("type") in ("lift", "place")]
        # Through the sensors: debounced, stamped when the request arrived, in the journal.
        assert sensed == [("lift", "b4", 2.0), ("place", "a5", 2.0)]
        refusals = {
            ("lift", "e5"): "no piece on e5",
            ("place", "c3"): "c3 is occupied",
            ("place", "a2"): "not a square with a sensor",  # a light square
            ("lift", "k1"): "not a square with a sensor",
            ("lift", None): "needs 'square'",
        }
        for (kind, square), error in refusals.items():
            req = {"cmd": "sim", "type": kind, "square": square}
            answer = service.command(req)
            assert not answer["ok"] and error in answer["error"], (req, answer)
        bad: list[dict[str, object]] = [{"cmd": "sim", "type": "kick", "square": "c3"},
                                        {"cmd": "sim", "type": "press", "side": "pause"},
                                        {"cmd": "sim", "type": "press"},
                                        {"cmd": "sim", "type": "lift", "square": 33}]
        for one in bad:
            answer = service.command(one)
            assert not answer["ok"] and answer["error"].startswith("sim"), (one, answer)
        pieces = service.hw.sim.pieces  # type: ignore[union-attr]
        assert "b4" not in pieces and {"a5", "c3"} <= pieces and "e5" not in pieces
    finally:
        service.close()


def test_sim_is_refused_on_real_hardware(tmp_path: Path) -> None:
    service, clock = sim_service(tmp_path / "state", tc="5400+30")
    service.hw.sim = None  # a stand-in for a real board: no simulated hands
    service.boot()
    try:
        for req in ({"cmd": "sim", "type": "lift", "square": "c3"},
                    {"cmd": "sim", "type": "press", "side": "white"}):
            answer = service.command(req)
            assert not answer["ok"] and "not simulated" in answer["error"]
        steps(service, clock, 8)
        assert service.command({"cmd": "status"})["started"] is False  # the press did nothing
    finally:
        service.close()


def test_a_whole_game_through_sim_over_the_control_socket(tmp_path: Path) -> None:
    game = source_game()
    state = tmp_path / "state"
    proc = subprocess.Popen(
        [sys.executable, "-m", "boardctl", "run", "--sim", "--rules", "international",
         "--time-control", "5400+30", "--state-dir", str(state)],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=dict(os.environ))
    sock = state / "control.sock"
    try:
        ask(sock, "status")
        request(sock, "start")
        plies = acts(game)
        first = plies[0].pop(0)  # the first lift by the client command
        cli = boardctl("sim", "lift", first["square"], "--state-dir", str(state))
        assert cli.returncode == 0 and cli.stdout.startswith(f"lift {first['square']} at ")
        for ply, requests in enumerate(plies, 1):
            for req in requests:
                args = {k: v for k, v in req.items() if k != "cmd"}
                assert request(sock, "sim", **args)["sim"] == req["type"]
            assert wait(lambda n=ply: request(sock, "status")["ply"] >= n), ply  # type: ignore[misc]
        request(sock, "result", result=game.result, reason="agreement")
        same_game(request(sock, "pdn")["pdn"], game)
        with pytest.raises(ControlError, match="no piece on e5"):
            request(sock, "sim", type="lift", square="e5")
        cli = boardctl("sim", "place", "z9", "--state-dir", str(state))
        assert cli.returncode == 2 and "'z9' is not a square" in cli.stderr
    finally:
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err


def boardctl(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "boardctl", *args], capture_output=True,
                          text=True, timeout=60)


def ask(sock: Path, cmd: str) -> dict[str, Any]:
    """The first answer of a service still starting (waiting for a process, not timing)."""
    deadline = time.monotonic() + 20
    while True:
        try:
            return request(sock, cmd, timeout=2.0)
        except ControlError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.02)


def wait(predicate: Any, timeout: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.005)
    return False
