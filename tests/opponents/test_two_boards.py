"""Two boards playing one game over a real Mosquitto broker (``--opponent board:NAME``,
issue 41 item 2): two real ``boardctl run --sim`` processes, each person playing his side on
his board, the other side's moves shown and committed as the engine's (``remote-move``,
``"source": "board:NAME"``); one game to a result, both journals exporting the same moves;
a board that drops off (stopped, started again on its state) waited for with the clock
paused on the other."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from support.mqtt_broker import Mosquitto
from support.online_board import OnlineBoard, real_moves, texts

from firmware.pdn import read_games


def two_boards(mosquitto: Mosquitto, tmp: Path) -> tuple[OnlineBoard, OnlineBoard]:
    def board(me: str, other: str, theirs: str) -> OnlineBoard:
        return OnlineBoard(tmp / me, None, extra=("--time-control", "300+5", "--start", "move",
                                                  "--snapshot-every", "1"),
                           opponent=("--broker", mosquitto.url, "--hall", "club",
                                     "--board", me, "--opponent", f"board:{other}",
                                     "--opponent-side", theirs))
    white = board("tallinn", "tartu", "black")
    try:
        black = board("tartu", "tallinn", "white")
    except BaseException:
        white.stop()
        raise
    for b in (white, black):
        b.until(lambda b=b: b.ask("status")["opponent"]["peer"] == "online", "the other board")
    return white, black


def exported_moves(board: OnlineBoard) -> list[str]:
    pdn = subprocess.run([sys.executable, "-m", "boardctl", "export", "--state-dir",
                          str(board.state)], capture_output=True, text=True,
                         check=True).stdout
    game = next(iter(read_games(pdn, "export")))
    return [m.key for m in game.replay().moves]  # type: ignore[misc]


def play(white: OnlineBoard, black: OnlineBoard, moves: list, first: int) -> None:
    for ply, move in enumerate(moves, 1):
        if ply < first:
            continue
        mover, other = (white, black) if ply % 2 else (black, white)
        mover.play(move)
        line = other.opponents_move()
        assert line["ply"] == ply and line["source"] == f"board:{mover.tmp.name}"


def test_two_boards_play_one_game_to_a_result(mosquitto: Mosquitto, tmp_path: Path) -> None:
    white, black = two_boards(mosquitto, tmp_path)
    try:
        moves = real_moves(6)
        play(white, black, moves, 1)
        for b in (white, black):
            assert b.ask("status")["moves"] == texts(moves)
        assert black.ask("result", result="2-0", reason="resignation")["ok"]
        result = white.result()  # the other board's result, followed
        assert (result["result"], result["reason"]) == ("2-0", "resignation")
        remote = [r for r in white.feed_lines() if r["type"] == "remote-move"]
        assert [r["move"] for r in remote] == texts(moves)[1::2]
        assert {r["source"] for r in remote} == {"board:tartu"}
    finally:
        white.stop()
        black.stop()
    assert exported_moves(white) == exported_moves(black) == [m.key for m in moves]


def test_a_board_that_drops_off_is_waited_for(mosquitto: Mosquitto, tmp_path: Path) -> None:
    white, black = two_boards(mosquitto, tmp_path)
    try:
        moves = real_moves(6)
        play(white, black, moves[:3], 1)  # white's second move: black (tartu) to move
        black.stop()  # tartu's power goes
        white.until(lambda: white.ask("status")["opponent"]["paused"], "the clock paused")
        status = white.ask("status")
        assert status["running"] is None and status["opponent"]["peer"] == "offline"
        black.start()  # back, on its journal: the game where it stood
        black.ask("resume")
        white.until(lambda: not white.ask("status")["opponent"]["paused"], "resumed")
        assert white.ask("status")["running"] == "black"
        play(white, black, moves, 4)
        assert black.ask("result", result="1-1", reason="agreement")["ok"]
        assert white.result()["result"] == "1-1"
    finally:
        white.stop()
        black.stop()
    assert exported_moves(white) == exported_moves(black) == [m.key for m in moves]
