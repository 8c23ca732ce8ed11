"""Adversarial acceptance tests of the referee, through ``boardctl replay`` only (CONTRACT.md).

Event logs are acted out by tests/adversarial_handling.py in handling styles written without
looking at the referee's handling code: captured pieces off in hand or after, in capture order,
reverse or random, slowly; landings set down or not (seed 000 4.9); flying kings landing far;
slides over squares; contact bounce; a move changed before the commit; the single captured man
lifted before the jump (seed 003 4.16); commits by press, by settling (1.5 s) or by the opponent
starting to move. Expected moves and positions come from the rules core (firmware.position,
firmware.notation), never from the referee.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from boardctl.cli import main
from firmware.notation import move_text
from firmware.pdn import read_games
from firmware.position import Move, Position
from firmware.rules import Side, find_rules

sys.path.insert(0, str(Path(__file__).parent))
from adversarial_handling import Log, Style, random_style  # noqa: E402

DATA = Path(__file__).parent / "data" / "adversarial"
PDN = Path(__file__).parent / "data" / "pdn"
RULES3 = ("international", "russian", "brazilian")
TC = "7200"


# --------------------------------------------------------------------------------------------
# Driving boardctl replay


def replay(
    capsys: pytest.CaptureFixture[str],
    path: Path,
    rules: str,
    fmt: str = "feed",
    tc: str | None = None,
    fen: str | None = None,
) -> tuple[int, str, str]:
    argv = ["replay", "--rules", rules, "--format", fmt]
    if tc:
        argv += ["--time-control", tc]
    if fen:
        argv += ["--fen", fen]
    argv.append(str(path))
    capsys.readouterr()
    rc = main(argv)
    out, err = capsys.readouterr()
    return rc, out, err


def feed(out: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in out.splitlines() if line.strip()]


def moves_of(recs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [r for r in recs if r.get("type") == "move"]


def irregularities(recs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [r for r in recs if r.get("type") == "irregularity"]


def pdn_moves(out: str) -> list[str]:
    games = list(read_games(out))
    assert len(games) == 1, out
    return [m.text for m in games[0].moves]


# --------------------------------------------------------------------------------------------
# Games to act out


def random_game(rules: str, seed: int, plies: int, fen: str | None = None) -> list[Move]:
    """A random legal game, captures and far king landings favoured."""
    rng = random.Random(seed)
    pos = Position.from_fen(rules, fen) if fen else Position.start(rules)
    out: list[Move] = []
    for _ in range(plies):
        legal = pos.legal_moves()
        if not legal:
            break
        move = rng.choice(legal)
        out.append(move)
        pos = pos.play(move)
    return out


def real_game(name: str, index: int = 0) -> tuple[str, list[Move]]:
    from firmware.notation import parse_move

    text = (PDN / name).read_bytes()
    game = list(read_games(text, name))[index]
    rs = game.rules()
    pos = Position.start(rs)
    moves = []
    for mt in game.moves:
        mv = parse_move(pos, mt.text)
        moves.append(mv)
        pos = pos.play(mv)
    return rs.name, moves


def act_out(
    rules: str,
    moves: list[Move],
    *,
    seed: int,
    clocked: bool,
    style: Style | None = None,
    mixed: bool = False,
    bounce: bool = False,
    fen: str | None = None,
    quick_guard: bool = True,
) -> tuple[Log, list[str], list[str]]:
    """The log of a game; the expected move texts and FENs after each."""
    rs = find_rules(rules)
    log = Log(rs, seed=seed, bounce=bounce, clocked=clocked).start()
    pos = Position.from_fen(rs, fen) if fen else Position.start(rs)
    texts, fens = [], []
    rng = random.Random(seed + 1)
    styles = [random_style(rng, rs) if mixed else (style or Style()) for _ in moves]
    for i, mv in enumerate(moves):
        st = styles[i]
        texts.append(move_text(pos, mv))
        log.marks.append((len(log.events), texts[-1], st))
        after = log.perform(pos, mv, st)
        fens.append(after.fen())
        quick = st.quick_opponent
        if quick_guard and i + 1 < len(moves) and styles[i + 1].first_single:
            # The opponent lifting the man just moved (003 4.16) at once is the finding
            # tested on its own (test_quick_single_first_capture); not mixed in here.
            quick = quick and mv.end not in moves[i + 1].captured
        log.commit(pos, quick=quick)
        pos = after
    if not clocked:
        log.wait(3.0)
        log.raw("pause", dt=0.0)  # a last event well after the settle time
    return log, texts, fens


def check_game(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    rules: str,
    log: Log,
    texts: list[str],
    fens: list[str],
    *,
    clocked: bool,
    fen: str | None = None,
    name: str = "game.jsonl",
) -> None:
    path = log.write(tmp_path / name)
    tc = TC if clocked else None
    rc, out, err = replay(capsys, path, rules, "feed", tc, fen)
    assert rc == 0, err
    recs = feed(out)
    got = moves_of(recs)
    assert [r["move"] for r in got] == texts, irregularities(recs)
    assert [r["fen"] for r in got] == fens
    assert [r["side"] for r in got] == [
        ("white" if i % 2 == 0 else "black") for i in range(len(got))
    ] or fen is not None
    assert [r["ply"] for r in got] == list(range(1, len(got) + 1)) or fen is not None
    assert irregularities(recs) == []
    if clocked:
        assert all("clock" in r for r in got)
    rc, out, err = replay(capsys, path, rules, "pdn", tc, fen)
    assert rc == 0, err
    assert pdn_moves(out) == texts


# --------------------------------------------------------------------------------------------
# Legitimate handling, one style at a time

STYLES: dict[str, Style] = {
    "plain": Style(),
    "landings": Style(landings=True),
    "slide": Style(slide=True, landings=True),
    "slide-nolandings": Style(slide=True),
    "inhand-order": Style(removal="inhand", order="order"),
    "after-reverse": Style(order="reverse"),
    "after-random": Style(order="random"),
    "inhand-reverse-slow": Style(removal="inhand", order="reverse", slow=True),
    "after-random-slow": Style(order="random", slow=True),
    "change": Style(change=True),
    "change-landings": Style(change=True, landings=True, slide=True),
    "first-single": Style(first_single=True),
    "quick-opponent": Style(quick_opponent=True, order="reverse"),
}


@pytest.mark.parametrize("clocked", [True, False], ids=["clock", "noclock"])
@pytest.mark.parametrize("style", sorted(STYLES))
@pytest.mark.parametrize("rules", RULES3)
def test_style_random_game(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, rules: str, style: str, clocked: bool
) -> None:
    seed = abs(hash((rules, style))) % 1000 if False else sorted(STYLES).index(style) + 7
    moves = random_game(rules, seed, 70)
    log, texts, fens = act_out(rules, moves, seed=seed, clocked=clocked, style=STYLES[style])
    check_game(capsys, tmp_path, rules, log, texts, fens, clocked=clocked)


@pytest.mark.parametrize("clocked", [True, False], ids=["clock", "noclock"])
@pytest.mark.parametrize("rules", RULES3)
@pytest.mark.parametrize("seed", [1, 2])
def test_bounce_mixed(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, rules: str, clocked: bool, seed: int
) -> None:
    moves = random_game(rules, 100 + seed, 80)
    log, texts, fens = act_out(
        rules, moves, seed=seed, clocked=clocked, mixed=True, bounce=True
    )
    check_game(capsys, tmp_path, rules, log, texts, fens, clocked=clocked)


@pytest.mark.parametrize("clocked", [True, False], ids=["clock", "noclock"])
@pytest.mark.parametrize(
    "pdn", ["international-world-championship-2003.pdn", "russian-ussr-championship-1947.pdn"]
)
def test_real_game_mixed(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, pdn: str, clocked: bool
) -> None:
    rules, moves = real_game(pdn, 0)
    log, texts, fens = act_out(
        rules, moves, seed=2026, clocked=clocked, mixed=True, bounce=clocked
    )
    check_game(capsys, tmp_path, rules, log, texts, fens, clocked=clocked)
