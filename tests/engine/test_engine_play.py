"""``boardctl play --engine``: the terminal board's hand (boardctl.terminal.play) against a
``boardctl run --sim --engine builtin`` child process: the person's typed move ends with his
press, the engine's move, typed as ``status`` (the LEDs) shows it, is carried out without one
and committed by the board."""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

from boardctl.terminal.play import Hand, Service

WAIT_S = 30.0


def until(predicate: Any) -> Any:
    deadline = time.monotonic() + WAIT_S
    while True:
        value = predicate()
        if value:
            return value
        assert time.monotonic() < deadline, "waited too long"
        time.sleep(0.02)


def test_play_against_the_engine_without_a_clock(tmp_path: Path) -> None:
    args = argparse.Namespace(rules="russian", time_control=None, engine="builtin",
                              engine_side="black")
    service = Service(args, tmp_path / "state")
    try:
        client = service.wait_ready()
        client.ask("start")
        hand = Hand(client)
        assert hand.line("c3-d4") == "c3-d4 made"
        shown = until(lambda: client.ask("status")["engine"]["move"])
        assert client.ask("status")["leds"][shown["route"][0]] == "must-move"
        assert hand.line(shown["move"]) == f"{shown['move']} made"
        status = until(lambda: (s := client.ask("status"))["ply"] >= 2 and s)
        assert status["moves"] == ["c3-d4", shown["move"]]
        assert status["tags"]["Black"].startswith("boardctl")
    finally:
        service.stop()
