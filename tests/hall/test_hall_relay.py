"""The relay of a hall on a real Mosquitto: many boards' feeds from one publisher, hostile
messages on board topics, round URLs of 64 games, an empty hall, 304s for pollers."""

from __future__ import annotations

import socket
import time
from pathlib import Path

import paho.mqtt.client as mqtt
import pytest
from support.hall_helpers import hall_relay, wait_for
from support.mqtt_broker import Mosquitto

from firmware.formats.feed import crc_of, encode_line
from firmware.pdn import read_games


class Publisher:
    """One MQTT client publishing many boards' feed lines (as the benchmark does)."""

    def __init__(self, port: int) -> None:
        self.client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2)
        self.client.connect("127.0.0.1", port)
        self.client.loop_start()
        self.seq: dict[str, int] = {}

    def line(self, board: str, record: dict) -> None:
        seq = self.seq.get(board, 0)
        self.seq[board] = seq + 1
        self.raw(f"kabelaud/H/{board}/feed", encode_line(record, seq).rstrip("\n").encode())

    def raw(self, topic: str, payload: bytes) -> None:
        self.client.publish(topic, payload, qos=1).wait_for_publish(10)

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


def game(board: str, rnd: str, n: int = 0) -> dict:
    return {"type": "game", "game": "same-id", "rules": "international", "fen": None,
            "time_control": None, "tags": {"Round": rnd, "Board": str(n or board),
                                           "White": f"W{board}", "Black": f"B{board}"}}


def move(ply: int, text: str) -> dict:
    return {"type": "move", "game": "same-id", "ply": ply,
            "side": "white" if ply % 2 else "black", "move": text}


@pytest.fixture
def publisher(mosquitto: Mosquitto):
    pub = Publisher(mosquitto.port)
    yield pub
    pub.close()


def test_an_empty_hall_serves_valid_empty_pdns(mosquitto: Mosquitto) -> None:
    with hall_relay(mosquitto.url) as relay:
        for path in ("/H.pdn", "/H/round/1.pdn", "/H/round/1-2.pdn"):
            code, headers, body = relay.get(path)
            assert code == 200 and list(read_games(body.decode(), path)) == []
            assert headers["Content-Type"].startswith("application/x-draughts-pdn")
            assert headers["ETag"] and headers["Last-Modified"]


def test_games_are_told_apart_by_the_topic_and_rounds_hold_64_a_url(
        mosquitto: Mosquitto, publisher: Publisher) -> None:
    """70 boards of round 5 (every one sending the same game id) and two of round 6."""
    with hall_relay(mosquitto.url) as relay:
        boards = [f"b{n}" for n in range(1, 71)]
        for n, board in enumerate(boards, 1):
            publisher.line(board, game(board, "5", n))
            publisher.line(board, move(1, "32-28"))
        for board in ("x1", "x2"):
            publisher.line(board, game(board, "6"))
            publisher.line(board, move(1, "32-28"))  # served from its first move
        wait_for(lambda: len(relay.games()) == 72 and all(g.moves for g in relay.games()),
                 what="72 games played")
        _, _, first = relay.get("/H/round/5.pdn")
        _, _, second = relay.get("/H/round/5-2.pdn")
        _, _, third = relay.get("/H/round/5-3.pdn")
        one = list(read_games(first.decode(), "5"))
        two = list(read_games(second.decode(), "5-2"))
        assert len(one) == 64 and len(two) == 6 and third == b""
        assert [g.tags["Board"] for g in one + two] == boards  # in the order first played, stable
        assert {g.tags["Round"] for g in one} == {f"5.{n}" for n in range(1, 65)}
        assert all([m.text for m in g.moves] == ["32-28"] for g in one + two)
        _, _, six = relay.get("/H/round/6.pdn")
        assert [g.tags["White"] for g in read_games(six.decode(), "6")] == ["Wx1", "Wx2"]
        _, _, everything = relay.get("/H.pdn")
        assert len(list(read_games(everything.decode(), "all"))) == 72


