"""A relay following several halls (``boardctl relay --hall A --hall B``): each hall's URLs
hold that hall's games only, a board is named HALL/BOARD in the relay and BOARD in its PDN,
the follower names boards by hall only when it follows several, and the command line says
what it needs in one line."""

from __future__ import annotations

import subprocess
import sys
from types import SimpleNamespace

import pytest
from support.live_helpers import game_records, observe

from boardctl.hall.mqtt import BrokerConfig
from boardctl.relay.follower import HallFollower
from boardctl.relay.http import GameText, View, select_games
from boardctl.relay.live.web import LiveHub
from boardctl.relay.relay import Relay
from firmware.formats.feed import encode_line


def message(topic: str, payload: bytes = b"{}") -> SimpleNamespace:
    return SimpleNamespace(topic=topic, payload=payload)


def test_each_hall_url_holds_its_own_games() -> None:
    view = View(tuple(GameText(f"{hall}/{board}/g", "1", board, f"{hall}{board}\n", 0.0)
                      for hall in ("A", "B") for board in ("b1", "b2")), 0.0)
    texts = lambda games: [g.text for g in games]  # noqa: E731
    assert texts(select_games(view, ["A", "B"], "/A.pdn") or []) == ["Ab1\n", "Ab2\n"]
    assert texts(select_games(view, ["A", "B"], "/B/round/1.pdn") or []) == ["Bb1\n", "Bb2\n"]
    assert select_games(view, ["A", "B"], "/C.pdn") is None  # not a hall: the whole PDN
    assert select_games(view, ["A", "B"], "/A/b.pdn") is None
    assert len(select_games(view, "A", "/A.pdn") or []) == 4  # one hall: every game is its


def test_the_follower_names_boards_by_hall_when_it_follows_several() -> None:
    one = HallFollower(BrokerConfig("127.0.0.1"), "A", log=lambda m: None)
    two = HallFollower(BrokerConfig("127.0.0.1"), ["A", "B", "A"], log=lambda m: None)
    assert two.halls == ["A", "B"]
    for follower in (one, two):
        for topic in ("kabelaud/A/b1/feed", "kabelaud/B/b1/feed", "kabelaud/C/b1/feed"):
            follower._on_message(None, None, message(topic, b'{"seq":0}'))
        follower._on_message(None, None, message("kabelaud/B/b2/status", b"online"))
    assert [b for b, _ in one.drain()] == ["b1"] and one.dropped == 3  # B and C not its
    assert [b for b, _ in two.drain()] == ["A/b1", "B/b1"] and two.dropped == 1
    assert two.drain_status() == [("B/b2", True)] and one.drain_status() == []


def test_two_halls_boards_of_one_name_stay_apart_and_keep_their_board_tag() -> None:
    follower = HallFollower(BrokerConfig("127.0.0.1"), ["A", "B"], log=lambda m: None)
    relay = Relay([], hall=follower)
    seen: list[str] = []
    relay.state.observers.append(lambda board, record, game: seen.append(board))
    for hall, plies in (("A", 3), ("B", 5)):
        for seq, record in enumerate(game_records("g", plies, board="b1")):
            follower._on_message(None, None, message(f"kabelaud/{hall}/b1/feed",
                                                     encode_line(record, seq).encode()))
    relay.poll()
    view = relay.timeline.live()
    a, b = (select_games(view, ["A", "B"], f"/{h}.pdn") or [] for h in ("A", "B"))
    assert len(a) == 1 and len(b) == 1 and a[0].board == b[0].board == "b1"
    assert '[Board "b1"]' in a[0].text and "2. " in a[0].text and "3. " not in a[0].text
    assert "3. " in b[0].text
    assert set(seen) == {"A/b1", "B/b1"}  # the relay tells them apart ...
    hub = LiveHub()
    for hall, plies in (("A", 3), ("B", 5)):
        for record in game_records("g", plies, board="b1"):
            observe(hub, f"{hall}/b1", record)
    assert sorted(hub.hall.boards) == ["A-b1", "B-b1"]  # ... and so does the live page
    assert hub.hall.view("B-b1", 1e12)["ply"] == 5


@pytest.mark.parametrize("extra, words", [
    (["--push", "http://127.0.0.1:9/x"], "--push with several --hall needs --push-path"),
    (["--tournament", "t.json"], "--tournament serves one hall's crosstable")])
def test_what_several_halls_cannot_do_is_one_line(extra: list[str], words: str) -> None:
    done = subprocess.run([sys.executable, "-m", "boardctl", "relay", "--broker",
                           "mqtt://127.0.0.1:9", "--hall", "A", "--hall", "B", "--http", "off",
                           *extra], capture_output=True, text=True, timeout=30)
    assert done.returncode == 2
    assert done.stderr.startswith(f"boardctl: error: {words}") and done.stderr.count("\n") == 1
