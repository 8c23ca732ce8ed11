"""Scores by seed 004 §37 and §38, and the tie-break (Sonneborn-Berger; the seed is silent)."""

from __future__ import annotations

from fractions import Fraction

import pytest
from support.tournament_helpers import results, tournament

from firmware.errors import TournamentError
from firmware.tournament.results import format_points, parse_result
from firmware.tournament.scoring import Crosstable, Standing, crosstable, played_enough
from firmware.tournament.state import Withdrawal

# 4 players, table 3/4: R1 1-4 2-3; R2 4-3 1-2; R3 2-4 3-1
ABCD = ["Aavik", "Bauer", "Cerny", "Dahl"]


def by_name(table: Crosstable) -> dict[str, Standing]:
    return {s.name: s for s in table.standings}


def test_s37_win_one_draw_half_loss_zero() -> None:
    t = tournament(ABCD)
    # A-D 1-0, B-C draw; D-C 0-1, A-B 0-1; B-D draw, C-A 0-1
    table = crosstable(t, results(t, {1: ["1-0", "1/2-1/2"], 2: ["0-1", "0-1"],
                                      3: ["1/2-1/2", "0-1"]}))
    points = {s.name: s.points for s in table.standings}
    assert points == {"Aavik": 2, "Bauer": 2, "Cerny": Fraction(3, 2), "Dahl": Fraction(1, 2)}
    assert sum(points.values()) == 6  # one point a game


def test_sonneborn_berger_breaks_the_tie() -> None:
    t = tournament(ABCD)
    table = crosstable(t, results(t, {1: ["1-0", "1/2-1/2"], 2: ["0-1", "0-1"],
                                      3: ["1/2-1/2", "0-1"]}))
    s = by_name(table)
    # Aavik beat Dahl (1/2) and Cerny (3/2): 2. Bauer drew Cerny (3/4), beat Aavik (2), drew
    # Dahl (1/4): 3.
    assert s["Aavik"].sonneborn_berger == 2
    assert s["Bauer"].sonneborn_berger == 3
    assert [(x.name, x.place) for x in table.ranking()] == [
        ("Bauer", "1"), ("Aavik", "2"), ("Cerny", "3"), ("Dahl", "4")]


def test_equal_on_points_and_sonneborn_berger_share_the_place() -> None:
    t = tournament(ABCD)
    table = crosstable(t, results(t, {r: ["1/2-1/2", "1/2-1/2"] for r in (1, 2, 3)}))
    assert {s.place for s in table.standings} == {"1-4"}


def test_s37_forfeit_marks_count_as_one_and_zero() -> None:
    t = tournament(ABCD)
    table = crosstable(t, results(t, {1: ["+-", "-+"]}))
    s = by_name(table)
    cells = {x.name: [(c.opponent, c.points, c.played) for c in x.cells if c.points is not None]
             for x in table.standings}
    assert cells["Aavik"] == [("Dahl", 1, False)]
    assert cells["Dahl"] == [("Aavik", 0, False)]
    assert cells["Cerny"] == [("Bauer", 1, False)]
    assert s["Aavik"].points == 1 and s["Dahl"].points == 0


def test_s32_neither_player_comes_both_lose() -> None:
    res = parse_result("--")
    assert (res.white, res.black, res.played) == (0, 0, False)
    assert res.text == "--"


@pytest.mark.parametrize("text", ["*", "", "3-0", "win", "1-0-1"])
def test_unknown_result_texts_are_refused(text: str) -> None:
    with pytest.raises(TournamentError, match="unknown result"):
        parse_result(text)


@pytest.mark.parametrize(("text", "white"), [("2-0", 1), ("0-2", 0), ("1-1", Fraction(1, 2)),
                                              ("½-½", Fraction(1, 2)), ("+:-", 1)])
def test_results_of_100_squares_and_forfeits_read(text: str, white: Fraction) -> None:
    assert parse_result(text).white == white


@pytest.mark.parametrize(("total", "played", "enough"), [
    (11, 6, True), (11, 5, False), (13, 7, True), (13, 6, False), (15, 8, True), (15, 7, False),
    (10, 5, True), (10, 4, False)])
