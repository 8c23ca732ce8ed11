"""The seeds' worked capture examples, set up from the seed text (the diagrams are not in the
seeds: each position holds the pieces the text names, plus the fewest others that make the
text's claim hold, e.g. a piece that blocks a landing square the text rules out)."""

from __future__ import annotations

import pytest

from firmware.rules.position import Move, Position
from firmware.rules.sets import find_rules


def routes(position: Position) -> list[str]:
    """Every legal move's full route in the rule set's own square names."""
    rules = position.rules
    out = []
    for move in position.legal_moves():
        sep = (":" if rules.algebraic_notation else "x") if move.captured else "-"
        out.append(sep.join(rules.square_name(sq) for sq in move.route))
    return sorted(out)


def alg(rules: str, *names: str) -> tuple[int, ...]:
    g = find_rules(rules).geometry
    return tuple(g.number(n) for n in names)


def by_route(position: Position, text: str) -> Move:
    wanted = text.replace("x", ":")
    name = position.rules.square_name
    matches = [m for m in position.legal_moves() if ":".join(name(s) for s in m.route) == wanted]
    assert len(matches) == 1, (text, routes(position))
    return matches[0]


@pytest.mark.parametrize("rules", ["russian", "russian1953"])
def test_seed000_diagram4_king_three_routes(rules: str) -> None:
    """Seed 000 8.5.5 diagram 4 (= seed 004 §14 d2 king): Black b6 d6 f4 f6 g7, White king d2.
    Russian free choice (000 4.13): the three routes of the seed, and no other."""
    p = Position.from_fen(rules, "W:WKd2:Bb6,d6,f4,f6,g7")
    assert routes(p) == ["d2:g5:d8:a5", "d2:g5:e7:c5:a7", "d2:h6:f8:c5:a7"]
    four = by_route(p, "d2:h6:f8:c5:a7")
    assert four.captured == alg(rules, "f4", "g7", "d6", "b6")
    assert not four.promotes


@pytest.mark.parametrize("rules", ["brazilian", "international64"])
def test_seed004_d2_king_two_routes_under_majority(rules: str) -> None:
    """Seed 004 §14: the d2 king's two four-piece routes; majority capture (000 4.16.1) drops
    the three-piece one."""
    p = Position.from_fen(rules, "W:WKd2:Bb6,d6,f4,f6,g7")
    assert routes(p) == ["d2:g5:e7:c5:a7", "d2:h6:f8:c5:a7"]
    a, b = p.legal_moves()
    assert a.start == b.start and a.end == b.end and set(a.captured) != set(b.captured)


def test_seed004_s14_example1_captured_pieces_block() -> None:
    """§14 example 1: a5:e1:g3:e5; the king may not take d4, since c3 (like f2 and f4) is taken
    off only after the move. White answers d4:d8 (d6 black holds the king on e5; e3 white keeps
    d2 from being a landing square with a capture to follow)."""
    p = Position.from_fen("russian", "B:Wc3,d4,e3,f2,f4:BKa5,d6,e7")
    assert routes(p) == ["a5:e1:g3:e5"]
    (move,) = p.legal_moves()
    assert move.captured == alg("russian", "c3", "f2", "f4")
    after = p.play(move)
    assert alg("russian", "d4") not in [m.captured[0] for m in after.legal_moves()]
    assert routes(after) == ["d4:f6:d8"]
    assert after.legal_moves()[0].promotes


def test_seed004_s14_example2_no_second_jump() -> None:
    """§14 example 2: e1:a5:d8:f6:d4, stopping on d4: c3 cannot be jumped twice and c5 cannot
    be taken, the square behind it holding the captured b6."""
    p = Position.from_fen("russian", "W:WKe1:Bc3,b6,c5,d6,e5,e7")
    assert routes(p) == ["e1:a5:d8:f6:d4"]
    assert p.legal_moves()[0].captured == alg("russian", "c3", "b6", "e7", "e5")


