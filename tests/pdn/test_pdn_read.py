"""Reading PDN: the tricky inputs real files hold, and clear errors for broken ones."""

from __future__ import annotations

import io
from typing import IO

import pytest

from firmware.errors import PdnError
from firmware.pdn import ClockReading, MoveText, PdnGame, Setup, parse_clock, read_games
from firmware.rules.position import Position
from firmware.rules.sets import Side, find_rules

TWO_GAMES = """[Event "Test"]
[White "Alpha"]
[Black "Beta"]
[Result "1-0"]
[GameType "20"]

1. 32-28 17-22 2. 28x17 12x21 1-0

[Event "Test"]
[White "Gamma"]
[Black "Delta"]
[GameType "20"]

1. 33-28 17-22 2. 28x17 11x22 *
"""


def one(text: str | bytes, name: str = "t.pdn") -> list[PdnGame]:
    return list(read_games(text, name))


def test_two_games_tags_moves_results() -> None:
    games = one(TWO_GAMES)
    assert [g.index for g in games] == [1, 2]
    assert games[0].tags["White"] == "Alpha" and games[1].tags["Black"] == "Delta"
    assert [m.text for m in games[0].moves] == ["32-28", "17-22", "28x17", "12x21"]
    assert games[0].result == "1-0" and games[1].result == "*"
    assert games[0].moves[0].number == 1 and games[0].moves[1].number is None
    assert games[1].line == 9


def test_bom_crlf_and_bytes_and_streams_read_alike() -> None:
    crlf = TWO_GAMES.replace("\n", "\r\n")
    forms: list[str | bytes | IO[str] | IO[bytes]] = [
        TWO_GAMES,
        "\ufeff" + TWO_GAMES,
        crlf.encode("utf-8-sig"),
        io.BytesIO(crlf.encode()),
        io.StringIO(TWO_GAMES.replace("\n", "\r")),
    ]
    expected = [(g.tags, [m.text for m in g.moves], g.result) for g in one(TWO_GAMES)]
    for form in forms:
        got = [(g.tags, [m.text for m in g.moves], g.result) for g in read_games(form, "f")]
        assert got == expected


def test_latin1_file_reads() -> None:
    text = '[White "Gérard"]\n[GameType "20"]\n1. 32-28 *\n'
    (game,) = one(text.encode("cp1252"))
    assert game.tags["White"] == "Gérard"


def test_move_numbers_glued_and_sloppy_spaces() -> None:
    (game,) = one(
        '[GameType "20"]\n1.32-28 17-22 2.28x17 12x21 3.31-26 7-12 4.26x17 12x 21 5.36-31 1- 7 *'
    )
    assert [m.text for m in game.moves] == [
        "32-28", "17-22", "28x17", "12x21", "31-26", "7-12", "26x17", "12x21", "36-31", "1-7",
    ]
    assert game.replay().position.fen().startswith("W:")


def test_black_move_numbers_and_ellipsis() -> None:
    (game,) = one("1. 32-28 1... 18-23 2. ... 38-32 2...12-18 *")
    assert [m.text for m in game.moves] == ["32-28", "18-23", "38-32", "12-18"]
    assert game.moves[3].number == 2


def test_comments_nested_braces_variations_nags_and_strengths() -> None:
    text = (
        "{opening note} 1. 32-28! {good {really} move} 18-23?! $2 "
        "(1... 17-21 2. 28-22 (2. 33-29 {side (line)}) 21-26) 2. 28x19(?) 14x23 $1 "
        "% a line comment\n3. 37-32 ; another one\n 12-18 1/2-1/2"
    )
    (game,) = one(text)
    moves = game.moves
    assert [m.text for m in moves] == ["32-28", "18-23", "28x19", "14x23", "37-32", "12-18"]
    assert game.comments == ["opening note"]
    assert moves[0].strength == "!" and moves[0].comments == ["good {really} move"]
    assert moves[1].strength == "?!" and moves[1].nags == [2]
    assert len(moves[1].variations) == 1 and "33-29" in moves[1].variations[0]
    assert moves[2].strength == "(?)" and moves[3].nags == [1]
    assert game.result == "1/2-1/2"


def test_unbalanced_open_brace_inside_a_comment_closes_at_first_brace() -> None:
    (game,) = one("1. 32-28 {a { b} 18-23 *")
    assert [m.text for m in game.moves] == ["32-28", "18-23"]


def test_forced_move_star_glued_is_an_annotation_not_the_end() -> None:
    (game,) = one("1. 32-28* 18-23 2. 38-32 *")
    assert [m.text for m in game.moves] == ["32-28", "18-23", "38-32"]
    assert game.moves[0].strength == "*" and game.result == "*"


