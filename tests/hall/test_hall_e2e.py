"""A round of a tournament end to end, in processes, on a real Mosquitto: ``boardctl hall
init/draw/boards/start-round`` publish the pairings, two real ``boardctl run --sim --broker``
boards apply them (one online already, one switched on afterwards and served the retained
setup), a real ``boardctl relay --tournament FILE`` process serves the crosstable from the
games it follows, and results from a board and from the arbiter reach it (docs/HALL.md
sections 4 and 7). Waiting is bounded polling on real processes, never a timing assertion."""

from __future__ import annotations

import csv
import io
import json
import subprocess
from pathlib import Path
from typing import Any

from support.hall_helpers import BOARDCTL, Board, RelayProcess, wait_for
from support.mqtt_broker import Mosquitto

from boardctl.service.control import ControlError, request
from firmware.pdn import read_games

PLAYERS = ("Aavik", "Bauer", "Cerny", "Dahl")


def boardctl(*argv: str, cwd: Path) -> str:
    """One ``boardctl`` command as a process; its stdout (a failure shows its stderr)."""
    done = subprocess.run([*BOARDCTL, *argv], cwd=cwd, capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout


def status(board: Board) -> dict[str, Any] | None:
    try:
        return request(board.state / "control.sock", "status")
    except ControlError:
        return None


def crosstable(relay: RelayProcess) -> dict[str, dict[str, str]]:
    code, body = relay.get("/H/crosstable.csv")
    assert code == 200, body
    return {r["Name"]: r for r in csv.DictReader(io.StringIO(body.decode()))}


def test_a_round_from_start_round_to_the_crosstable(mosquitto: Mosquitto, tmp_path: Path
                                                    ) -> None:
    (tmp_path / "players.txt").write_text("\n".join(PLAYERS) + "\n")
    boardctl("hall", "init", "--players", "players.txt", "--event", "E2E Open", "--site",
             "Tartu", "--rules", "international", "--time-control", "300+5", cwd=tmp_path)
    boardctl("hall", "draw", "--seed", "1", cwd=tmp_path)
    boardctl("hall", "boards", "b1", "b2", cwd=tmp_path)
    state = json.loads((tmp_path / "tournament.json").read_text())
    n = {p["number"]: p["name"] for p in state["players"]}
    # seed 004 appendix, 3/4 players, round 1: 1-4 on the first board, 2-3 on the second
    pairs = {"b1": (n[1], n[4]), "b2": (n[2], n[3])}
    relay = RelayProcess(mosquitto.url, "H", tmp_path, "--tournament",
                         str(tmp_path / "tournament.json"))
    b1 = Board(mosquitto.url, "H", "b1", tmp_path / "b1")
    b2 = Board(mosquitto.url, "H", "b2", tmp_path / "b2")
    try:
        relay.start()
        rows = crosstable(relay)
        assert sorted(rows) == sorted(PLAYERS) and {r["Points"] for r in rows.values()} == {"0"}
        b1.start()
        wait_for(lambda: "connected as H/b1" in b1.stderr(), 30, "b1 on the broker")
        out = boardctl("hall", "start-round", "1", "--broker", mosquitto.url, "--hall", "H",
                       cwd=tmp_path)
        assert "round 1: 2 setups published" in out
        b2.start()  # switched on after the round started: the retained setup reaches it
        for board, (white, black) in ((b1, pairs["b1"]), (b2, pairs["b2"])):
            wait_for(lambda b=board, w=white: (status(b) or {}).get("tags", {}).get("White")
                     == w, 60, f"{board.args[-1]}'s setup applied")
            tags = status(board)["tags"]  # type: ignore[index]
            assert (tags["Black"], tags["Round"], tags["Event"]) == (black, "1", "E2E Open")
            assert status(board)["time_control"] == "300+5"  # type: ignore[index]
            assert ": applied" in board.stderr()

        for board in (b1, b2):  # each game's first move (a game is served once played)
            sock = board.state / "control.sock"
            for args in ({"cmd": "start"}, {"cmd": "sim", "type": "lift", "square": "d4"},
                         {"cmd": "sim", "type": "place", "square": "e5"},
                         {"cmd": "sim", "type": "press", "side": "white"}):
                assert request(sock, args.pop("cmd"), **args)["ok"]

        def round_games() -> dict[str, Any]:
            code, body = relay.get("/H/round/1.pdn")
            return {g.tags.get("Board"): g for g in read_games(body.decode(), "round")
                    } if code == 200 else {}

        games = wait_for(lambda: len(round_games()) == 2 and round_games(), 30,
                         "round 1's games on the relay")
        for board, (white, black) in pairs.items():
            assert (games[board].tags["White"], games[board].tags["Black"]) == (white, black)
            code, body = relay.get(f"/board/{board}.json")  # the live page's view of it
            view = json.loads(body)["board"]
            assert code == 200 and (view["white"], view["black"]) == (white, black)

        # b1's game ends on the board (Black resigns); the arbiter enters b2's result.
        boardctl("result", "2-0", "--reason", "resignation", "--socket",
                 str(b1.state / "control.sock"), cwd=tmp_path)
        white, black = pairs["b1"]
        wait_for(lambda: crosstable(relay)[white]["Points"] == "1", 30,
                 "b1's result in the crosstable")
        rows = crosstable(relay)
        assert rows[white]["4"] == "1" and rows[black]["1"] == "0"
        assert rows[black]["Points"] == "0"
        boardctl("hall", "result", "--round", "1", pairs["b2"][1], pairs["b2"][0], "1/2-1/2",
                 cwd=tmp_path)
        rows = crosstable(relay)  # each request reads the file afresh
        assert rows[n[2]]["3"] == "½" and rows[n[3]]["2"] == "½"
        assert rows[n[2]]["Points"] == rows[n[3]]["Points"] == "0.5"
        assert rows[white]["Place"] == "1"
        code, page = relay.get("/H/crosstable.html")
        assert code == 200 and white in page.decode() and "<table>" in page.decode()
    finally:
        b2.stop()
        b1.stop()
        code = relay.stop()
    assert code == 0, relay.stderr()


def test_the_public_crosstable_keeps_the_broadcast_delay(mosquitto: Mosquitto, tmp_path: Path
                                                          ) -> None:
    """With ``--delay`` everything public is late (docs/HALL.md section 2), the crosstable
    too: a result reaches the arbiters' crosstable at once and the public one only with the
    delayed PDN."""
    (tmp_path / "players.txt").write_text("Aavik\nBauer\nCerny\n")
    boardctl("hall", "init", "--players", "players.txt", "--rules", "international",
             cwd=tmp_path)
    boardctl("hall", "draw", "--seed", "1", cwd=tmp_path)
    state = json.loads((tmp_path / "tournament.json").read_text())
    n = {p["number"]: p["name"] for p in state["players"]}
    # seed 004 appendix, 3/4 players, round 1: 1-(4) free, 2-3 on the first board
    relay = RelayProcess(mosquitto.url, "H", tmp_path, "--tournament",
                         str(tmp_path / "tournament.json"), "--delay", "15",
                         "--arbiter-http", "127.0.0.1:0")
    board = Board(mosquitto.url, "H", "b1", tmp_path / "b1", None, "--round", "1",
                  "--white", n[2], "--black", n[3])
    try:
        relay.start()
        public, arbiters = relay.urls
        board.start()
        wait_for(lambda: status(board), 30, "the board's control socket")
        boardctl("result", "0-2", "--reason", "resignation", "--socket",
                 str(board.state / "control.sock"), cwd=tmp_path)

        def points(base: str) -> dict[str, str]:
            code, body = relay.get("/H/crosstable.csv", base)
            assert code == 200, body
            return {r["Name"]: r["Points"] for r in csv.DictReader(io.StringIO(body.decode()))}

        wait_for(lambda: points(arbiters)[n[3]] == "1", 30, "the result for the arbiters")
        assert relay.get("/H.pdn", public) == (200, b"")  # 15 minutes late: nothing yet
        assert set(points(public).values()) == {"0"}
    finally:
        board.stop()
        code = relay.stop()
    assert code == 0, relay.stderr()
