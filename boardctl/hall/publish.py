"""Publishing a round's setups to the hall's MQTT broker (paho-mqtt): one retained QoS 1
message a board, as HALL-INTERFACES section 1 / docs/CONTRACT.md say.

MQTT 5 is used so that a broker that refuses a message (an ACL: only the organizer's user may
write setups) says so in its PUBACK, and the command reports it instead of claiming success.
"""

from __future__ import annotations

import logging
import os
import threading
import urllib.parse
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from boardctl.hall.mqtt import connect_error, tls_context
from firmware.errors import BoardError

log = logging.getLogger(__name__)
TIMEOUT = 10.0
PASSWORD_ENV = "KABELAUD_MQTT_PASSWORD"


@dataclass(frozen=True, slots=True)
class Broker:
    host: str
    port: int
    tls: bool = False
    username: str | None = None
    password: str | None = None
    cafile: str | None = None


def parse_broker(url: str) -> tuple[str, int, bool]:
    """``mqtt://HOST:PORT`` (1883 by default) or ``mqtts://HOST:PORT`` (TLS, 8883)."""
    parts = urllib.parse.urlsplit(url)
    if parts.scheme not in ("mqtt", "mqtts") or not parts.hostname:
        raise BoardError(f"--broker: expected mqtt://HOST:PORT or mqtts://HOST:PORT, "
                         f"not {url[:80]!r}")
    try:
        port = parts.port
    except ValueError:
        raise BoardError(f"--broker {url[:80]}: bad port") from None
    tls = parts.scheme == "mqtts"
    return parts.hostname, port or (8883 if tls else 1883), tls


def publish(broker: Broker, messages: Sequence[tuple[str, bytes]],
            client_id: str = "", timeout: float = TIMEOUT) -> int:
    """Publish every message retained with QoS 1 and wait for each PUBACK; the number
    published. BoardError (one line) when the broker cannot be reached, refuses the login or
    refuses a message."""
    client = _client(broker, client_id)
    connected = threading.Event()
    refused: dict[int, str] = {}
    acked: set[int] = set()
    done = threading.Condition()
    outcome: list[str] = []

    def on_connect(c: Any, userdata: Any, flags: Any, reason: Any, props: Any) -> None:
        if reason.is_failure:
            outcome.append(str(reason))
        connected.set()

    def on_publish(c: Any, userdata: Any, mid: int, reason: Any, props: Any) -> None:
        with done:
            if reason.is_failure:
                refused[mid] = str(reason)
            acked.add(mid)
            done.notify_all()

    client.on_connect = on_connect
    client.on_publish = on_publish
    try:
        client.connect(broker.host, broker.port, keepalive=30)
    except OSError as exc:  # ssl.SSLError is one
        raise BoardError(f"broker {broker.host}:{broker.port}: cannot connect: "
                         f"{connect_error(exc)}") from None
    client.loop_start()
    try:
        if not connected.wait(timeout):
            raise BoardError(f"broker {broker.host}:{broker.port}: no answer in {timeout:g} s")
        if outcome:
            raise BoardError(f"broker {broker.host}:{broker.port}: refused: {outcome[0]}")
        mids = {}
        for topic, payload in messages:
            info = client.publish(topic, payload, qos=1, retain=True)
            mids[info.mid] = topic
        with done:
            if not done.wait_for(lambda: set(mids) <= acked, timeout):
                raise BoardError(f"broker {broker.host}:{broker.port}: not every setup was "
                                 f"acknowledged in {timeout:g} s")
        if refused:
            mid, reason = next(iter(refused.items()))
            raise BoardError(f"broker refused {mids[mid]}: {reason} (is this the organizer's "
                             "user?)")
        return len(mids)
    finally:
        client.disconnect()
        client.loop_stop()


def _client(broker: Broker, client_id: str) -> Any:
    """A paho MQTT v5 client with the broker's login and TLS (not connected yet)."""
    import paho.mqtt.client as mqtt
    from paho.mqtt.enums import CallbackAPIVersion

    client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=client_id,
                         protocol=mqtt.MQTTv5)
    if broker.username is not None:
        client.username_pw_set(broker.username, broker.password)
    if broker.tls:
        client.tls_set_context(tls_context(broker.cafile))
    return client


def password_from(path: str | None) -> str | None:
    """The broker password from a file (first line) or the environment variable."""
    if path:
        from boardctl.hall.mqtt import read_secret

        return read_secret(path, "--password-file")
    return os.environ.get(PASSWORD_ENV) or os.environ.get("BOARDCTL_BROKER_PASSWORD")