def test_results_in_both_forms_end_games() -> None:
    text = "1. 32-28 2-0\n1. 33-28 1-1\n1. 34-29 0-2\n1. 31-27 0-0\n1. 31-26 ½-½"
    games = one(text)
    assert [g.result for g in games] == ["2-0", "1-1", "0-2", "0-0", "1/2-1/2"]
    assert [g.moves[0].text for g in games] == ["32-28", "33-28", "34-29", "31-27", "31-26"]


def test_games_without_event_and_a_header_only_game() -> None:
    text = '[White "A"]\n[Black "B"]\n1. 32-28 *\n[White "C"]\n[Black "D"]\n[Result "1-0"]\n'
    games = one(text)
    assert len(games) == 2
    assert "Event" not in games[0].tags
    assert games[1].moves == [] and games[1].result is None
    assert games[1].replay().moves == []


def test_clock_commands() -> None:
    assert parse_clock("[%clock w1:02:03 B0:59:00]") == ClockReading(3723.0, 3540.0, "black")
    assert parse_clock("before [%clock W0:00:10 b0:00:03] after") == ClockReading(
        10.0, 3.0, "white"
    )
    assert parse_clock("[%clk 1:55:21]") == ClockReading(None, None, None, 6921.0)
    assert parse_clock("no clock here") is None
    (game,) = one("1. 32-28 {[%clock w1:00:00 B1:30:00]} 18-23 {[%clk 1:29:50]} *")
    assert game.moves[0].clock == ClockReading(3600.0, 5400.0, "black")
    assert game.moves[1].clock is not None and game.moves[1].clock.mover == 5390.0


def test_setup_commands_are_part_of_the_main_line() -> None:
    text = (
        '[GameType "20"]\n1. 32-28 18-23 /FEN "W:W31-50:B1-20"/ {reset by the arbiter} '
        "2. 33-29 17-21 *"
    )
    (game,) = one(text)
    kinds = [type(item).__name__ for item in game.body]
    assert kinds == ["MoveText", "MoveText", "Setup", "MoveText", "MoveText"]
    setup = game.setups[0]
    assert isinstance(setup, Setup) and setup.fen == "W:W31-50:B1-20"
    assert setup.comments == ["reset by the arbiter"]
    record = game.replay()
    assert len(record.moves) == 4
    assert record.history[3] == Position.start(find_rules("international"))


def test_numbered_fen_tag_like_the_ussr_file() -> None:
    text = (
        '[FEN "W:W29,30,31,32,25,26,27,28,21,22,23,24:B9,10,11,12,5,6,7,8,1,2,3,4."]\n'
        "1. c3-d4 d6-e5 2. b2-c3 e7-d6 *"
    )
    (game,) = one(text)
    assert game.rules().name == "russian"
    record = game.replay()
    assert record.start == Position.start(find_rules("russian"))
    assert record.position.turn is Side.WHITE


def test_rules_from_game_type_and_guess() -> None:
    assert one('[GameType "20"]\n*')[0].rules().name == "international"
    assert one('[GameType "25"]\n*')[0].rules().name == "russian"
    assert one('[GameType "26,W,8,8,A0,0"]\n*')[0].rules().name == "brazilian"
    assert one("1. c3-d4 *")[0].rules().name == "russian"
    assert one("1. 32-28 *")[0].rules().name == "international"
    assert one('[FEN "W:Wc3:Bd6"]\n*')[0].rules().name == "russian"
    with pytest.raises(PdnError, match="GameType 21 .English draughts"):
        one('[GameType "21"]\n*')[0].rules()
    explicit = one("1. c3-d4 *")[0].replay(find_rules("brazilian"))
    assert explicit.rules.name == "brazilian"


# -- errors name the file, the game and the move ----------------------------------------------


def test_illegal_move_names_file_game_and_move() -> None:
    text = TWO_GAMES.replace("2. 28x17 11x22", "2. 28x17 11-16")
    games = one(text, "club.pdn")
    games[0].replay()
    with pytest.raises(PdnError) as err:
        games[1].replay()
    message = str(err.value)
    assert message.startswith("club.pdn: game 2 (Gamma - Delta), move 2... 11-16 (line 14)")
    assert "must capture" in message and "\n" not in message


def test_unreadable_move_and_unknown_square() -> None:
    (game,) = one("1. 32-28 18-23 2. 38-32 12-78 *", "x.pdn")
    with pytest.raises(PdnError, match=r"x.pdn: game 1 \(\? - \?\), move 2... 12-78"):
        game.replay()


def test_junk_in_the_body_names_the_line_and_the_move_before() -> None:
    with pytest.raises(PdnError) as err:
        one('[White "A"]\n[Black "B"]\n1. 32-28 18-23\n2. @@ 12-18 *', "j.pdn")
    assert "j.pdn: game 1 (A - B): line 4: cannot read '@@' after move 18-23" == str(err.value)


