"""The live page's routes on the relay's real HTTP server, without a browser: the assets, bad
paths and tokens, the event stream's catch-up by Last-Event-ID, the client limit, the MQTT
status records, and the relay's own PDN still served beside the page."""

from __future__ import annotations

import gzip
import http.client
import json
import subprocess
import sys
import time
from collections.abc import Iterator

import pytest
from support.live_helpers import LiveRelay, game_records, observe

import boardctl.relay.http as relay_http
import boardctl.relay.live.stream as stream

TOKEN = "arbiter-secret-2"


@pytest.fixture
def relay() -> Iterator[LiveRelay]:
    r = LiveRelay(token=TOKEN)
    r.feed("12", *game_records("g", 4))
    try:
        yield r
    finally:
        r.close()


def fetch(relay: LiveRelay, path: str, method: str = "GET",
          headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", relay.port, timeout=5)
    try:
        conn.request(method, path, headers=headers or {})
        resp = conn.getresponse()
        return resp.status, {k.lower(): v for k, v in resp.getheaders()}, resp.read()
    finally:
        conn.close()


def events(relay: LiveRelay, path: str, until: bytes, headers: dict[str, str] | None = None
           ) -> bytes:
    """The stream's bytes until ``until`` has come (and the frame it is in has ended)."""
    conn = http.client.HTTPConnection("127.0.0.1", relay.port, timeout=5)
    try:
        conn.request("GET", path, headers=headers or {})
        resp = conn.getresponse()
        assert resp.status == 200 and resp.getheader("Content-Type").startswith(
            "text/event-stream")
        got = b""
        while until not in got or not got.endswith(b"\n\n"):
            got += resp.read1(65536)
        return got
    finally:
        conn.close()


def test_assets_gzipped_bad_paths_and_tokens(relay: LiveRelay) -> None:
    status, head, body = fetch(relay, "/", headers={"Accept-Encoding": "gzip"})
    assert status == 200 and head["content-encoding"] == "gzip"
    assert b'src="/static/live.js"' in gzip.decompress(body)
    status, head, body = fetch(relay, "/static/live.js")
    assert status == 200 and head["content-type"].startswith("text/javascript")
    assert b"EventSource" in body and "content-encoding" not in head
    status, head, body = fetch(relay, "/static/live.css", method="HEAD")
    assert status == 200 and body == b"" and int(head["content-length"]) > 1000
    for path in ("/static/../relay.py", "/static/nope.js", "/board/nope.pdn",
                 "/board/..%2F12.json", "/board/12.exe", "/nope", "/other.pdn",
                 "/other/round/1.pdn", "/games.pdn/x"):
        assert fetch(relay, path)[0] == 404, path
    assert fetch(relay, "/?token=wrong-token")[0] == 403
    assert fetch(relay, f"/board/12.json?token={TOKEN}")[0] == 200
    status, head, body = fetch(relay, "/games.pdn")  # the relay's PDN, as before
    assert status == 200 and b"[White \"Ann Aas\"]" in body
    public = LiveRelay()  # no --arbiter-token: any token is refused
    try:
        assert fetch(public, "/events?token=anything-at-all")[0] == 403
    finally:
        public.close()


def test_board_json_has_moves_positions_and_clock_times(relay: LiveRelay) -> None:
    records = game_records("g", 4)
    status, _, body = fetch(relay, "/board/12.json")
    data = json.loads(body)
    assert status == 200 and data["board"]["fen"] == records[-1]["fen"]
    assert [m["fen"] for m in data["moves"]] == [r["fen"] for r in records[2:]]
    assert [m["clock"] for m in data["moves"]][-1] == [286.0, 286.0]
    assert data["start"]["sq"].count("b") == 20 and data["start"]["sq"].count("w") == 20


def test_stream_state_then_changes_and_catch_up_by_last_event_id(relay: LiveRelay) -> None:
    first = events(relay, "/events", b"event: state")
    state_id = first.split(b"id: ")[1].split(b"\n")[0].decode()
    state = json.loads(first.split(b"data: ")[1].split(b"\n")[0])
    assert [b["board"] for b in state["boards"]] == ["12"] and "log" not in state
    relay.feed("12", *game_records("g", 6)[-2:])
    resumed = events(relay, "/events", b'"ply":6', headers={"Last-Event-ID": state_id})
    assert b"event: state" not in resumed  # caught up with the two moves it missed
    assert resumed.count(b"event: board") == 2 and b'"ply":5' in resumed
    again = events(relay, "/events", b"event: state", headers={"Last-Event-ID": "other-epoch-1"})
    assert b'"ply":6' in again  # an id from another relay run: the whole hall again
    relay.feed("12", {"type": "irregularity", "game": "g", "kind": "two-moves", "side": "white",
                      "squares": ["31"]})
    arbiter = events(relay, f"/events?token={TOKEN}", b"event: state")
    log = json.loads(arbiter.split(b"data: ")[1].split(b"\n")[0])["log"]
    assert [(e["board"], e["kind"], e["text"]) for e in log] == [
        ("12", "irregularity", "two-moves 31")]


def test_too_many_streams_are_told_to_come_back(relay: LiveRelay,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(stream, "MAX_CLIENTS", 1)
    conn = http.client.HTTPConnection("127.0.0.1", relay.port, timeout=5)
    try:
        conn.request("GET", "/events")
        resp = conn.getresponse()
        assert resp.status == 200 and resp.read1(65536).startswith(b"retry:")
        status, head, body = fetch(relay, "/events")
        assert status == 503 and head["retry-after"] == "10"
    finally:
        conn.close()


def test_streams_hold_no_connection_slot_and_pollers_are_served_beside_them(
        relay: LiveRelay, monkeypatch: pytest.MonkeyPatch) -> None:
    """A stream's socket goes to the stream loop once its head is read: with room for only
    three connections at once, ten open streams leave the PDN pollers served, and every
    stream still gets each new move."""
    monkeypatch.setattr(relay_http, "MAX_CLIENTS", 3)
    relay.server._clients = relay_http.threading.BoundedSemaphore(3)
    conns = []
    try:
        for _ in range(10):
            conn = http.client.HTTPConnection("127.0.0.1", relay.port, timeout=5)
            conn.request("GET", "/events")
            resp = conn.getresponse()
            assert resp.status == 200
            got = b""
            while b"event: state" not in got:
                got += resp.read1(65536)
            conns.append((conn, resp))
        for _ in range(5):  # a poller told 503 comes back (a stream's thread may be ending)
            deadline = time.monotonic() + 10
            while (answer := fetch(relay, "/games.pdn"))[0] == 503:
                assert time.monotonic() < deadline, "the streams hold the connection slots"
                time.sleep(0.05)
            assert answer[0] == 200 and b"[White" in answer[2]
        assert relay.hub.streams.viewers == 10 and relay.hub.public.clients == 10
        relay.feed("12", game_records("g", 5)[-1])
        for _, resp in conns:
            got = b""
            while b'"ply":5' not in got:
                got += resp.read1(65536)
    finally:
        for conn, _ in conns:
            conn.close()


def test_mqtt_status_records_and_silence_mark_boards_offline(relay: LiveRelay) -> None:
    observe(relay.hub, "12", {"type": "status", "status": "offline"})
    view = json.loads(fetch(relay, "/board/12.json")[2])["board"]
    assert view["badges"]["offline"]
    observe(relay.hub, "12", {"type": "status", "status": "online"})
    assert not json.loads(fetch(relay, "/board/12.json")[2])["board"]["badges"]["offline"]
    relay.clock.now += 26
    relay.hub.tick()
    assert json.loads(fetch(relay, "/board/12.json")[2])["board"]["badges"]["offline"]
    observe(relay.hub, "12", {"type": "status", "status": "bogus"})
    observe(relay.hub, "12", {"type": "move", "game": "g", "ply": "x"})  # heard from again
    assert not json.loads(fetch(relay, "/board/12.json")[2])["board"]["badges"]["offline"]


def test_with_a_delay_and_no_arbiter_nothing_live_reaches_the_public() -> None:
    relay = LiveRelay(delay=60.0)
    try:
        records = game_records("g", 3)
        relay.feed("12", *records[:-1])
        relay.hub.tick()
        published = relay.hub.public.last
        relay.feed("12", records[-1])
        assert relay.hub.public.last == published  # nothing sent on the public stream yet
        relay.clock.now += 59
        relay.hub.tick()
        assert json.loads(fetch(relay, "/board/12.json")[2])["board"]["ply"] == 0
        relay.clock.now += 2
        relay.hub.tick()
        assert relay.hub.public.last == published + 1  # the three moves, in one board event
        assert json.loads(fetch(relay, "/board/12.json")[2])["board"]["ply"] == 3
    finally:
        relay.close()


@pytest.mark.parametrize("args, words", [
    (["--delay", "-1"], "--delay"), (["--delay", "nan"], "--delay"),
    (["--arbiter-token", "short"], "--arbiter-token"),
    (["--arbiter-token", "with space in it"], "--arbiter-token")])
def test_bad_delay_or_token_is_one_line(args: list[str], words: str) -> None:
    done = subprocess.run([sys.executable, "-m", "boardctl", "relay", "loop://", "--http",
                           "127.0.0.1:0", *args], capture_output=True, text=True, timeout=30)
    assert done.returncode == 2
    assert done.stderr.startswith(f"boardctl: error: {words}") and done.stderr.count("\n") == 1


def test_a_board_s_download_is_the_game_as_the_relay_writes_it(relay: LiveRelay) -> None:
    """``/board/BOARD.pdn`` carries the board's ``[Board]`` tag as the hall's PDN does (the
    download of one board's game had none: its writer dropped it)."""
    status, headers, body = fetch(relay, "/board/12.pdn")
    assert status == 200 and "attachment" in headers["content-disposition"]
    from firmware.pdn import read_games

    (game,) = read_games(body.decode(), "download")
    assert game.tags["Board"] == "12" and len(game.moves) == 4
