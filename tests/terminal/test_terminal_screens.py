"""The Textual screens under Textual's own pilot (App.run_test), fed by real feed lines, at
80x24: what is on the screen (squares, clocks, moves, notices), read from the compositor."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from support.records_helpers import typed
from support.terminal_helpers import (
    IRREGULAR,
    USSR1947,
    WK2003,
    FakeClock,
    demo_feed,
    pdn_moves,
    records,
    replay_feed,
    screen_lines,
)

from boardctl.terminal.app import BoardApp, move_rows
from boardctl.terminal.board import square_at
from boardctl.terminal.sensors import sensors_app
from boardctl.terminal.view import BoardView
from firmware.formats.records import MoveRecord


def _run(app: Any, feed: list[Any], check: Any, size: tuple[int, int] = (80, 24),
         ) -> None:
    """The app takes ``feed``: typed records, or a line's members read as a watcher reads them."""
    async def go() -> None:
        async with app.run_test(size=size) as pilot:
            for rec in feed:
                app.take("record", typed(rec) if isinstance(rec, dict) else rec)
            await pilot.pause()
            await check(pilot)

    asyncio.run(go())


def _row(lines: list[str], rank: int, size: int) -> str:
    """The board's line of ``rank`` (1-based), without its label."""
    line = lines[size - rank]
    assert line[:2].strip() == str(rank)
    return line[3:3 + 3 * size]


@pytest.fixture(scope="module")
def wk(tmp_path_factory: pytest.TempPathFactory) -> list[dict[str, Any]]:
    return records(demo_feed(tmp_path_factory.mktemp("wk") / "state", WK2003, 4, 30))


