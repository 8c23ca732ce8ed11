"""``boardctl run``'s training options (issue 42): a training file that gives no game to play
is a one-line error before anything starts: a PDN with no games, a malformed PDN, a game of
another rule set, ``--train-game`` out of range, a puzzle file without a FEN game, options
that do not go together."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

GAMES = Path("/work/shared/games")
WK = Path(__file__).resolve().parents[2] / "boardctl" / "data" / "wk2003.pdn"


def files(tmp_path: Path) -> dict[str, Path]:
    made = {
        "empty": "; nothing but a comment line\n\n",
        "malformed": '[Event "x"]\n[FEN "W:W99:Bx"]\n\n1. 32-28 {never closed\n',
        "russian": '[GameType "25"]\n\n1. c3-d4 f6-e5 *\n',
        "nofen": '[Event "x"]\n\n1. 32-28 19-23 *\n',
    }
    out = {}
    for name, text in made.items():
        out[name] = tmp_path / f"{name}.pdn"
        out[name].write_text(text)
    return out


@pytest.mark.parametrize(("args", "words"), [
    (["--train", "{empty}"], "no games in it"),
    (["--train", "{malformed}"], "not a PDN file this board reads"),
    (["--train", "{russian}"], "is russian; this board plays international"),
    (["--train", str(WK), "--train-game", "24"], "--train-game 24: "),
    (["--train", str(WK), "--train-game", "0"], "has 23 games (1-23)"),
    (["--train", "{missing}"], "no such file"),
    (["--puzzles", "{nofen}"], "no game in it has a FEN tag"),
    (["--train-side", "black"], "--train-side needs --train"),
    (["--train", str(WK), "--puzzles", str(WK)], "one training at a time"),
    (["--train", str(WK), "--engine", "builtin"], "--engine and training"),
])
def test_bad_training_input_is_one_line(tmp_path: Path, args: list[str], words: str) -> None:
    paths = {**files(tmp_path), "missing": tmp_path / "missing.pdn"}
    argv = [a.format(**paths) for a in args]
    out = subprocess.run([sys.executable, "-m", "boardctl", "run", "--sim", "--state-dir",
                          str(tmp_path / "state"), *argv],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode != 0
    assert words in out.stderr and len(out.stderr.strip().splitlines()) == 1, out.stderr
    assert "Traceback" not in out.stderr
    assert not (tmp_path / "state").exists()  # nothing started
