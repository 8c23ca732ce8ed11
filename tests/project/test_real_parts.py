"""The real programs the suite drives (a Mosquitto broker, headless Chromium) start, work and
stop: a failure here names the missing part before the tests that need it."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
from support.mqtt_broker import Mosquitto


def _client(broker: Mosquitto, name: str) -> mqtt.Client:
    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=name)
    client.connect("127.0.0.1", broker.port)
    return client


def test_broker_carries_retained_messages_across_a_restart(mosquitto: Mosquitto) -> None:
    pub = _client(mosquitto, "pub")
    pub.loop_start()
    pub.publish("kabelaud/test/b1/status", "online", qos=1, retain=True).wait_for_publish(5)
    pub.loop_stop()
    pub.disconnect()
    pid = mosquitto.proc.pid if mosquitto.proc else None
    mosquitto.restart()
    assert mosquitto.proc is not None and mosquitto.proc.pid != pid
    got: list[tuple[str, bytes]] = []
    arrived = threading.Event()

    def on_message(client: Any, userdata: Any, msg: Any) -> None:
        got.append((msg.topic, msg.payload))
        arrived.set()

    sub = _client(mosquitto, "sub")
    sub.on_message = on_message
    sub.subscribe("kabelaud/test/+/status", qos=1)
    sub.loop_start()
    assert arrived.wait(5), "the retained message did not survive the broker's restart"
    sub.loop_stop()
    sub.disconnect()
    assert got == [("kabelaud/test/b1/status", b"online")]


def test_broker_is_stopped_by_pid(tmp_path: Path) -> None:
    broker = Mosquitto(tmp_path).start()
    assert broker.proc is not None
    pid = broker.proc.pid
    broker.stop()
    assert not Path(f"/proc/{pid}").exists()  # stopped and reaped


def test_browser_runs_a_page_script(browser: Any, tmp_path: Path) -> None:
    page = tmp_path / "page.html"
    page.write_text("<!doctype html><title>t</title><p id=p>static</p>"
                    "<script>document.getElementById('p').textContent = 'from script';</script>")
    browser.get(page.as_uri())
    assert browser.find_element("id", "p").text == "from script"
