"""A hall on a real Mosquitto: ``boardctl run --sim --broker`` boards and the relay following
them through a broker restart, a board's kill -9 and reboot, a second board claiming a name
already taken, and a round's setup arriving during a game (docs/HALL.md)."""

from __future__ import annotations

import json
from pathlib import Path

import paho.mqtt.client as mqtt
from support.hall_helpers import Board, hall_relay, wait_for, write_log
from support.mqtt_broker import Mosquitto
from support.service_helpers import game_log, replayed

from boardctl.commands.control import describe
from boardctl.service.control import ControlError, request
from firmware.pdn import read_games


def expected(events: list) -> list[str]:
    return [m["move"] for m in replayed(events).moves]


def pdn_moves(body: bytes, board: str) -> list[list[str]]:
    """The moves of every game of ``board`` in a PDN body (duplicates would show here)."""
    games = [g for g in read_games(body.decode(), "relay") if g.tags.get("Board") == board]
    return [[m.text for m in g.moves] for g in games]


def test_broker_restart_mid_game_loses_nothing_and_duplicates_nothing(
        mosquitto: Mosquitto, tmp_path: Path) -> None:
    events = game_log(6, seed=3, think=(0.02, 0.05), change_mind=0.0)
    want = expected(events)
    log = write_log(tmp_path / "game.jsonl", events)
    with hall_relay(mosquitto.url) as relay:
        board = Board(mosquitto.url, "H", "b1", tmp_path / "b1", log).start()
        try:
            wait_for(lambda: len(relay.moves("b1")) >= 2, what="the first moves on the relay")
            mosquitto.stop()
            sock = tmp_path / "b1" / "control.sock"
            before = _status(sock)["ply"]
            # The board plays on while the broker is away: two more moves, held by the board.
            wait_for(lambda: _status(sock)["ply"] >= before + 2, what="moves without a broker")
            assert len(relay.moves("b1")) <= before
            mosquitto.start()
            wait_for(lambda: relay.moves("b1") == want, what="every move after the restart")
            _, _, body = relay.get("/H.pdn")
            assert pdn_moves(body, "b1") == [want]
            assert len(relay.games("b1")) == 1
            assert relay.follower.connects >= 2
        finally:
            board.stop()
    assert "connected as H/b1" in board.stderr()


def test_a_board_rebooting_mid_game_goes_on_with_the_same_game(
        mosquitto: Mosquitto, tmp_path: Path) -> None:
    events = game_log(6, seed=5, think=(0.02, 0.05), change_mind=0.0)
    want = expected(events)
    log = write_log(tmp_path / "game.jsonl", events)
    with hall_relay(mosquitto.url) as relay:
        board = Board(mosquitto.url, "H", "b2", tmp_path / "b2", log).start()
        try:
            wait_for(lambda: len(relay.moves("b2")) >= 3, what="the first moves")
            board.kill9()  # a power cut: the broker says offline (the last will) later
            board.start()
            wait_for(lambda: relay.moves("b2") == want, what="the whole game after the reboot")
            _, _, body = relay.get("/H.pdn")
            assert pdn_moves(body, "b2") == [want]
            assert len(relay.games("b2")) == 1
        finally:
            board.stop()
        assert board.stderr().count("connected as H/b2") >= 2
        assert "REFUSED" not in board.stderr()  # a rebooted board takes its own name back


def test_two_boards_claiming_one_name_the_second_is_refused_loudly(
        mosquitto: Mosquitto, tmp_path: Path) -> None:
    with hall_relay(mosquitto.url) as relay:
        first = Board(mosquitto.url, "H", "b7", tmp_path / "first").start()
        second = Board(mosquitto.url, "H", "b7", tmp_path / "second")
        try:
            wait_for(lambda: relay.games("b7"), what="the first board's game")
            game = relay.games("b7")[0].game
            second.start()
            wait_for(lambda: "REFUSED" in second.stderr(), what="the second board's refusal")
            wait_for(lambda: "REFUSED another board" in first.stderr(),
                     what="the first board noticing")
            status = _status(second.state / "control.sock")
            assert status["ok"]  # the refused board runs (its game is local), silent on MQTT
            assert status["broker"]["state"] == "refused" and status["broker"]["board"] == "b7"
            assert "REFUSED, the name is taken" in describe(status)
            assert _status(first.state / "control.sock")["broker"]["state"] == "ready"
            assert [g.game for g in relay.games("b7")] == [game]
        finally:
            second.stop()
            first.stop()
    line = next(x for x in second.stderr().splitlines() if "REFUSED" in x)
    assert "H/b7" in line and "--board" in line


