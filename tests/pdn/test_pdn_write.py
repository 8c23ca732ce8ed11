"""Writing PDN 3.0: tags, results in the rule set's form, clocks, setups; and reading it back."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from firmware.errors import PdnError
from firmware.pdn import (
    ClockReading,
    Setup,
    format_clock,
    format_game,
    game_moves,
    read_games,
    write_game,
)
from firmware.rules.game import Game
from firmware.rules.notation import parse_move
from firmware.rules.position import Position
from firmware.rules.sets import Side, find_rules

INTERNATIONAL = find_rules("international")
RUSSIAN = find_rules("russian")


def play(game: Game, *texts: str) -> Game:
    for text in texts:
        game.push(parse_move(game.position, text))
    return game


def test_roster_tags_in_order_with_unknown_values() -> None:
    text = write_game({"White": "Sijbrands, T.", "Extra": "x"}, ["32-28", "18-23"], result="*")
    tags = re.findall(r'^\[(\w+) "([^"]*)"\]$', text, re.M)
    assert [k for k, _ in tags][:7] == ["Event", "Site", "Date", "Round", "White", "Black",
                                        "Result"]
    assert dict(tags)["Date"] == "????.??.??" and dict(tags)["Event"] == "?"
    assert dict(tags)["Extra"] == "x"
    assert "1. 32-28 18-23 *" in text


def test_game_type_fen_time_control_tags() -> None:
    text = write_game(
        {"TimeControl": "5400+30", "GameType": "99"},
        ["18-23"],
        start_fen="B:W31-50:B1-20",
        game_type=20,
        result="*",
    )
    assert '[GameType "20"]' in text  # the explicit argument wins
    assert '[FEN "B:W31-50:B1-20"]' in text
    assert '[TimeControl "5400+30"]' in text
    assert "1... 18-23 *" in text


def test_tag_values_are_escaped_and_bad_tag_names_refused() -> None:
    text = write_game({"Event": 'The "Big" One'}, [], result="*")
    (game,) = read_games(text, "w")
    assert game.tags["Event"] == 'The "Big" One'
    with pytest.raises(PdnError):
        write_game({"bad key": "x"}, [])


def test_results_in_each_rule_sets_form() -> None:
    g10 = Game(INTERNATIONAL)
    g10.declare("1-0", "resignation")
    assert "[Result \"2-0\"]" in format_game(g10) and format_game(g10).rstrip().endswith("2-0")
    g10.declare("1/2-1/2", "agreement")
    assert format_game(g10).rstrip().endswith("1-1")
    g8 = Game(RUSSIAN)
    g8.declare("0-2", "time forfeit")
    assert format_game(g8).rstrip().endswith("0-1")
    g8.declare("1-1", "agreement")
    assert format_game(g8).rstrip().endswith("1/2-1/2")
    assert format_game(Game(RUSSIAN)).rstrip().endswith("*")


def test_clock_comments_with_the_running_side_in_capitals() -> None:
    clocks = [ClockReading(3599.9, 3600, None), ClockReading(3599.9, 3581.2, None)]
    text = write_game({}, ["32-28", "18-23"], clocks=clocks, result="*")
    assert "1. 32-28 {[%clock w0:59:59 B1:00:00]} 18-23 {[%clock W0:59:59 b0:59:41]} *" in text
    (game,) = read_games(text, "c")
    assert game.moves[0].clock == ClockReading(3599.0, 3600.0, "black")
    assert game.moves[1].clock == ClockReading(3599.0, 3581.0, "white")
    assert format_clock(-3) == "0:00:00" and format_clock(36000) == "10:00:00"


def test_lines_are_wrapped_under_80_characters() -> None:
    game = Game(INTERNATIONAL)
    p = game.position
    for ply in range(60):
        moves = p.legal_moves()
        if not moves:
            break
        p = game.push(moves[ply % len(moves)])
    clocks = [ClockReading(5400 - i, 5400 - 2 * i) for i in range(len(game.moves))]
    text = format_game(game, {"Event": "Wrap"}, clocks=clocks, comments={3: "x " * 60})
    body = [line for line in text.splitlines() if line and not line.startswith("[")]
    assert len(body) > 5
    assert max(len(line) for line in text.splitlines()) < 80
    (back,) = read_games(text, "wrap")
    assert back.replay().position == game.position


def test_setup_commands_round_trip() -> None:
    game = play(Game(INTERNATIONAL), "32-28", "18-23")
    game.setup(Position.from_fen(INTERNATIONAL, "B:W28,31-50:B1-20"))
    play(game, "20-25")
    items = game_moves(game)
    assert items[:2] == ["32-28", "18-23"]
    assert isinstance(items[2], Setup) and items[2].fen.startswith("B:")
    text = format_game(game, {"White": "A", "Black": "B"})
    assert '/FEN "B:' in text
    assert "2... 20-25" in text.split("/FEN")[1]
    (back,) = read_games(text, "setup.pdn")
    replayed = back.replay()
    assert replayed.position == game.position
    assert [m.route for m in replayed.moves] == [m.route for m in game.moves]


def test_full_game_round_trip_8x8_from_a_fen() -> None:
    start = Position.from_fen(RUSSIAN, "W:WKd2,a1:Bf4,g7,f6,d6,b6,h8")
    game = play(Game(RUSSIAN, start), "d2:h6:f8:c5:a7")
    text = format_game(game, {"Event": "Diagram 4"})
    assert "[GameType \"25\"]" in text and '[FEN "W:' in text
    assert "1. d2xh6xf8xc5xa7" in text  # 000 8.5.5: "ristike või koolon"; PDN writes x
    (back,) = read_games(text, "d4.pdn")
    assert back.replay().position == game.position
    assert back.replay().start == start


def test_written_game_ends_with_a_blank_line_and_reads_back_as_one_game() -> None:
    text = write_game({}, ["32-28"], result="*") + write_game({}, ["33-28"], result="*")
    games = list(read_games(text, "two"))
    assert [g.moves[0].text for g in games] == ["32-28", "33-28"]
    assert text.endswith("*\n\n")


def test_white_to_move_after_a_setup_restarts_numbering_on_the_white_side() -> None:
    text = write_game({}, ["32-28", Setup("W:W31-50:B1-20"), "33-28", "18-23"], result="*")
    assert '1. 32-28 /FEN "W:W31-50:B1-20"/ 2. 33-28 18-23 *' in text
    (game,) = read_games(text, "s")
    assert game.replay().position.turn is Side.WHITE


@settings(max_examples=25, deadline=None)
@given(
    name=st.sampled_from(["international", "russian", "brazilian", "home", "international64"]),
    picks=st.lists(st.integers(min_value=0, max_value=10_000), min_size=0, max_size=80),
    clocked=st.booleans(),
)
def test_any_game_written_reads_back_to_the_same_positions(
    name: str, picks: list[int], clocked: bool
) -> None:
    game = Game(find_rules(name))
    for pick in picks:
        moves = game.position.legal_moves()
        if not moves or game.outcome() is not None:
            break
        game.push(moves[pick % len(moves)])
    clocks = [ClockReading(600.0 - i, 600.0 - 2 * i) for i in range(len(game.moves))]
    text = format_game(game, {"White": "W", "Black": "B"}, clocks if clocked else None)
    (back,) = read_games(text, "prop")
    again = back.replay()
    assert again.history == game.history
    assert back.result == (game.outcome().result if game.outcome() else "*")  # type: ignore[union-attr]
    if clocked and game.moves:
        assert back.moves[-1].clock is not None


@pytest.mark.parametrize(
    "name, variant",
    [("international", None), ("russian", None), ("brazilian", None), ("home", "home"),
     ("international64", "international64"), ("russian1953", "russian1953"),
     ("international1953", "international1953")],
)
def test_variant_tag_only_where_game_type_is_not_enough(name: str, variant: str | None) -> None:
    text = format_game(Game(name))
    assert (f'[Variant "{variant}"]' in text) == (variant is not None)
    (back,) = read_games(text, "v")
    assert back.rules().name == name


def test_a_clock_reading_without_times_writes_no_comment() -> None:
    text = write_game({}, ["32-28"], clocks=[ClockReading(None, None, None, 5.0)], result="*")
    assert "1. 32-28 *" in text and "%clock" not in text
