"""Adversarial acceptance tests of the referee through ``boardctl replay``: unreadable
logs (one line, exit 2), crowning and adjusting, the opponent's touch, pieces knocked
over, game ends, club habits (tests/adversarial_replay.py drives the replay)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from support.adversarial_handling import Script
from support.adversarial_replay import (
    MISSED,
    RULES3,
    _names,
    _opening,
    _run_irregular,
    _save,
    _turn,
    irregularities,
    moves_of,
    pdn_moves,
    replay,
)

from firmware.rules.notation import move_text
from firmware.rules.position import Position
from firmware.rules.sets import Side, find_rules

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