def test_hostile_messages_on_board_topics_are_dropped_and_counted(
        mosquitto: Mosquitto, publisher: Publisher) -> None:
    deep = '{"seq":1,"type":"move","x":' + "[" * 30_000 + "]" * 30_000
    deep = f'{deep},"crc":"{crc_of(deep + "}")}"}}'
    nonsense = [  # each passes the checksum
        {"type": "move", "game": "g", "ply": -1, "side": "white", "move": "32-28"},
        {"type": "move", "game": "g", "ply": 1, "side": "white", "move": "<script>"},
        {"type": "snapshot", "game": "g", "moves": [{"ply": "x"}] * 50, "tags": "nope"},
        {"type": "result", "game": "g", "result": "7-0"},
        {"type": "game", "game": "g" * 10_000, "tags": {"a" * 100: 1}},
    ]
    with hall_relay(mosquitto.url) as relay:
        publisher.raw("kabelaud/H/evil/feed", b"\xff\xfe not a line")
        publisher.raw("kabelaud/H/evil/feed", b"[" * 60_000)
        publisher.raw("kabelaud/H/evil/feed", b"x" * 70_000)  # over the size limit
        publisher.raw("kabelaud/H/evil/feed", deep.encode())
        publisher.raw("kabelaud/H/evil/bogus", b"{}")  # not subscribed: never seen
        publisher.raw("kabelaud/H/evil/status", b"\x00" * 1000)  # a status, not "online"
        publisher.raw("kabelaud/H/b%d/feed", b"{}")  # not a board name
        for record in nonsense:
            publisher.line("evil", record)
        publisher.line("good", game("good", "1"))
        publisher.line("good", move(1, "32-28"))
        wait_for(lambda: relay.moves("good") == ["32-28"], what="the good board's move")
        state, follower = relay.relay.state, relay.follower
        assert follower.dropped == 2, relay.logs  # the oversized message, the bad name
        assert state.dropped == 3  # the three damaged lines (the deep one too)
        assert follower.damaged_lines == 3  # ... each named in the log
        assert sum("from board evil dropped: not a feed line" in line
                   for line in relay.logs) == 3, relay.logs
        _, _, body = relay.get("/H.pdn")
        games = list(read_games(body.decode(), "all"))
        assert games[-1].tags.get("Board") == "good"
        assert [m.text for m in games[-1].moves] == ["32-28"]
        assert all(g.moves == [] and g.tags.get("Board") == "evil" for g in games[:-1])
        assert any("not a board topic" in line for line in relay.logs)
        assert relay.follower.online.get("evil") is False


def test_pollers_get_304_until_something_changes(
        mosquitto: Mosquitto, publisher: Publisher) -> None:
    with hall_relay(mosquitto.url) as relay:
        publisher.line("b1", game("b1", "2"))
        publisher.line("b1", move(1, "32-28"))  # served from its first move
        wait_for(lambda: relay.moves("b1"), what="the game")
        for path in ("/H.pdn", "/H/round/2.pdn"):
            code, headers, body = relay.get(path)
            assert code == 200 and body
            etag, modified = headers["ETag"], headers["Last-Modified"]
            assert relay.get(path, {"If-None-Match": etag})[0] == 304
            assert relay.get(path, {"If-Modified-Since": modified})[0] == 304
            assert relay.get(path, {"If-None-Match": '"other"'})[0] == 200
        _, headers, _ = relay.get("/H/round/2.pdn")
        publisher.line("b1", move(2, "17-22"))
        wait_for(lambda: len(relay.moves("b1")) == 2, what="the move")
        code, again, body = relay.get("/H/round/2.pdn", {"If-None-Match": headers["ETag"]})
        assert code == 200 and again["ETag"] != headers["ETag"] and b"17-22" in body
        assert relay.get("/H/round/3.pdn", {"If-None-Match": headers["ETag"]})[0] == 200


def test_the_http_server_serves_many_clients_and_names_no_python(
        mosquitto: Mosquitto) -> None:
    with hall_relay(mosquitto.url) as relay:
        server = relay.server
        assert server.request_queue_size >= 64
        port = server.server_address[1]
        idle = [socket.create_connection(("127.0.0.1", port)) for _ in range(20)]
        try:  # 20 silent clients hold connections; others are answered meanwhile
            code, headers, _ = relay.get("/H.pdn")
            assert code == 200
            assert headers["Server"] == "kabelaud-relay" and "Python" not in str(headers)
        finally:
            for s in idle:
                s.close()


