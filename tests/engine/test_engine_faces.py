"""The engine's move on the clock faces (issue 28 item 3, docs/ENGINE.md): the real face
driver on the recording I2C bus (hw/mock/faces.py) under a service playing the built-in
engine on the simulated board, on an injected clock; what each chip's display RAM shows is
read back from its segment bits."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from test_engine_board import Board

from firmware.clock.face import FaceText, face_view, segment_squares
from firmware.rules.sets import Side
from hw.mock.faces import simulated_faces

NS = 1_000_000_000
#: The driver's font for the files a-h, as a reader sees it on the segments.
FILES = {"a": "A", "b": "b", "c": "C", "d": "d", "e": "E", "f": "F", "g": "G", "h": "H"}


def faces_text(board: Board) -> dict[Side, str]:
    """Each face as its chip shows it now (points and colon included)."""
    faces = board.service.hw.faces
    assert faces is not None
    return {side: faces.i2c.chips[faces.addresses[side]].text() for side in Side}


def expected(rec: dict[str, Any]) -> str:
    """The move's start and final square, from the feed's notation (``32-28``, ``c3:e5:g3``),
    as the face reads back: ``32.28``, ``C3.G3``."""
    squares = re.split("[-x:]", rec["move"])
    start, end = ("".join(FILES.get(ch, ch) for ch in sq) for sq in (squares[0], squares[-1]))
    return f"{start:>2}.{end:>2}"


def at_second(board: Board, parity: int) -> None:
    """Step the service until its game time is in an even (0) or odd (1) second and the faces
    have been drawn in it (a face period and a scan after the second began)."""
    period = board.service.hw.scanner.period_ns
    drawn_after = board.service.face.faces_ns + 2 * period
    assert drawn_after < NS // 2
    board.steps(drawn_after // period + 1)  # what changed is drawn
    while True:
        game_time = board.service.game.game_time(board.clock.now)
        if (game_time // NS) % 2 == parity and game_time % NS >= drawn_after:
            return
        board.steps(1)


@pytest.mark.parametrize("text, shown", [
    (segment_squares("32", "28").text, "32.28"),
    (segment_squares("9", "13").text, " 9.13"),
    (segment_squares("c3", "d4").text, "C3.d4"),
    (segment_squares("h8", "a1").text, "H8.A1"),
    (segment_squares("e1", "g3").text, "E1.G3"),
])
def test_a_move_s_squares_read_back_from_the_segments(text: str, shown: str) -> None:
    faces = simulated_faces()
    faces.show(Side.WHITE, FaceText("12:34"))  # the colon set before: the move clears it
    faces.show(Side.WHITE, FaceText(text))
    assert faces.i2c.chips[0x70].text() == shown


def engine_to_move(board: Board) -> dict[str, Any]:
    board.act("press", "black")  # Black's button starts White's clock
    board.steps()
    if board.side is Side.BLACK:
        board.play(board.persons_move())
    return board.engine_move()


def test_the_engine_s_move_on_both_faces_until_carried_out(tmp_path: Path) -> None:
    board = Board(tmp_path / "state", "international", "builtin", "black")
    try:
        rec = engine_to_move(board)
        move = expected(rec)
        assert re.fullmatch(r"[ \d]\d\.[ \d]\d", move)  # square numbers on 10x10
        at_second(board, 0)
        faces = faces_text(board)
        assert faces[Side.WHITE] == move  # the person's face: the move, steadily
        assert faces[Side.BLACK] == move  # the engine's: the move in even seconds
        at_second(board, 1)
        faces = faces_text(board)
        assert faces[Side.WHITE] == move
        engine_face = faces[Side.BLACK]  # its clock, running (the last digit's point lit)
        assert ":" in engine_face and engine_face.endswith(".") and move not in engine_face
        # Paused, the faces show the clocks as without an engine (blinking, move number).
        board.ask(cmd="pause")
        board.steps(30)
        for parity in (0, 1):
            at_second(board, parity)
            assert move not in faces_text(board).values()
        chip = board.service.hw.faces.i2c.chips[0x71]  # type: ignore[union-attr]
        assert chip.blink != 0
        board.ask(cmd="resume")
        at_second(board, 0)
        assert faces_text(board)[Side.WHITE] == move
        # Carried out: the clocks again, the person's running.
        board.carry_out(rec)
        for parity in (0, 1):
            at_second(board, parity)
            faces = faces_text(board)
            assert move not in faces.values()
            assert faces[Side.WHITE].endswith(".") and ":" in faces[Side.WHITE]
    finally:
        board.close()


def test_algebraic_squares_and_the_alarm_and_flag_still_shown(tmp_path: Path) -> None:
    board = Board(tmp_path / "state", "russian", "builtin", "white", tc="60+0")
    try:
        rec = engine_to_move(board)
        move = expected(rec)
        assert move[0] == FILES[rec["route"][0][0]]  # the file's letter on 8x8
        at_second(board, 0)
        faces = faces_text(board)
        assert faces[Side.WHITE] == faces[Side.BLACK] == move
        # The journal's alarm (its writer's call, as on a full disk) keeps its seconds.
        board.service.face.on_alarm("journal: disk full")
        at_second(board, 1)
        assert set(faces_text(board).values()) == {"Err "}
        board.service.face.on_alarm(None)
        # The engine's flag falls while its move waits: its FLAG (in turn with the move
        # number, as a frozen clock shows it), never the move.
        board.clock.now += 61 * NS
        seen = set()
        for parity in (0, 1, 0, 1):
            at_second(board, parity)
            faces = faces_text(board)
            assert move not in faces.values()
            seen.add(faces[Side.WHITE])
        assert "FLAG" in seen
        assert board.session.result is not None
        assert board.session.result["reason"] == "time forfeit"
    finally:
        board.close()


def test_the_display_thread_shows_the_move_posted_to_it() -> None:
    """Under ``Service.run`` the faces are drawn by the display thread
    (boardctl.service.showing.Display): the move posted with the clock's copy, then taken off."""
    import threading
    from types import SimpleNamespace

    from boardctl.service.showing import Display
    from firmware.clock.face import MoveOnFaces
    from firmware.clock.gameclock import GameClock

    faces = simulated_faces()
    now = [0]
    display = Display(SimpleNamespace(leds=None, faces=faces), NS // 20, lambda: now[0])
    clock = GameClock("300+5")
    clock.start(0)
    clock.press(Side.WHITE, NS)  # Black's clock (an engine's) runs
    now[0] = 2 * NS  # an even second: both faces show the move
    display.publish(clock, 0)
    display.move = MoveOnFaces(Side.BLACK, segment_squares("32", "28").text)
    display.start()
    try:
        def drawn(white: str, black: str) -> bool:
            for _ in range(300):
                if (faces.i2c.chips[0x70].text(), faces.i2c.chips[0x71].text()) == (white, black):
                    return True
                threading.Event().wait(0.01)
            return False

        assert drawn("32.28", "32.28")
        now[0] = 3 * NS + NS // 2  # an odd second: the engine's face its running clock
        black = face_view(clock, Side.BLACK, now[0]).text
        assert black == " 4:57."  # 297.5 s left, running
        assert drawn("32.28", black)
        display.move = None
        assert drawn(" 5:04", black)  # White's 5 s bonus
    finally:
        display.stop()
