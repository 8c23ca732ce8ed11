"""Small tournaments for the tests: players named by draw number."""

from __future__ import annotations

from firmware.tournament.players import Player
from firmware.tournament.results import Result, parse_result
from firmware.tournament.scoring import Key
from firmware.tournament.state import Tournament


def tournament(names: list[str], cycles: int = 1) -> Tournament:
    """``names[k]`` has draw number k+1."""
    return Tournament([Player(n) for n in names], event="Test", rules="russian",
                      time_control="5400+30", cycles=cycles,
                      numbers={n: i for i, n in enumerate(names, 1)})


def results(t: Tournament, table: dict[int, list[str]]) -> dict[Key, Result]:
    """Round -> result texts in the round's game order."""
    out = {}
    for rnd, texts in table.items():
        games, _ = t.games(rnd)
        for game, text in zip(games, texts, strict=True):
            out[(rnd, game.white, game.black)] = parse_result(text)
    return out
