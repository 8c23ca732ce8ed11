"""Two boards playing one game over a real Mosquitto broker (``--opponent board:NAME``,
issue 41 item 2): two real ``boardctl run --sim`` processes, each person playing his side on
his board, the other side's moves shown and committed as the engine's (``remote-move``,
``"source": "board:NAME"``); one game to a result, both journals exporting the same moves;
a board that drops off (stopped, started again on its state) waited for with the clock
paused on the other; a draw offered on one board, shown on the other (``status``, the
offering side's face, the ``draw-offer`` feed line) and taken up there, declined there, or
lapsing by its next move; an offer made while the other board is away reaching it once it is
back, and once only; the 1953 rules' bar on offering (004 §16)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from support.mqtt_broker import Mosquitto
from support.online_board import OnlineBoard, real_moves, texts

from boardctl.opponents.offer_book import NOT_AGAIN, NOT_ON_MOVE
from boardctl.opponents.offers import OFFER_FACE
from boardctl.service.control import ControlError
from firmware.pdn import read_games


def two_boards(mosquitto: Mosquitto, tmp: Path,
               rules: str = "international") -> tuple[OnlineBoard, OnlineBoard]:
    def board(me: str, other: str, theirs: str) -> OnlineBoard:
        return OnlineBoard(tmp / me, None, rules=rules,
                           extra=("--time-control", "300+5", "--start", "move",
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


def export(board: OnlineBoard) -> str:
    return subprocess.run([sys.executable, "-m", "boardctl", "export", "--state-dir",
                           str(board.state)], capture_output=True, text=True,
                          check=True).stdout


def exported_moves(board: OnlineBoard) -> list[str]:
    game = next(iter(read_games(export(board), "export")))
    return [m.key for m in game.replay().moves]  # type: ignore[misc]


def offer_of(board: OnlineBoard) -> dict[str, Any]:
    return dict(board.ask("status")["opponent"]["draw_offer"])


def offer_notes(board: OnlineBoard) -> list[str]:
    """The states of the draw offers the journal noted, in order."""
    out = []
    for path in sorted(board.state.rglob("*.jsonl")):
        for line in path.read_text(errors="replace").splitlines():
            try:
                rec = json.loads(line)
            except ValueError:
                continue
            if isinstance(rec, dict) and rec.get("note") == "draw-offer":
                out.append(f"{rec['side']}:{rec['state']}")
    return out


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
        # black resigns from the menus (no arbiter, no phone): hold pause, step to rE5n, Go
        black.ask("sim", type="press", side="pause", hold_ms=2500)
        black.until(lambda: black.ask("status")["menu"]["open"], "the menus open")
        black.ask("sim", type="press", side="black")
        black.until(lambda: black.ask("status")["faces"]["white"].startswith("rE5n"),
                    "resign on the faces")
        black.ask("sim", type="press", side="pause")  # the item: its value, Go
        black.until(lambda: black.ask("status")["faces"]["black"].startswith("Go"), "Go")
        black.ask("sim", type="press", side="pause")
        result = black.result()
        assert (result["result"], result["reason"]) == ("2-0", "resignation")
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


def test_a_draw_offered_on_one_board_is_taken_up_on_the_other(mosquitto: Mosquitto,
                                                              tmp_path: Path) -> None:
    white, black = two_boards(mosquitto, tmp_path)
    try:
        moves = real_moves(4)
        play(white, black, moves[:2], 1)
        assert white.ask("offer-draw")["draw"] == "offered"  # white to move offers
        assert offer_of(white) == {"mine": True, "theirs": False, "ply": 2, "barred": False}
        black.until(lambda: offer_of(black)["theirs"], "the offer on the other board")
        black.until(lambda: black.ask("status")["faces"]["white"] == OFFER_FACE,
                    "the offer on the offering side's face")
        play(white, black, moves[:3], 3)  # white's move: the offer stands
        assert offer_of(black)["theirs"] and offer_of(white)["mine"]
        black.ask("sim", type="press", side="pause")  # black takes it up: the pause button
        for b in (black, white):
            result = b.result()
            assert (result["result"], result["reason"]) == ("1-1", "agreement")
            assert offer_of(b) == {"mine": False, "theirs": False, "ply": None, "barred": False}
        offers = {(r["side"], r["ply"], r["state"], r["id"])  # one offer, said again or not
                  for r in white.feed_lines() if r["type"] == "draw-offer"}
        assert [o[:3] for o in offers] == [("white", 2, "offered")]
        black.until(lambda: offer_notes(black) == ["white:offered", "white:accepted"],
                    "the offer and its acceptance in the journal")
    finally:
        white.stop()
        black.stop()
    for b in (white, black):
        assert '[Result "1-1"]' in export(b)
    assert exported_moves(white) == exported_moves(black) == [m.key for m in moves[:3]]


def test_a_draw_offer_lapses_with_the_next_move_or_is_declined(mosquitto: Mosquitto,
                                                                tmp_path: Path) -> None:
    white, black = two_boards(mosquitto, tmp_path)
    try:
        moves = real_moves(6)
        play(white, black, moves[:2], 1)
        white.ask("sim", type="press", side="pause")  # white offers: the pause button
        black.until(lambda: offer_of(black)["theirs"], "the offer on the other board")
        play(white, black, moves[:4], 3)  # white's move, then black's: black declines so
        assert offer_of(black)["theirs"] is False
        white.until(lambda: not offer_of(white)["mine"], "the offer lapsed")
        assert white.ask("status")["result"] is None
        white.until(lambda: offer_notes(white) == ["white:offered", "white:lapsed"],
                    "the offer and its lapse in the journal")
        assert black.ask("offer-draw")["draw"] == "offered"  # a new offer, not a take-up
        white.until(lambda: offer_of(white)["theirs"], "black's offer")
        assert white.ask("decline-draw")["draw"] == "declined"
        black.until(lambda: not offer_of(black)["mine"], "the offer declined")
        black.until(lambda: offer_notes(black)[-2:] == ["black:offered", "black:declined"],
                    "the offer and its decline in the journal")
        play(white, black, moves, 5)
        assert white.ask("status")["result"] is None
        assert black.ask("status")["result"] is None
    finally:
        white.stop()
        black.stop()
    assert exported_moves(white) == exported_moves(black) == [m.key for m in moves]


def test_an_offer_made_while_the_other_board_is_away_reaches_it_when_back(
        mosquitto: Mosquitto, tmp_path: Path) -> None:
    white, black = two_boards(mosquitto, tmp_path)
    try:
        moves = real_moves(4)
        play(white, black, moves[:2], 1)
        black.stop()  # tartu away
        white.until(lambda: white.ask("status")["opponent"]["peer"] == "offline", "away")
        assert white.ask("offer-draw")["draw"] == "offered"  # made meanwhile: nobody hears
        black.start()  # back, on its journal
        black.ask("resume")
        black.until(lambda: offer_of(black)["theirs"], "the offer on the board come back")
        assert offer_of(black)["ply"] == 2 and offer_of(white)["mine"]
        assert black.ask("offer-draw")["draw"] == "accepted"
        for b in (black, white):
            result = b.result()
            assert (result["result"], result["reason"]) == ("1-1", "agreement")
        black.until(lambda: offer_notes(black) == ["white:offered", "white:accepted"],
                    "the offer and its acceptance in the journal")
    finally:
        white.stop()
        black.stop()
    assert exported_moves(white) == exported_moves(black) == [m.key for m in moves[:2]]
    assert offer_notes(black) == ["white:offered", "white:accepted"]  # once, not twice


def test_the_1953_rules_bar_offering_again(mosquitto: Mosquitto, tmp_path: Path) -> None:
    white, black = two_boards(mosquitto, tmp_path, rules="international1953")
    try:
        moves = real_moves(6)
        play(white, black, moves[:2], 1)
        with pytest.raises(ControlError, match=re.escape(NOT_ON_MOVE)):  # white on move, not black
            black.ask("offer-draw")
        white.ask("sim", type="press", side="pause")  # white offers: the pause button
        black.until(lambda: offer_of(black)["theirs"], "white's offer")
        play(white, black, moves[:4], 3)  # black's move: the offer lapses
        white.until(lambda: offer_of(white)["barred"], "white barred")
        with pytest.raises(ControlError, match=re.escape(NOT_AGAIN)):
            white.ask("offer-draw")
        white.ask("sim", type="press", side="pause")  # refused too: noted, nothing sent
        white.until(lambda: offer_notes(white)[-1:] == ["white:refused"], "the refusal noted")
        play(white, black, moves[:5], 5)
        assert black.ask("offer-draw")["draw"] == "offered"  # black uses his right
        white.until(lambda: offer_of(white)["theirs"], "black's offer")
        assert offer_of(white)["barred"] is False
        assert white.ask("decline-draw")["draw"] == "declined"
        black.until(lambda: offer_of(black)["barred"], "black barred in turn")
        play(white, black, moves, 6)
        assert white.ask("offer-draw")["draw"] == "offered"  # white's right again
        black.until(lambda: offer_of(black)["theirs"], "white's second offer")
        # the journal's note is written by its writer thread, a moment after the status
        black.until(lambda: [n for n in offer_notes(black) if n.startswith("white:")] ==
                    ["white:offered", "white:lapsed", "white:offered"], "white's notes")
    finally:
        white.stop()
        black.stop()
