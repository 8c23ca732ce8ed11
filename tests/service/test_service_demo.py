"""``boardctl demo``: a real game through the simulated board, the feed and the relay."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from boardctl.demo import Demo
from boardctl.service.journal_file import current_path, load_journal
from firmware.errors import BoardError
from firmware.pdn import read_games


def test_demo_plays_the_bundled_game_prefix(tmp_path: Path) -> None:
    out = io.StringIO()
    demo = Demo(plies=10, state_dir=tmp_path, quiet=True, out=out, seed=4, speed=0)
    assert demo.run() == 0, out.getvalue()
    assert "demo: ok: all 10 plies" in out.getvalue()
    game = next(read_games(demo.relay_pdn, "relay"))
    assert game.tags["White"] == "Weitsman,V." and game.tags["Round"] == "1.1"
    assert len(game.moves) == 10 and all(m.clock is not None for m in game.moves)
    assert game.result == "0-2"  # the arbiter recorded the game's result (resignation)
    journal = load_journal(current_path(tmp_path))
    assert sum(1 for d in journal.decisions if d["type"] == "move") == 10


def test_demo_other_file_and_game(tmp_path: Path) -> None:
    pdn = tmp_path / "one.pdn"
    pdn.write_text('[Event "x"]\n[GameType "25"]\n\n1. c3-d4 f6-g5 2. b2-c3 g7-f6 *\n')
    out = io.StringIO()
    assert Demo(pdn=pdn, game=1, quiet=False, out=out, time_control=None, speed=0).run() == 0
    assert "feed: {" in out.getvalue() and "2. b2-c3 g7-f6" in out.getvalue()


@pytest.mark.parametrize("kwargs, msg", [
    ({"game": 999}, "no game 999"),
    ({"pdn": Path("/nonexistent.pdn")}, "no such PDN file"),
    ({"speed": -1}, "--speed"),
])
def test_demo_errors(kwargs: dict, msg: str) -> None:
    with pytest.raises(BoardError, match=msg):
        Demo(quiet=True, out=io.StringIO(), **kwargs).run()
