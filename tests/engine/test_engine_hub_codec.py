"""The Hub codec (firmware.engine.hub): lines, positions (10x10 and 8x8) and moves."""

from __future__ import annotations

import pytest

from firmware.engine.hub import (
    HubError,
    format_line,
    move_text,
    parse_line,
    parse_move,
    parse_position,
    pos_line,
    position_text,
)
from firmware.rules.game import Game
from firmware.rules.position import Position
from firmware.rules.sets import RULESETS, Side


def test_lines_round_trip_with_quotes_and_flags() -> None:
    line = parse_line('info depth=21 score=-0.01 pv="32-28 17-22" author="" x=a=b go')
    assert line.command == "info"
    assert line.args == {"depth": "21", "score": "-0.01", "pv": "32-28 17-22", "author": "",
                         "x": "a=b", "go": ""}
    text = format_line("id", name="Scan", author="Fabien Letouzey", empty="", move_time=1.5)
    assert text == 'id name=Scan author="Fabien Letouzey" empty="" move-time=1.500'
    assert parse_line(text).args["author"] == "Fabien Letouzey"


@pytest.mark.parametrize("bad", ["", "   ", 'pos pos="Wbbb', "x" * 70000])
def test_unreadable_lines_are_errors(bad: str) -> None:
    with pytest.raises(HubError):
        parse_line(bad)


def test_start_position_strings() -> None:
    assert position_text(Position.start("international")) == "W" + "b" * 20 + "e" * 10 + "w" * 20
    assert position_text(Position.start("russian")) == "W" + "b" * 12 + "e" * 8 + "w" * 12


def test_8x8_numbering_is_the_contracts() -> None:
    # 1 = b8, 4 = h8, 5 = a7, 29 = a1, 32 = g1 (CONTRACT.md): a white king on each of them.
    text = "W" + "".join("W" if sq in (1, 4, 5, 29, 32) else "e" for sq in range(1, 33))
    p = parse_position("russian", text)
    names = {p.rules.geometry.algebraic(sq) for sq in p.squares_of(Side.WHITE)}
    assert names == {"b8", "h8", "a7", "a1", "g1"}


@pytest.mark.parametrize("name", sorted(RULESETS))
def test_positions_round_trip(name: str) -> None:
    p = Position.start(name)
    for _ in range(6):
        p = p.play(p.legal_moves()[-1])
    assert parse_position(name, position_text(p)) == p


@pytest.mark.parametrize("bad", ["W" + "e" * 49, "X" + "e" * 50, "W" + "q" + "e" * 49,
                                 "W" + "w" + "e" * 49])  # a white man on square 1: crowned
def test_bad_positions(bad: str) -> None:
    with pytest.raises(HubError):
        parse_position("international", bad)


def test_moves_both_ways() -> None:
    # White man 28 takes 23 and 19 ... a simple shot: 28x19x23 style, captured in any order.
    p = Position.from_fen("international", "W:W28,38:B23,13")
    capture = p.legal_moves()[0]
    assert capture.captured == (23, 13)
    assert move_text(capture) == "28x8x23x13"
    assert parse_move(p, "28x8x13x23") == capture
    assert parse_move(p, "28x8") == capture  # captured left out: one capture fits
    for bad in ["28-8", "28x8x22", "1-2", "28x", "a-b", "28x8x23x23x13"]:
        with pytest.raises(HubError):
            parse_move(p, bad)
    q = Position.start("russian")
    assert parse_move(q, "22-18").route == (22, 18)
    assert move_text(q.legal_moves()[0]) == "21-17"


def test_pos_line_sends_the_king_moves_since_the_last_man_move() -> None:
    g = Game("russian", Position.from_fen("russian", "W:WKc1,a3:BKa7"))
    for text in ("21-17", "5-1", "30-26", "1-5"):  # a3-b4 (a man), then king moves
        g.push(parse_move(g.position, text))
    line = parse_line(pos_line(g))
    assert line.args["moves"] == "5-1 30-26 1-5"
    start = parse_position("russian", line.args["pos"])
    assert start.turn is Side.BLACK and start.piece_at(17) is not None