def test_10x10_at_80x24_board_clocks_and_moves(wk: list[dict[str, Any]]) -> None:
    clock = FakeClock()
    app = BoardApp(BoardView(), clock=clock)
    last = max(i for i, r in enumerate(wk) if isinstance(r, MoveRecord))
    moves = pdn_moves(WK2003, 4, 30)

    async def check(pilot: Any) -> None:
        lines = screen_lines(app)
        assert len(lines) == 24 and all(len(line) == 80 for line in lines)
        # rank 1: a1 (46) ... i1 (50): White's men where the feed's FEN has them
        view = app.view
        rank1 = _row(lines, 1, 10)
        for file in range(0, 10, 2):
            name = f"{chr(97 + file)}1"
            want = view.pieces[name].letter if name in view.pieces else None
            cell = rank1[3 * file:3 * file + 3]
            assert cell.strip() == (want or str(46 + file // 2)), (name, cell)
        assert lines[10][:34].split() == list("abcdefghij")
        text = "\n".join(lines)
        assert "White" in text and "Black" in text
        white = next(line for line in lines if "White " in line and ":" in line)
        assert white.split("White", 1)[1].split()[0] == view.faces(clock())["white"]
        # the moves, numbered, the last ones on screen
        assert f"15. {moves[28]}" in text.replace("  ", " ").replace("  ", " ")
        assert moves[29] in text
        assert "Weitsman,V. - Tsjizjow,A." in text
        # the clock ticks: 2 s later White's face shows 2 s less
        before = view.faces(clock())["white"]
        clock.now += 2.0
        app.tick()
        await pilot.pause()
        after = "\n".join(screen_lines(app))
        assert view.faces(clock())["white"] != before and view.faces(clock())["white"] in after

    _run(app, wk[: last + 1], check)


def test_8x8_at_80x24_algebraic_names_and_pieces(tmp_path: Path) -> None:
    feed = records(demo_feed(tmp_path / "state", USSR1947, 1, 12))
    app = BoardApp(BoardView(), clock=FakeClock())

    async def check(pilot: Any) -> None:
        lines = screen_lines(app)
        assert lines[8][:28].split() == list("abcdefgh")
        rank7 = _row(lines, 7, 8)
        assert rank7[6:9] == " b "  # c7: 12... a5:c7 landed there
        rank5 = _row(lines, 5, 8)
        assert rank5[0:3] == "a5 "  # empty since: its name shown
        text = "\n".join(lines)
        assert "Last move: 6... a5:c7" in text
        assert pdn_moves(USSR1947, 1, 12)[0] in text

    _run(app, feed, check)


def test_an_irregularity_is_drawn_lit_and_told(tmp_path: Path) -> None:
    log = tmp_path / "irregular.jsonl"
    log.write_text(IRREGULAR)
    app = BoardApp(BoardView(), clock=FakeClock())

    async def check(pilot: Any) -> None:
        lines = screen_lines(app)
        rank4, rank6 = _row(lines, 4, 10), _row(lines, 6, 10)
        # the game's position (the man still on d4), lit where the LEDs light
        assert rank4[9:12] == "[w]" and rank6[9:12] == "[ ]"  # 32 (d4) put back, 22 (d6) wrong
        text = " ".join(" ".join(lines).split())  # the notices wrap within their column
        assert "Irregularity: illegal-move (white): 32, 22" in text
        assert "LEDs: 32 put back, 22 wrong" in text
        style = app.screen._compositor.get_style_at(3 + 9 + 1, 6)  # d4's bracket
        assert style.bgcolor is not None and style.bgcolor.triplet == (0, 255, 0)

    _run(app, records(replay_feed(log)), check)


def test_alarm_and_hardware_warnings_are_on_screen() -> None:
    app = BoardApp(BoardView(), clock=FakeClock())
    feed = [{"type": "game", "rules": "russian", "fen": None, "time_control": None,
             "tags": {}},
            {"type": "alarm", "alarm": "/var/lib/boardctl/games: No space left on device"},
            {"type": "hardware", "missing": ["leds", "faces"]}]

    async def check(pilot: Any) -> None:
        text = "\n".join(screen_lines(app))
        assert "ALARM: /var/lib/boardctl/games: No space left on device" in text
        assert "Hardware: missing: leds" in text and "Hardware: missing: faces" in text
        assert "no clock" in text

    _run(app, feed, check)


def test_a_click_names_the_square_under_it() -> None:
    assert square_at(10, 3, 9) == "a1" and square_at(10, 5, 9) == "a1"
    assert square_at(10, 30, 0) == "j10" and square_at(8, 3 + 3 * 2, 7) == "c1"
    assert square_at(10, 2, 0) is None and square_at(10, 33, 0) is None
    assert square_at(8, 5, 8) is None


def test_move_rows_number_a_game_black_opens() -> None:
    view = BoardView(moves=["c7-d6", "c3-d4", "d6-e5"], first_side="black")
    assert move_rows(view) == ["  1. ...          c7-d6", "  2. c3-d4        d6-e5"]


def test_the_sensors_screen_marks_faults_and_disagreements() -> None:
    app = sensors_app(None)
    answer = {"ok": True, "size": 8, "closed": ["a1", "c1", "e3"], "expected": ["a1", "c1",
              "g1"], "faults": [{"kind": "column-short", "squares": ["c1"],
                                 "message": "column 1 (GPIO6) reads low"}]}

    async def go() -> None:
        async with app.run_test(size=(80, 24)) as pilot:
            app.take("sensors", answer)
            await pilot.pause()
            lines = screen_lines(app)
            assert _row(lines, 1, 8)[0:3] == " # " and _row(lines, 1, 8)[6:9] == "!#!"
            assert _row(lines, 1, 8)[18:21] == "-. "  # g1: a piece should stand there
            assert _row(lines, 3, 8)[12:15] == "+# "  # e3: closed, should be empty
            text = "\n".join(lines)
            assert "3 closed, 3 expected" in text
            assert "column-short: column 1 (GPIO6) reads low" in text
            for _ in range(4):  # b2 flickers while nothing moves
                app.take("sensors", {**answer, "closed": answer["closed"] + ["b2"]})
                app.take("sensors", answer)
            await pilot.pause()
            assert "flickering: b2" in "\n".join(screen_lines(app))

    asyncio.run(go())


def test_plies_a_power_cut_lost_are_on_screen() -> None:
    app = BoardApp(BoardView(), clock=FakeClock())
    feed = [{"type": "game", "rules": "international", "fen": None, "time_control": None,
             "tags": {}},
            {"type": "gap", "ply": 0, "recovered": None, "count": 2,
             "candidates": [["34-29", "20-25"], ["34-30", "20-24", "30-25", "24-29"]],
             "text": "the board does not show the journal's position after ply 0"}]

    async def check(pilot: Any) -> None:
        text = " ".join(line.strip() for line in screen_lines(app))
        assert "Power cut: plies missing after ply 0" in text
        assert "1) 34-29 20-25" in text and "the arbiter decides" in text

    _run(app, feed, check)
