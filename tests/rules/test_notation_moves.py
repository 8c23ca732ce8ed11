"""Move notation: writing the shortest unambiguous form, reading every form real files hold."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from firmware.errors import AmbiguousMoveError, IllegalMoveError
from firmware.rules.notation import full_route, move_text, move_texts, parse_move, path, turns
from firmware.rules.position import Position
from firmware.rules.sets import RULESETS, find_rules

RUSSIAN = find_rules("russian")
INTERNATIONAL = find_rules("international")

#: Seed 000 8.5.5, diagram 4: a white king on d2 with three captures (free choice, Russian).
DIAGRAM_4 = "W:WKd2:Bf4,g7,f6,d6,b6"


def texts(position: Position) -> set[str]:
    return set(move_texts(position).values())


def test_start_position_simple_moves_international() -> None:
    p = Position.start(INTERNATIONAL)
    assert texts(p) == {
        "31-26", "31-27", "32-27", "32-28", "33-28", "33-29", "34-29", "34-30", "35-30",
    }


def test_start_position_simple_moves_russian_are_algebraic() -> None:
    p = Position.start(RUSSIAN)
    assert texts(p) == {"a3-b4", "c3-b4", "c3-d4", "e3-d4", "e3-f4", "g3-f4", "g3-h4"}


def test_capture_separator_is_x_on_10x10_and_colon_on_8x8() -> None:
    p10 = Position.from_fen(INTERNATIONAL, "W:W32:B28")
    assert texts(p10) == {"32x23"}
    p8 = Position.from_fen(RUSSIAN, "W:Wc3:Bd4")
    assert texts(p8) == {"c3:e5"}


def test_seed_000_diagram_4_full_routes_where_start_and_end_are_shared() -> None:
    p = Position.from_fen(RUSSIAN, DIAGRAM_4)
    # 000 8.5.5 writes all three: d2:h6:f8:c5:a7, d2:g5:e7:c5:a7, d2:g5:d8:a5. The first two share
    # start and end: full routes. The third is the only capture d2-a5: short form (PDN 3.0
    # restriction 8), and the seed's full spelling of it still reads.
    assert texts(p) == {"d2:h6:f8:c5:a7", "d2:g5:e7:c5:a7", "d2:a5"}
    long3 = parse_move(p, "d2:g5:d8:a5")
    assert full_route(RUSSIAN, long3) == "d2:g5:d8:a5"
    assert parse_move(p, "d2:a5") == long3


def test_full_route_names_only_the_turns() -> None:
    # A king taking two pieces on one line: the route lands behind the first piece, but the
    # full form names only the squares where the direction changes (000 8.5.5).
    p = Position.from_fen(INTERNATIONAL, "W:WK46:B41,23,19")
    moves = p.legal_moves()
    assert moves, "the king must have a capture"
    for m in moves:
        t = turns(INTERNATIONAL, m)
        assert t[0] == m.start and t[-1] == m.end
        assert set(t) <= set(m.route)
        walked = path(INTERNATIONAL, m)
        assert walked[0] == m.start and walked[-1] == m.end
        assert set(m.captured) <= set(walked)


def test_same_pieces_in_another_order_is_one_move_for_notation() -> None:
    # A Russian king taking a ring of four pieces either way round, back to d8.
    p = Position.from_fen(RUSSIAN, "W:WKd8:Bc7,f6,d2,f2")
    moves = p.legal_moves()
    by_key: dict[tuple[int, int, frozenset[int]], list[str]] = {}
    for m in moves:
        by_key.setdefault(m.key, []).append(move_text(p, m))
    assert any(len(v) > 1 for v in by_key.values()), "expected routes sharing their pieces"
    for names in by_key.values():
        assert len(set(names)) == 1
    ring = [m for m in moves if m.start == m.end]
    assert len(ring) == 2 and ring[0].route != ring[1].route
    assert {move_text(p, m) for m in ring} == {"d8:d8"}
    assert parse_move(p, "d8:d8").key == ring[0].key


@pytest.mark.parametrize(
    "text, route",
    [
        ("32-28", (32, 28)),
        ("32 - 28", (32, 28)),
        ("32x28", None),
        ("32:28", None),
        ("3228", (32, 28)),
        ("32-28!", (32, 28)),
        ("32-28?!", (32, 28)),
        ("32-28(?)", (32, 28)),
        ("32-28*", (32, 28)),
        ("32-28+", (32, 28)),
        ("32-28=", (32, 28)),
        ("  32-28  ", (32, 28)),
    ],
)
def test_sloppy_simple_moves_10x10(text: str, route: tuple[int, ...] | None) -> None:
    p = Position.start(INTERNATIONAL)
    assert parse_move(p, text).route == (route or (32, 28))


def test_space_after_separator_and_single_digit_squares() -> None:
    p = Position.from_fen(INTERNATIONAL, "B:W40:B1,2")
    assert parse_move(p, "1- 7").route == (1, 7)
    assert parse_move(p, " 2- 7").route == (2, 7)
    assert parse_move(p, "01-07").route == (1, 7)


def test_8x8_numbers_and_glued_algebraic() -> None:
    p = Position.start(RUSSIAN)
    expected = parse_move(p, "c3-d4")
    assert parse_move(p, "22-18") == expected  # 1-32 numbering (c3 = 22, d4 = 18)
    assert parse_move(p, "c3d4") == expected
    assert parse_move(p, "C3-D4") == expected


def test_multi_capture_start_and_end_only_and_with_intermediate_squares() -> None:
    p = Position.from_fen(RUSSIAN, DIAGRAM_4)
    a = parse_move(p, "d2:h6:f8:c5:a7")
    assert a.captured == tuple(RUSSIAN.geometry.number(s) for s in ("f4", "g7", "d6", "b6"))
    assert parse_move(p, "d2xh6xf8xc5xa7") == a
    assert parse_move(p, "d2:f8:a7") == a  # a landing square
    assert parse_move(p, "d2:h6:a7") == a
    b = parse_move(p, "d2:g5:e7:c5:a7")
    assert parse_move(p, "d2:e7:a7") == b  # e7 is a landing of b, only passed by a
    assert parse_move(p, "d2:f6:a7") == b  # f6, a captured square, is passed only by b


def test_ambiguous_capture_names_the_full_forms() -> None:
    p = Position.from_fen(RUSSIAN, DIAGRAM_4)
    with pytest.raises(AmbiguousMoveError) as err:
        parse_move(p, "d2:a7")
    message = str(err.value)
    assert "d2:h6:f8:c5:a7" in message and "d2:g5:e7:c5:a7" in message
    assert isinstance(err.value, IllegalMoveError)


@pytest.mark.parametrize(
    "fen, text, words",
    [
        ("W:W32:B28", "32-27", "must capture"),
        ("W:W32,45:B28", "45-40", "capture is compulsory"),
        ("W:W32:B19", "33-28", "no piece on 33"),
        ("W:W32:B19", "19-24", "black's"),
        ("W:W32,27:B19", "32-27", "occupied"),
        ("W:W32:B19", "32-21", "cannot go to 21"),
        ("W:W32:B19", "32-99", "no square 99"),
        ("W:W32:B19", "hello", "cannot read"),
        ("W:W32:B19", "32", "cannot read"),
    ],
)
def test_illegal_moves_say_why(fen: str, text: str, words: str) -> None:
    p = Position.from_fen(INTERNATIONAL, fen)
    with pytest.raises(IllegalMoveError) as err:
        parse_move(p, text)
    assert not isinstance(err.value, AmbiguousMoveError)
    assert words in str(err.value)
    assert "\n" not in str(err.value)


@pytest.mark.parametrize("text", ["32-28xx", "32-28-", "32x", "-32-28", "32--28", "32-28 x",
                                  "32-28 -"])
def test_a_separator_without_a_square_on_each_side_is_no_move(text: str) -> None:
    """Issue 36: ``h2-g3xx`` was read as ``h2-g3``: nothing but annotations may follow."""
    p = Position.start(INTERNATIONAL)
    with pytest.raises(IllegalMoveError, match="separator without a square"):
        parse_move(p, text)
    russian = Position.start(RUSSIAN)
    with pytest.raises(IllegalMoveError, match="separator without a square"):
        parse_move(russian, "c3-d4xx")


def test_move_text_refuses_a_move_that_is_not_legal() -> None:
    p = Position.start(INTERNATIONAL)
    other = Position.from_fen(INTERNATIONAL, "W:W32:B28").legal_moves()[0]
    with pytest.raises(IllegalMoveError):
        move_text(p, other)


@pytest.mark.parametrize("name", sorted(RULESETS))
def test_round_trip_every_move_of_a_random_walk(name: str) -> None:
    """Every legal move's text reads back as a move with the same effect, over games of
    pseudo-random moves from the start (deterministic: the choice is by ply index)."""
    rules = RULESETS[name]
    for seed in range(6):
        p = Position.start(rules)
        for ply in range(120):
            moves = p.legal_moves()
            if not moves:
                break
            for move, text in move_texts(p).items():
                back = parse_move(p, text)
                assert back.key == move.key and back.promotes == move.promotes, text
            p = p.play(moves[(ply * 7 + seed * 13) % len(moves)])


@pytest.mark.parametrize("name", ["international", "international1953"])
def test_seed_004_29_king_on_42_with_two_routes(name: str) -> None:
    """004 §29: the white king on 42 has two captures, written 42:24:8:17:6 and 42:24:35:44:6
    (here with the 10x10 separator x). The diagram's black pieces: 38, 19, 12, 11, 30, 40."""
    rules = find_rules(name)
    p = Position.from_fen(rules, "W:WK42:B38,19,12,11,30,40")
    assert texts(p) == {"42x24x8x17x6", "42x24x35x44x6"}
    assert parse_move(p, "42:24:8:17:6").captured == (38, 19, 12, 11)
    assert parse_move(p, "42x35x6").captured == (38, 30, 40, 11)
    with pytest.raises(AmbiguousMoveError):
        parse_move(p, "42x6")


def test_intermediate_square_off_every_route_is_named() -> None:
    p = Position.from_fen(RUSSIAN, DIAGRAM_4)
    with pytest.raises(IllegalMoveError) as err:
        parse_move(p, "d2:b4:a7")
    assert "no move from d2 to a7 passes b4" in str(err.value)
    assert "d2:h6:f8:c5:a7" in str(err.value)


@settings(max_examples=300, deadline=None)
@given(text=st.text(alphabet="0123456789abcdefghijkxX:- !?*+=()×\t", max_size=14))
def test_any_text_gives_a_move_or_an_illegal_move_error(text: str) -> None:
    for position in (Position.from_fen(RUSSIAN, DIAGRAM_4), Position.start(INTERNATIONAL)):
        try:
            move = parse_move(position, text)
        except IllegalMoveError as exc:
            assert "\n" not in str(exc)
        else:
            assert move in position.legal_moves()
