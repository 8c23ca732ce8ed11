"""The arbiter's desk end to end (docs/HALL.md, "The arbiter's desk"): a real Mosquitto
(anonymous: the signature alone must hold), a real ``boardctl relay --hall-key`` process and
real ``boardctl run --sim --hall-key`` boards. Waiting is bounded polling on real processes."""

from __future__ import annotations

import json
import threading
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
from support.hall_helpers import Board, RelayProcess, wait_for
from support.mqtt_broker import Mosquitto
from test_hall_mqtt import USERS, secured  # noqa: F401, F811  (fixture: the shipped ACL)

from boardctl.service.control import ControlError
from boardctl.service.control import request as socket_request

TOKEN = "desk-token-123"


def post(relay: RelayProcess, board: str, body: Any, token: str | None = TOKEN,
         raw: bytes | None = None) -> tuple[int, dict[str, Any]]:
    data = raw if raw is not None else json.dumps(body).encode()
    headers = {"Content-Type": "application/json"}
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    req = urllib.request.Request(f"{relay.url}arbiter/{board}", data=data, headers=headers,
                                 method="POST")
    try:
        with urllib.request.urlopen(req, timeout=10) as resp:
            return resp.status, json.loads(resp.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read() or b"{}")


class Sniffer:
    """Every message on the hall's control and reply topics, as a broker client sees them."""

    def __init__(self, port: int, hall: str = "H") -> None:
        self.messages: list[tuple[str, bytes]] = []
        self.ready = threading.Event()
        self.client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="sniffer")
        self.client.on_connect = lambda c, *a: c.subscribe(
            [(f"kabelaud/{hall}/+/control", 1), (f"kabelaud/{hall}/+/reply", 1)])
        self.client.on_subscribe = lambda *a: self.ready.set()
        self.client.on_message = lambda c, u, m: self.messages.append((m.topic, m.payload))
        self.client.connect("127.0.0.1", port)
        self.client.loop_start()
        wait_for(self.ready.is_set, 10, "the sniffer's subscription")

    def on(self, leaf: str) -> list[bytes]:
        return [p for t, p in list(self.messages) if t.endswith("/" + leaf)]

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


def broker_state(board: Board) -> str | None:
    try:
        status = socket_request(board.state / "control.sock", "status")
    except ControlError:
        return None  # not listening yet
    return str(status.get("broker", {}).get("state"))


def hall_key(tmp_path: Path, text: str = "0123456789abcdef0123456789abcdef") -> Path:
    path = tmp_path / "hall.key"
    path.write_text(text + "\n")
    return path


def test_the_desk_acts_on_a_board_over_mqtt(mosquitto: Mosquitto, tmp_path: Path) -> None:
    key = hall_key(tmp_path)
    relay = RelayProcess(mosquitto.url, "H", tmp_path, "--arbiter-token", TOKEN,
                         "--hall-key", str(key), "--desk-timeout", "2")
    keyed = Board(mosquitto.url, "H", "b1", tmp_path / "b1", None, "--hall-key", str(key))
    keyless = Board(mosquitto.url, "H", "b2", tmp_path / "b2")
    sniffer = Sniffer(mosquitto.port)
    try:
        relay.start()
        keyed.start()
        keyless.start()
        wait_for(lambda: broker_state(keyed) == "ready", 60, "b1 on the broker")

        # Without the token, or with a wrong one: refused, and nothing reaches the board.
        assert post(relay, "b1", {"cmd": "pause"}, token=None)[0] == 401
        assert post(relay, "b1", {"cmd": "pause"}, token="wrong-token-1")[0] == 403
        assert post(relay, "b1", None, raw=b"not json")[0] == 400
        assert post(relay, "b1/../b2", {"cmd": "status"})[0] == 404
        assert sniffer.on("control") == []

        code, answer = post(relay, "b1", {"cmd": "start"})
        assert code == 200 and answer["ok"] is True, answer
        code, answer = post(relay, "b1", {"cmd": "clock-set", "side": "black",
                                          "seconds": 1234})
        assert code == 200 and answer["ok"] is True, answer
        status = socket_request(keyed.state / "control.sock", "status")
        assert round(status["clock"]["black"]) in (1233, 1234), status
        # The board's own refusals come back as its JSON, 200.
        code, answer = post(relay, "b1", {"cmd": "moves-set", "side": "blue", "moves": 1})
        assert code == 200 and answer["ok"] is False and "side" in answer["error"]
        # Every message on the broker was signed: a request and a reply for each act.
        assert len(sniffer.on("control")) == 3 and len(sniffer.on("reply")) == 3
        assert all(p[64:65] == b"." for p in sniffer.on("control") + sniffer.on("reply"))

        # A board started without the hall's key takes no control messages: 504 after the
        # desk's timeout (5 s by default, 2 s here).
        code, answer = post(relay, "b2", {"cmd": "start"})
        assert code == 504 and "did not answer within 2 s" in answer["error"], answer
        assert socket_request(keyless.state / "control.sock", "status")["started"] is False
    finally:
        sniffer.close()
        for part in (keyed, keyless):
            part.stop()
        relay.stop()


def test_the_desk_under_the_shipped_acl(tmp_path: Path, secured: Mosquitto) -> None:  # noqa: F811
    """docs/mosquitto/kabelaud.acl: the relay's user writes control topics, each board reads
    its own and writes its own reply; another board's user cannot even reach b1's control
    topic (the broker drops it: b1 never sees it to refuse it)."""
    key = hall_key(tmp_path)
    for user in ("relay", "b1", "b2"):
        (tmp_path / f"{user}.pw").write_text(USERS[user] + "\n")
    relay = RelayProcess(secured.url, "tartu", tmp_path, "--arbiter-token", TOKEN,
                         "--hall-key", str(key), "--broker-user", "relay",
                         "--broker-password-file", str(tmp_path / "relay.pw"))
    board = Board(secured.url, "tartu", "b1", tmp_path / "b1", None, "--hall-key", str(key),
                  "--broker-user", "b1", "--broker-password-file", str(tmp_path / "b1.pw"))
    other = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="b2")
    other.username_pw_set("b2", USERS["b2"])
    try:
        relay.start()
        board.start()
        wait_for(lambda: broker_state(board) == "ready", 60, "b1 on the broker")
        code, answer = post(relay, "b1", {"cmd": "start"})
        assert code == 200 and answer["ok"], answer
        other.connect("127.0.0.1", secured.port)
        other.loop_start()
        for _ in range(5):
            other.publish("kabelaud/tartu/b1/control", b"0" * 64 + b".{}", qos=1
                          ).wait_for_publish(10)
        # after b2's messages, in the broker's order (a status may be 50 ms old: asked again)
        desk = wait_for(lambda: (d := post(relay, "b1", {"cmd": "status"})[1]["desk"])[
            "answered"] >= 1 and d, 10, "the desk's count")
        assert desk["refused"] == 0
        assert "may not subscribe" not in board.stderr()
    finally:
        other.loop_stop()
        board.stop()
        relay.stop()
