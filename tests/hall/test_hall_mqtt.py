"""``boardctl hall start-round`` against a real Mosquitto: the setups are retained QoS 1
messages a board that connects later still receives (HALL-INTERFACES section 1), and the
shipped ACL (docs/mosquitto/kabelaud.acl) lets only the organizer write setups."""

from __future__ import annotations

import json
import shutil
import subprocess
import threading
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from support.mqtt_broker import Mosquitto

from boardctl.cli import main

ROOT = Path(__file__).resolve().parents[2]
ACL = ROOT / "docs" / "mosquitto" / "kabelaud.acl"
PLAYERS = "Aavik\nBauer\nCerny\nDahl\nEller\n"
USERS = {"organizer": "org-pw", "relay": "relay-pw", "b1": "b1-pw", "b2": "b2-pw"}


class Listener:
    """A subscriber that keeps what it receives, and waits for a given count."""

    def __init__(self, broker: Mosquitto, *topics: str, user: str | None = None) -> None:
        self.got: list[Any] = []
        self.cond = threading.Condition()
        self.client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=f"l-{user}")
        if user:
            self.client.username_pw_set(user, USERS[user])
        subscribed = threading.Event()
        self.client.on_message = self._message
        self.client.on_subscribe = lambda *a: subscribed.set()
        self.client.connect("127.0.0.1", broker.port)
        self.client.subscribe([(topic, 1) for topic in topics])  # one SUBSCRIBE, in order
        self.client.loop_start()
        assert subscribed.wait(5)

    def _message(self, client: Any, userdata: Any, msg: Any) -> None:
        with self.cond:
            self.got.append(msg)
            self.cond.notify_all()

    def wait_for(self, count: int, timeout: float = 5) -> list[Any]:
        with self.cond:
            assert self.cond.wait_for(lambda: len(self.got) >= count, timeout), self.got
            return list(self.got)

    def close(self) -> None:
        self.client.loop_stop()
        self.client.disconnect()


def make_tournament(tmp_path: Path) -> Path:
    (tmp_path / "players.txt").write_text(PLAYERS)
    state = tmp_path / "t.json"
    assert main(["hall", "init", "--state", str(state), "--players",
                 str(tmp_path / "players.txt"), "--event", "Tartu Open", "--date",
                 "2026.11.23", "--time-control", "5400+30"]) == 0
    assert main(["hall", "draw", "--state", str(state), "--seed", "7"]) == 0
    assert main(["hall", "boards", "--state", str(state), "b1", "b2"]) == 0
    return state


def test_start_round_leaves_retained_setups_for_boards_that_connect_later(
        tmp_path: Path, mosquitto: Mosquitto, capsys: pytest.CaptureFixture[str]) -> None:
    state = make_tournament(tmp_path)
    capsys.readouterr()
    assert main(["hall", "start-round", "2", "--state", str(state), "--broker", mosquitto.url,
                 "--hall", "tartu"]) == 0
    assert "2 setups published" in capsys.readouterr().out
    listener = Listener(mosquitto, "kabelaud/tartu/+/setup")  # connects afterwards
    try:
        got = listener.wait_for(2)
    finally:
        listener.close()
    assert all(m.retain and m.qos == 1 for m in got)
    by_topic = {m.topic: json.loads(m.payload) for m in got}
    assert main(["hall", "pairings", "--state", str(state), "--round", "2"]) == 0
    printed = capsys.readouterr().out
    assert set(by_topic) == {"kabelaud/tartu/b1/setup", "kabelaud/tartu/b2/setup"}
    for topic, body in by_topic.items():
        board = topic.split("/")[2]
        tags = body["tags"]
        assert body["type"] == "setup" and body["id"].startswith(f"tartu-r2-{board}-")
        assert body["rules"] == "russian" and body["time_control"] == "5400+30"
        assert body["fen"] is None
        assert tags["Round"] == "2" and tags["Board"] == board
        assert tags["Event"] == "Tartu Open" and tags["Date"] == "2026.11.23"
        assert f"board {board}: {tags['White']} - {tags['Black']}" in printed
    assert json.loads(state.read_text())["started"] == [2]


