"""Two independent readers must read every PDN the project writes, in every rule set they
support (issue 11): pydraughts 0.6.7 (``draughts.PDN``, installed in the venv) and py-draughts
(PyPI ``py-draughts``, ``Board.from_pdn``). Both import as ``draughts``, so py-draughts lives in
its own directory (``pip install --target .venv/py-draughts py-draughts==1.10.1``, as ``.ci/run``
does) and runs in a subprocess. Each written game is replayed by the reader and must end in
our final position.

Rule sets: international and international1953 (their standard/International board),
russian and russian1953 (Russian), brazilian and international64 (Brazilian; PDN GameType 26,
captures written ``x``). ``home`` is a rule set neither library has.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

from firmware.pdn import ClockReading, format_game, read_games
from firmware.rules.game import Game
from firmware.rules.position import Position

ROOT = Path(__file__).resolve().parents[2]
PY_DRAUGHTS = Path(os.environ.get("BOARDCTL_PY_DRAUGHTS", ROOT / ".venv" / "py-draughts"))
VARIANT = {
    "international": "standard",
    "international1953": "standard",
    "russian": "russian",
    "russian1953": "russian",
    "brazilian": "brazilian",
    "international64": "brazilian",
}
#: Games per rule set: pydraughts takes ~25 ms a 10x10 position, so fewer there.
#: The 1953 and 64-square sets share their move rules with another set: one game each.
GAMES = {"international": 1, "international1953": 1, "russian1953": 1, "international64": 1}
#: Plies per game: 10x10 positions are the slow ones for pydraughts.
PLIES = {10: 60, 8: 90}


def random_game(name: str, seed: int) -> Game:
    """A game of random legal moves, captures preferred (multi-captures, kings, promotions)."""
    game = Game(name)
    rng = random.Random(seed)
    for _ in range(PLIES[game.rules.size]):
        moves = game.position.legal_moves()
        if not moves or game.outcome() is not None:
            break
        captures = [m for m in moves if m.is_capture]
        game.push(rng.choice(captures or moves))
    return game


def written(game: Game) -> str:
    """What the board writes: tags, TimeControl with its Fischer convention, [%clock]s."""
    clocks = [ClockReading(4800.0 - i, 4860.0 - i, None) for i in range(len(game.moves))]
    tags = {"Event": "oracle", "TimeControl": "4800+60@start"}
    return format_game(game, tags, clocks=clocks)


def cases() -> list[tuple[str, int]]:
    return [(name, seed) for name in VARIANT for seed in range(GAMES.get(name, 2))]


def test_brazilian_pdn_writes_x_captures_and_reads_both() -> None:
    # PDN 3.0 GameType 26 (Brazilian) writes captures with x; ':' is read as well.
    game = Game("brazilian")
    for text in ("c3-d4", "f6-e5", "d4xf6"):
        game.push(next(m for m in game.position.legal_moves() if _text(game, m) == text))
    pdn = format_game(game)
    assert '[GameType "26"]' in pdn and "d4xf6" in pdn and ":" not in pdn.split("\n\n")[1]
    colon = pdn.replace("d4xf6", "d4:f6")
    again = next(read_games(colon))
    assert again.rules().name == "brazilian"
    assert [m.text.replace(":", "x") for m in again.moves] == ["c3-d4", "f6-e5", "d4xf6"]


def _text(game: Game, move: object) -> str:
    from firmware.rules.notation import move_text

    return move_text(game.position, move).replace(":", "x")  # type: ignore[arg-type]


@pytest.mark.parametrize(("name", "seed"), cases())
def test_pydraughts_reads_and_replays_what_we_write(name: str, seed: int) -> None:
    pdn_module = pytest.importorskip("draughts.PDN")
    import draughts

    if getattr(draughts, "__version__", "") != "0.6.7":
        pytest.fail("the venv's draughts is not pydraughts 0.6.7 (README install steps)")
    game = random_game(name, seed)
    text = written(game)
    read = pdn_module.PDNReader(pdn_text=text).games[0]
    assert read.variant == VARIANT[name]
    assert len(read.moves) == len(game.moves)
    board = draughts.Board(variant=read.variant)
    for move in read.moves:
        board.push(draughts.Move(board, pdn_move=move))
    assert Position.from_fen(game.rules, board.fen) == game.position


def _py_draughts_fens(items: list[dict[str, str]]) -> list[dict[str, object]]:
    if not (PY_DRAUGHTS / "draughts" / "__init__.py").exists():
        if os.environ.get("CI") == "true":
            pytest.fail(f"py-draughts is not installed in {PY_DRAUGHTS} (.ci/run installs it)")
        pytest.skip(f"py-draughts not installed in {PY_DRAUGHTS}: "
                    "pip install --target .venv/py-draughts py-draughts==1.10.1")
    env = dict(os.environ, PYTHONPATH=str(PY_DRAUGHTS))
    done = subprocess.run(
        [sys.executable, "-s", str(READER)],
        input=json.dumps(items), capture_output=True, text=True, env=env, timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return list(json.loads(done.stdout))


READER = Path(__file__).parents[1] / "support" / "py_draughts_reader.py"


def test_py_draughts_reads_and_replays_what_we_write() -> None:
    games = [random_game(name, seed) for name, seed in cases()]
    items = [{"variant": VARIANT[g.rules.name], "pdn": written(g)} for g in games]
    results = _py_draughts_fens(items)
    assert len(results) == len(games)
    for game, result in zip(games, results, strict=True):
        assert result["ok"], (game.rules.name, result)
        assert Position.from_fen(game.rules, str(result["fen"])) == game.position, game.rules
