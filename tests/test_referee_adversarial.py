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

import argparse
import functools
import json
import os
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from boardctl.cli import build_parser, main
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
    "fumble-adjust": Style(fumble=True, adjust=True, order="reverse"),
}


@pytest.mark.parametrize("clocked", [True, False], ids=["clock", "noclock"])
@pytest.mark.parametrize("style", sorted(STYLES))
@pytest.mark.parametrize("rules", RULES3)
def test_style_random_game(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, rules: str, style: str, clocked: bool
) -> None:
    seed = sorted(STYLES).index(style) + 7
    moves = random_game(rules, seed, 24)
    log, texts, fens = act_out(rules, moves, seed=seed, clocked=clocked, style=STYLES[style])
    check_game(capsys, tmp_path, rules, log, texts, fens, clocked=clocked, pdn=clocked)


@pytest.mark.parametrize("clocked", [True, False], ids=["clock", "noclock"])
@pytest.mark.parametrize("rules", RULES3)
@pytest.mark.parametrize("seed", [1, 2])
def test_bounce_mixed(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, rules: str, clocked: bool, seed: int
) -> None:
    moves = random_game(rules, 100 + seed, 50)
    log, texts, fens = act_out(rules, moves, seed=seed, clocked=clocked, mixed=True, bounce=True)
    check_game(capsys, tmp_path, rules, log, texts, fens, clocked=clocked)


@pytest.mark.parametrize("clocked", [True, False], ids=["clock", "noclock"])
@pytest.mark.parametrize(
    "pdn", ["international-world-championship-2003.pdn", "russian-ussr-championship-1947.pdn"]
)
def test_real_game_mixed(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, pdn: str, clocked: bool
) -> None:
    rules, moves = real_game(pdn, 0)
    log, texts, fens = act_out(rules, moves, seed=2026, clocked=clocked, mixed=True, bounce=clocked)
    check_game(capsys, tmp_path, rules, log, texts, fens, clocked=clocked)


# --------------------------------------------------------------------------------------------
# Hard captures: loops back to the start square, promotion in the middle of a capture, far
# king landings, captures told apart only by the pieces taken. Each one in every style.

HARD: list[tuple[str, str]] = [
    ("russian", "W:WKc1,h2:Bd2,d4,b4,b2,h8"),  # king loop c1:c1 (start = end)
    ("international", "W:WK46,50:B41,42,31,32,5"),  # far landings / loop on 10x10
    ("russian", "W:Wb6,h2:Bc7,f6,a5"),  # man promotes on d8 and captures on as a king
    ("brazilian", "W:Wb6,h2:Bc7,f6,a5"),  # ... but not in Brazilian: stops on d8
    ("russian", "W:WKa1,h2:Bc3,e5,f8"),  # flying king, three landing squares
    ("russian", "B:Wa5,e3,g3,b2,d2,h2,g1:Bb8,a7,c7,g7,b6,d6,a3,Ka1"),  # same ends, two routes
    ("brazilian", "B:Wa5,e3,g3,b2,d2,h2,g1:Bb8,a7,c7,g7,b6,d6,a3,Ka1"),
    ("russian", "W:Wh6:Bc7,e7,g7,b6,b2,d2"),  # four captures h6 -> b8/a7 by two routes each
    ("international", "W:WK4,24,39,44,45,46,48,49,50:B1,6,7,8,9,12,14,18,21,22,38"),
    ("international", "W:W6,K29,30,35,36,40,42,44,46:B5,8,13,15,20,23"),
    ("international", "W:W27,40:B21,22,5"),  # single man captures: 003 4.16 style
]


def _hard_cases() -> list[tuple[str, str, int]]:
    out = []
    for rules, fen in HARD:
        n = len(Position.from_fen(rules, fen).legal_moves())
        out += [(rules, fen, i) for i in range(min(n, 4))]
    return out


@pytest.mark.parametrize("clocked", [True, False], ids=["clock", "noclock"])
@pytest.mark.parametrize("rules,fen,index", _hard_cases())
def test_hard_capture_every_style(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    rules: str,
    fen: str,
    index: int,
    clocked: bool,
) -> None:
    pos = Position.from_fen(rules, fen)
    move = pos.legal_moves()[index]
    # every style on every case would take too long: a rotating third of them
    names = sorted(STYLES)
    first = index + HARD.index((rules, fen))
    chosen = [n for i, n in enumerate(names) if (i + first + clocked) % 3 == 0]
    for k, name in enumerate(chosen):
        log, texts, fens = act_out(
            rules, [move], seed=k, clocked=clocked, style=STYLES[name], fen=fen
        )
        try:
            check_game(
                capsys,
                tmp_path,
                rules,
                log,
                texts,
                fens,
                clocked=clocked,
                fen=fen,
                name=f"{name}.jsonl",
                pdn=k == 0,
            )
        except AssertionError as exc:
            raise AssertionError(f"style {name}: {exc}") from None


# --------------------------------------------------------------------------------------------
# Irregularities: each is reported with its squares, then put right, and the game goes on.

from adversarial_handling import Script  # noqa: E402

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


