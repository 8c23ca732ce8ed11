"""The relay's side of the desk (boardctl.relay.desk.Desk) on a real Mosquitto, a stand-in
board answering from a plain MQTT client: only the board's own reply, signed with the hall's
key, answers a request; forged replies, another board's, and a reply played again are
refused and counted."""

from __future__ import annotations

import threading
from typing import Any

import paho.mqtt.client as mqtt
from hall_helpers import wait_for
from mqtt_broker import Mosquitto

from boardctl.hall.mqtt import parse_broker
from boardctl.hall.signing import Verifier
from boardctl.relay.desk import Desk

KEY = b"0123456789abcdef0123456789abcdef"


def test_only_the_board_s_own_signed_reply_answers(mosquitto: Mosquitto) -> None:
    logs: list[str] = []
    desk = Desk(parse_broker(mosquitto.url), "H", KEY, "desk-token-123", answer_s=10.0,
                log=logs.append).start()
    sent: list[bytes] = []
    ready = threading.Event()
    board = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="stand-in-b1")
    mine, theirs = Verifier(KEY, "H", "b1"), Verifier(KEY, "H", "b2")
    forger = Verifier(b"not the hall's key, but 32 bytes", "H", "b1")

    def answer(client: Any, userdata: Any, message: Any) -> None:
        request = mine.check_request(bytes(message.payload))
        for name, payload in (("b1", forger.reply(request, {"ok": True, "who": "forger"})),
                              ("b2", theirs.reply(request, {"ok": True, "who": "b2"})),
                              ("b1", mine.reply(request, {"ok": True, "who": "b1"}))):
            client.publish(f"kabelaud/H/{name}/reply", payload, qos=1)
            sent.append(payload)

    board.on_connect = lambda c, *a: c.subscribe("kabelaud/H/b1/control", 1)
    board.on_subscribe = lambda *a: ready.set()
    board.on_message = answer
    board.connect("127.0.0.1", mosquitto.port)
    board.loop_start()
    try:
        wait_for(ready.is_set, 10, "the stand-in board")
        wait_for(desk.subscribed.is_set, 10, "the desk's subscription")
        status, body = desk.request("b1", {"cmd": "status"})
        assert (status, body) == (200, {"ok": True, "who": "b1"})
        wait_for(lambda: desk.refused >= 2, 10, "the refusals")
        board.publish("kabelaud/H/b1/reply", sent[-1], qos=1)  # the real reply, again
        wait_for(lambda: desk.refused >= 3, 10, "the replay's refusal")
        assert desk.refused == 3
        assert sum("bad signature" in line for line in logs) == 1
        assert sum("to no request waiting" in line for line in logs) == 2
    finally:
        board.loop_stop()
        desk.close()
