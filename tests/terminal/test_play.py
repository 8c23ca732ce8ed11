"""``boardctl play``: the screen under Textual's pilot with a real simulated board service
(``boardctl run --sim`` as a child process, driven only through the control socket's ``sim``
command), typed moves, squares and presses, the mouse; ``--plain`` as a real process.
Waiting is for the service to get somewhere, never a timing assertion."""

from __future__ import annotations

import argparse
import asyncio
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from support.terminal_helpers import screen_lines

from boardctl.terminal.app import BoardApp, BoardWidget
from boardctl.terminal.play import Hand, Service
from boardctl.terminal.sources import SocketSource
from boardctl.terminal.view import BoardView


def _args(rules: str, tc: str | None = "300+5") -> argparse.Namespace:
    return argparse.Namespace(rules=rules, time_control=tc, engine=None, engine_side="black")


@pytest.fixture
def board(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[tuple[Service, Hand]]:
    rules = getattr(request, "param", "international")
    service = Service(_args(rules), tmp_path / "state")
    try:
        client = service.wait_ready()
        client.ask("start")
        yield service, Hand(client)
    finally:
        service.stop()


async def _until(pilot: Any, app: BoardApp, predicate: Callable[[str], bool]) -> str:
    deadline = time.monotonic() + 20
    text = ""
    while time.monotonic() < deadline:
        await pilot.pause(0.05)
        text = "\n".join(screen_lines(app))
        if predicate(text):
            return text
    raise AssertionError(f"the screen never got there:\n{text}")


def test_typed_moves_and_squares_play_through_the_real_service(
        board: tuple[Service, Hand]) -> None:
    service, hand = board
    app = BoardApp(BoardView(), SocketSource(service.socket), prompt=hand.line)

    async def go() -> None:
        async with app.run_test(size=(80, 24)) as pilot:
            await _until(pilot, app, lambda t: "White to move" in t)
            numbers = ("1.", "1...", "2.", "2...")
            for text, number in zip(("32-28", "17-22", "28x17", "12x21"), numbers, strict=True):
                await pilot.click("#prompt")  # 28x17 a capture: 17 taken off
                await pilot.press(*text, "enter")
                screen = await _until(pilot, app,
                                      lambda t, m=f"Last move: {number} {text}": m in t)
            assert "12x21 made" in screen
            view = app.view
            assert view.moves == ["32-28", "17-22", "28x17", "12x21"]
            assert view.pieces["b6"].side == "black" and "c7" not in view.pieces  # 21, 17
            # a square alone: lift white's man on d4 (32) and put it on d6 (22): illegal
            await pilot.press(*"d4", "enter")
            await pilot.press(*"22", "enter")
            await pilot.press(*"press", "enter")
            screen = await _until(pilot, app, lambda t: "Irregularity:" in t)
            assert "32" in screen.split("Irregularity:")[1]  # d4, numbered
            assert "[" in screen  # the squares the LEDs light
            # an illegal whole move is refused with the reason, nothing done
            await pilot.press(*"33-22", "enter")
            screen = await _until(pilot, app, lambda t: "not legal" in t)
            # the mouse: a click on d6 lifts the man put there, a click on d4 puts it back
            x, y = 3 + 3 * 3 + 1, 10 - 6  # d6
            await pilot.click(BoardWidget, offset=(x, y))
            await pilot.click(BoardWidget, offset=(x, 10 - 4))
            await pilot.press(*"press", "enter")
            await _until(pilot, app, lambda t: "Irregularity:" not in t)
            await pilot.press(*"quit", "enter")
            await pilot.pause()

    asyncio.run(go())
    assert app.return_code == 0


@pytest.mark.parametrize("board", ["russian"], indirect=True)
def test_an_8x8_game_in_algebraic(board: tuple[Service, Hand]) -> None:
    service, hand = board
    assert hand.line("c3-d4") == "c3-d4 made"
    assert hand.line("f6-e5") == "f6-e5 made"
    assert hand.line("d4xf6") == "d4xf6 made"  # e5 taken off
    assert "not legal" in hand.line("a7-b6")  # the capture back is compulsory
    deadline = time.monotonic() + 20
    while hand.client.ask("status")["moves"] != ["c3-d4", "f6-e5", "d4:f6"]:
        assert time.monotonic() < deadline, hand.client.ask("status")["moves"]
        time.sleep(0.05)


def test_squares_alone_are_told_in_the_rule_set_s_notation(
        board: tuple[Service, Hand]) -> None:
    _, hand = board
    assert hand.line("d4") == "lift 32"  # numbered on 100 squares, typed either way
    assert hand.line("28") == "place 28"


def test_play_plain_as_a_process(tmp_path: Path) -> None:
    script = "32-28\n17-22\nnonsense\nquit\n"
    done = subprocess.run([sys.executable, "-m", "boardctl", "play", "--rules",
                           "international", "--plain", "--state-dir", str(tmp_path / "s")],
                          input=script, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    out = done.stdout.splitlines()
    assert out[0].startswith("type a move")
    assert "32-28 made" in out and "17-22 made" in out
    assert any("nonsense" in line for line in out)  # told, in one line
    assert not (tmp_path / "s" / "control.sock").exists()  # the service was stopped
    done = subprocess.run([sys.executable, "-m", "boardctl", "play", "--rules", "checkers",
                           "--plain"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "unknown rule set" in done.stderr


def test_watch_screen_tells_a_lost_service_and_q_ends_it(tmp_path: Path) -> None:
    service = Service(_args("russian"), tmp_path / "state")
    try:
        service.wait_ready()
        app = BoardApp(BoardView(), SocketSource(service.socket))

        async def go() -> None:
            async with app.run_test(size=(80, 24)) as pilot:
                await _until(pilot, app, lambda t: "White to move" in t)
                service.stop()
                screen = await _until(pilot, app, lambda t: "not reachable" in t)
                assert "[not reachable" in screen.splitlines()[0]
                await pilot.press("q")
                await pilot.pause()

        asyncio.run(go())
        assert app.return_code == 0
    finally:
        service.stop()
