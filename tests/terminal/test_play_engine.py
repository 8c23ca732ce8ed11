"""``boardctl play --engine``'s prompt words against a real service and the built-in engine
(a real process, 0.05 s a move): undo in the engine's turn (the person's move alone) and in
his turn (both plies), a hint, a draw offer, resignation, a new game set up and started.
Waiting is for the service to get somewhere, never a timing assertion."""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

from boardctl.terminal.play import Hand, Service


def _until(hand: Hand, what: str, predicate: Any) -> dict[str, Any]:
    deadline = time.monotonic() + 30
    while True:
        status = hand.client.ask("status")
        if predicate(status):
            return status
        assert time.monotonic() < deadline, (what, status)
        time.sleep(0.02)


def test_undo_hint_draw_resign_and_new_at_the_prompt(tmp_path: Path) -> None:
    args = argparse.Namespace(rules="russian", time_control=None, engine="builtin",
                              engine_side="black", engine_level="1", engine_move_time=0.05)
    service = Service(args, tmp_path / "state")
    try:
        hand = Hand(service.wait_ready())
        hand.client.ask("start")
        assert "resign" in hand.line("help")
        assert hand.line("c3-d4") == "c3-d4 made"
        status = _until(hand, "engine's move", lambda s: s["engine"]["move"])
        assert hand.line("undo") == "taken back: your move"  # its move shown, not made
        assert status["moves"] == ["c3-d4"]
        assert _until(hand, "white", lambda s: s["turn"] == "white")["moves"] == []
        assert hand.line("e3-f4") == "e3-f4 made"
        move = _until(hand, "engine's move", lambda s: s["engine"]["move"])["engine"]["move"]
        assert hand.line(move["move"]) == f"{move['move']} made"  # carried out, no press
        assert hand.line("undo") == "taken back: your move and the engine's reply"
        assert hand.client.ask("status")["moves"] == []
        assert "no move of yours" in hand.line("undo")
        assert hand.line("hint").startswith("hint asked")
        hint = _until(hand, "hint", lambda s: s["engine"]["hint"])
        assert "must-move" in hint["leds"].values()
        assert hand.line("draw").startswith("the engine")
        assert hand.line("resign") == "you resigned"
        # issue 36: after a result typed moves and squares move no simulated piece, so the
        # game (the screen) and the board never disagree
        assert "not made: the game is over (0-1)" in hand.line("e3-f4")
        assert "the game is over" in hand.line("g3") and "over" in hand.line("press")
        sensors = hand.client.ask("sensors")
        assert sorted(sensors["closed"]) == sorted(sensors["expected"])
        assert "over" in hand.line("hint")  # one line, the reason
        assert hand.line("new") == "a new game: set up and started"
        status = _until(hand, "new game", lambda s: s["started"] and s["result"] is None)
        assert status["irregularity"] is None and status["moves"] == []
        assert hand.line("c3-b4") == "c3-b4 made"
    finally:
        service.stop()


def test_engine_words_without_an_engine_say_so_and_new_works(tmp_path: Path) -> None:
    args = argparse.Namespace(rules="russian", time_control=None, engine=None,
                              engine_side="black")
    service = Service(args, tmp_path / "state")
    try:
        hand = Hand(service.wait_ready())
        for word in ("hint", "undo", "draw", "resign"):
            assert "no engine in this game" in hand.line(word)
        assert hand.line("new") == "a new game: set up and started"  # any game
    finally:
        service.stop()
