"""Second adversarial pass on the referee, through ``boardctl replay`` only (CONTRACT.md).

Handling written from what a person at the board does, not from the referee's code: a flying
king set down on several squares of the same line, lifted again, landing far behind the last
piece, captured pieces taken off while the king is still in the hand (seed 000 4.9, 4.11;
003 4.16), both hands at the same instant (identical ``t``, any order within it), the press and
the opponent's first lift in one sensor scan (004 §32), logs without ``start`` or with the
pieces set up before it, pause in the middle of a move, presses by the wrong side and twice,
j'adoube in the opponent's time, a flag falling mid-move (004 §32), hours of thought and long
decimals, a man moved backwards or like a king, Russian promotion in a capture (000 4.14),
Brazilian majority captures told apart by the pieces taken (000 4.16), international64 and home.

Expected moves come from the rules core (firmware.rules.position, firmware.rules.notation), named
by their
squares; the logs are written to tests/data/adversarial2/ with ``ADVERSARIAL2_SAVE=1``.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from boardctl.cli import main
from firmware.rules.notation import move_text
from firmware.rules.position import Position
from firmware.rules.sets import find_rules

DATA = Path(__file__).parents[1] / "data" / "adversarial2"


def L(t: float, sq: str) -> dict[str, Any]:
    return {"type": "lift", "t": t, "square": sq}


def P(t: float, sq: str) -> dict[str, Any]:
    return {"type": "place", "t": t, "square": sq}


def B(t: float, side: str) -> dict[str, Any]:
    return {"type": "press", "t": t, "side": side}


def S(t: float) -> dict[str, Any]:
    return {"type": "start", "t": t}


def expected(rules: str, fen: str | None, plies: list[tuple[str, ...]]) -> list[str]:
    """PDN texts of the moves named by squares (start, end, then the captured squares in any
    order), played from ``fen``: computed by the rules core, never by the referee."""
    rs = find_rules(rules)
    pos = Position.from_fen(rs, fen) if fen else Position.start(rs)
    alg = rs.geometry.algebraic
    out = []
    for start, end, *taken in plies:
        found = [
            m
            for m in pos.legal_moves()
            if alg(m.start) == start and alg(m.end) == end
            and {alg(c) for c in m.captured} == set(taken)
        ]
        assert len(found) >= 1, (start, end, taken, pos.fen())
        out.append(move_text(pos, found[0]))
        pos = pos.play(found[0])
    return out


def replay(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    name: str,
    events: list[dict[str, Any]],
    rules: str,
    fen: str | None = None,
    tc: str | None = None,
    fmt: str = "feed",
) -> list[dict[str, Any]]:
    text = "".join(json.dumps(e) + "\n" for e in events)
    path = tmp_path / f"{name}.jsonl"
    path.write_text(text)
    if os.environ.get("ADVERSARIAL2_SAVE"):
        (DATA / f"{name}.jsonl").write_text(text)
    argv = ["replay", "--rules", rules, "--format", fmt]
    if tc:
        argv += ["--time-control", tc]
    if fen:
        argv += ["--fen", fen]
    capsys.readouterr()
    code = main([*argv, str(path)])
    out = capsys.readouterr()
    assert code == 0, out.err
    assert "Traceback" not in out.err
    if fmt == "pdn":
        return [{"pdn": out.out}]
    return [json.loads(line) for line in out.out.splitlines() if line.strip()]


def moves_of(recs: list[dict[str, Any]]) -> list[str]:
    return [r["move"] for r in recs if r["type"] == "move"]


def kinds_of(recs: list[dict[str, Any]]) -> list[str]:
    return [r["kind"] for r in recs if r["type"] == "irregularity"]


def clocks_of(recs: list[dict[str, Any]]) -> list[dict[str, float]]:
    return [r["clock"] for r in recs if r["type"] == "move"]


# --------------------------------------------------------------------------------------------
# Flying kings (international, 003 4.9-4.11, 4.16)

F1 = "W:WK46:B37,29,19,12,5"
F2 = "W:WK50:B44,33,24,13,32,22,5"
KING_CASES = [
    # set down on the same line several times, lifted again, landing far behind g7
    ("king-same-line-setdowns", F1, [
        L(1, "a1"), P(1.2, "b2"), L(1.3, "b2"), P(1.5, "d4"), L(1.6, "d4"), P(1.8, "e5"),
        L(1.9, "e5"), P(2, "f6"), L(2.1, "f6"), P(2.3, "h8"), L(2.4, "h8"), P(2.6, "i9"),
        L(3, "c3"), L(3.2, "g7")], ("a1", "i9", "c3", "g7")),
    # set down on the other branch's square (h4), then changed to b10
    ("king-changed-branch", F1, [
        L(1, "a1"), P(1.3, "e5"), L(1.5, "e5"), P(1.7, "f6"), L(1.9, "f6"), P(2.1, "h4"),
        L(2.5, "h4"), P(2.9, "b10"), L(3.2, "c3"), L(3.4, "d8")], ("a1", "b10", "c3", "d8")),
    # captured pieces off in reverse order while the king is still in the hand
    ("king-removal-in-hand", F1, [
        L(1, "a1"), P(1.3, "d4"), L(1.5, "d4"), P(1.7, "e5"), L(1.9, "e5"), L(2.0, "g7"),
        L(2.1, "c3"), P(2.5, "i9")], ("a1", "i9", "c3", "g7")),
    # both hands: the two captured men off at the same instant, then the landing
    ("king-two-hands-same-t", F1, [
        L(1, "a1"), P(1.3, "j2"), L(1.6, "g5"), L(1.6, "c3")], ("a1", "j2", "c3", "g5")),
    # landing and a removal in the same scan, written before the other removal
    ("king-place-remove-same-t", F1, [
        L(1, "a1"), L(1.3, "g5"), P(1.3, "j2"), L(1.3, "c3")], ("a1", "j2", "c3", "g5")),
    # three pieces, same end region: told apart by the pieces off (d4 vs d6)
    ("king-three-landings", F2, [
        L(1, "i1"), P(1.2, "g3"), L(1.4, "g3"), P(1.6, "e5"), L(1.8, "e5"), P(2, "c3"),
        L(2.2, "h2"), L(2.3, "f4"), L(2.4, "d4")], ("i1", "c3", "h2", "f4", "d4")),
    ("king-first-captured-off-first", F2, [
        L(0.5, "h2"), L(1, "i1"), P(1.2, "a9"), L(2.3, "f4"), L(2.4, "d6")],
     ("i1", "a9", "h2", "f4", "d6")),
    # 003 4.16 with a king; a king set back on its own square first
    ("king-416", "W:WK46:B37,5", [L(0.5, "c3"), L(1, "a1"), P(1.5, "e5")], ("a1", "e5", "c3")),
    ("king-back-on-start-then-capture", "W:WK46:B37,5", [
        L(1, "a1"), P(1.3, "a1"), L(2, "a1"), P(2.5, "e5"), L(2.7, "c3")], ("a1", "e5", "c3")),
]


@pytest.mark.parametrize("clock", [True, False], ids=["clock", "noclock"])
@pytest.mark.parametrize(
    ("name", "fen", "events", "move"), KING_CASES, ids=[c[0] for c in KING_CASES]
)
def test_flying_king_handling(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    name: str,
    fen: str,
    events: list[dict[str, Any]],
    move: tuple[str, ...],
    clock: bool,
) -> None:
    ev = [S(0), *events, B(events[-1]["t"] + 0.4, "white")] if clock else events
    recs = replay(capsys, tmp_path, f"{name}-{'clock' if clock else 'noclock'}", ev,
                  "international", fen, "300" if clock else None)
    assert moves_of(recs) == expected("international", fen, [move])
    assert kinds_of(recs) == []


# --------------------------------------------------------------------------------------------
# Same instants, starts, presses, pauses (russian unless said)


def test_press_and_opponent_lift_same_instant_lift_written_first(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Finding G1 (fixed): the opponent's lift written before the press of the same ``t``
    was an extra removal, the press refused and the clocks wrong."""
    ev = [S(0), L(2, "c3"), P(2.5, "d4"), L(3, "f6"), B(3, "white"), P(3.5, "e5"), B(4, "black")]
    recs = replay(capsys, tmp_path, "press-opponent-lift-same-t", ev, "russian", tc="300")
    assert moves_of(recs) == expected("russian", None, [("c3", "d4"), ("f6", "e5")])
    assert kinds_of(recs) == []
    assert clocks_of(recs)[-1] == {"white": 297.0, "black": 299.0}