def test_start_round_with_no_broker_fails_in_one_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from support.mqtt_broker import free_port

    state = make_tournament(tmp_path)
    capsys.readouterr()
    code = main(["hall", "start-round", "1", "--state", str(state), "--broker",
                 f"mqtt://127.0.0.1:{free_port()}", "--hall", "tartu"])
    err = capsys.readouterr().err
    assert code == 2 and "cannot connect" in err and len(err.strip().splitlines()) == 1
    assert json.loads(state.read_text())["started"] == []


@pytest.fixture
def secured(tmp_path: Path) -> Any:
    program = shutil.which("mosquitto_passwd")
    if program is None:
        pytest.skip("mosquitto_passwd is not installed (Debian package mosquitto)")
    pwfile = tmp_path / "kabelaud.passwd"
    for i, (user, password) in enumerate(USERS.items()):
        subprocess.run([program, *(["-c"] if i == 0 else []), "-b", str(pwfile), user,
                        password], check=True, capture_output=True)
    extra = f"password_file {pwfile}\nacl_file {ACL}\n"
    with Mosquitto(tmp_path / "broker", extra=extra, anonymous=False) as broker:
        yield broker


def _board_client(broker: Mosquitto, user: str) -> mqtt.Client:
    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=f"board-{user}")
    client.username_pw_set(user, USERS[user])
    client.connect("127.0.0.1", broker.port)
    client.loop_start()
    return client


def test_acl_a_board_cannot_write_setups_the_organizer_can(
        tmp_path: Path, secured: Mosquitto, capsys: pytest.CaptureFixture[str]) -> None:
    relay = Listener(secured, "kabelaud/#", user="relay")
    board = _board_client(secured, "b1")
    try:
        for topic in ("kabelaud/tartu/b2/setup", "kabelaud/tartu/b1/setup",
                      "kabelaud/tartu/b2/feed", "kabelaud/tartu/b2/status"):
            board.publish(topic, b'{"type": "setup", "id": "forged"}', qos=1,
                          retain=True).wait_for_publish(5)
        # the board's own feed passes; being later on the same connection, it arrives after
        # anything the broker had let through before it
        board.publish("kabelaud/tartu/b1/feed", b'{"marker": 1}', qos=1).wait_for_publish(5)
        got = relay.wait_for(1)
        assert [m.topic for m in got] == ["kabelaud/tartu/b1/feed"]
        state = make_tournament(tmp_path)
        password = tmp_path / "organizer.pw"
        password.write_text(USERS["organizer"] + "\n")
        capsys.readouterr()
        # a board's user running start-round is refused by the broker, and says so
        code = main(["hall", "start-round", "1", "--state", str(state), "--broker", secured.url,
                     "--hall", "tartu", "--username", "b1", "--password-file",
                     str(tmp_path / "b1.pw")])
        assert code == 2
        (tmp_path / "b1.pw").write_text(USERS["b1"])
        code = main(["hall", "start-round", "1", "--state", str(state), "--broker", secured.url,
                     "--hall", "tartu", "--username", "b1", "--password-file",
                     str(tmp_path / "b1.pw")])
        err = capsys.readouterr().err
        assert code == 2 and "refused" in err and "Not authorized" in err
        # (the names `boardctl run` and `relay` give these options work here too)
        assert main(["hall", "start-round", "1", "--state", str(state), "--broker",
                     secured.url, "--hall", "tartu", "--broker-user", "organizer",
                     "--broker-password-file", str(password)]) == 0
        got = relay.wait_for(3)
        assert sorted(m.topic for m in got[1:]) == ["kabelaud/tartu/b1/setup",
                                                    "kabelaud/tartu/b2/setup"]
        assert all(json.loads(m.payload)["id"].startswith("tartu-r1-") for m in got[1:])
        # a board reads its own setup only: the broker answers the filters in order, so b1's
        # retained setup, were it allowed, would come before b2's own
        b2 = Listener(secured, "kabelaud/tartu/b1/setup", "kabelaud/tartu/b2/setup", user="b2")
        try:
            mine = b2.wait_for(1)
            assert [m.topic for m in mine] == ["kabelaud/tartu/b2/setup"]
        finally:
            b2.close()
    finally:
        board.loop_stop()
        board.disconnect()
        relay.close()


