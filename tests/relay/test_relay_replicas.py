"""Relays as replicas (docs/SCALE.md): two real ``boardctl relay`` processes follow one real
Mosquitto on their own, a publisher plays real feed lines of two boards, and both serve the
same PDN, byte for byte, at the hall's URLs (what lets a proxy spread pollers over them).
Waiting is bounded polling on real processes, never a timing assertion."""

from __future__ import annotations

from pathlib import Path

import paho.mqtt.client as mqtt
from support.hall_helpers import RelayProcess, wait_for
from support.live_helpers import game_records
from support.mqtt_broker import Mosquitto

from firmware.formats.feed import encode_line
from firmware.pdn import read_games

PLIES = 12


def test_two_relays_on_one_broker_serve_the_same_pdn(tmp_path: Path) -> None:
    broker = Mosquitto(tmp_path / "broker").start()
    relays = [RelayProcess(broker.url, "H", tmp_path / f"relay{n}", "--state-dir",
                           str(tmp_path / f"relay{n}" / "state")) for n in (1, 2)]
    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="replica-boards")
    try:
        for relay in relays:
            relay.start()
        client.connect("127.0.0.1", broker.port)
        client.loop_start()
        for board in ("b1", "b2"):
            for seq, record in enumerate(game_records(f"g-{board}", PLIES, board=board)):
                info = client.publish(f"kabelaud/H/{board}/feed",
                                      encode_line(record, seq).rstrip("\n"), qos=1)
                info.wait_for_publish(10)

        def both() -> list[bytes] | None:
            bodies = []
            for relay in relays:
                code, body = relay.get("/H.pdn")
                games = list(read_games(body.decode(), "H.pdn")) if code == 200 else []
                if len(games) != 2 or any(len(g.moves) != PLIES for g in games):
                    return None
                bodies.append(body)
            return bodies

        first, second = wait_for(both, 60, "both relays with every move")
        assert first == second
        assert relays[0].get("/H/round/3.pdn") == relays[1].get("/H/round/3.pdn")
    finally:
        client.loop_stop()
        client.disconnect()
        for relay in relays:
            relay.stop()
        broker.stop()
