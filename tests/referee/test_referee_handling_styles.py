"""Adversarial acceptance tests of the referee, through ``boardctl replay`` only (CONTRACT.md).

Event logs are acted out by tests/adversarial_handling.py in handling styles written without
looking at the referee's handling code: captured pieces off in hand or after, in capture order,
reverse or random, slowly; landings set down or not (seed 000 4.9); flying kings landing far;
slides over squares; contact bounce; a move changed before the commit; the single captured man
lifted before the jump (seed 003 4.16); commits by press, by settling (1.5 s) or by the opponent
starting to move. Expected moves and positions come from the rules core (firmware.rules.position,
firmware.rules.notation), never from the referee.
"""


from __future__ import annotations

from pathlib import Path

import pytest
from support.adversarial_handling import Script, Style
from support.adversarial_replay import (
    DATA,
    RULES3,
    TC,
    _names,
    _run_irregular,
    _save,
    _turn,
    act_out,
    check_game,
    feed,
    irregularities,
    moves_of,
    random_game,
    real_game,
    replay,
)

from firmware.rules.notation import move_text
from firmware.rules.position import Position
from firmware.rules.sets import Side, find_rules

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
    from firmware.rules.notation import parse_move

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


