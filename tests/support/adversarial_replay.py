"""Driving ``boardctl replay`` for the adversarial referee tests: acting games out in
handling styles, replaying the log as a user would, checking the game against the rules
core; and the scaffolding of the irregularity scenarios. The tests are in
tests/referee/test_referee_handling_styles.py (legitimate handling, hard captures, properties),
test_referee_irregularities.py and test_referee_replay_edges.py."""

from __future__ import annotations

import argparse
import functools
import json
import os
import random
from pathlib import Path
from typing import Any

import pytest

from boardctl.cli import build_parser, main
from firmware.pdn import read_games
from firmware.rules.notation import move_text
from firmware.rules.position import Move, Position
from firmware.rules.sets import Side, find_rules
from support.adversarial_handling import Log, Script, Style, random_style

DATA = Path(__file__).resolve().parents[1] / "data" / "adversarial"
PDN = Path(__file__).resolve().parents[1] / "data" / "pdn"
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
    fast: bool = True,
) -> tuple[int, str, str]:
    argv = ["replay", "--rules", rules, "--format", fmt]
    if tc:
        argv += ["--time-control", tc]
    if fen:
        argv += ["--fen", fen]
    argv.append(str(path))
    capsys.readouterr()
    if fast:
        # boardctl's own parser and handler, built once: main() rebuilds the whole CLI parser
        # on every call, which is most of the time of a short replay
        args = _parser().parse_args(argv)
        rc = int(args.func(args) or 0)
    else:
        rc = main(argv)
    out, err = capsys.readouterr()
    return rc, out, err


@functools.cache
def _parser() -> argparse.ArgumentParser:
    return build_parser()


def _save(log: Log, name: str, tmp_path: Path) -> Path:
    """A finding's log: in tmp_path, and in tests/data/adversarial/ when ADVERSARIAL_SAVE=1
    (how the logs quoted in the findings were written)."""
    if os.environ.get("ADVERSARIAL_SAVE") == "1":
        DATA.mkdir(exist_ok=True)
        log.write(DATA / name)
    return log.write(tmp_path / name)


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
    from firmware.rules.notation import parse_move

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
    quick_guard: bool = False,
    speed: float = 1.0,
    interleave: bool = False,
) -> tuple[Log, list[str], list[str]]:
    """The log of a game; the expected move texts and FENs after each."""
    rs = find_rules(rules)
    log = Log(rs, seed=seed, bounce=bounce, clocked=clocked, speed=speed, interleave=interleave)
    log.start()
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


def expected_clocks(
    log: Log, base: float = float(TC), first: str = "white"
) -> list[dict[str, float]]:
    """Both clocks after each committing press, worked out from the log alone (sudden death:
    the side to move's clock runs from the start or the other side's press)."""
    left = {"white": base, "black": base}
    running, since = first, 0.0
    out = []
    for e in log.all_events():
        if e["type"] == "start":
            since = e["t"]
        elif e["type"] == "press" and e["side"] == running:
            left[running] -= e["t"] - since
            running, since = ("black" if running == "white" else "white"), e["t"]
            out.append(dict(left))
    return out


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
    pdn: bool = True,
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
        flat = [(r["clock"]["white"], r["clock"]["black"]) for r in got]
        first = "black" if fen and fen.strip().upper().startswith("B") else "white"
        want = [(c["white"], c["black"]) for c in expected_clocks(log, first=first)]
        assert len(flat) == len(want)
        for a, b in zip(flat, want, strict=True):
            assert a == pytest.approx(b, abs=0.051), (a, b)
    if pdn:
        rc, out, err = replay(capsys, path, rules, "pdn", tc, fen)
        assert rc == 0, err
        assert pdn_moves(out) == [t.replace(":", "x") for t in texts]  # PDN writes x
        if clocked:  # {[%clock wH:MM:SS BH:MM:SS]} after each move, the feed's times
            game = next(iter(read_games(out)))
            for mt, r in zip(game.moves, got, strict=True):
                assert mt.clock is not None, mt
                assert mt.clock.white == pytest.approx(r["clock"]["white"], abs=1.0)
                assert mt.clock.black == pytest.approx(r["clock"]["black"], abs=1.0)


# --------------------------------------------------------------------------------------------
# The scaffolding of the irregularity scenarios (tests/referee/test_referee_irregularities.py and
# the edge cases of tests/referee/test_referee_replay_edges.py).


# A two-piece capture (with a shorter capture beside it under the majority rule), and a position
# where a capture is compulsory but a quiet move is physically possible.
CAPTURE2 = {
    "russian": ("W:Wc3,h2:Bd4,f6,h8", ["c3", "e5", "g7"], ["d4", "f6"], "h2"),
    "brazilian": ("W:Wc3,h2:Bb4,d4,f4,h8", ["c3", "e5", "g3"], ["d4", "f4"], "h2"),
    "international": ("W:W33,47:B28,29,19,5", ["f4", "h6", "f8"], ["g5", "g7"], "c1"),
}
SHORTER = {  # a capture of fewer pieces than the majority rule asks: route, captured
    "brazilian": (["c3", "a5"], ["b4"]),
    "international": (["f4", "d6"], ["e5"]),
}
MISSED = {  # fen, quiet move made instead, the capture
    "russian": ("W:Wc3,h2:Bd4,h8", ["h2", "g3"], (["c3", "e5"], ["d4"])),
    "brazilian": ("W:Wc3,h2:Bd4,h8", ["h2", "g3"], (["c3", "e5"], ["d4"])),
    "international": ("W:W33,47:B28,5", ["c1", "d2"], (["f4", "d6"], ["e5"])),
}


def _turn(s: Script, side: str, clocked: bool) -> None:
    if clocked:
        s.hit(side)
    else:
        s.idle(2.5)


def _opening(rules: str) -> tuple[Move, Move, Move]:
    """White's first move, Black's reply, and another White move (a different piece)."""
    pos = Position.start(rules)
    w1 = pos.legal_moves()[0]
    b1 = pos.play(w1).legal_moves()[0]
    w2 = next(m for m in pos.play(w1).with_turn(Side.WHITE).legal_moves() if m.start != w1.end)
    return w1, b1, w2


def _names(rules: str, move: Move) -> tuple[str, str]:
    g = find_rules(rules).geometry
    return g.algebraic(move.start), g.algebraic(move.end)


def _run_irregular(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    s: Script,
    rules: str,
    clocked: bool,
    fen: str | None,
) -> list[dict[str, Any]]:
    path = s.write(tmp_path / "irregular.jsonl")
    rc, out, err = replay(capsys, path, rules, "feed", TC if clocked else None, fen)
    assert rc == 0, err
    assert err == ""
    return feed(out)