def test_clear_setups_leaves_nothing_retained(
        tmp_path: Path, mosquitto: Mosquitto, capsys: pytest.CaptureFixture[str]) -> None:
    state = make_tournament(tmp_path)
    common = ["--state", str(state), "--broker", mosquitto.url, "--hall", "tartu"]
    assert main(["hall", "start-round", "1", *common]) == 0
    assert main(["hall", "clear-setups", *common]) == 0
    assert "2 setups cleared" in capsys.readouterr().out
    marker = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="marker")
    marker.connect("127.0.0.1", mosquitto.port)
    marker.loop_start()
    marker.publish("kabelaud/tartu/zz/status", b"online", qos=1, retain=True).wait_for_publish(5)
    marker.loop_stop()
    marker.disconnect()
    # the setups' filter first: any setup still retained would arrive before the marker
    listener = Listener(mosquitto, "kabelaud/tartu/+/setup", "kabelaud/tartu/zz/status")
    try:
        got = listener.wait_for(1)
    finally:
        listener.close()
    assert [m.topic for m in got] == ["kabelaud/tartu/zz/status"]


def test_a_board_under_the_shipped_acl_plays_and_a_misnamed_one_says_why(
        tmp_path: Path, secured: Mosquitto) -> None:
    """A real board logged in as its own name under docs/mosquitto/kabelaud.acl claims its
    name (reading and writing its status and claim) and its feed reaches the relay's user; a
    board whose user is not its name publishes nothing and says, in its log, what the ACL must
    let it do."""
    from support.hall_helpers import Board, wait_for

    for user in ("b1", "b2"):
        (tmp_path / f"{user}.pw").write_text(USERS[user] + "\n")
    relay = Listener(secured, "kabelaud/tartu/+/feed", user="relay")
    good = Board(secured.url, "tartu", "b1", tmp_path / "b1", None, "--broker-user", "b1",
                 "--broker-password-file", str(tmp_path / "b1.pw")).start()
    wrong = Board(secured.url, "tartu", "b12", tmp_path / "b12", None, "--broker-user", "b2",
                  "--broker-password-file", str(tmp_path / "b2.pw")).start()
    try:
        got = relay.wait_for(1, timeout=30)
        assert {m.topic for m in got} == {"kabelaud/tartu/b1/feed"}
        assert json.loads(got[0].payload)["type"] == "header"
        wait_for(lambda: "publishes nothing" in wrong.stderr(), timeout=30,
                 what="the misnamed board's complaint")
        said = wrong.stderr()
        # Mosquitto grants the subscriptions and drops what the ACL denies: the claim's probe
        # never comes back (a broker that refuses the subscription is told the same way)
        assert "user b2 got no answer to its name claim" in said, said
        assert "kabelaud/tartu/b12/claim" in said and "kabelaud.acl" in said
        assert "Traceback" not in said and "publishes nothing" not in good.stderr()
        assert all(m.topic == "kabelaud/tartu/b1/feed" for m in relay.got)
    finally:
        good.stop()
        wrong.stop()
        relay.close()


def test_a_refused_subscription_is_told_in_the_log() -> None:
    """A broker that answers the board's SUBSCRIBE with a failure (0x80, as EMQX and HiveMQ do
    for a topic the ACL denies): the board says at once what it may not do."""
    from paho.mqtt.packettypes import PacketTypes
    from paho.mqtt.reasoncodes import ReasonCode

    from boardctl.hall.broker import BoardLink
    from boardctl.hall.mqtt import parse_broker

    said: list[str] = []
    sent: list[str] = []
    link = BoardLink(parse_broker("mqtt://127.0.0.1:1", username="b2"), "tartu", "b12",
                     "0123456789abcdef", log=said.append)

    class Client:  # where paho's client would publish the claim's probe
        def publish(self, name: str, payload: str, qos: int = 0) -> None:
            sent.append(name)

    granted, refused = (ReasonCode(PacketTypes.SUBACK, identifier=code) for code in (1, 0x80))
    link._on_subscribe(Client(), None, 1, [granted, granted, granted])
    assert said == [] and sent == ["kabelaud/tartu/b12/claim"]
    link._on_subscribe(Client(), None, 2, [refused, refused, granted])
    assert len(said) == 1 and "user b2 may not subscribe to status, claim under " \
        "kabelaud/tartu/b12/" in said[0] and link.last_error == said[0]
    link.close()
