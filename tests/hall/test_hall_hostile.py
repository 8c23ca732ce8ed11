"""Hostile records on a hall's board topics that pass the checksum (a buggy or foreign
publisher): what the relay refuses is told once in its log and shown nowhere, neither in the
PDN nor on the live page, and junk takes none of the relay's bounded slots."""

from __future__ import annotations

import time

import pytest
from support.hall_helpers import hall_relay, wait_for
from support.mqtt_broker import Mosquitto
from test_hall_relay import Publisher, game, move

import boardctl.relay.state as relay_state
from boardctl.relay.live.web import LiveHub
from firmware.pdn import read_games
from firmware.rules.position import Position

START = Position.start("international").fen()


@pytest.fixture
def publisher(mosquitto: Mosquitto):
    pub = Publisher(mosquitto.port)
    yield pub
    pub.close()


def _live(relay) -> LiveHub:
    hub = LiveHub()
    relay.relay.state.observers.append(hub.observe)
    relay.relay.state.log = relay.logs.append  # the relay's refusals, as `boardctl relay` logs
    return hub


def _shown(hub: LiveHub, board: str) -> tuple:
    with hub.lock:
        if board not in hub.hall.boards:
            return None, 0, None, ""
        view = hub.hall.view(board, time.time() + 1)
    return view["game"], view["ply"], view["last"] and view["last"]["move"], view["fen"]


def test_a_snapshot_the_pdn_does_not_take_is_not_shown_on_the_live_page(
        mosquitto: Mosquitto, publisher: Publisher) -> None:
    with hall_relay(mosquitto.url) as relay:
        hub = _live(relay)
        publisher.line("b1", game("b1", "1"))
        publisher.line("b1", move(1, "32-28"))
        publisher.line("b1", move(2, "19-23"))
        wait_for(lambda: _shown(hub, "b1")[1] == 2, what="two moves on the page")
        shown = _shown(hub, "b1")
        held = [{"ply": 1, "side": "white", "move": "32-28"},
                {"ply": 2, "side": "black", "move": "19-23"}]
        # an illegal third move, and one entry that is no move record at all
        publisher.line("b1", {"type": "snapshot", "game": "same-id", "rules": "international",
                              "start_fen": START, "fen": START, "tags": {},
                              "moves": [*held, {"ply": 3, "side": "white", "move": "1-50"},
                                        {"junk": True}]})
        # no moves, and a position the game is not in
        publisher.line("b1", {"type": "snapshot", "game": "same-id", "rules": "international",
                              "fen": "W:W1,2,3:B50"})
        wait_for(lambda: relay.relay.state.refused >= 2, what="both snapshots refused")
        assert _shown(hub, "b1") == shown  # the page still shows what the PDN holds
        publisher.line("b1", move(3, "28x19"))
        wait_for(lambda: relay.moves("b1") == ["32-28", "19-23", "28x19"], what="the next move")
        wait_for(lambda: _shown(hub, "b1")[1:3] == (3, "28x19"), what="it on the page")
        assert shown[1:3] == (2, "19-23")
        assert any("snapshot's moves refused" in line for line in relay.logs), relay.logs
        assert any("'W:W1,2,3:B50' is not the position" in line for line in relay.logs)
        assert hub.errors == 0


def test_tags_a_game_may_not_carry_stay_out_of_the_pdn(
        mosquitto: Mosquitto, publisher: Publisher) -> None:
    with hall_relay(mosquitto.url) as relay:
        hub = _live(relay)
        record = game("b1", "1")
        record["tags"] = {**record["tags"], "FEN": "B:W1:B50", "SetUp": "1",
                          **{f"T{i}": "x" for i in range(5000)}}
        publisher.line("b1", record)
        publisher.line("b1", move(1, "32-28"))
        wait_for(lambda: relay.moves("b1") == ["32-28"], what="the move")
        _, _, body = relay.get("/H.pdn")
        assert len(body) < 4000, len(body)
        games = list(read_games(body.decode(), "all"))
        assert "FEN" not in games[0].tags and "SetUp" not in games[0].tags
        assert games[0].tags["White"] == "Wb1"
        with hub.lock:
            tags = hub.hall.boards["b1"].tags
        assert len(tags) <= 32 and "FEN" not in tags and tags["White"] == "Wb1"


def test_junk_on_many_board_topics_takes_no_feed_slot(
        mosquitto: Mosquitto, publisher: Publisher, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(relay_state, "MAX_SOURCES", 5)
    with hall_relay(mosquitto.url) as relay:
        for n in range(20):
            publisher.raw(f"kabelaud/H/junk{n}/feed", b"not a feed line")
        wait_for(lambda: relay.follower.damaged_lines == 20, what="the junk dropped")
        publisher.line("good", game("good", "1"))
        publisher.line("good", move(1, "32-28"))
        wait_for(lambda: relay.moves("good") == ["32-28"], timeout=10,
                 what="the good board followed")


def test_games_beyond_a_boards_limit_are_told_and_not_shown(
        mosquitto: Mosquitto, publisher: Publisher, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(relay_state, "GAMES_PER_SOURCE", 3)
    with hall_relay(mosquitto.url) as relay:
        hub = _live(relay)
        for n in range(3):  # games played (a game without a move that the next one
            # follows is a board announced before its setup: dropped, not counted)
            publisher.line("b1", {**game("b1", "1"), "game": f"g{n}"})
            publisher.line("b1", move(1, "32-28") | {"game": f"g{n}"})
        wait_for(lambda: relay.moves("b1") == ["32-28"], what="the third game's move")
        publisher.line("b1", {**game("b1", "1"), "game": "g3"})
        wait_for(lambda: any("not followed: 3 games" in line for line in relay.logs),
                 what="the fourth game told")
        assert not any("matching crc" in line for line in relay.logs), relay.logs
        assert _shown(hub, "b1")[:3] == ("g2", 1, "32-28")
