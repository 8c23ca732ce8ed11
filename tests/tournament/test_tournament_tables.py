"""Pairings and colours against the tables of seed 004's appendix, transcribed verbatim in
tests/data/tournament/seed004_appendix_tables.txt ("Tabelid mängude järjekorra kohta
turniiridel": 3/4, 5/6 ... 19/20 players; the number written first plays White, the number in
parentheses stands outside the column and, with an odd number of players, marks the bye).

The tables are Berger tables, and firmware.tournament.tables builds them by rule; these tests
check the rule reproduces every printed table. The seed's 17/18 table is damaged in the OCR
text (rows 2-17 lost their round number and gained a stray cell; rows 2, 6, 10, 11 and 12 have
shifted cells): the damaged cells are listed here, and each damaged row is shown to be no
possible round, so the rule is the only reading consistent with the rest of the table.
"""

from __future__ import annotations

import re
from collections import Counter
from itertools import combinations
from pathlib import Path

import pytest

from firmware.errors import TournamentError
from firmware.tournament.tables import Pairing, berger_rounds, rounds_count, schedule

DATA = Path(__file__).parents[1] / "data" / "tournament" / "seed004_appendix_tables.txt"
HEADING = re.compile(r"^(\d+) \S+ (\d+) osav\S+$")
CELL = re.compile(r"^(\(?)(\d+)\)?\s*[—-]\s*(\(?)(\d+)\)?$")

#: The 17/18 table's damaged cells (row = round, 1-based; cell = 0-based column without the
#: round number): what the OCR text prints there.
DAMAGED_18 = {
    2: {8: "18—2"},
    6: {6: "18—6", 7: "1—5", 8: "2—4"},
    10: {4: "18—10", 5: "1—9", 6: "2—8", 7: "3—7", 8: "4—6"},
    11: {1: "17—5", 2: "18—4", 3: "1—12", 4: "2—11", 5: "3—10", 6: "4—9", 7: "5—8",
         8: "6—7"},
    12: {3: "18—12", 4: "1—12", 5: "2—11", 6: "3—10", 7: "4—9", 8: "5—8"},
}


def seed_tables() -> dict[int, list[list[str]]]:
    """size -> rows of cell texts as printed (round numbers dropped)."""
    tables: dict[int, list[list[str]]] = {}
    current: list[list[str]] | None = None
    for line in DATA.read_text(encoding="utf-8").splitlines():
        if line.startswith("# "):
            continue
        heading = HEADING.match(line.strip())
        if heading:
            current = tables.setdefault(int(heading.group(2)), [])
            continue
        if current is None or not line.startswith("|") or line.startswith("|-"):
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if not any(cells):
            continue
        if cells[0].isdigit():
            cells = cells[1:]
        current.append(cells)
    return tables


def parse_cell(text: str) -> tuple[Pairing, int | None]:
    """A printed game and the number in parentheses (None when there is none)."""
    m = CELL.match(text)
    assert m, f"not a game: {text!r}"
    white, black = int(m.group(2)), int(m.group(4))
    outside = white if m.group(1) else black if m.group(3) else None
    return Pairing(white, black), outside


def printed(text: str) -> str:
    p, outside = parse_cell(text)
    w = f"({p.white})" if outside == p.white else str(p.white)
    b = f"({p.black})" if outside == p.black else str(p.black)
    return f"{w}—{b}"


TABLES = seed_tables()


def test_the_appendix_has_tables_for_3_to_20_players() -> None:
    assert sorted(TABLES) == [4, 6, 8, 10, 12, 14, 16, 18, 20]
    assert all(len(rows) == size - 1 for size, rows in TABLES.items())


