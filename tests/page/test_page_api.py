"""The board page's JSON API against a real ``boardctl run --sim --http 127.0.0.1:0`` process
(CONTRACT.md, "The board's own page"): the state, a new game, the games and their PDN as
``boardctl export`` gives it, and every kind of bad input refused in one line of JSON with the
right status, nothing changed. Waiting is for the process to get somewhere, never a timing
assertion."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from typing import Any

import pytest
from support.page_helpers import BOARDCTL, PageBoard, Reply
from support.service_helpers import wait_for

from firmware.pdn import read_games

MOVES = ("32-28", "19-23", "28x19", "14x23", "37-32")


@pytest.fixture(scope="module")
def board(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PageBoard]:
    page = PageBoard(tmp_path_factory.mktemp("page-api") / "state", "--white", "Ann",
                     "--black", "Bob")
    try:
        yield page
    finally:
        page.stop()


def export(board: PageBoard, game: str) -> str:
    return subprocess.run([*BOARDCTL, "export", "--state-dir", str(board.state), "--journal",
                           str(board.state / "games" / f"{game}.jsonl")], capture_output=True,
                          text=True, timeout=60, check=True).stdout


def state(board: PageBoard) -> dict[str, Any]:
    reply = board.get("/api/state")
    assert reply.status == 200 and reply.headers["Content-Type"].startswith("application/json")
    return dict(reply.json())


def test_the_state_as_the_contract_says(board: PageBoard) -> None:
    got = state(board)
    status = board.ask("status")
    assert got["game"] == status["game"] and got["rules"] == "international"
    assert got["ply"] == status["ply"] and got["fen"] == status["fen"]
    assert got["turn"] == status["turn"] and got["opponent"] is None
    clock = got["clock"]
    assert set(clock) == {"white", "black", "running"}
    assert clock["white"] == round(status["clock"]["white"] * 1000)  # milliseconds
    assert isinstance(clock["white"], int) and clock["running"] == status["running"]
    assert got["white"] == "Ann" and got["black"] == "Bob" and got["size"] == 10
    assert len(got["sq"]) == 50 and got["sq"].count("b") == 20  # the diagram's squares


def test_status_prints_the_page_address(board: PageBoard) -> None:
    out = subprocess.run([*BOARDCTL, "status", "--state-dir", str(board.state)],
                         capture_output=True, text=True, timeout=30, check=True).stdout
    assert f"page: {board.url}" in out.splitlines()
    assert board.url == f"http://127.0.0.1:{board.port}/"


def test_a_new_game_from_the_api_as_boardctl_new_sets_it(board: PageBoard) -> None:
    before = state(board)
    reply = board.post("/api/new", {"rules": "international", "time_control": "fmjd-blitz",
                                    "white": "Cai", "black": "Dora", "force": True})
    assert reply.status == 200, reply.body
    new = reply.json()
    assert new["game"] != before["game"] and new["white"] == "Cai" and new["black"] == "Dora"
    assert new["time_control"] == "fmjd-blitz" and new["ply"] == 0
    assert new["clock"] == {"white": 300_000, "black": 300_000, "running": None}
    assert state(board)["game"] == new["game"]  # never the status from before the new game
    status = wait_for(lambda: (s := board.ask("status"))["game"] == new["game"] and s)
    assert (status["tags"]["White"], status["tags"]["Black"]) == ("Cai", "Dora")
    reply = board.post("/api/new", {"time_control": None, "force": True})  # no clock
    assert reply.status == 200 and reply.json()["clock"]["white"] is None


def test_the_computer_chosen_for_one_game_then_none(board: PageBoard) -> None:
    """``engine``, ``engine_side``, ``engine_level`` go to the service's ``new`` as the
    control socket's do: the engine is started for this game, and stopped for the next."""
    reply = board.post("/api/new", {"engine": "builtin", "engine_side": "white",
                                    "engine_level": "easy", "force": True})
    assert reply.status == 200, reply.body
    assert reply.json()["opponent"]["kind"] == "engine"
    status = wait_for(lambda: (s := board.ask("status"))["game"] == reply.json()["game"] and s)
    assert status["engine"]["side"] == "white"
    got = state(board)["opponent"]
    assert (got["kind"], got["side"]) == ("engine", "white")
    for bad, says in (({"engine_side": "green"}, "green"), ({"engine_level": "99"}, "99")):
        refused(board, board.post("/api/new", {"engine": "builtin", **bad, "force": True}),
                400, says)
        assert state(board)["game"] == reply.json()["game"]  # nothing changed
    reply = board.post("/api/new", {"engine": None, "force": True})
    assert reply.status == 200 and reply.json()["opponent"] is None
    assert wait_for(lambda: board.ask("status").get("engine") is None)