def _publish_retained(url_port: int, topic: str, payload: str) -> None:
    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2)
    client.connect("127.0.0.1", url_port)
    client.loop_start()
    try:
        client.publish(topic, payload, qos=1, retain=True).wait_for_publish(10)
    finally:
        client.disconnect()
        client.loop_stop()


def test_a_setup_during_a_game_is_refused_until_the_result_then_applied(
        mosquitto: Mosquitto, tmp_path: Path) -> None:
    events = game_log(6, seed=2, think=(0.02, 0.05), change_mind=0.0)
    log = write_log(tmp_path / "game.jsonl", events)
    sock = tmp_path / "b3" / "control.sock"
    setup = {"type": "setup", "id": "H-r2-b3", "rules": "international",
             "time_control": "5400+30", "fen": None, "unknown": 1,
             "tags": {"Event": "Hall open", "Round": "2", "Board": "3",
                      "White": "Kask", "Black": "Tamm"}}
    with hall_relay(mosquitto.url) as relay:
        feed = tmp_path / "b3.feed"  # the serial feed (a file here) beside the broker
        board = Board(mosquitto.url, "H", "b3", tmp_path / "b3", log, "--feed", str(feed))
        board.start()
        try:
            wait_for(lambda: len(relay.moves("b3")) >= 2, what="a game in progress")
            game = _status(sock)["game"]
            _publish_retained(mosquitto.port, "kabelaud/H/b3/setup", json.dumps(setup))
            wait_for(lambda: "H-r2-b3: pending" in board.stderr(), what="the refusal")
            assert _status(sock)["game"] == game  # the game in progress is untouched
            _publish_retained(mosquitto.port, "kabelaud/H/b3/setup", "{not json")
            wait_for(lambda: "not UTF-8 JSON" in board.stderr(), what="a bad setup dropped")
            request(sock, "result", result="1-1", reason="agreed")
            wait_for(lambda: _status(sock)["game"] != game, what="the setup applied")
            assert '"type":"move"' in feed.read_text() and '"status":"pending"' in feed.read_text()
            status = _status(sock)
            assert status["tags"]["White"] == "Kask" and status["time_control"] == "5400+30"
            assert "H-r2-b3: applied" in board.stderr()
            wait_for(lambda: any(g.tags.get("Round") == "2" for g in relay.games("b3")),
                     what="the new game on the relay")
            code, _, body = relay.get("/H/round/2.pdn")  # served from its first move only
            assert code == 200 and list(read_games(body.decode(), "round")) == []
            (kask,) = [g for g in relay.games("b3") if g.tags.get("Round") == "2"]
            assert kask.tags["White"] == "Kask" and not kask.shown
        finally:
            board.stop()


def _status(sock: Path) -> dict:
    def ask() -> dict | None:
        try:
            return request(sock, "status")
        except ControlError:
            return None
    return wait_for(ask, what="the control socket")


def test_the_link_queues_while_the_broker_is_away_bounded_and_in_order(
        tmp_path: Path) -> None:
    """BoardLink in this process: lines sent before the broker exists arrive in order once it
    does, after the claim; the queue keeps the newest ``queue_lines``; a snapshot is asked for
    on every (re)connection."""
    from boardctl.hall.broker import BoardLink, instance_id
    from boardctl.hall.mqtt import parse_broker

    broker = Mosquitto(tmp_path / "broker")
    snapshots: list[int] = []
    logs: list[str] = []
    link = BoardLink(parse_broker(broker.url), "H", "q1", instance_id(tmp_path / "st"),
                     queue_lines=5, backoff=(0.05, 0.2), log=logs.append,
                     request_snapshot=lambda: snapshots.append(1))
    link.start()
    got: list[bytes] = []
    try:
        for n in range(8):
            link.send(f"line {n}\n")  # the broker is not there yet: never blocks
        assert link.status()["queued"] == 5 and link.dropped == 3
        wait_for(lambda: "cannot connect" in " ".join(logs), what="a failed attempt logged")
        broker.start()
        sub = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2)
        sub.on_message = lambda c, u, m: got.append(bytes(m.payload))
        sub.connect("127.0.0.1", broker.port)
        sub.subscribe("kabelaud/H/q1/feed", 1)
        sub.loop_start()
        try:
            wait_for(lambda: link.state == "ready", what="the link ready")
            wait_for(lambda: link.acked == 5, what="the queued lines acknowledged")
            assert snapshots == [1]
            link.send("line 8")
            wait_for(lambda: got and got[-1] == b"line 8", what="the next line")
            assert [g for g in got] == [f"line {n}".encode() for n in range(3, 9)][-len(got):]
        finally:
            sub.disconnect()
            sub.loop_stop()
    finally:
        link.close()
        broker.stop()
    assert link.state == "stopped"
