"""A board showing another move than the engine's (a ``not-engine-move``): the LED strip
shows the way to the engine's move (what to put back, what to take off), not the engine's
picture alone, and ``status`` says it (``engine.irregularity``), so that ``boardctl play`` and
``watch`` can tell it; fixed, both are over. The service on an injected clock, the built-in
engine a real process (tests/engine/test_engine_board.py's Board)."""

from __future__ import annotations

from pathlib import Path

from test_engine_board import Board


def test_a_wrong_move_for_the_engine_lights_the_fix_and_is_in_status(tmp_path: Path) -> None:
    board = Board(tmp_path / "state", "russian", "builtin", "black")
    try:
        rec = board.engine_reply()
        alg = board.rules.geometry.algebraic
        other = board.other_move(rec, elsewhere=True)
        mark = len(board.lines)
        board.play(other, press=False)
        irr = board.wait("irregularity", mark)
        assert irr["kind"] == "not-engine-move"
        # the strip as lit: the fix, the feed line's LEDs (was the engine's picture alone,
        # with the wrong piece on the board unmarked)
        assert board.leds() == irr["leds"]
        assert board.leds()[alg(other.end)] in ("remove", "wrong")
        assert board.leds()[alg(other.start)] == "restore"
        status = board.ask(cmd="status")
        assert status["engine"]["irregularity"] == {"kind": "not-engine-move",
                                                    "squares": sorted(irr["leds"])}
        assert status["leds"] == irr["leds"]
        # made good: the piece back, then the engine's move: committed, the marks gone
        board.act("lift", alg(other.end))
        board.act("place", alg(other.start))
        board.steps()
        assert board.ask(cmd="status")["engine"]["irregularity"] is None
        assert board.leds()[rec["route"][0]] == "must-move"  # the engine's picture again
        board.carry_out(rec)
        assert [m["move"] for m in board.session.moves][1] == rec["move"]
        assert board.ask(cmd="status")["engine"]["irregularity"] is None
    finally:
        board.close()
