"""Every real game in tests/data/pdn reads and replays legally to its last move; written back
as PDN and read again, it replays to the same position."""

from __future__ import annotations

from pathlib import Path

import pytest

from firmware.pdn import format_game, read_games

#: Sweeps of whole game collections or another implementation: not the fast core.
pytestmark = pytest.mark.integration

PDN_DIR = Path(__file__).resolve().parents[1] / "data" / "pdn"

#: file -> (rule set, games, moves in all main lines): the counts from reading the files by eye
#: and the collection's README.
EXPECTED = {
    "international-world-championship-2003.pdn": ("international", 23, 2381),
    "international-dutch-championship-2003.pdn": ("international", 33, 3268),
    "international-dutch-semifinals-1996.pdn": ("international", 13, 1381),
    "international-sijbrands-1969-1970.pdn": ("international", 16, 1616),
    "international-candidates-1995.pdn": ("international", 8, 816),
    "russian-ussr-championship-1947.pdn": ("russian", 153, 8730),
}


def test_every_file_is_listed() -> None:
    assert sorted(p.name for p in PDN_DIR.glob("*.pdn")) == sorted(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_every_game_replays_legally(name: str) -> None:
    rules, count, total = EXPECTED[name]
    games = list(read_games((PDN_DIR / name).read_bytes(), name))
    assert len(games) == count
    assert sum(len(g.moves) for g in games) == total
    for game in games:
        record = game.replay()
        assert record.rules.name == rules
        assert len(record.moves) == len(game.moves), game.title
        if game.result in ("1-0", "0-1") and record.outcome() is not None:
            outcome = record.outcome()
            assert outcome is not None and outcome.winner is not None, game.title


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_written_back_and_read_again_gives_the_same_games(name: str) -> None:
    games = list(read_games((PDN_DIR / name).read_bytes(), name))
    for game in games[:: max(1, len(games) // 5)]:
        record = game.replay()
        text = format_game(record, game.tags)
        (again,) = read_games(text, f"{name} rewritten")
        replayed = again.replay()
        assert replayed.history == record.history, game.title
        assert all(line.startswith("[") for line in text.splitlines() if len(line) >= 80)