def test_press_and_opponent_king_lift_same_instant_keeps_the_king(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    fen = "W:Wc3,e1:BKh8,a7"
    ev = [S(0), L(2, "c3"), P(2.5, "b4"), L(3, "h8"), B(3, "white"), P(3.5, "d4"), B(4, "black"),
          L(5, "e1"), P(5.5, "d2"), B(6, "white"), L(7, "d4"), P(7.5, "h8"), B(8, "black")]
    recs = replay(capsys, tmp_path, "press-opponent-king-lift-same-t", ev, "russian", fen, "300")
    assert moves_of(recs) == expected(
        "russian", fen, [("c3", "b4"), ("h8", "d4"), ("e1", "d2"), ("d4", "h8")])
    assert kinds_of(recs) == []


def test_press_written_before_the_last_place_same_instant(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Finding G2 (fixed): the press written before the set-down of the same ``t`` was refused
    (press-without-move), White's clock ran on and the next press committed two plies."""
    ev = [S(0), L(2, "c3"), B(2.5, "white"), P(2.5, "d4"), L(4, "f6"), P(4.5, "e5"),
          B(5, "black")]
    recs = replay(capsys, tmp_path, "press-before-place-same-t", ev, "russian", tc="300")
    assert moves_of(recs) == expected("russian", None, [("c3", "d4"), ("f6", "e5")])
    assert kinds_of(recs) == []
    assert clocks_of(recs) == [{"white": 297.5, "black": 300.0}, {"white": 297.5, "black": 297.5}]


def test_press_then_opponent_lift_same_instant(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    ev = [S(0), L(2, "c3"), P(2.5, "d4"), B(3, "white"), L(3, "f6"), P(3.5, "e5"), B(4, "black")]
    recs = replay(capsys, tmp_path, "press-then-opponent-lift-same-t", ev, "russian", tc="300")
    assert moves_of(recs) == expected("russian", None, [("c3", "d4"), ("f6", "e5")])
    assert clocks_of(recs)[-1] == {"white": 297.0, "black": 299.0}


OPENING: list[tuple[str, ...]] = [("c3", "d4"), ("f6", "e5")]
MISC = [
    ("no-start-presses", "300", [L(1, "c3"), P(1.5, "d4"), B(2, "white"), L(3, "f6"),
                                 P(3.5, "e5"), B(4, "black")]),
    ("no-start-no-clock", None, [L(1, "c3"), P(1.5, "d4"), B(2, "white"), L(3, "f6"),
                                 P(3.5, "e5"), B(4, "black")]),
    ("jadoube-before-start", "300", [L(0.5, "c3"), P(0.7, "c3"), L(0.9, "f6"), P(1.0, "f6"),
                                     S(2), L(3, "c3"), P(3.5, "d4"), B(4, "white"),
                                     L(5, "f6"), P(5.5, "e5"), B(6, "black")]),
    ("pause-mid-move", "300", [S(0), L(1, "c3"), {"type": "pause", "t": 1.2},
                               {"type": "resume", "t": 30}, P(31, "d4"), B(32, "white"),
                               L(33, "f6"), P(33.5, "e5"), B(34, "black")]),
    ("wrong-side-press", "300", [S(0), B(1, "black"), L(2, "c3"), P(2.5, "d4"), B(3, "white"),
                                 L(4, "f6"), P(4.5, "e5"), B(5, "black")]),
    ("double-press", "300", [S(0), L(2, "c3"), P(2.5, "d4"), B(3, "white"), B(3.05, "white"),
                             L(4, "f6"), P(4.5, "e5"), B(5, "black"), B(5, "black")]),
    ("jadoube-in-opponent-time", "300", [S(0), L(2, "c3"), P(2.5, "d4"), B(3, "white"),
                                         L(3.5, "d4"), P(3.7, "d4"), L(4, "f6"), P(4.5, "e5"),
                                         B(5, "black")]),
    ("jadoube-in-opponent-time-noclock", None, [L(2, "c3"), P(2.5, "d4"), L(5.5, "d4"),
                                                P(5.7, "d4"), L(8, "f6"), P(8.5, "e5")]),
    ("hours-and-decimals", "10800", [
        # Each first move within 30 minutes of the player's own clock (004 §32 lateness).
        S(1e5 + 0.123456789012), L(1e5 + 1700.000000001, "c3"), P(1e5 + 1700.123456789, "d4"),
        B(1e5 + 1700.3333333333, "white"), L(1e5 + 3400.1, "f6"), P(1e5 + 3400.2, "e5"),
        B(1e5 + 3400.3000001, "black")]),
]


@pytest.mark.parametrize(("name", "tc", "events"), MISC, ids=[c[0] for c in MISC])
def test_handling_around_the_move(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    name: str,
    tc: str | None,
    events: list[dict[str, Any]],
) -> None:
    recs = replay(capsys, tmp_path, name, events, "russian", tc=tc)
    assert moves_of(recs) == expected("russian", None, OPENING)
    assert kinds_of(recs) == []


def test_setup_from_empty_board_then_start(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    rs = find_rules("russian")
    ev: list[dict[str, Any]] = []
    t = 0.0
    for n in sorted(Position.start(rs).occupied()):
        t += 0.7
        ev.append(P(t, rs.geometry.algebraic(n)))
    ev += [S(t + 5), L(t + 6, "c3"), P(t + 6.5, "d4"), B(t + 7, "white"), L(t + 8, "f6"),
           P(t + 8.5, "e5"), B(t + 9, "black")]
    # the board was empty: the log's squares say so (the start position comes from the FEN)
    recs = replay(capsys, tmp_path, "setup-then-start", ev, "russian", tc="300")
    assert moves_of(recs) == expected("russian", None, OPENING)
    assert clocks_of(recs)[-1] == {"white": 298.0, "black": 298.0}


def test_flag_falls_mid_move(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    ev = [S(0), L(10, "c3"), P(70, "d4"), B(71, "white"), L(72, "f6"), P(73, "e5"),
          B(74, "black")]
    recs = replay(capsys, tmp_path, "flag-mid-move", ev, "russian", tc="60")
    assert moves_of(recs) == []
    results = [r for r in recs if r["type"] == "result"]
    assert [(r["result"], r.get("at")) for r in results] == [("0-1", 60.0)]
    pdn = replay(capsys, tmp_path, "flag-mid-move", ev, "russian", tc="60", fmt="pdn")[0]["pdn"]
    assert '[Result "0-1"]' in pdn and "c3-d4" not in pdn


# --------------------------------------------------------------------------------------------
# Wrong moves, promotion, majority


def test_man_backwards_and_man_like_king_then_put_right(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    fen = "W:Wd4:Bh8"
    for name, wrong in (("man-backwards", "c3"), ("man-like-king", "f6")):
        ev = [L(1, "d4"), P(1.5, wrong), L(4, wrong), P(4.5, "e5"), L(7, "h8"), P(7.5, "g7")]
        recs = replay(capsys, tmp_path, name, ev, "russian", fen)
        assert kinds_of(recs) == ["illegal-move"]
        assert moves_of(recs) == expected("russian", fen, [("d4", "e5"), ("h8", "g7")])


def test_russian_promotion_mid_capture_set_down_on_crowning_square(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    fen = "W:Wd6:Be7,g7,h4"
    ev = [S(0), L(1, "d6"), P(1.3, "f8"), L(1.6, "e7"), L(2, "f8"), P(2.3, "h6"), L(2.6, "g7"),
          B(3, "white"), L(4, "h4"), P(4.2, "g3"), B(5, "black"), L(6, "h6"), P(6.5, "c1"),
          B(7, "white")]
    recs = replay(capsys, tmp_path, "russian-promotion-mid-capture", ev, "russian", fen, "300")
    assert moves_of(recs) == expected(
        "russian", fen, [("d6", "h6", "e7", "g7"), ("h4", "g3"), ("h6", "c1")])
    assert kinds_of(recs) == []


BR = "W:Wc3:Bb4,b6,d4,f6,d6,h6,h8"


@pytest.mark.parametrize(
    ("name", "events", "move"),
    [
        ("br-c3g7", [L(1, "c3"), P(2, "g7"), L(2.2, "f6"), L(2.4, "d6"), L(2.5, "b6"),
                     L(2.6, "b4")], ("c3", "g7", "b4", "b6", "d6", "f6")),
        ("br-loop-landings", [L(1, "c3"), P(1.2, "a5"), L(1.3, "a5"), P(1.5, "c7"),
                              L(1.6, "c7"), P(1.8, "e5"), L(1.9, "e5"), P(2, "c3"),
                              L(2.2, "d4"), L(2.4, "d6"), L(2.5, "b6"), L(2.6, "b4")],
         ("c3", "c3", "b4", "b6", "d6", "d4")),
        ("br-loop-in-hand", [L(1, "c3"), L(1.5, "b4"), L(1.6, "b6"), L(1.7, "d6"),
                             L(1.8, "d4"), P(2.4, "c3")], ("c3", "c3", "b4", "b6", "d6", "d4")),
    ],
)
@pytest.mark.parametrize("clock", [True, False], ids=["clock", "noclock"])
def test_brazilian_equal_majority_told_by_pieces_taken(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    name: str,
    events: list[dict[str, Any]],
    move: tuple[str, ...],
    clock: bool,
) -> None:
    ev = [S(0), *events, B(events[-1]["t"] + 0.4, "white")] if clock else events
    recs = replay(capsys, tmp_path, f"{name}-{'clock' if clock else 'noclock'}", ev,
                  "brazilian", BR, "300" if clock else None)
    assert moves_of(recs) == expected("brazilian", BR, [move])
    assert kinds_of(recs) == []


@pytest.mark.parametrize("rules", ["international64", "home"])
def test_small_rule_sets_opening_capture(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, rules: str
) -> None:
    ev = [S(0), L(1, "c3"), P(1.5, "d4"), B(2, "white"), L(3, "f6"), P(3.5, "e5"),
          B(4, "black"), L(5, "d4"), P(5.5, "f6"), L(5.7, "e5"), B(6, "white")]
    recs = replay(capsys, tmp_path, f"opening-{rules}", ev, rules, tc="300")
    assert moves_of(recs) == expected(rules, None, [*OPENING, ("d4", "f6", "e5")])
    assert kinds_of(recs) == []


def test_416_lift_of_the_man_just_moved_at_the_press_instant(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Finding G1b (fixed): Black takes off White's man just moved (003 4.16) in the scan of
    White's press, the lift written first: the press was refused and White's clock ran on."""
    fen = "W:Wc3,a1:Bc5,j10"
    ev = [S(0), L(1, "c3"), P(1.5, "d4"), L(2, "d4"), B(2, "white"), L(3, "c5"), P(3.5, "e3"),
          B(4, "black")]
    recs = replay(capsys, tmp_path, "416-lift-at-press-instant", ev, "international", fen, "300")
    assert moves_of(recs) == expected("international", fen, [("c3", "d4"), ("c5", "e3", "d4")])
    assert kinds_of(recs) == []
    assert clocks_of(recs) == [{"white": 298.0, "black": 300.0}, {"white": 298.0, "black": 298.0}]


def test_zero_length_bounce_at_one_instant(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    ev = [S(0), L(1, "c3"), P(1, "c3"), L(1, "c3"), P(1.5, "d4"), L(1.5, "d4"), P(1.5, "d4"),
          B(2, "white"), L(3, "f6"), P(3.5, "e5"), B(4, "black")]
    recs = replay(capsys, tmp_path, "zero-length-bounce", ev, "russian", tc="300")
    assert moves_of(recs) == expected("russian", None, OPENING)
    assert kinds_of(recs) == []


def test_setup_from_the_box_shows_the_missing_square(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Finding G3 (fixed): a log that sets the men up on an empty board before ``start`` was
    read as places on a full board; a man put on d4 instead of c3 lit d4 only, not c3."""
    rs = find_rules("russian")
    ev: list[dict[str, Any]] = []
    t = 0.0
    for n in sorted(Position.start(rs).occupied()):
        t += 0.5
        name = rs.geometry.algebraic(n)
        ev.append(P(t, "d4" if name == "c3" else name))
    ev += [S(t + 3), L(t + 4, "d4"), P(t + 4.5, "c3"), L(t + 8, "c3"), P(t + 8.5, "d4"),
           B(t + 9, "white"), L(t + 10, "f6"), P(t + 10.5, "e5"), B(t + 11, "black")]
    recs = replay(capsys, tmp_path, "setup-from-box-wrong-square", ev, "russian", tc="300")
    setups = [r for r in recs if r["type"] == "irregularity"]
    assert [r["kind"] for r in setups] == ["setup"]  # said once, not again at the start
    assert setups[-1]["leds"] == {"c3": "restore", "d4": "wrong"}
    assert moves_of(recs) == expected("russian", None, OPENING)