def scenario(
    name: str, rules: str, clocked: bool
) -> tuple[Script, set[str], list[str], str | None]:
    """(log, irregularity kinds accepted, moves that must be recorded, start FEN)."""
    s = Script(rules, clocked=clocked)
    g = find_rules(rules).geometry
    w1, b1, w2 = _opening(rules)
    pos0 = Position.start(rules)
    texts = [move_text(pos0, w1), move_text(pos0.play(w1), b1)]
    (wa, wb), (ba, bb), (xa, xb) = _names(rules, w1), _names(rules, b1), _names(rules, w2)
    fen = None
    if name == "press-without-move":
        s.start().hit("white", 1.0).move(wa, wb)
        _turn(s, "white", clocked)
        s.move(ba, bb)
        _turn(s, "black", clocked)
        return s, {"press-without-move"}, texts, fen
    if name == "illegal-move":
        # a man jumps two rows over an empty square, then is put back
        ja, far = next(
            (g.algebraic(m.start), g.algebraic(s.by_coords[t]))
            for m in pos0.legal_moves()
            for t in [
                tuple(2 * e - b for b, e in zip(g.coords(m.start), g.coords(m.end), strict=True))
            ]
            if t in s.by_coords and s.by_coords[t] not in pos0.occupied()
        )
        s.start().move(ja, far)
        _turn(s, "white", clocked)
        s.move(far, ja).move(wa, wb)
        _turn(s, "white", clocked)
        s.move(ba, bb)
        _turn(s, "black", clocked)
        return s, {"illegal-move"}, texts, fen
    if name == "wrong-side":
        s.start().move(ba, bb)
        _turn(s, "white", clocked)
        s.move(bb, ba).move(wa, wb)
        _turn(s, "white", clocked)
        s.move(ba, bb)
        _turn(s, "black", clocked)
        return s, {"wrong-side"}, texts, fen
    if name == "two-moves":
        s.start().move(wa, wb)
        _turn(s, "white", clocked)
        s.move(xa, xb)
        _turn(s, "white", clocked)
        s.move(xb, xa).move(ba, bb)
        _turn(s, "black", clocked)
        return s, {"two-moves"}, texts, fen
    if name == "touch-move":
        s.start().up(xa).down(xa, 0.7).move(wa, wb)
        _turn(s, "white", clocked)
        s.move(ba, bb)
        _turn(s, "black", clocked)
        return s, {"touch-move"}, texts, fen
    if name == "board-mismatch":
        # after White's move a sleeve knocks off a white and two black pieces, one of them
        # onto another empty square; they are put back, then Black moves
        white_back = min(pos0.squares_of(Side.WHITE), key=lambda n: g.coords(n)[1])
        black_back = sorted(pos0.squares_of(Side.BLACK), key=lambda n: -g.coords(n)[1])[:2]
        knocked = [g.algebraic(n) for n in [white_back, *black_back]]
        s.start().move(wa, wb)
        _turn(s, "white", clocked)
        s.up(knocked[0], 0.3).up(knocked[1], 0.02).up(knocked[2], 0.02).down(xb, 0.1)
        s.idle(3.0)
        s.up(xb).down(knocked[0]).down(knocked[1]).down(knocked[2]).move(ba, bb)
        _turn(s, "black", clocked)
        return s, {"board-mismatch"}, texts, fen
    if name == "setup":
        s.move(wa, wb)  # the board is set up wrongly before the start
        s.start().idle(1.0).move(wb, wa).move(wa, wb)
        _turn(s, "white", clocked)
        s.move(ba, bb)
        _turn(s, "black", clocked)
        return s, {"setup"}, texts, fen
    # captures
    fen, route, captured, own = CAPTURE2[rules]
    cap = move_text(Position.from_fen(rules, fen), Position.from_fen(rules, fen).legal_moves()[0])
    if name == "incomplete-removal":
        s.start().up(route[0]).down(route[-1]).up(captured[0])
        if clocked:
            s.hit("white")
        s.up(captured[1], 1.0)
        _turn(s, "white", clocked)
        return s, {"incomplete-removal"} if clocked else set(), [cap], fen
    if name == "own-piece-removed":
        s.start().up(route[0]).down(route[-1]).up(captured[0]).up(captured[1]).up(own)
        _turn(s, "white", clocked)
        s.down(own)
        _turn(s, "white", clocked)
        return s, {"extra-removal", "own-piece-removed"}, [cap], fen
    if name == "extra-removal":
        # a black piece that was not captured is taken off too, then put back
        pos = Position.from_fen(rules, fen)
        spare = next(
            g.algebraic(n)
            for n in sorted(pos.squares_of(Side.BLACK))
            if g.algebraic(n) not in captured
        )
        s.start().up(route[0]).down(route[-1]).up(captured[0]).up(captured[1]).up(spare)
        _turn(s, "white", clocked)
        s.down(spare)
        _turn(s, "white", clocked)
        return s, {"extra-removal"}, [cap], fen
    if name == "wrong-capture":
        if rules not in SHORTER:
            pytest.skip("free choice of captures in Russian")
        short, took = SHORTER[rules]
        s.start().up(short[0]).down(short[-1]).up(took[0])
        _turn(s, "white", clocked)
        s.up(short[-1]).down(short[0]).down(took[0])
        s.up(route[0]).down(route[-1]).up(captured[0]).up(captured[1])
        _turn(s, "white", clocked)
        return s, {"wrong-capture"}, [cap], fen
    if name == "missed-capture":
        fen, quiet, (croute, ctook) = MISSED[rules]
        pos = Position.from_fen(rules, fen)
        s.start().move(quiet[0], quiet[1])
        _turn(s, "white", clocked)
        s.move(quiet[1], quiet[0]).up(croute[0]).down(croute[-1]).up(ctook[0])
        _turn(s, "white", clocked)
        return s, {"missed-capture"}, [move_text(pos, pos.legal_moves()[0])], fen
    raise AssertionError(name)