def refused(board: PageBoard, reply: Reply, status: int, says: str) -> None:
    assert reply.status == status, (reply.status, reply.body)
    assert reply.headers["Content-Type"].startswith("application/json")
    assert says in reply.error


BIG = json.dumps({"white": "x" * 20_000})


@pytest.mark.parametrize(("method", "path", "body", "headers", "status", "says"), [
    ("POST", "/api/new", "{not json", {}, 400, "not JSON"),
    ("POST", "/api/new", "[1, 2]", {}, 400, "must be a JSON object"),
    ("POST", "/api/new", "", {}, 400, "must be a JSON object"),
    ("POST", "/api/new", '{"rules": "russian", "rules": "international"}', {}, 400,
     "ambiguous"),
    ("POST", "/api/new", {"colour": "white"}, {}, 400, "unknown key 'colour'"),
    ("POST", "/api/new", {"rules": "checkers"}, {}, 400, "unknown rule set 'checkers'"),
    ("POST", "/api/new", {"rules": "russian"}, {}, 400, "this board is 10x10"),
    ("POST", "/api/new", {"rules": 5}, {}, 400, "'rules' must be"),
    ("POST", "/api/new", {"time_control": "soon"}, {}, 400, "bad time control 'soon'"),
    ("POST", "/api/new", {"fen": "W:W1:B99"}, {}, 400, "no square 99"),
    ("POST", "/api/new", {"white": ["Ann"]}, {}, 400, "'white' must be a player's name"),
    ("POST", "/api/new", {"engine": "hub:/bin/sh -c reboot"}, {}, 400, "engine"),
    ("POST", "/api/new", BIG, {}, 413, "at most 16384"),
    ("POST", "/api/new", "{}", {"Transfer-Encoding": "chunked"}, 400, "Content-Length"),
    ("POST", "/api/new", {}, {"Origin": "http://evil.example"}, 403, "another site"),
    ("GET", "/api/games/20990101T000000-abcdef.pdn", None, {}, 404, "no game"),
    ("GET", "/api/games/..%2F..%2Fcurrent.json", None, {}, 404, "no such page"),
    ("GET", "/api/games/..current.pdn", None, {}, 404, "no game"),
    ("GET", "/api/nothing", None, {}, 404, "no such page"),
    ("GET", "/etc/passwd", None, {}, 404, "no such page"),
    ("GET", "/api/new", None, {}, 405, "GET is not allowed"),
    ("POST", "/api/state", {}, {}, 405, "POST is not allowed"),
    ("POST", "/static/page.js", {}, {}, 405, "POST is not allowed"),
])
def test_bad_input_is_one_line_of_json_and_changes_nothing(
        board: PageBoard, method: str, path: str, body: Any, headers: dict[str, str],
        status: int, says: str) -> None:
    before = state(board)
    reply = board.call(method, path, body, headers)
    refused(board, reply, status, says)
    if status == 405:
        assert reply.headers["Allow"] in ("POST", "GET, HEAD")
    after = state(board)
    assert (after["game"], after["ply"], after["rules"]) == (
        before["game"], before["ply"], before["rules"])


