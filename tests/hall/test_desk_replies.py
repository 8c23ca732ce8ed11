"""The relay's side of the desk (boardctl.relay.desk.Desk) on a real Mosquitto, a stand-in
board answering from a plain MQTT client: only the board's own reply, signed with the hall's
key, answers a request; forged replies, another board's, and a reply played again are
refused and counted."""

from __future__ import annotations

import threading
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from support.hall_helpers import wait_for
from support.mqtt_broker import Mosquitto

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


def test_bodies_the_control_socket_would_not_read_are_refused_and_never_sent(
        mosquitto: Mosquitto, monkeypatch: pytest.MonkeyPatch) -> None:
    """A key given twice (the desk would read one request, the board act on another), NaN
    and a lone surrogate (no JSON to sign): 400 each, and nothing reaches the broker. They
    were a traceback and a closed connection (NaN, the surrogate) or sent as the last key
    said (the duplicate). A board no status names is a 404, an offline one a 503, at once
    and nothing sent (both were sent, and a 504 five seconds later)."""
    import http.client
    import json

    import boardctl.relay.desk as desk_module
    from boardctl.relay.http import PdnServer

    monkeypatch.setattr(desk_module, "STATUS_GRACE", 0.2)

    seen: list[bytes] = []
    ready = threading.Event()
    sniffer = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="sniffer-b1")
    sniffer.on_connect = lambda c, *a: c.subscribe("kabelaud/H/+/control", 1)
    sniffer.on_subscribe = lambda *a: ready.set()
    sniffer.on_message = lambda c, u, m: seen.append(bytes(m.payload))
    sniffer.connect("127.0.0.1", mosquitto.port)
    sniffer.loop_start()
    desk = Desk(parse_broker(mosquitto.url), "H", KEY, "desk-token-123", answer_s=0.2,
                log=lambda line: None).start()
    server = PdnServer(("127.0.0.1", 0), hall="H")
    server.extra_handlers.insert(0, desk.handle)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()

    def post(body: bytes) -> tuple[int, dict[str, Any]]:
        conn = http.client.HTTPConnection("127.0.0.1", server.server_address[1], timeout=10)
        conn.request("POST", "/arbiter/b1", body=body,
                     headers={"Authorization": "Bearer desk-token-123"})
        resp = conn.getresponse()
        answer = resp.status, json.loads(resp.read())
        conn.close()
        return answer

    try:
        wait_for(ready.is_set, 10, "the sniffer")
        wait_for(desk.subscribed.is_set, 10, "the desk's subscription")
        for body in (b'{"cmd": "pause", "cmd": "status"}',
                     b'{"cmd": "clock-set", "side": "white", "seconds": NaN}',
                     b'{"cmd": "clock-set", "side": "white", "seconds": Infinity}',
                     b'{"cmd": "pause", "id": "\\ud800"}'):
            status, answer = post(body)
            assert status == 400 and answer["ok"] is False, (body, status, answer)
        status, answer = post(b'{"cmd": "pause"}')
        assert status == 404 and "no board b1 in hall H" in answer["error"]
        sniffer.publish("kabelaud/H/b1/status", b"offline", qos=1, retain=True)
        wait_for(lambda: desk.boards.get("b1") == "offline", 10, "the desk hearing b1's status")
        status, answer = post(b'{"cmd": "pause"}')
        assert status == 503 and "offline" in answer["error"]
        sniffer.publish("kabelaud/H/b1/status", b"online", qos=1, retain=True)
        status, answer = post(b'{"cmd": "pause"}')  # the desk goes on: this one is sent
        assert status == 504 and "may have acted" in answer["error"]  # not: repeat it
        wait_for(lambda: len(seen) >= 1, 10, "the one request sent")
        assert len(seen) == 1 and b'"body":{"cmd":"pause"}' in seen[0]
        assert desk._waiting == {}
    finally:
        server.shutdown()
        server.server_close()
        sniffer.loop_stop()
        desk.close()