IRREGULAR = [
    "press-without-move",
    "illegal-move",
    "wrong-side",
    "two-moves",
    "touch-move",
    "board-mismatch",
    "setup",
    "incomplete-removal",
    "own-piece-removed",
    "extra-removal",
    "wrong-capture",
    "missed-capture",
]


@pytest.mark.parametrize("clocked", [True, False], ids=["clock", "noclock"])
@pytest.mark.parametrize("rules", RULES3)
@pytest.mark.parametrize("name", IRREGULAR)
def test_irregularity_reported_then_game_goes_on(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, name: str, rules: str, clocked: bool
) -> None:
    if name == "press-without-move" and not clocked:
        pytest.skip("no clock, no press")
    s, kinds, texts, fen = scenario(name, rules, clocked)
    s.end()
    recs = _run_irregular(capsys, tmp_path, s, rules, clocked, fen)
    irr = irregularities(recs)
    if name == "extra-removal" and not clocked and not irr:
        pytest.xfail("finding F4: without a clock an extra piece taken off is never reported")
    g = find_rules(rules).geometry
    if kinds:
        assert irr, f"no irregularity reported; feed: {recs}"
        assert irr[0]["kind"] in kinds, irr
        for r in irr:
            assert all(g.is_dark(sq) for sq in r["squares"]), r
        if name != "press-without-move":
            assert irr[0]["squares"], irr
    assert [r["move"] for r in moves_of(recs)] == texts, recs


