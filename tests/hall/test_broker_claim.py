"""The name claim's watch (boardctl.hall.broker): a board that reconnects long after its
last claim is not told that the broker dropped a probe it has not even sent yet.

The broker's side is a recording stand-in for paho's client (its ``subscribe`` and
``publish``, which hand back message ids); the claim's messages are fed back as the broker
would deliver them. Time is the module's clock, moved by the test."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import pytest

from boardctl.hall import broker
from boardctl.hall.mqtt import parse_broker


@dataclass
class Reason:
    is_failure: bool = False


@dataclass
class Sent:
    mid: int
    rc: int = 0


class Client:
    """What the link asks of paho's client, recorded."""

    def __init__(self) -> None:
        self.published: list[tuple[str, Any, bool]] = []
        self.mid = 0

    def subscribe(self, topics: Any, qos: int = 0) -> tuple[int, int]:
        self.mid += 1
        return 0, self.mid

    def publish(self, name: str, payload: Any, qos: int = 0, retain: bool = False) -> Sent:
        self.mid += 1
        self.published.append((name, payload, retain))
        return Sent(self.mid)


@dataclass
class Message:
    topic: str
    payload: bytes
    retain: bool = False


def link_talk(monkeypatch: pytest.MonkeyPatch) -> tuple[list[float], list[str], Any]:
    """A link's talk to the broker as board H/b1, its clock (moved by the test) and its log."""
    now = [1000.0]
    monkeypatch.setattr("boardctl.hall.broker.time.monotonic", lambda: now[0])
    said: list[str] = []
    topics = {leaf: f"kabelaud/H/b1/{leaf}" for leaf in
              ("feed", "status", "setup", "claim", "control", "reply")}
    talk = broker._Talk(parse_broker("mqtt://127.0.0.1:1883"), ("H", "b1", "0123456789abcdef"),
                        topics, broker._Outbox(100, 8), said.append, snapshot=lambda: None,
                        on_setup=None, on_control=None)
    return now, said, talk


def claimed(talk: Any, client: Client) -> None:
    """One connection's claim: connected, subscribed, the probe back from the broker."""
    talk.on_connect(client, None, None, Reason())
    talk.check_claim()  # the link's loop may turn before the subscription is granted
    talk.on_subscribe(client, None, 1, [Reason(), Reason(), Reason()])
    probe = client.published[-1][1]
    talk.on_message(client, None, Message(talk.topics["claim"], probe.encode()))


def test_a_reconnection_long_after_the_last_claim_raises_no_false_alarm(
        monkeypatch: pytest.MonkeyPatch) -> None:
    now, said, talk = link_talk(monkeypatch)
    topics = talk.topics
    client = Client()
    claimed(talk, client)
    assert talk.state == "ready"
    now[0] += 60.0  # the broker restarts a minute later
    claimed(talk, client)
    assert talk.state == "ready"
    assert not [line for line in said if "no answer" in line], said
    mine = [json.loads(p) for name, p, retain in client.published
            if name == topics["claim"] and retain]
    assert mine == [{"instance": "0123456789abcdef"}] * 2


def test_a_probe_that_never_comes_back_is_told_once_after_the_timeout(
        monkeypatch: pytest.MonkeyPatch) -> None:
    now, said, talk = link_talk(monkeypatch)
    client = Client()
    talk.on_connect(client, None, None, Reason())
    talk.on_subscribe(client, None, 1, [Reason(), Reason(), Reason()])
    now[0] += broker.CLAIM_TIMEOUT_S - 0.1
    talk.check_claim()
    assert not [line for line in said if "no answer" in line]
    now[0] += 0.2
    talk.check_claim()
    talk.check_claim()
    assert len([line for line in said if "no answer" in line]) == 1, said
    assert talk.state == "claiming"
