"""Round-robin pairings and colours by the tables of seed 004's appendix.

Seed 004, appendix "Juhis mängujärjekorda määravate tabelite kasutamise kohta turniiridel":
every player draws a number 1..N; the table for N (or N+1 when N is odd) then says who meets
whom in each round; the number written first plays White; with an odd number of players the
number standing outside the column (the highest, printed in parentheses) means its opponent is
free that round. The seed prints tables for 3-20 players (in pairs 3/4 ... 19/20).

Those tables are Berger tables, and this module builds them by Berger's rule rather than
holding them as data (the tests hold the seed's tables verbatim and check the rule against
them): in round 1 number k plays N+1-k, the lower number White; from one round to the next
every number other than N moves on by N/2 (counted round 1..N-1), keeping its side and its
place, and N alternates between Black (odd rounds) and White (even rounds). For 21-24 players
the seed has no table; the same rule gives the standard Berger tables (FIDE Handbook C.05,
Annex 1). A double round robin (seed silent) plays the table twice, colours reversed in the
second cycle, the usual practice; FIDE also recommends swapping the last two rounds of the
first cycle, which is not done here so that the first cycle stays exactly the seed's table.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from firmware.errors import TournamentError

MIN_PLAYERS = 3
MAX_PLAYERS = 24


@dataclass(frozen=True, slots=True)
class Pairing:
    """One game of a round by draw numbers: ``white`` plays White (seed 004, appendix)."""

    white: int
    black: int

    def reversed(self) -> Pairing:
        return Pairing(self.black, self.white)


@dataclass(frozen=True, slots=True)
class Round:
    """A round of the table: its games in the table's column order, and the number that is
    free (``bye``) when the number of players is odd."""

    number: int
    games: tuple[Pairing, ...]
    bye: int | None = None


def table_size(players: int) -> int:
    """The size of the seed's table for ``players``: the next even number."""
    check_players(players)
    return players + players % 2


def check_players(players: int) -> None:
    if not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise TournamentError(
            f"a round robin here takes {MIN_PLAYERS}-{MAX_PLAYERS} players, not {players}"
        )


def berger_rounds(size: int) -> list[tuple[Pairing, ...]]:
    """The full table for an even ``size``: every round's games in column order, the column
    with ``size`` first, as the seed prints them."""
    if size % 2 or size < 4:
        raise TournamentError(f"a Berger table has an even size of 4 or more, not {size}")
    half = size // 2
    ring = size - 1

    def shift(number: int) -> int:
        return (number - 1 + half) % ring + 1

    games = [Pairing(k, size + 1 - k) for k in range(1, half + 1)]
    table = [tuple(games)]
    for rnd in range(2, size):
        first = games[0]
        other = first.black if first.white == size else first.white
        moved = shift(other)
        games = [Pairing(size, moved) if rnd % 2 == 0 else Pairing(moved, size)]
        games += [Pairing(shift(p.white), shift(p.black)) for p in table[-1][1:]]
        table.append(tuple(games))
    return table


@lru_cache(maxsize=64)
def schedule(players: int, cycles: int = 1) -> tuple[Round, ...]:
    """Every round of a single (``cycles=1``) or double (``cycles=2``) round robin for
    ``players`` numbers, by seed 004's appendix; with an odd count the missing highest number
    is the bye (the seed's "number outside the column")."""
    if cycles not in (1, 2):
        raise TournamentError(f"a round robin has 1 or 2 cycles, not {cycles}")
    size = table_size(players)
    first = berger_rounds(size)
    cycle_rounds = [first]
    if cycles == 2:
        cycle_rounds.append([tuple(p.reversed() for p in rnd) for rnd in first])
    rounds: list[Round] = []
    for cycle in cycle_rounds:
        for games in cycle:
            bye = None
            kept = []
            for p in games:
                if players < size and size in (p.white, p.black):
                    bye = p.black if p.white == size else p.white
                else:
                    kept.append(p)
            rounds.append(Round(len(rounds) + 1, tuple(kept), bye))
    return tuple(rounds)


def rounds_count(players: int, cycles: int = 1) -> int:
    return (table_size(players) - 1) * cycles
