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
        out += [(rules, fen, i) for i in range(n)]
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
    for k, name in enumerate(sorted(STYLES)):
        log, texts, fens = act_out(
            rules, [move], seed=k, clocked=clocked, style=STYLES[name], fen=fen
        )
        try:
            check_game(
                capsys, tmp_path, rules, log, texts, fens, clocked=clocked, fen=fen,
                name=f"{name}.jsonl",
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


def scenario(name: str, rules: str, clocked: bool) -> tuple[Script, set[str], list[str], str | None]:
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
        # the man jumps two rows over an empty square, then is put back
        (f0, r0), (f1, r1) = g.coords(w1.start), g.coords(w1.end)
        far = g.algebraic(g.by_coords[(f0 + 2 * (f1 - f0), r0 + 2)]) if hasattr(g, "by_coords") \
            else s.g.algebraic(s.by_coords[(f0 + 2 * (f1 - f0), r0 + 2)])
        s.start().move(wa, far)
        _turn(s, "white", clocked)
        s.move(far, wa).move(wa, wb)
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
        # after White's move three of White's back pieces are knocked off, one onto another
        # empty square, and put back; then Black moves
        back = sorted(pos0.squares_of(Side.WHITE), key=lambda n: g.coords(n)[1])[:3]
        knocked = [g.algebraic(n) for n in back]
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
    g = find_rules(rules).geometry
    if kinds:
        assert irr, f"no irregularity reported; feed: {recs}"
        assert irr[0]["kind"] in kinds, irr
        for r in irr:
            assert all(g.is_dark(sq) for sq in r["squares"]), r
        if name != "press-without-move":
            assert irr[0]["squares"], irr
    assert [r["move"] for r in moves_of(recs)] == texts, recs