def test_extra_removal_without_clock_reported(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Finding F4 on its own (strict): the board rests 2.5 s on a capture with a black piece
    too many taken off; own pieces taken off the same way are reported, these are not."""
    s, kinds, texts, fen = scenario("extra-removal", "russian", False)
    s.end()
    _save(s, "f4-extra-removal-noclock-russian.jsonl", tmp_path)
    recs = _run_irregular(capsys, tmp_path, s, "russian", False, fen)
    if not irregularities(recs):
        pytest.xfail("F4: extra removal without a clock not reported")
    assert irregularities(recs)[0]["kind"] in kinds
    assert [r["move"] for r in moves_of(recs)] == texts


# --------------------------------------------------------------------------------------------
# Findings that need the referee changed (see /tmp/referee_findings.md)


@pytest.mark.parametrize("clocked", [False])
def test_quick_single_first_capture(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, clocked: bool
) -> None:
    """International, no clock: White plays 34-29; 0.4 s later Black, to capture it with
    23x34, first lifts the captured man on 29 (seed 003 4.16), then jumps 23 -> 34."""
    fen = "W:W34,45:B23,5"
    pos = Position.from_fen("international", fen)
    w = next(m for m in pos.legal_moves() if m.route == (34, 29))
    b = next(m for m in pos.play(w).legal_moves() if m.captured == (29,))
    moves = [w, b]
    log, texts, fens = act_out(
        "international",
        moves,
        seed=3,
        clocked=False,
        style=Style(first_single=True, quick_opponent=True),
        fen=fen,
        quick_guard=False,
    )
    check_game(capsys, tmp_path, "international", log, texts, fens, clocked=False, fen=fen)


ILLEGAL_JUMP: dict[str, tuple[str | None, str, str]] = {  # a man jumps over an empty square
    "russian": (None, "c3", "e5"),
    "brazilian": (None, "c3", "e5"),
    "international": ("W:W33,47:B5,6", "f4", "h6"),
}


def _accepted_case(kind: str, rules: str) -> tuple[str | None, list[tuple[str, str]], str]:
    """(start FEN, the irregular move as (from, to) lifts/places incl. ("", sq) removals,
    the irregularity kind expected)."""
    if kind == "missed-capture":
        fen, quiet, _ = MISSED[rules]
        return fen, [(quiet[0], quiet[1])], "missed-capture"
    if kind == "illegal-move":
        jfen, a, b = ILLEGAL_JUMP[rules]
        return jfen, [(a, b)], "illegal-move"
    fen = CAPTURE2[rules][0]
    short, took = SHORTER[rules]
    return fen, [(short[0], short[-1]), ("", took[0])], "wrong-capture"


ACCEPTED = [
    (k, r)
    for k in ("missed-capture", "illegal-move", "wrong-capture")
    for r in RULES3
    if not (k == "wrong-capture" and r == "russian")
]


@pytest.mark.parametrize("clocked", [True, False], ids=["clock", "noclock"])
@pytest.mark.parametrize("kind,rules", ACCEPTED)
def test_irregular_move_accepted_by_opponent_reply(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, kind: str, rules: str, clocked: bool
) -> None:
    """White makes an irregular move; nobody objects: Black replies and White plays on (000
    5.7: the opponent's next move accepts the position). The irregularity is reported, and the
    game goes on from the board as it stands: Black's reply and White's next move recorded."""
    fen, acts, expected = _accepted_case(kind, rules)
    s = Script(rules, clocked=clocked)
    g = s.g
    pos = Position.from_fen(rules, fen) if fen else Position.start(rules)
    pieces = pos.pieces()
    s.start()
    for a, b in acts:
        if a:
            pieces[g.number(b)] = pieces.pop(g.number(a))
            s.move(a, b)
        else:
            del pieces[g.number(b)]
            s.up(b)
    sensed = Position.from_pieces(rules, Side.BLACK, pieces)
    reply = sensed.legal_moves()[0]
    after = sensed.play(reply)
    again = after.legal_moves()[0]
    _turn(s, "white", clocked)
    s.move(g.algebraic(reply.start), g.algebraic(reply.end))
    for sq in reply.captured:
        s.up(g.algebraic(sq))
    _turn(s, "black", clocked)
    s.move(g.algebraic(again.start), g.algebraic(again.end))
    for sq in again.captured:
        s.up(g.algebraic(sq))
    _turn(s, "white", clocked)
    s.end()
    mode = "clock" if clocked else "noclock"
    _save(s, f"f2-{kind}-accepted-{rules}-{mode}.jsonl", tmp_path)
    recs = _run_irregular(capsys, tmp_path, s, rules, clocked, fen)
    assert irregularities(recs)[0]["kind"] == expected, recs
    got = moves_of(recs)
    assert [r["move"] for r in got][-2:] == [move_text(sensed, reply), move_text(after, again)]
    assert got[-1]["fen"] == after.play(again).fen()


# --------------------------------------------------------------------------------------------
# Unreadable logs: a one-line error, exit 2, no traceback. Run as a user would (subprocess).

BOARDCTL = Path(sys.executable).parent / "boardctl"
GOOD = '{"type": "start", "t": 0}\n'
GARBAGE = {
    "bad-json": GOOD + '{"type": "lift", "t": 1, "square": "c3"\n',
    "unknown-type": GOOD + '{"type": "jump", "t": 1, "square": "c3"}\n',
    "missing-square": GOOD + '{"type": "lift", "t": 1}\n',
    "missing-time": GOOD + '{"type": "lift", "square": "c3"}\n',
    "missing-type": GOOD + '{"t": 1, "square": "c3"}\n',
    "time-backwards": GOOD + '{"type": "lift", "t": 2, "square": "c3"}\n'
    '{"type": "place", "t": 1, "square": "d4"}\n',
    "time-text": '{"type": "start", "t": "soon"}\n',
    "time-nan": GOOD + '{"type": "lift", "t": NaN, "square": "c3"}\n',
    "off-board": GOOD + '{"type": "lift", "t": 1, "square": "k3"}\n',
    "off-board-10x10-name": GOOD + '{"type": "lift", "t": 1, "square": "j10"}\n',
    "number-square": GOOD + '{"type": "lift", "t": 1, "square": 22}\n',
    "bad-side": GOOD + '{"type": "press", "t": 1, "side": "red"}\n',
    "not-object": "[1, 2]\n",
    "not-utf8": '\udcff{"type": "start", "t": 0}\n',
    "binary": "\x00\x01\x02garbage\n",
}
LIGHT = GOOD + '{"type": "lift", "t": 1, "square": "c4"}\n'


def _boardctl(path: Path, rules: str = "russian") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(BOARDCTL), "replay", "--rules", rules, "--format", "feed", str(path)],
        capture_output=True,
        text=True,
        timeout=60,
    )


def _write_raw(path: Path, text: str) -> Path:
    path.write_bytes(text.encode("utf-8", "surrogateescape"))
    return path


@pytest.mark.parametrize(
    "name",
    sorted(GARBAGE),
)
def test_garbage_log_one_line_error(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, name: str
) -> None:
    path = _write_raw(tmp_path / f"{name}.jsonl", GARBAGE[name])
    rc, out, err = replay(capsys, path, "russian", fast=False)
    assert rc == 2, (out, err)
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("boardctl: error: "), err
    assert "line " in lines[0], f"the message should name the line: {lines[0]}"


def test_garbage_subprocess_no_traceback(tmp_path: Path) -> None:
    for name in ("bad-json", "time-backwards", "not-utf8"):
        r = _boardctl(_write_raw(tmp_path / f"{name}.jsonl", GARBAGE[name]))
        assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr
        assert len(r.stderr.strip().splitlines()) == 1, r.stderr


def test_light_square_lift_warned_not_fatal(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """F3, decided: full-matrix boards sense light squares, so a lift there is sensor noise:
    the log is still read (exit 0), but never silently: one warning naming the line."""
    path = _write_raw(tmp_path / "f3-light-square.jsonl", LIGHT)
    rc, out, err = replay(capsys, path, "russian", fast=False)
    assert rc == 0, (rc, out, err)
    warnings = err.strip().splitlines()
    assert len(warnings) == 1 and "c4" in warnings[0] and "line" in warnings[0], err


def test_empty_log(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """An empty log was read: a game with no moves (or a one-line error), never a traceback."""
    path = _write_raw(tmp_path / "empty.jsonl", "")
    rc, out, err = replay(capsys, path, "international", "pdn", fast=False)
    assert "Traceback" not in err
    if rc == 0:
        assert pdn_moves(out) == []
    else:
        assert rc == 2 and len(err.strip().splitlines()) == 1


# --------------------------------------------------------------------------------------------
# More handling: crowning, adjusting, the opponent's touch, own-side pieces knocked over


@pytest.mark.parametrize("clocked", [True, False], ids=["clock", "noclock"])
@pytest.mark.parametrize("rules", RULES3)
def test_crowning_lift_before_commit(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, rules: str, clocked: bool
) -> None:
    """A man reaches the far row; the player lifts it to put the crown on (000 3.6) and sets
    it back before pressing / before the settle time; Black replies; the new king moves."""
    fen = {
        "international": "W:W7,45:B36,39",
        "russian": "W:Wc7,h2:Ba7,h4",
        "brazilian": "W:Wc7,h2:Ba7,h4",
    }[rules]
    pos = Position.from_fen(rules, fen)
    g = find_rules(rules).geometry
    w = next(m for m in pos.legal_moves() if m.promotes)
    p1 = pos.play(w)
    b = p1.legal_moves()[0]
    p2 = p1.play(b)
    k = next(m for m in p2.legal_moves() if m.start == w.end and not m.captured)
    s = Script(rules, clocked=clocked).start()
    s.move(g.algebraic(w.start), g.algebraic(w.end)).up(g.algebraic(w.end), 0.5)
    s.down(g.algebraic(w.end), 0.8)
    _turn(s, "white", clocked)
    s.move(g.algebraic(b.start), g.algebraic(b.end))
    _turn(s, "black", clocked)
    s.move(g.algebraic(k.start), g.algebraic(k.end))
    _turn(s, "white", clocked)
    s.end()
    recs = _run_irregular(capsys, tmp_path, s, rules, clocked, fen)
    assert [r["move"] for r in moves_of(recs)] == [
        move_text(pos, w),
        move_text(p1, b),
        move_text(p2, k),
    ], recs
    assert moves_of(recs)[-1]["fen"] == p2.play(k).fen()
    assert irregularities(recs) == []


@pytest.mark.parametrize("clocked", [True, False], ids=["clock", "noclock"])
@pytest.mark.parametrize("rules", RULES3)
def test_opponent_touch_move_reported(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, rules: str, clocked: bool
) -> None:
    w1, b1, _ = _opening(rules)
    pos1 = Position.start(rules).play(w1)
    g = find_rules(rules).geometry
    other = next(m for m in pos1.legal_moves() if m.start != b1.start)
    s = Script(rules, clocked=clocked).start()
    s.move(*_names(rules, w1))
    _turn(s, "white", clocked)
    s.up(g.algebraic(other.start)).down(g.algebraic(other.start), 0.6).move(*_names(rules, b1))
    _turn(s, "black", clocked)
    s.end()
    recs = _run_irregular(capsys, tmp_path, s, rules, clocked, None)
    assert [r["move"] for r in moves_of(recs)] == [
        move_text(Position.start(rules), w1),
        move_text(pos1, b1),
    ]
    irr = irregularities(recs)
    assert [(r["kind"], r["side"]) for r in irr] == [("touch-move", "black")], irr
    assert g.algebraic(other.start) in irr[0]["squares"]


@pytest.mark.parametrize("rules", RULES3)
def test_own_side_knocked_over_is_board_mismatch(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, rules: str
) -> None:
    w1, b1, w2 = _opening(rules)
    g = find_rules(rules).geometry
    pos0 = Position.start(rules)
    back = sorted(pos0.squares_of(Side.WHITE), key=lambda n: g.coords(n)[1])[:3]
    knocked = [g.algebraic(n) for n in back]
    s = Script(rules).start().move(*_names(rules, w1)).hit("white")
    s.up(knocked[0], 0.3).up(knocked[1], 0.02).up(knocked[2], 0.02).down(_names(rules, w2)[1], 0.1)
    s.idle(3.0).up(_names(rules, w2)[1]).down(knocked[0]).down(knocked[1]).down(knocked[2])
    s.move(*_names(rules, b1)).hit("black").end()
    _save(s, f"f6-own-pieces-knocked-{rules}.jsonl", tmp_path)
    recs = _run_irregular(capsys, tmp_path, s, rules, True, None)
    assert [r["kind"] for r in irregularities(recs)] == ["board-mismatch"]
    assert len(moves_of(recs)) == 2


# --------------------------------------------------------------------------------------------
# Game ends seen through the replay


@pytest.mark.parametrize("rules", RULES3)
def test_last_piece_captured_ends_game(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, rules: str
) -> None:
    fen, _, (route, took) = MISSED[rules]
    fen = fen.replace(",h2", "").replace(",47", "").replace(",h8", "").replace(",5", "")
    s = Script(rules).start().up(route[0]).down(route[-1]).up(took[0]).hit("white").end()
    recs = _run_irregular(capsys, tmp_path, s, rules, True, fen)
    res = [r for r in recs if r["type"] == "result"]
    assert len(moves_of(recs)) == 1
    assert [r["result"] for r in res] == ["2-0" if rules == "international" else "1-0"], recs


@pytest.mark.parametrize("rules", ["russian", "brazilian"])
def test_no_fischer_draw_when_lone_king_is_taken_at_once(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, rules: str
) -> None:
    """White's king b2:g7 takes f6 and leaves itself a lone king against K+2 men that Black
    takes at once with h6:f8. Sudden death 7200 (no increment)."""
    fen = "W:WKb2:Bb6,Kf6,h6,Kg5"
    s = Script(rules).start().up("b2").down("g7").up("f6").hit("white")
    s.up("h6").down("f8").up("g7").hit("black").end()
    _save(s, f"f7-no-fischer-draw-{rules}.jsonl", tmp_path)
    recs = _run_irregular(capsys, tmp_path, s, rules, True, fen)
    assert [r["move"] for r in moves_of(recs)] == ["b2:g7", "h6:f8"], recs
    assert [r["result"] for r in recs if r["type"] == "result"] == ["0-1"]


# --------------------------------------------------------------------------------------------
# Club habits: the opponent takes his captured pieces off after the press; a forgotten press

OPP_REMOVES = {
    "russian": "W:Wc3,h2:Bd4,f6,b8,a5",
    "brazilian": "W:Wc3,h2:Bd4,f6,b8,a5",
    "international": "W:W33,47:B28,29,19,5,6",
}


@pytest.mark.parametrize("left", [1, 2])
@pytest.mark.parametrize("rules", RULES3)
def test_opponent_takes_captured_pieces_off(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, rules: str, left: int
) -> None:
    """White lands and presses with ``left`` captured pieces still on the board (reported:
    incomplete-removal, press refused); Black takes them off himself, then replies."""
    fen = OPP_REMOVES[rules]
    pos = Position.from_fen(rules, fen)
    cap = pos.legal_moves()[0]
    after = pos.play(cap)
    reply = next(m for m in after.legal_moves() if not m.captured)
    g = find_rules(rules).geometry
    s = Script(rules).start().up(g.algebraic(cap.start)).down(g.algebraic(cap.end))
    took = [g.algebraic(n) for n in cap.captured]
    for sq in took[: len(took) - left]:
        s.up(sq)
    s.hit("white")
    for sq in took[len(took) - left :]:
        s.up(sq, 1.0)
    s.move(g.algebraic(reply.start), g.algebraic(reply.end)).hit("black").end()
    recs = _run_irregular(capsys, tmp_path, s, rules, True, fen)
    assert [r["kind"] for r in irregularities(recs)] == ["incomplete-removal"]
    assert [r["move"] for r in moves_of(recs)] == [move_text(pos, cap), move_text(after, reply)]
    assert moves_of(recs)[-1]["fen"] == after.play(reply).fen()


@pytest.mark.parametrize("rules", RULES3)
def test_forgotten_press_then_opponent_moves(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, rules: str
) -> None:
    """White moves and forgets to press; Black moves after 3 s and presses; both recorded."""
    w1, b1, _ = _opening(rules)
    s = Script(rules).start().move(*_names(rules, w1)).idle(3.0)
    s.move(*_names(rules, b1)).hit("black").end()
    recs = _run_irregular(capsys, tmp_path, s, rules, True, None)
    pos = Position.start(rules)
    assert [r["move"] for r in moves_of(recs)] == [move_text(pos, w1), move_text(pos.play(w1), b1)]


# --------------------------------------------------------------------------------------------
# Property: any seed, any mixture of legitimate styles, the game comes out exactly

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


@settings(
    max_examples=15,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    rules=st.sampled_from(RULES3),
    seed=st.integers(0, 10**6),
    clocked=st.booleans(),
    bounce=st.booleans(),
    speed=st.sampled_from([1.0, 0.4]),
)
def test_property_any_mixture_replays_exactly(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    rules: str,
    seed: int,
    clocked: bool,
    bounce: bool,
    speed: float,
) -> None:
    moves = random_game(rules, seed, 24)
    log, texts, fens = act_out(
        rules,
        moves,
        seed=seed,
        clocked=clocked,
        mixed=True,
        bounce=bounce,
        speed=speed,
        interleave=bounce and speed < 1.0,
    )
    check_game(capsys, tmp_path, rules, log, texts, fens, clocked=clocked, pdn=False)


@pytest.mark.parametrize("clocked", [True, False], ids=["clock", "noclock"])
@pytest.mark.parametrize("rules", RULES3)
def test_touching_a_piece_without_a_move_is_no_irregularity(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, rules: str, clocked: bool
) -> None:
    """004 §11: touching a piece that has no legal move has no consequence."""
    pos = Position.start(rules)
    g = find_rules(rules).geometry
    movable = {m.start for m in pos.legal_moves()}
    still = next(n for n in sorted(pos.squares_of(Side.WHITE)) if n not in movable)
    w1 = pos.legal_moves()[0]
    s = Script(rules, clocked=clocked).start()
    s.up(g.algebraic(still)).down(g.algebraic(still), 0.6).move(*_names(rules, w1))
    _turn(s, "white", clocked)
    s.end()
    recs = _run_irregular(capsys, tmp_path, s, rules, clocked, None)
    assert irregularities(recs) == []
    assert [r["move"] for r in moves_of(recs)] == [move_text(pos, w1)]


def test_two_moves_accepted_by_reply(capsys: pytest.CaptureFixture[str]) -> None:
    path = DATA / "f2-two-moves-accepted-russian-noclock.jsonl"
    rc, out, err = replay(capsys, path, "russian")
    recs = feed(out)
    assert rc == 0
    assert [r["kind"] for r in irregularities(recs)][:1] == ["two-moves"]
    assert moves_of(recs)[-1]["move"] == "f6-e5"
    pieces = Position.start("russian").pieces()
    g = find_rules("russian").geometry
    for a, b in (("c3", "d4"), ("e3", "f4"), ("f6", "e5")):
        pieces[g.number(b)] = pieces.pop(g.number(a))
    assert moves_of(recs)[-1]["fen"] == Position.from_pieces("russian", Side.WHITE, pieces).fen()


@pytest.mark.parametrize("clocked", [True, False], ids=["clock", "noclock"])
def test_single_captured_man_lifted_long_before_the_jump(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, clocked: bool
) -> None:
    """003 4.16 with a 3 s think between taking the man off and jumping: no irregularity
    (without a clock the board rests meanwhile on a position that is no legal result)."""
    fen = "W:W33,47:B28,5"
    s = Script("international", clocked=clocked).start().up("e5").idle(3.0)
    s.up("f4").down("d6")
    _turn(s, "white", clocked)
    s.end()
    recs = _run_irregular(capsys, tmp_path, s, "international", clocked, fen)
    assert irregularities(recs) == []
    assert [r["move"] for r in moves_of(recs)] == ["33x22"]


def test_replay_feed_has_snapshots_like_the_serial_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """CONTRACT.md: the feed carries a full-state snapshot now and then; replay --format feed
    prints the lines "as the serial line would carry them" (the service: every 10 s)."""
    rules, moves = real_game("international-world-championship-2003.pdn", 0)
    log, texts, fens = act_out(rules, moves[:30], seed=5, clocked=True, mixed=True)
    path = log.write(tmp_path / "snap.jsonl")
    rc, out, err = replay(capsys, path, rules, "feed", TC)
    assert rc == 0
    assert any(r["type"] == "snapshot" for r in feed(out))


def test_button_bounce_pause_and_fischer_clock(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Each press bounces (a second press 3-4 ms later), Black presses before the game, and
    the arbiter pauses 10 s in the middle of Black's move: the clocks still add up (300+5)."""
    s = Script("russian").start().hit("black", 0.5).move("c3", "d4").hit("white", 0.5)
    s.hit("white", 0.003).up("f6", 1.0)
    s.raw("pause", dt=0.5)
    s.idle(10.0).raw("resume", dt=0.0)
    s.down("e5", 0.5).hit("black", 0.5).hit("black", 0.004).end()
    path = s.write(tmp_path / "bounce.jsonl")
    rc, out, err = replay(capsys, path, "russian", "feed", "300+5")
    assert rc == 0, err
    recs = feed(out)
    assert irregularities(recs) == []
    got = moves_of(recs)
    assert [r["move"] for r in got] == ["c3-d4", "f6-e5"]
    # White: 1.8 s used + 5; Black: 1.503 + 1.0 s used (the 10 s pause not counted) + 5
    assert got[0]["clock"] == pytest.approx({"white": 303.2, "black": 300.0}, abs=0.01)
    assert got[1]["clock"] == pytest.approx({"white": 303.2, "black": 302.497}, abs=0.01)


def test_snapshot_after_accepted_position_is_self_consistent(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """A reader joining late replays the snapshot's start_fen and moves: that must give the
    snapshot's fen, also after an illegal king move the opponent accepted by replying."""
    from firmware.notation import parse_move

    fen = "W:WKa1,b2,h2:Bh8,a7"
    s = Script("russian").start().move("a1", "c3").hit("white").move("a7", "b6").hit("black")
    s.move("c3", "f6").hit("white").end()
    _save(s, "f9-snapshot-after-accepted.jsonl", tmp_path)
    recs = _run_irregular(capsys, tmp_path, s, "russian", True, fen)
    assert [r["move"] for r in moves_of(recs)] == ["a7-b6", "c3-f6"]
    snaps = [r for r in recs if r["type"] == "snapshot"]
    assert snaps
    for snap in snaps:
        pos = Position.from_fen("russian", snap["start_fen"])
        for m in snap["moves"]:
            pos = pos.play(parse_move(pos, m["move"]))
        assert pos.fen() == snap["fen"]


@pytest.mark.parametrize("clocked", [True, False], ids=["clock", "noclock"])
@pytest.mark.parametrize(
    "rules,fen,illegal,reply,fly",
    [
        ("russian", "W:WKa1,b2,h2:Bh8,a7", ("a1", "c3"), ("a7", "b6"), ("c3", "f6")),
        ("international", "W:WK46,41,50:B16,5", ("a1", "c3"), ("a7", "b6"), ("c3", "g7")),
    ],
)
def test_king_kept_through_accepted_illegal_move(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    rules: str,
    fen: str,
    illegal: tuple[str, str],
    reply: tuple[str, str],
    fly: tuple[str, str],
    clocked: bool,
) -> None:
    """A king jumps its own man (illegal); the opponent replies (accepts); the piece on the
    new square is still a king and flies on. The offender moving again is no acceptance."""
    s = Script(rules, clocked=clocked).start().move(*illegal)
    _turn(s, "white", clocked)
    s.move(*reply)
    _turn(s, "black", clocked)
    s.move(*fly)
    _turn(s, "white", clocked)
    s.end()
    recs = _run_irregular(capsys, tmp_path, s, rules, clocked, fen)
    g = find_rules(rules).geometry
    assert [r["kind"] for r in irregularities(recs)] == ["illegal-move"]
    got = moves_of(recs)
    assert len(got) == 2
    assert (
        got[-1]["fen"]
        .split(":")[1]
        .startswith("WK" + (fly[1] if rules == "russian" else str(g.number(fly[1]))))
    )
    # the offender plays on instead: nothing is accepted, nothing recorded
    s = Script(rules, clocked=clocked).start().move(*illegal)
    _turn(s, "white", clocked)
    s.move(*fly)
    _turn(s, "white", clocked)
    s.end()
    recs = _run_irregular(capsys, tmp_path, s, rules, clocked, fen)
    assert moves_of(recs) == []
    assert irregularities(recs)[0]["kind"] == "illegal-move"


def test_knock_within_settle_is_not_two_plies(capsys: pytest.CaptureFixture[str]) -> None:
    """International, no clock: White plays 24-20 (via g7, then adjusts it on i7); 0.28 s
    later a sleeve knocks off e5 (White) and e7 (Black) for 3 s; they are put back; Black
    plays 10-15. The occupancy at the knock fits "28-23 18x20" if colours are ignored, but
    the piece on i7 is the one White's hand carried there from h6."""
    fen = "W:W24,28,31,33,39,40,42,43,45,46,47,48,49,50:B2,3,4,8,10,11,12,16,18,21"
    path = DATA / "f10-knock-within-settle-international.jsonl"
    rc, out, err = replay(capsys, path, "international", "feed", None, fen)
    assert rc == 0
    assert [r["move"] for r in moves_of(feed(out))] == ["24-20", "10-15"]


# --------------------------------------------------------------------------------------------
# Irregularities put right at once, injected at random into random games: never lose the game


def _inject(log: Log, pos: Position, rng: random.Random, clocked: bool) -> str | None:
    """An irregularity put right at once (or nothing); its name."""
    kind = rng.choice(
        ["knock", "wrongside", "pwm" if clocked else "knock", "illegal", "touch-immobile"]
    )
    occ = set(pos.occupied())
    empties = [n for n in log.g.squares if n not in occ]
    mover = pos.turn
    if kind == "knock":
        mine = sorted(pos.occupied())
        ks = rng.sample(mine, min(2, len(mine)))
        for k in ks:
            log.lift(k, 0.05)
        log.wait(2.0, 3.0)
        for k in ks:
            log.place(k)
    elif kind == "wrongside":
        other = pos.with_turn(mover.other).legal_moves()
        quiet = [m for m in other if not m.captured]
        if not quiet:
            return None
        m = rng.choice(quiet)
        log.lift(m.start)
        log.place(m.end)
        if clocked:
            log.press(mover)
        else:
            log.wait(2.0, 2.5)
        log.lift(m.end)
        log.place(m.start)
    elif kind == "pwm":
        log.press(mover)
    elif kind == "illegal":
        mine = sorted(pos.squares_of(mover))
        a = rng.choice(mine)
        b = rng.choice(empties)
        if any(m.start == a and m.end == b for m in pos.legal_moves()):
            return None
        log.lift(a)
        log.place(b)
        if clocked:
            log.press(mover)
        else:
            log.wait(2.0, 2.5)
        log.lift(b)
        log.place(a)
    elif kind == "touch-immobile":
        movable = {m.start for m in pos.legal_moves()}
        still = [n for n in pos.squares_of(mover) if n not in movable]
        if not still:
            return None
        a = rng.choice(sorted(still))
        log.lift(a)
        log.place(a)
    log.wait(0.3, 1.0)
    return kind


@pytest.mark.parametrize("clocked", [True, False], ids=["clock", "noclock"])
@pytest.mark.parametrize("rules", RULES3)
@pytest.mark.parametrize("seed", [0, 1])
def test_injected_irregularities_never_lose_the_game(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, rules: str, seed: int, clocked: bool
) -> None:
    rs = find_rules(rules)
    moves = random_game(rules, 500 + seed, 40)
    rng = random.Random(seed)
    log = Log(rs, seed=seed, clocked=clocked)
    log.start()
    pos = Position.start(rs)
    texts, fens = [], []
    for mv in moves:
        st = random_style(rng, rs)
        if rng.random() < 0.2:
            _inject(log, pos, rng, clocked)
        texts.append(move_text(pos, mv))
        after = log.perform(pos, mv, st)
        fens.append(after.fen())
        log.commit(pos, quick=st.quick_opponent)
        pos = after
    log.wait(3.0)
    log.raw("pause", dt=0.0)
    path = log.write(tmp_path / "injected.jsonl")
    rc, out, err = replay(capsys, path, rules, "feed", TC if clocked else None)
    assert rc == 0, err
    got = moves_of(feed(out))
    assert [r["move"] for r in got] == texts
    assert [r["fen"] for r in got] == fens
