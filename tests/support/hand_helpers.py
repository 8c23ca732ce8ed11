"""The simulated hand at a running ``boardctl run --sim`` process's control socket, for the
tests of a person alone at the board (issue 40): a move by hand, the engine's move carried
out as the LEDs show it, a button pressed or held."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from boardctl.service.control import ControlError, request
from firmware.rules.position import Position
from firmware.rules.sets import find_rules
from support.service_helpers import wait_for

#: Seconds a state a test waits for may take on a busy machine (a wait, not a timing).
WAIT_S = 60.0


def until(predicate: Any) -> Any:
    return wait_for(predicate, WAIT_S, "the service")


def sim(sock: Path, kind: str, where: str) -> None:
    if kind == "press":
        request(sock, "sim", type=kind, side=where)
    else:
        request(sock, "sim", type=kind, square=where)


def press(sock: Path, side: str, hold_ms: int | None = None) -> dict[str, Any]:
    """A press of a clock button; ``hold_ms``: held that long (on the hand's clock)."""
    args: dict[str, Any] = {"type": "press", "side": side}
    if hold_ms is not None:
        args["hold_ms"] = hold_ms
    return request(sock, "sim", **args)


def persons_move(sock: Path, side: str = "white") -> None:
    """The side to move's first legal move in route order, by hand, his clock pressed."""
    status = request(sock, "status")
    rules = find_rules(status["rules"])
    move = min(Position.from_fen(rules, status["fen"]).legal_moves(), key=lambda m: m.route)
    alg = rules.geometry.algebraic
    sim(sock, "lift", alg(move.start))
    sim(sock, "place", alg(move.end))
    for sq in move.captured:
        sim(sock, "lift", alg(sq))
    sim(sock, "press", side)
    ply = len(status["moves"]) + 1
    until(lambda: len(request(sock, "status")["moves"]) >= ply)


def engines_move(sock: Path) -> str:
    """Carry out the engine's move as ``status`` (the LEDs) shows it; its text."""
    move = until(lambda: request(sock, "status")["engine"]["move"])
    ply = move["ply"]
    sim(sock, "lift", move["route"][0])
    sim(sock, "place", move["route"][-1])
    for sq in move["captured"]:
        sim(sock, "lift", sq)
    until(lambda: len(request(sock, "status")["moves"]) >= ply)
    return str(move["move"])


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