def test_a_move_then_the_games_list_the_pdn_and_the_replay_as_export_gives_them(
        board: PageBoard) -> None:
    board.post("/api/new", {"time_control": "300+5", "white": "Eve", "black": "Finn",
                            "force": True})
    board.ask("start")
    board.play(*MOVES)
    played = board.ask("status")
    board.ask("result", result="1-1", reason="agreement")
    finished = played["game"]
    reply = board.post("/api/new", {"white": "Gus", "black": "Hal"})
    assert reply.status == 200, reply.body
    games = board.get("/api/games").json()
    assert [g["id"] for g in games][:2] == [reply.json()["game"], finished]  # newest first
    entry = games[1]
    assert entry == {"id": finished, "white": "Eve", "black": "Finn", "result": "1-1",
                     "plies": len(MOVES), "started": entry["started"],
                     "rules": "international", "current": False}
    assert entry["started"].endswith("Z") and games[0]["current"] is True
    for key in ("id", "white", "black", "result", "plies", "started"):
        assert all(key in g for g in games)
    pdn = board.get(f"/api/games/{finished}.pdn")
    assert pdn.status == 200 and "attachment" in pdn.headers["Content-Disposition"]
    assert pdn.body.decode() == export(board, finished)
    assert [m.text for m in next(read_games(pdn.body.decode(), "page")).moves] == list(MOVES)
    game = board.get(f"/api/games/{finished}.json").json()
    assert [m["move"] for m in game["moves"]] == list(MOVES)
    assert game["moves"][-1]["fen"] == played["fen"] and game["result"] == "1-1"
    assert game["moves"][0]["side"] == "white" and game["moves"][1]["side"] == "black"
    assert game["moves"][0]["hl"] == [32, 28] and game["moves"][0]["clock"][1] == 300.0
    current = board.get(f"/api/games/{games[0]['id']}.pdn")  # the game in play too
    assert current.status == 200 and '[White "Gus"]' in current.body.decode()


def test_head_reads_without_a_body(board: PageBoard) -> None:
    reply = board.call("HEAD", "/api/state")
    assert reply.status == 200 and reply.body == b""
    assert board.call("HEAD", "/").headers["Content-Type"].startswith("text/html")


def test_the_page_and_its_files_are_served_gzipped_from_the_board(board: PageBoard) -> None:
    page = board.get("/", headers={"Accept-Encoding": "gzip"})
    assert page.status == 200 and page.headers["Content-Encoding"] == "gzip"
    import gzip

    html = gzip.decompress(page.body).decode()
    assert 'src="/static/draughts.js"' in html and 'src="/static/page.js"' in html
    assert "http://" not in html and "https://" not in html  # nothing from anywhere else
    for name in ("page.js", "page.css", "draughts.js"):
        reply = board.get(f"/static/{name}")
        assert reply.status == 200 and len(reply.body) > 1000
        assert b"https://" not in reply.body


def test_watchers_and_one_that_never_reads_change_nothing_for_the_board(
        board: PageBoard) -> None:
    """Page clients on the event stream, one of them never reading a byte (a small receive
    buffer): the board plays on, every move is made, and the clients that read see the
    position after the last move."""
    import socket

    assert board.post("/api/new", {"time_control": "300+5", "force": True}).status == 200
    request = (f"GET /api/events HTTP/1.1\r\nHost: {board.host}:{board.port}\r\n"
               "Accept: text/event-stream\r\n\r\n").encode()
    stalled = socket.socket()
    stalled.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 2048)
    stalled.connect((board.host, board.port))
    stalled.sendall(request)
    readers = [socket.create_connection((board.host, board.port), timeout=15) for _ in range(3)]
    try:
        for reader in readers:
            reader.sendall(request)
        board.ask("start")
        board.play(*MOVES)
        status = board.ask("status")
        assert status["ply"] == len(MOVES) and status["moves"] == list(MOVES)
        for reader in readers:
            got = b""
            while status["fen"].encode() not in got:
                chunk = reader.recv(65536)
                assert chunk, "the stream ended"
                got += chunk
    finally:
        stalled.close()
        for reader in readers:
            reader.close()