def test_unclosed_comment_and_variation() -> None:
    with pytest.raises(PdnError, match="line 2: a comment"):
        one('[White "A"]\n1. 32-28 {never closed\n18-23', "c.pdn")
    with pytest.raises(PdnError, match=r"c.pdn: game 1 \(\? - \?\): line 1: a variation"):
        one("1. 32-28 (18-23 2. 38-32", "c.pdn")
    with pytest.raises(PdnError, match="without"):
        one("1. 32-28 ) 18-23", "c.pdn")


def test_bad_fen_tag_and_bad_setup() -> None:
    (game,) = one('[FEN "W:W99:B1"]\n*', "f.pdn")
    with pytest.raises(PdnError, match="f.pdn: game 1 .*FEN tag"):
        game.replay()
    (game,) = one('1. 32-28 /FEN "X:W1"/ 18-23 *', "f.pdn")
    with pytest.raises(PdnError, match='f.pdn: game 1 .*setup /FEN "X:W1"/'):
        game.replay()
    with pytest.raises(PdnError, match="cannot read '/nonsense/'"):
        one("1. 32-28 /nonsense/ *", "f.pdn")


def test_earlier_games_are_yielded_before_a_broken_one() -> None:
    text = TWO_GAMES + "\n[White \"E\"]\n1. 32-28 #### *\n"
    it = read_games(text, "many.pdn")
    assert next(it).index == 1 and next(it).index == 2
    with pytest.raises(PdnError, match="game 3"):
        next(it)


def test_move_text_defaults() -> None:
    m = MoveText("32-28")
    assert m.comments == [] and m.clock is None and m.variations == []


def test_sloppy_tags_unescaped_quotes_and_bare_values() -> None:
    text = '[Event "The "Big" One"]\n[Round 3]\n  [White "A\\"B"]\n1. 32-28 *'
    (game,) = one(text)
    assert game.tags == {"Event": 'The "Big" One', "Round": "3", "White": 'A"B'}
    assert [m.text for m in game.moves] == ["32-28"]


def test_a_leading_setup_without_fen_tag_is_the_initial_position() -> None:
    # PDN 3.0 commands.rst: White played two moves in a row; the first setup is the start.
    text = (
        '[GameType "20"]\n/FEN "W:W31-50:B1-20"/\n/FEN "B:W28,31-36,38-50:B1-20"/\n'
        "01... 20-25 *"
    )
    (game,) = one(text)
    record = game.replay()
    assert record.start == Position.start(find_rules("international"))
    assert len(record.history) == 3 and len(record.moves) == 1


def test_binary_garbage_and_wrong_types_give_one_line_errors() -> None:
    with pytest.raises(PdnError) as err:
        one(bytes(range(256)) * 4, "blob.bin")
    message = str(err.value)
    assert message.startswith("blob.bin: game 1") and "\n" not in message and len(message) < 200
    with pytest.raises(PdnError, match="not int"):
        list(read_games(42, "n"))  # type: ignore[arg-type]
    assert one("") == [] and one("   \n\n") == []


def test_clocks_per_move_resolve_clk_times_to_the_mover() -> None:
    text = (
        "1. 32-28 18-23 {[%clk 1:29:50]} 2. 38-32 {[%clk 1:29:00]} "
        "12-18 {[%clock w1:28:00 B1:27:00]} 3. 32-27 *"
    )
    (game,) = one(text)
    assert game.clocks() == [
        None,
        ClockReading(None, 5390.0, "white"),
        ClockReading(5340.0, 5390.0, "black"),
        ClockReading(5280.0, 5220.0, "black"),
        ClockReading(5280.0, 5220.0, "black"),
    ]


def test_variant_tags() -> None:
    assert one('[GameType "25"]\n[Variant "Russian"]\n*')[0].rules().name == "russian"
    assert one('[GameType "20"]\n[Variant "Standard"]\n*')[0].rules().name == "international"
    assert one('[GameType "25"]\n[Variant "home"]\n*')[0].rules().name == "home"
    with pytest.raises(PdnError, match="Variant 'Antidraughts' is not played here"):
        one('[GameType "20"]\n[Variant "Antidraughts"]\n*')[0].rules()


def test_a_full_stop_after_a_move_as_in_the_seed_is_tolerated() -> None:
    (game,) = one('[FEN "W:WKd2:Bf4,g7,f6,d6,b6"]\n1. d2:h6:f8:c5:a7. *')
    assert [m.text for m in game.moves] == ["d2:h6:f8:c5:a7"]
    assert game.replay().position.fen() == "B:WKa7:Bf6"