def test_seed004_s14_example3_crowned_during_capture() -> None:
    """§14 example 3: after c3-d4 the man a5 takes five, crowned on e1 it goes on as a king
    (000 4.14, 004 §9) and must stop on c3 (b4 and d2, or b4 and d4, cannot be jumped twice),
    either way round. White answers b2:d4:b6:d8:f6:h8, crowned on d8 and going on."""
    p = Position.from_fen("russian", "B:Wa1,b2,b4,d2,d4,f2,f4:Ba5,c5,c7,e7,g7")
    from_a5 = sorted(r for r in routes(p) if r.startswith("a5"))
    assert from_a5 == ["a5:c3:e1:g3:e5:c3", "a5:c3:e5:g3:e1:c3"]
    first = by_route(p, "a5:c3:e1:g3:e5:c3")
    assert first.promotes and len(first.captured) == 5
    reply = by_route(p.play(first), "b2:d4:b6:d8:f6:h8")
    assert reply.promotes
    assert reply.captured == alg("russian", "c3", "c5", "c7", "e7", "g7")


def test_seed004_s14_example3_stays_a_man_in_brazilian() -> None:
    """The same man in Brazilian (000 4.16.2): passing e1 it stays a man and goes on capturing
    as a man, backwards too, and ends uncrowned on c3."""
    p = Position.from_fen("brazilian", "B:Wa1,b2,b4,d2,d4,f2,f4:Ba5,c5,c7,e7,g7")
    from_a5 = [m for m in p.legal_moves() if m.start == alg("brazilian", "a5")[0]]
    assert sorted(routes(p))[:2] == ["a5:c3:e1:g3:e5:c3", "a5:c3:e5:g3:e1:c3"]
    assert len(from_a5) == 2
    assert all(len(m.captured) == 5 and not m.promotes for m in from_a5)


def test_brazilian_man_ending_on_far_row_is_crowned() -> None:
    """000 4.16.3: a man that reaches the far row and could go on only as a king stops there
    and is crowned; in Russian it goes on as a king (000 4.14)."""
    fen = "W:Wb6:Bc7,f6"
    brazilian = Position.from_fen("brazilian", fen)
    assert routes(brazilian) == ["b6:d8"]
    assert brazilian.legal_moves()[0].promotes
    russian = Position.from_fen("russian", fen)
    assert routes(russian) == ["b6:d8:g5", "b6:d8:h4"]
    assert all(m.promotes for m in russian.legal_moves())


@pytest.mark.parametrize("rules", ["international1953", "international"])
def test_seed004_s29_king_42_two_routes(rules: str) -> None:
    """§29: Black men 11 12 13 29 30 40, White king 42: 42:24:8:17:6 or 42:24:35:44:6."""
    p = Position.from_fen(rules, "W:WK42:B11,12,13,29,30,40")
    assert routes(p) == ["42x24x35x44x6", "42x24x8x17x6"]


def test_seed004_s29_example5() -> None:
    """§29 example 5: 8:26:48:39:28; 32 cannot be taken, 37 (like 43, 33, 21) stays on the
    board until the move ends (22 black holds the king on 28). White then plays 32:5."""
    p = Position.from_fen("international1953", "B:W21,32,33,37,43:BK8,10,19,22")
    assert routes(p) == ["8x26x48x39x28"]
    after = p.play(p.legal_moves()[0])
    reply = [m for m in after.legal_moves() if m.start == 32]
    assert [m.end for m in reply] == [5] and reply[0].promotes


def test_seed004_s29_example6() -> None:
    """§29 example 6: 48:26:12:23:32, stopping on 32: 37 cannot be jumped twice, and 27 cannot
    be taken with the captured 21 behind it."""
    p = Position.from_fen("international1953", "W:WK48:B18,21,27,28,37")
    assert routes(p) == ["48x26x12x23x32"]
    assert p.legal_moves()[0].captured == (37, 21, 18, 28)