def test_relay_command_refuses_bad_hall_options(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    from boardctl.cli import main

    for argv, expect in (
        (["relay", "--http", "off"], "nothing to follow"),
        (["relay", "--http", "off", "--broker", "mqtt://127.0.0.1:1"], "--broker needs --hall"),
        (["relay", "--http", "off", "--broker", "http://x", "--hall", "H"], "mqtt://"),
        (["relay", "--http", "off", "--broker", "mqtt://h:1", "--hall", "a/b"], "--hall"),
        (["relay", "--http", "off", "loop://", "--delay", "-1"], "--delay"),
        (["relay", "--http", "off", "loop://", "--push", "ftp://x"], "--push"),
        (["relay", "--http", "off", "--broker", "mqtt://h:1", "--hall", "H",
          "--broker-reconnect-max", "0"], "--broker-reconnect-max must be 0.2 to 300"),
    ):
        assert main(argv) != 0
        err = capsys.readouterr().err
        assert expect in err and "Traceback" not in err, (argv, err)


def test_a_silent_client_is_let_go_after_the_timeout() -> None:
    import threading

    from boardctl.relay.http import PdnServer

    server = PdnServer(("127.0.0.1", 0), hall="H", timeout=0.2)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        with socket.create_connection(server.server_address[:2]) as s:
            s.settimeout(10)  # bounded: the server closes long before
            s.sendall(b"GET /H.pdn HTTP/1.1\r\n")  # and then nothing more
            assert s.recv(100) == b""
    finally:
        server.shutdown()
        server.server_close()


def test_boardctl_relay_as_a_process_follows_the_hall_and_stops_cleanly(
        mosquitto: Mosquitto, publisher: Publisher, tmp_path: Path) -> None:
    import os
    import signal
    import subprocess
    import sys
    import urllib.request

    from support.mqtt_broker import free_port

    port, arbiters = free_port(), free_port()
    while arbiters == port:  # two picks of a free port may be the same one
        arbiters = free_port()
    out = tmp_path / "live.pdn"
    proc = subprocess.Popen(
        [sys.executable, "-m", "boardctl", "relay", "--broker", mosquitto.url, "--hall", "H",
         "--http", f"127.0.0.1:{port}", "--arbiter-http", f"127.0.0.1:{arbiters}",
         "--delay", "10", "--out", str(out)],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        def fetch(p: int, path: str) -> bytes | None:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{p}{path}", timeout=20) as r:
                    return bytes(r.read())
            except OSError:
                return None

        sent = [-1.0]

        def published() -> bool:
            if proc.poll() is not None:  # it could not start (a port taken meanwhile?): say why
                raise AssertionError(f"boardctl relay exited {proc.returncode}: "
                                     f"{proc.stderr.read() if proc.stderr else ''}")
            # The game and its move again until the relay is subscribed, a second apart: sent
            # at every poll, a loaded relay could always be asked between the two.
            if time.monotonic() - sent[0] >= 1.0:
                publisher.line("b1", game("b1", "4"))
                publisher.line("b1", move(1, "32-28"))
                sent[0] = time.monotonic()
            return b"32-28" in (fetch(arbiters, "/H/round/4.pdn") or b"")

        wait_for(published, what="the move on the arbiters' server")
        def answered() -> tuple[bytes] | None:
            body = fetch(port, "/H/round/4.pdn")
            return None if body is None else (body,)

        (public,) = wait_for(answered, what="the public server")
        assert public == b""  # the public sees the move 10 minutes later
        assert "32-28" in out.read_text()  # the local file is live
    finally:
        os.kill(proc.pid, signal.SIGTERM)
        _, err = proc.communicate(timeout=20)
    assert proc.returncode == 0 and "Traceback" not in err
    assert "following kabelaud/H/+/feed" in err