def test_s38_half_or_more_with_the_seeds_examples(total: int, played: int, enough: bool) -> None:
    # §38: "paaritu arvu partiide juures peab olema mängitud 6 — 11-st, 7 — 13-st, 8 — 15-st"
    assert played_enough(total, played) is enough


SIX = ["P1", "P2", "P3", "P4", "P5", "P6"]
# 6 players, table 5/6: R1 1-6 2-5 3-4; R2 6-4 5-3 1-2; R3 2-6 3-1 4-5; R4 6-5 1-4 2-3;
# R5 3-6 4-2 5-1


def test_s38_withdrawal_after_half_scores_the_rest_to_the_opponents() -> None:
    t = tournament(SIX)
    t.withdrawals.append(Withdrawal("P1", 3))  # played R1, R2, R3: 3 of 5
    table = crosstable(t, results(t, {1: ["1-0", "1-0", "1-0"], 2: ["1-0", "1-0", "1-0"],
                                      3: ["1-0", "1-0", "1-0"]}))
    s = by_name(table)
    p1 = s["P1"]
    assert p1.withdrew_after == 3
    late = [(c.round, c.opponent, c.points, c.played) for c in p1.cells if c.round > 3]
    assert late == [(4, "P4", 0, False), (5, "P5", 0, False)]
    p4_r4 = [c for c in s["P4"].cells if c.round == 4]
    assert [(c.points, c.played) for c in p4_r4] == [(1, False)]
    assert table.annulled == []


def test_s38_withdrawal_before_half_annuls_every_game() -> None:
    t = tournament(SIX)
    t.withdrawals.append(Withdrawal("P1", 2))  # 2 of 5 played
    table = crosstable(t, results(t, {1: ["1-0", "1-0", "1-0"], 2: ["1-0", "1-0", "0-1"]}))
    assert table.annulled == ["P1"]
    assert "P1" not in {s.name for s in table.standings}
    s = by_name(table)
    # P6 lost to P1 in R1 and beat P4 in R2: the first game is gone
    assert s["P6"].points == 1
    assert all(c.opponent != "P1" for x in table.standings for c in x.cells)


def test_s38_an_unfinished_game_of_the_leaver_counts_as_played() -> None:
    t = tournament(SIX)
    t.withdrawals.append(Withdrawal("P1", 3))
    # R3's P3-P1 has no result yet (adjourned): still one of the three games played
    table = crosstable(t, results(t, {1: ["1-0", "1-0", "1-0"], 2: ["1-0", "1-0", "1-0"]}))
    assert table.annulled == []


def test_s38_a_forfeited_game_is_not_a_game_played() -> None:
    t = tournament(SIX)
    t.withdrawals.append(Withdrawal("P1", 3))
    table = crosstable(t, results(t, {1: ["-+", "1-0", "1-0"], 2: ["1-0", "1-0", "1-0"],
                                      3: ["1-0", "1-0", "1-0"]}))
    assert table.annulled == ["P1"]  # played 2 of 5


def test_the_arbiters_entry_overrides_the_board() -> None:
    t = tournament(ABCD)
    board = results(t, {1: ["1-0", "1-0"]})
    t.entries[(1, "Aavik", "Dahl")] = parse_result("-+")
    s = by_name(crosstable(t, board))
    assert s["Dahl"].points == 1 and s["Aavik"].points == 0


def test_double_round_robin_counts_both_games() -> None:
    t = tournament(["A", "B", "C"], cycles=2)
    # 3 players, table 3/4 twice: cycle 1 R1 (1 bye) 2-3, R2 (3 bye) 1-2, R3 (2 bye) 3-1
    table = crosstable(t, results(t, {1: ["1-0"], 2: ["1/2-1/2"], 3: ["0-1"],
                                      4: ["0-1"], 5: ["1-0"], 6: ["1/2-1/2"]}))
    s = by_name(table)
    assert s["A"].points == Fraction(1, 2) + 1 + 0 + Fraction(1, 2)
    assert len(s["A"].cells) == 4


def test_points_are_printed_with_halves() -> None:
    assert [format_points(Fraction(n, 2)) for n in (0, 1, 2, 15)] == ["0", "½", "1", "7½"]
