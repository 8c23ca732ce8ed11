"""Perft from the start position against the published counts (Aart Bik's BikDam blog; the
rhalbersma/dctl test tables), and the counting convention: moves with the same start, end and
captured pieces count once, while legal_moves() lists each route."""

from __future__ import annotations

import random

import pytest
from support.rules_helpers import random_position

from firmware.rules.perft import divide, perft
from firmware.rules.position import Position
from firmware.rules.sets import RULESETS, find_rules

PUBLISHED = {
    "international": [9, 81, 658, 4265, 27117, 167140, 1049442],
    "russian": [7, 49, 302, 1469, 7482, 37986, 190146],
    "brazilian": [7, 49, 302, 1469, 7473, 37628, 187302],
}


@pytest.mark.parametrize("rules", sorted(PUBLISHED))
def test_perft_matches_published_counts(rules: str) -> None:
    """All seven depths for 8x8; international to depth 6 here, 7 and 8 under -m slow."""
    p = Position.start(rules)
    counts = PUBLISHED[rules]
    deepest = 6 if rules == "international" else 7
    assert [perft(p, d) for d in range(1, deepest + 1)] == counts[:deepest]


@pytest.mark.parametrize("rules", ["international1953", "russian1953", "international64"])
def test_variant_perft_matches_the_rule_set_it_follows(rules: str) -> None:
    """1953 rules move as their modern counterparts; international64 as brazilian (seed 001)."""
    same = {"international1953": "international", "russian1953": "russian",
            "international64": "brazilian"}[rules]
    assert perft(Position.start(rules), 5) == PUBLISHED[same][4]


def test_home_perft_differs_from_russian_once_men_capture_backwards() -> None:
    """home: men capture forwards only (002), so counts part from russian's where a backward
    capture arises; the first plies agree."""
    home, russian = Position.start("home"), Position.start("russian")
    assert [perft(home, d) for d in range(1, 4)] == PUBLISHED["russian"][:3]
    assert perft(home, 6) != perft(russian, 6)


def test_same_pieces_other_order_listed_twice_counted_once() -> None:
    """A man going round a ring of four (b4 d4 b6 d6) from c3 back to c3 either way: two routes
    in legal_moves(), one move for perft."""
    p = Position.from_fen("russian", "W:Wc3:Bb4,d4,b6,d6,h8")
    moves = p.legal_moves()
    assert len(moves) == 2
    assert moves[0].key == moves[1].key and moves[0].route != moves[1].route
    assert perft(p, 1) == 1
    assert sum(count for _, count in divide(p, 2)) == perft(p, 2)


def test_perft_depth_zero_and_bad_depth() -> None:
    p = Position.start("russian")
    assert perft(p, 0) == 1
    with pytest.raises(ValueError):
        perft(p, -1)


def test_perft_counts_the_same_as_playing_every_move() -> None:
    """Bulk counting at the last ply agrees with making the moves through the public API, on a
    position with kings, captures and promotions."""
    p = Position.from_fen("international", "W:W27,28,33,K7,38,49:B12,13,17,19,22,K44,24,35")

    def slow(pos: Position, depth: int) -> int:
        if depth == 0:
            return 1
        seen = {}
        for m in pos.legal_moves():
            seen[(m.key, m.promotes)] = m
        return sum(slow(pos.play(m), depth - 1) for m in seen.values())

    assert perft(p, 3) == slow(p, 3)


@pytest.mark.parametrize("name", sorted(RULESETS))
def test_perft_counting_agrees_with_legal_moves_on_random_positions(name: str) -> None:
    """perft's own capture enumeration (no routes) finds the same distinct moves as
    legal_moves(), and one ply deeper the same totals as playing each move."""
    rules = find_rules(name)
    rng = random.Random(f"perft/{name}")
    for i in range(300):
        p = random_position(rules, rng)
        distinct = {(m.key, m.promotes): m for m in p.legal_moves()}
        assert perft(p, 1) == len(distinct), p.fen()
        if i % 10 == 0:
            assert perft(p, 2) == sum(perft(p.play(m), 1) for m in distinct.values()), p.fen()


@pytest.mark.slow
def test_international_perft_7_and_8_published() -> None:
    """Depths 7 and 8 of Aart Bik's international table (about 6 s; run with -m slow)."""
    p = Position.start("international")
    assert perft(p, 7) == PUBLISHED["international"][6]
    assert perft(p, 8) == 6483961


@pytest.mark.slow
@pytest.mark.parametrize(
    ("rules", "counts"),
    [("russian", [929899, 4570586]), ("brazilian", [907830, 4431766])],
)
def test_8x8_perft_8_and_9_published(rules: str, counts: list[int]) -> None:
    """Depths 8 and 9 of the rhalbersma/dctl walk test tables (from the shashki.com forum
    perft threads), same counting convention (about 8 s each; run with -m slow)."""
    p = Position.start(rules)
    assert [perft(p, 8), perft(p, 9)] == counts
