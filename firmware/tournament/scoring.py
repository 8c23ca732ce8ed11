"""Scores, withdrawals and tie-breaks of a round robin (seed 004 §37, §38).

- §37: win 1, draw 1/2, loss 0; a game lost for not appearing is ``+``/``-`` and counts 1/0.
- §38: a player who leaves after playing half or more of their games (with an odd number of
  games, 6 of 11, 7 of 13, 8 of 15 ...) has every unplayed game scored to the opponent; one who
  leaves having played fewer has every game annulled and the name struck from the table. Games
  the leaver began but did not finish count as played (the arbiter decides their result).
- Ties: the seed says nothing about breaking them. Sonneborn-Berger is used, the tie-break for
  round robins in FIDE Handbook C.07 (Tie-Break Regulations): the sum, over a player's games,
  of the points scored in the game times the opponent's final score. Players equal on both
  share the place (``2-3``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction

from firmware.tournament.results import (
    BLACK_BY_FORFEIT,
    BOTH_FORFEIT,
    WHITE_BY_FORFEIT,
    ZERO,
    Result,
)
from firmware.tournament.state import RoundGame, Tournament

Key = tuple[int, str, str]  # (round, white, black)


@dataclass(frozen=True, slots=True)
class Cell:
    """One game seen from one player's side: ``points`` None while there is no result."""

    round: int
    opponent: str
    white: bool
    points: Fraction | None
    played: bool = True


@dataclass
class Standing:
    name: str
    number: int
    points: Fraction = ZERO
    sonneborn_berger: Fraction = ZERO
    cells: list[Cell] = field(default_factory=list)
    place: str = ""
    withdrew_after: int | None = None


@dataclass
class Crosstable:
    """The table in the order of the draw numbers, with places; ``annulled`` lists the players
    struck from it under §38."""

    standings: list[Standing]
    annulled: list[str]
    rounds: int

    def ranking(self) -> list[Standing]:
        return sorted(self.standings,
                      key=lambda s: (-s.points, -s.sonneborn_berger, s.number))


def games_of(name: str, games: list[RoundGame]) -> list[RoundGame]:
    return [g for g in games if name in (g.white, g.black)]


def played_enough(total: int, played: int) -> bool:
    """§38: half or more of the player's games (6 of 11, 7 of 13, 5 of 10)."""
    return 2 * played >= total


def effective_results(t: Tournament, board_results: Mapping[Key, Result]
                      ) -> tuple[dict[Key, Result], list[str]]:
    """Every game's result after the arbiter's entries and §38; and the annulled players."""
    games = t.all_games()
    results = dict(board_results)
    results.update(t.entries)  # the arbiter's word stands over the board's
    withdrawn = t.withdrawn()
    annulled = []
    scored_away: dict[str, int] = {}
    for name, after in withdrawn.items():
        own = games_of(name, games)
        played = 0
        for g in own:
            res = results.get((g.round, g.white, g.black))
            if g.round <= after and (res is None or res.played):
                played += 1
        if played_enough(len(own), played):
            scored_away[name] = after
        else:
            annulled.append(name)
    for g in games:
        white_gone = g.white in scored_away and g.round > scored_away[g.white]
        black_gone = g.black in scored_away and g.round > scored_away[g.black]
        key = (g.round, g.white, g.black)
        if white_gone and black_gone:
            results[key] = BOTH_FORFEIT
        elif white_gone:
            results[key] = BLACK_BY_FORFEIT
        elif black_gone:
            results[key] = WHITE_BY_FORFEIT
    return results, annulled


def crosstable(t: Tournament, board_results: Mapping[Key, Result]) -> Crosstable:
    """The crosstable of the games so far (§37, §38, Sonneborn-Berger for ties)."""
    results, annulled = effective_results(t, board_results)
    struck = set(annulled)
    withdrawn = t.withdrawn()
    standings = {
        name: Standing(name, number, withdrew_after=withdrawn.get(name))
        for name, number in sorted(t.numbers.items(), key=lambda kv: kv[1])
        if name not in struck
    }
    for g in t.all_games():
        if g.white in struck or g.black in struck:
            continue
        res = results.get((g.round, g.white, g.black))
        for name, opponent, white in ((g.white, g.black, True), (g.black, g.white, False)):
            points = None if res is None else res.points(white)
            played = True if res is None else res.played
            standings[name].cells.append(Cell(g.round, opponent, white, points, played))
            if points is not None:
                standings[name].points += points
    for s in standings.values():
        s.sonneborn_berger = sum(
            (c.points * standings[c.opponent].points for c in s.cells if c.points),
            start=ZERO,
        )
    table = Crosstable(list(standings.values()), annulled, t.rounds)
    _places(table.ranking())
    return table


def _places(ranking: list[Standing]) -> None:
    i = 0
    while i < len(ranking):
        j = i
        key = (ranking[i].points, ranking[i].sonneborn_berger)
        while j + 1 < len(ranking) and (ranking[j + 1].points,
                                         ranking[j + 1].sonneborn_berger) == key:
            j += 1
        place = str(i + 1) if i == j else f"{i + 1}-{j + 1}"
        for s in ranking[i:j + 1]:
            s.place = place
        i = j + 1
