"""Feed records of real games for the voice's tests: a shared game's first plies performed by a
hand (``firmware.session.handling``) and replayed by ``boardctl replay --format feed`` (the
board's own referee, clock and feed), the records a service's start announces (``game`` and
``snapshot``, CONTRACT.md) before them, and what the tests need of the game."""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from boardctl.cli import main
from firmware.formats.events import iter_records
from firmware.formats.feed import decode_line
from firmware.pdn import read_games
from firmware.rules.position import Move, Position
from firmware.session.handling import CLEAN, handle_game

DATA = Path(__file__).resolve().parents[1] / "data" / "pdn"
WK2003 = DATA / "international-world-championship-2003.pdn"
USSR1947 = DATA / "russian-ussr-championship-1947.pdn"


@dataclass
class Game:
    rules: str
    start: Position
    moves: tuple[Move, ...]
    records: list[dict[str, Any]]


def shared_game(path: Path, plies: int) -> tuple[Position, tuple[Move, ...]]:
    played = next(iter(read_games(path.read_bytes(), path.name))).replay()
    return played.start, tuple(played.moves[:plies])


def replay_feed(log: Path, rules: str, fen: str, tc: str | None) -> list[dict[str, Any]]:
    """``boardctl replay --format feed`` of an event log: its records, in order."""
    argv = ["replay", "--rules", rules, "--fen", fen, "--format", "feed", str(log)]
    if tc is not None:
        argv += ["--time-control", tc]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(argv) == 0
    records = [decode_line(line) for line in out.getvalue().splitlines()]
    assert all(r is not None for r in records)
    return [r for r in records if r is not None]


def announced(rules: str, fen: str, game: str = "replay") -> list[dict[str, Any]]:
    """What a service's start sends first (after its header): the game, a snapshot."""
    return [{"type": "game", "rules": rules, "fen": fen, "time_control": None, "tags": {},
             "game": game},
            {"type": "snapshot", "game": game, "rules": rules, "start_fen": fen, "fen": fen,
             "tags": {}, "moves": []}]


def played_game(tmp: Path, path: Path, rules: str, plies: int, tc: str | None = None,
                extra: Sequence[dict[str, Any]] = ()) -> Game:
    """A shared game's first ``plies`` as the board's feed; ``extra`` events after them
    (``t`` counted from the last move's events)."""
    start, moves = shared_game(path, plies)
    lines = list(iter_records(handle_game(start, moves, seed=1, clocked=tc is not None,
                                          style=CLEAN)))
    last = json.loads(lines[-1])["t"]
    lines += [json.dumps({**e, "t": last + e["t"]}) + "\n" for e in extra]
    log = tmp / "events.jsonl"
    log.write_text("".join(lines))
    fen = start.fen()
    return Game(rules, start, moves, announced(rules, fen) + replay_feed(log, rules, fen, tc))


def short_game(tmp: Path) -> Game:
    """WK 2003 game 1, six plies on a 60 s clock (the sixth the computer's, carried out as
    told), then White misses a capture (33-22 pressed while 26 must take), puts it right,
    and lets his flag fall."""
    start, moves = shared_game(WK2003, 6)
    g = start.rules.geometry
    extra = [{"type": "lift", "t": 2, "square": g.algebraic(33)},
             {"type": "place", "t": 2.5, "square": g.algebraic(22)},
             {"type": "press", "t": 3, "side": "white"},
             {"type": "lift", "t": 5, "square": g.algebraic(22)},
             {"type": "place", "t": 5.5, "square": g.algebraic(33)},
             {"type": "pause", "t": 200}]
    game = played_game(tmp, WK2003, "international", 6, tc="60", extra=extra)
    sixth = moves[5]
    told = {"type": "engine-move", "ply": 6, "side": "black", "move": "7-12",
            "route": [g.algebraic(s) for s in sixth.route],
            "captured": [g.algebraic(s) for s in sixth.captured], "game": "replay"}
    at = next(i for i, r in enumerate(game.records) if r.get("ply") == 6)
    game.records.insert(at, told)
    return game


def rms(wav: Path) -> float:
    """sox's RMS amplitude of a WAV file (0..1)."""
    out = subprocess.run(["sox", str(wav), "-n", "stat"], capture_output=True, text=True,
                         check=True).stderr
    line = next(x for x in out.splitlines() if x.startswith("RMS     amplitude"))
    return float(line.split(":")[1])


def need(*programs: str) -> None:
    """Skip without ``programs`` (fail under CI: tests/install-system-deps.sh installs them)."""
    missing = [p for p in programs if shutil.which(p) is None]
    if missing:
        message = f"{', '.join(missing)} not installed (run tests/install-system-deps.sh)"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
