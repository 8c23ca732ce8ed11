"""The merged hall end to end, in processes: three real ``boardctl run --sim --broker`` boards
play short real games through a real Mosquitto to a real ``boardctl relay --broker --hall
--http`` process; headless Chromium shows every board on the relay's live page, a board
stopped by SIGTERM goes ``offline`` there and back ``online`` when switched on again, and the
relay's hall and round PDNs hold every game with its Board tag (docs/HALL.md sections 2, 3, 6
and 8). Waiting is bounded polling on real processes, never a timing assertion."""

from __future__ import annotations

import json
import re
import urllib.request
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
from selenium.webdriver.common.by import By
from support.browser import console_errors
from support.hall_helpers import Board, RelayProcess, wait_for, write_log
from support.mqtt_broker import Mosquitto
from support.service_helpers import PACE, game_log, replayed

from firmware.pdn import read_games

TOKEN = "hall-desk-7"
BOARDS = (("b1", 1, "Ann Aas"), ("b2", 2, "Cai Kask"), ("b3", 3, "Eva Ilves"))


def retained_status(port: int, hall: str, board: str) -> str | None:
    """The board's retained ``.../status`` as a fresh subscriber gets it from the broker."""
    got: list[str] = []
    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2)
    client.on_message = lambda c, u, msg: got.append(msg.payload.decode())
    client.connect("127.0.0.1", port)
    client.subscribe(f"kabelaud/{hall}/{board}/status", qos=1)
    client.loop_start()
    try:
        wait_for(lambda: got, 10, "the retained status")
    finally:
        client.disconnect()
        client.loop_stop()
    return got[0]


def first_state(url: str) -> dict[str, Any]:
    """The first ``state`` event of the page's event stream (read, then the stream closed)."""
    with urllib.request.urlopen(url, timeout=10) as stream:
        for raw in stream:
            if raw.startswith(b"data: "):
                return dict(json.loads(raw[len(b"data: "):]))
    raise AssertionError(f"{url}: the stream ended without a state")


def card_shows(browser: Any, board: str, fen: str) -> bool:
    selector = f'[data-board="{board}"][data-fen="{fen}"]'
    return bool(browser.find_elements(By.CSS_SELECTOR, selector))


def test_boards_on_mosquitto_reach_the_relay_process_page_and_pdns(
        mosquitto: Mosquitto, tmp_path: Path, browser: Any) -> None:
    want = {}
    boards = []
    relay = RelayProcess(mosquitto.url, "H", tmp_path, "--arbiter-token", TOKEN)
    try:
        relay.start()
        for name, seed, white in BOARDS:
            events = game_log(4, seed=seed, think=(0.02, 0.06), change_mind=0.0, pace=PACE)
            want[name] = replayed(events).moves
            log = write_log(tmp_path / f"{name}.jsonl", events)
            boards.append(Board(mosquitto.url, "H", name, tmp_path / name, log, "--white",
                                white, "--black", "Bert Berg", "--round", "3",
                                "--snapshot-every", "2").start())
        browser.get(relay.url)
        for name, _, white in BOARDS:
            last = want[name][-1]
            wait_for(lambda n=name, f=last["fen"]: card_shows(browser, n, f), 60,
                     f"{name}'s last move on the page")
            card = browser.find_element(By.CSS_SELECTOR, f'[data-board="{name}"]')
            assert card.get_attribute("data-ply") == str(last["ply"])
            assert card.find_element(By.CSS_SELECTOR, ".last .move").text == last["move"]
            for side in ("white", "black"):
                clock = card.find_element(By.CSS_SELECTOR, f".{side} .clock").text
                assert re.fullmatch(r"\d+:\d\d", clock), clock
            assert white in card.text and "Bert Berg" in card.text
            assert not card.find_elements(By.CSS_SELECTOR, ".badge.off")

        # The hall's PDN and round 3's PDN of the same relay: every game, with its Board tag.
        for path in ("/H.pdn", "/H/round/3.pdn"):
            code, body = relay.get(path)
            assert code == 200, path
            games = {g.tags.get("Board"): g for g in read_games(body.decode(), path)}
            assert sorted(games) == ["b1", "b2", "b3"], path
            for name, _, _ in BOARDS:
                assert [m.text for m in games[name].moves] == [m["move"] for m in want[name]]
            assert f'[Board "{BOARDS[0][0]}"]' in body.decode()
        assert relay.get("/H/round/4.pdn") == (200, b"")  # no game of round 4 yet
        # The arbiters' view of the same page: the token reaches the page through the relay.
        assert relay.get("/?token=wrong-token")[0] == 403
        assert relay.get(f"/board/b1.json?token={TOKEN}")[0] == 200
        assert "log" in first_state(relay.url + f"events?token={TOKEN}")
        assert "log" not in first_state(relay.url + "events")

        # One board stops (SIGTERM by pid): its retained status goes offline, the page says so.
        stopped = boards.pop(1)
        stopped.stop()
        assert retained_status(mosquitto.port, "H", "b2") == "offline"
        wait_for(lambda: offline_badges(browser) == ["b2"], 20, "b2's Offline badge")
        assert retained_status(mosquitto.port, "H", "b1") == "online"
        # Switched on again, it takes its name back and the badge goes.
        boards.append(stopped.start())
        wait_for(lambda: retained_status(mosquitto.port, "H", "b2") == "online", 30,
                 "b2 online again")
        wait_for(lambda: offline_badges(browser) == [], 20, "b2's Offline badge gone")
        assert card_shows(browser, "b2", want["b2"][-1]["fen"])  # the same game, as it stood
        assert console_errors(browser) == []
    finally:
        for board in boards:
            board.stop()
        code = relay.stop()
    assert code == 0, relay.stderr()


def offline_badges(browser: Any) -> list[str]:
    """The boards whose Offline badge is shown."""
    shown = []
    for card in browser.find_elements(By.CSS_SELECTOR, "[data-board]"):
        badges = card.find_elements(By.CSS_SELECTOR, ".badge.off")
        if any(b.is_displayed() and "Offline" in b.text for b in badges):
            shown.append(str(card.get_attribute("data-board")))
    return shown
