"""The tournament's data: players lists, the drawing, the file's JSON, setups, PDN matching."""

from __future__ import annotations

import json
import random

import pytest
from support.tournament_helpers import tournament

from firmware.errors import TournamentError
from firmware.pdn import read_games
from firmware.tournament.games import results_from_games
from firmware.tournament.players import Player, draw_numbers, parse_players
from firmware.tournament.results import DRAW, WHITE_WINS, parse_result
from firmware.tournament.setup import MAX_PAYLOAD, round_setups
from firmware.tournament.state import Withdrawal, from_json, to_json


def test_plain_and_csv_lists() -> None:
    assert parse_players("# entries\nAavik\n\n  Bauer  \nCerny\n") == [
        Player("Aavik"), Player("Bauer"), Player("Cerny")]
    assert parse_players('name,club,rating\n"Dahl, Jr",Tartu,2100\nEller,,\n') == [
        Player("Dahl, Jr", 2100, "Tartu"), Player("Eller")]
    assert parse_players("Name\nA\nB\n") == [Player("A"), Player("B")]  # a one-column CSV


def test_the_drawing_uses_the_injected_generator() -> None:
    names = [f"P{i}" for i in range(1, 13)]
    a = draw_numbers(names, random.Random(5))
    assert a == draw_numbers(names, random.Random(5))
    assert sorted(a.values()) == list(range(1, 13))
    assert a != draw_numbers(names, random.Random(6))


def test_the_file_round_trips() -> None:
    t = tournament(["A", "B", "C", "D", "E"], cycles=2)
    t.boards = ["b1", "b2"]
    t.withdrawals.append(Withdrawal("E", 4))
    t.entries[(1, "B", "E")] = parse_result("+-")
    t.started = [1, 2]
    again = from_json(json.loads(json.dumps(to_json(t))))
    assert to_json(again) == to_json(t)
    assert again.entries == t.entries and again.withdrawals == t.withdrawals


def test_setups_skip_the_games_of_a_withdrawn_player() -> None:
    t = tournament(["A", "B", "C", "D", "E", "F"])
    t.boards = ["x1", "x2", "x3"]
    t.withdrawals.append(Withdrawal("A", 2))
    games, _ = t.games(3)  # 5/6 table round 3: 2-(6) 3-1 4-5
    assert [(g.white, g.black) for g in games] == [("B", "F"), ("C", "A"), ("D", "E")]
    messages = round_setups(t, "hall", 3)
    assert [(m.topic, m.white, m.black) for m in messages] == [
        ("kabelaud/hall/x1/setup", "B", "F"), ("kabelaud/hall/x3/setup", "D", "E")]
    body = json.loads(messages[0].payload)
    assert body["id"].startswith("hall-r3-x1-") and body["tags"]["Event"] == "Test"
    assert [m.payload for m in round_setups(t, "hall", 3)] == [m.payload for m in messages]
    t.time_control = "3600"  # a changed setup gets a new id
    assert json.loads(round_setups(t, "hall", 3)[0].payload)["id"] != body["id"]
    assert "Site" not in body["tags"]  # not set: left out rather than blank
    assert len(round_setups(t, "hall", 2)) == 3  # the withdrawal counts after round 2


def test_an_oversized_setup_is_refused() -> None:
    t = tournament(["A", "B", "C"])
    t.event = "E" * (MAX_PAYLOAD + 1)
    with pytest.raises(TournamentError, match="over 16384 bytes"):
        round_setups(t, "hall", 1)


def test_games_without_a_round_are_left_out_and_duplicates_must_agree() -> None:
    t = tournament(["A", "B", "C", "D"])
    text = ('[Round "?"]\n[White "Stranger"]\n[Black "X"]\n\n1-0\n\n'
            '[Round "1"]\n[Board "2"]\n\n1/2-1/2\n\n'
            '[Round "1.1"]\n[White "A"]\n[Black "D"]\n\n1-0\n\n'
            '[Round "1.1"]\n[White "A"]\n[Black "D"]\n\n1-0\n\n'
            '[Round "2"]\n[White "A"]\n[Black "B"]\n\n*\n')
    assert results_from_games(t, read_games(text, "g.pdn")) == {
        (1, "B", "C"): DRAW, (1, "A", "D"): WHITE_WINS}
    clash = text + '[Round "1"]\n[White "A"]\n[Black "D"]\n\n0-1\n'
    with pytest.raises(TournamentError, match="has two results, 1-0 and 0-1"):
        results_from_games(t, read_games(clash, "g.pdn"))