@pytest.mark.parametrize("size", [4, 6, 8, 10, 12, 14, 16, 20])
def test_the_rule_reproduces_the_seed_table(size: int) -> None:
    rule = berger_rounds(size)
    for number, (row, games) in enumerate(zip(TABLES[size], rule, strict=True), 1):
        cells = [parse_cell(c) for c in row]
        assert [p for p, _ in cells] == list(games), f"{size} players, round {number}"
        # the number outside the column is the table's highest, once a round, first column
        assert [o for _, o in cells] == [size] + [None] * (size // 2 - 1)


def test_the_damaged_17_18_table_agrees_with_the_rule_wherever_it_is_legible() -> None:
    rule = berger_rounds(18)
    for number, (row, games) in enumerate(zip(TABLES[18], rule, strict=True), 1):
        cells = row[:9]
        wrong = {i: c for i, c in enumerate(cells) if parse_cell(c)[0] != games[i]}
        assert wrong == DAMAGED_18.get(number, {}), f"round {number}"
        stray = row[9:]  # rows 2-17 carry one stray cell where the round number was lost
        assert len(stray) == (0 if number == 1 else 1)
        printed_numbers = Counter(n for c in row for n in (parse_cell(c)[0].white,
                                                           parse_cell(c)[0].black))
        # a stray or damaged row repeats a number: it cannot be a round as printed
        if number > 1:
            assert max(printed_numbers.values()) > 1
        if number in DAMAGED_18:
            first_nine = Counter(n for c in cells for n in (parse_cell(c)[0].white,
                                                            parse_cell(c)[0].black))
            assert max(first_nine.values()) > 1, f"round {number} would be a possible round"


def test_the_first_round_of_the_19_20_table_verbatim() -> None:
    assert [printed(c) for c in TABLES[20][0]] == [
        "1—(20)", "2—19", "3—18", "4—17", "5—16", "6—15", "7—14", "8—13", "9—12", "10—11"]
    assert [(p.white, p.black) for p in berger_rounds(20)[0]] == [
        (1, 20), (2, 19), (3, 18), (4, 17), (5, 16), (6, 15), (7, 14), (8, 13), (9, 12),
        (10, 11)]


def test_an_odd_number_of_players_gives_the_bye_to_the_opponent_of_the_missing_number() -> None:
    # appendix: "väljaspool tulpa asuv number ... on antud voorus mänguvaba"; 5 players use
    # the 5/6 table, round 1 "1—(6) | 2—5 | 3—4": 1 is free.
    rounds = schedule(5)
    assert rounds[0].bye == 1
    assert rounds[0].games == (Pairing(2, 5), Pairing(3, 4))
    assert rounds[1].bye == 4 and rounds[1].games == (Pairing(5, 3), Pairing(1, 2))
    assert [r.bye for r in rounds] == [1, 4, 2, 5, 3]


@pytest.mark.parametrize("players", range(3, 25))
@pytest.mark.parametrize("cycles", [1, 2])
def test_every_pair_meets_once_a_cycle_with_balanced_colours(players: int, cycles: int) -> None:
    rounds = schedule(players, cycles)
    assert len(rounds) == rounds_count(players, cycles) == (players + players % 2 - 1) * cycles
    meetings: Counter[tuple[int, int]] = Counter()
    whites: Counter[int] = Counter()
    byes: Counter[int] = Counter()
    for rnd in rounds:
        seen = [n for p in rnd.games for n in (p.white, p.black)]
        seen += [rnd.bye] if rnd.bye is not None else []
        assert sorted(seen) == list(range(1, players + 1)), f"round {rnd.number}"
        for p in rnd.games:
            meetings[(p.white, p.black)] += 1
            whites[p.white] += 1
        if rnd.bye is not None:
            byes[rnd.bye] += 1
    for a, b in combinations(range(1, players + 1), 2):
        if cycles == 1:
            assert meetings[(a, b)] + meetings[(b, a)] == 1
        else:  # the second cycle reverses the colours of the first
            assert meetings[(a, b)] == meetings[(b, a)] == 1
    games_each = (players - 1) * cycles
    for n in range(1, players + 1):
        assert abs(2 * whites[n] - games_each) <= cycles
        assert byes[n] == (cycles if players % 2 else 0)


def test_the_second_cycle_reverses_the_first() -> None:
    rounds = schedule(6, 2)
    assert rounds[5].games == tuple(p.reversed() for p in rounds[0].games)
    assert rounds[5].games[0] == Pairing(6, 1)


@pytest.mark.parametrize("players", [0, 2, 25, 100])
def test_sizes_outside_3_to_24_are_refused(players: int) -> None:
    with pytest.raises(TournamentError, match="3-24 players"):
        schedule(players)
