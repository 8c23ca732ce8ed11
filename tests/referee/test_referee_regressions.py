"""Regression tests for the adversarial tester's findings on the referee (F2-F7).

F2: the opponent's next move accepts an uncorrected irregular position (000 5.7).
F3: a piece on a light square is never silent (003 5.3); a lift from an empty light square is
    noise, which ``boardctl replay`` mentions once.
F4: without a clock, a piece taken off with a capture but not captured is reported.
F5: an off-board square's error names the line.
F6: several pieces of one side knocked over at once are a board mismatch (000 5.3).
F7: the Russian 7.2.9 immediate draw stops when the stronger side takes the lone king at once.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from support.records_helpers import FeedShapedSession as BoardSession  # records as feed lines
from test_referee_irregular import feed, kinds, moves

from boardctl.commands.replay import replay_lines
from firmware.errors import EventLogError
from firmware.formats.events import NS, Start
from firmware.rules.game import Game
from firmware.rules.notation import parse_move
from firmware.rules.position import Position
from firmware.rules.sets import Side


def session(rules: str, fen: str | None, tc: str | None, clocked: bool) -> BoardSession:
    s = BoardSession(rules, tc, fen, clocked=clocked)
    s.handle(Start(0))
    return s


def run(s: BoardSession, text: str, end: float) -> list[dict[str, Any]]:
    out = feed(s, text)
    return out + s.tick(round(end * NS)) + s.finish(round(end * NS))


def _fen(rules: str, fen: str) -> str:
    return Position.from_fen(rules, fen).fen()


def _press(side: str, t: float, clocked: bool) -> str:
    return f"; {t} press {side}" if clocked else ""


# -- F2: the opponent's reply accepts the irregular position (000 5.7) ---------------------------

# rules, start FEN, the irregular quiet move (a capture was compulsory), the opponent's reply
# (lift, place, captured squares), the next move, the accepted position, the last FEN.
F2_CASES = {
    "russian": (
        "W:Wc3,Kg3:Bd4,h8",
        ("g3", "h2"),
        ("d4", "b2", ["c3"]),
        ("h2", "g1"),  # a king's move backwards: the crown followed through the accept
        "B:Wc3,Kh2:Bd4,h8",
        ["d4:b2", "h2-g1"],
        "B:WKg1:Bb2,h8",
    ),
    "brazilian": (
        "W:Wc3,Kg3:Bd4,h8",
        ("g3", "h2"),
        ("d4", "b2", ["c3"]),
        ("h2", "g1"),
        "B:Wc3,Kh2:Bd4,h8",
        ["d4:b2", "h2-g1"],
        "B:WKg1:Bb2,h8",
    ),
    "international": (
        "W:W33,47:B28,5",
        ("c1", "d2"),  # 47-42 although 33x22 is compulsory
        ("e5", "g3", ["f4"]),  # 28x39
        ("d2", "c3"),  # 42-37
        "B:W33,42:B5,28",
        ["28x39", "42-37"],
        "B:W37:B5,39",
    ),
}


@pytest.mark.parametrize("clocked", [True, False], ids=["clock", "noclock"])
@pytest.mark.parametrize("rules", sorted(F2_CASES))
def test_reply_accepts_irregular_position(rules: str, clocked: bool) -> None:
    fen, quiet, reply, again, accepted, texts, last = F2_CASES[rules]
    s = session(rules, fen, "600" if clocked else None, clocked)
    text = f"1 lift {quiet[0]}; 1.3 place {quiet[1]}" + _press("white", 1.6, clocked)
    out = feed(s, text)
    out += s.tick(4 * NS)
    assert kinds(out) == ["missed-capture"] and moves(out) == []
    start, end, took = reply
    text = f"5 lift {start}; 5.4 place {end}"
    text += "".join(f"; {5.8 + 0.3 * i} lift {sq}" for i, sq in enumerate(took))
    text += _press("black", 7, clocked)
    text += f"; 9 lift {again[0]}; 9.3 place {again[1]}" + _press("white", 9.6, clocked)
    out = run(s, text, 15)
    accepted, last = _fen(rules, accepted), _fen(rules, last)
    positions = [r for r in out if r["type"] == "position"]
    assert [p["fen"] for p in positions] == [accepted]
    assert moves(out) == texts and kinds(out) == []
    assert s.moves[-1]["fen"] == last and s.position.fen() == last
    pdn = s.pdn()
    written = [t.replace(":", "x") for t in texts]  # PDN writes captures with x
    assert f'/FEN "{accepted}"/' in pdn and written[0] in pdn and written[1] in pdn
    if clocked:  # Black's and White's presses ran the clocks
        assert s.status()["running"] == "black"


def test_reply_accepts_without_clock_when_the_other_side_starts_at_once() -> None:
    """No clock: Black's reply never rests 1.5 s; White starting his next move ends it."""
    s = session("russian", "W:Wc3,h2:Bd4,h8", None, False)
    out = feed(s, "1 lift h2; 1.3 place g3") + s.tick(3 * NS)
    assert kinds(out) == ["missed-capture"]
    out = feed(s, "4 lift d4; 4.3 place b2; 4.6 lift c3; 5.0 lift g3; 5.3 place h4")
    assert moves(out) == ["d4:b2"]
    out += run(s, "", 9)
    assert moves(out) == ["d4:b2", "g3-h4"] and s.position.fen() == _fen("russian", "B:Wh4:Bb2,h8")


def test_reply_from_the_irregular_position_under_way_is_not_reported_again() -> None:
    """Black holds his piece for seconds before replying: no new irregularity meanwhile."""
    s = session("russian", "W:Wc3,h2:Bd4,h8", None, False)
    out = feed(s, "1 lift h2; 1.3 place g3") + s.tick(3 * NS)
    out += feed(s, "4 lift d4") + s.tick(8 * NS)
    assert kinds(out) == ["missed-capture"]
    out += run(s, "8.5 place b2; 9 lift c3", 12)
    assert kinds(out) == ["missed-capture"] and moves(out) == ["d4:b2"]


def test_correction_still_wins_over_acceptance() -> None:
    """The mover puts his piece back and captures: no accept, the capture is the move."""
    s = session("russian", "W:Wc3,h2:Bd4,h8", "600", True)
    out = feed(s, "1 lift h2; 1.3 place g3; 1.6 press white")
    out += feed(s, "3 lift g3; 3.3 place h2; 4 lift c3; 4.3 place e5; 4.6 lift d4; 5 press white")
    assert kinds(out) == ["missed-capture"]
    assert moves(out) == ["c3:e5"] and not [r for r in out if r["type"] == "position"]


# -- F4: an extra piece taken off without a clock ------------------------------------------------


def test_extra_removal_without_clock_reported_then_restored() -> None:
    s = session("russian", "W:Wc3,h2:Bd4,f6,h8", None, False)
    out = run(s, "0.4 lift c3; 0.8 place g7; 1.2 lift d4; 1.6 lift f6; 2.0 lift h8", 4)
    assert moves(out) == ["c3:g7"] and kinds(out) == ["extra-removal"]
    irr = next(r for r in out if r["type"] == "irregularity")
    assert irr["side"] == "white" and irr["leds"] == {"h8": "restore"}
    assert s.leds() == {"h8": "restore"}
    out = run(s, "4.9 place h8", 8)
    assert [r["type"] for r in out] == ["cleared"] and s.leds() == {}


def test_opponent_quick_reply_is_no_extra_removal() -> None:
    """Black lifts his man within the settle time and plays it: an ordinary reply."""
    s = session("russian", "W:Wc3,h2:Bd4,f6,h8", None, False)
    out = run(
        s,
        "0.4 lift c3; 0.8 place g7; 1.2 lift d4; 1.6 lift f6; 2.0 lift h8; 2.5 place f6"
        "; 2.7 lift g7",
        6,
    )
    assert kinds(out) == [] and moves(out) == ["c3:g7", "h8:f6"]


def test_opponent_holding_his_piece_after_a_settled_move_is_no_extra_removal() -> None:
    s = session("russian", None, None, False)
    out = run(s, "1 lift c3; 1.3 place d4; 5 lift f6", 9)
    assert moves(out) == ["c3-d4"] and kinds(out) == []


# -- F6: own pieces knocked over ------------------------------------------------------------------


def test_pieces_knocked_over_are_a_board_mismatch() -> None:
    s = session("russian", None, "600", True)
    out = feed(s, "0.4 lift a3; 0.8 place b4; 1 press white")
    out += feed(s, "1.3 lift g1; 1.32 lift a1; 1.34 lift c1; 1.44 place d4") + s.tick(5 * NS)
    assert kinds(out) == ["board-mismatch"]
    assert s.leds() == {"a1": "restore", "c1": "restore", "g1": "restore", "d4": "wrong"}
    out = feed(
        s,
        "5 lift d4; 5.2 place a1; 5.4 place c1; 5.6 place g1; 6 lift b6; 6.3 place a5"
        "; 6.6 press black",
    )
    assert moves(out) == ["b6-a5"] and s.leds() == {}


def test_opponent_piece_moved_illegally_is_still_wrong_side() -> None:
    s = session("russian", None, "600", True)
    out = feed(s, "0.4 lift a3; 0.8 place b4; 1 press white; 1.5 lift c3; 1.8 place e5")
    out += s.tick(5 * NS)
    assert kinds(out) == ["wrong-side"]


# -- F3: light squares ----------------------------------------------------------------------------


def test_piece_on_light_square_reported_until_removed() -> None:
    s = session("russian", None, None, False)
    out = run(s, "1 lift c3; 1.5 place c4", 4)
    assert kinds(out) == ["board-mismatch"] and s.leds()["c4"] == "wrong"
    out = run(s, "5 lift c4; 5.5 place c3", 9)
    assert [r["type"] for r in out] == ["cleared"] and s.leds() == {}
    out = run(s, "10 lift c3; 10.3 place d4", 14)
    assert moves(out) == ["c3-d4"]


def test_replay_warns_once_about_light_square_noise() -> None:
    log = [
        b'{"type": "start", "t": 0}\n',
        b'{"type": "lift", "t": 1, "square": "c4"}\n',
        b'{"type": "lift", "t": 2, "square": "e4"}\n',
        b'{"type": "lift", "t": 3, "square": "c3"}\n',
        b'{"type": "place", "t": 3.5, "square": "d4"}\n',
    ]
    warnings: list[str] = []
    out = replay_lines(log, "g.jsonl", rules="russian", fmt="feed", warn=warnings.append)
    assert len(warnings) == 1 and "g.jsonl: line 2" in warnings[0] and "c4" in warnings[0]
    assert '"move":"c3-d4"' in out.replace(" ", "")


# -- F5: off-board squares name the line ----------------------------------------------------------


@pytest.mark.parametrize(
    ("rules", "square"), [("russian", "k3"), ("russian", "j10"), ("international", "k1")]
)
def test_off_board_square_names_the_line(rules: str, square: str) -> None:
    log = [
        b"\n",
        b'{"type": "start", "t": 0}\n',
        b'{"type": "lift", "t": 1, "square": "%s"}\n' % square.encode(),
    ]
    with pytest.raises(EventLogError, match=rf"^g\.jsonl: line 3: square '{square}'"):
        replay_lines(log, "g.jsonl", rules=rules)


# -- F7: 000 7.2.9 and an evident win ------------------------------------------------------


@pytest.mark.parametrize("rules", ["russian", "brazilian"])
def test_no_fischer_draw_waits_when_the_lone_king_is_taken_at_once(rules: str) -> None:
    start = Position.from_fen(rules, "W:WKb2:Bb6,Kf6,h6,Kg5")
    game = Game(rules, start, fischer=False)
    game.push(parse_move(game.position, "b2:g7"))
    assert game.outcome() is None  # Black takes the lone king with h6:f8 (7.2.9: win evident)
    game.push(parse_move(game.position, "h6:f8"))
    outcome = game.outcome()
    assert outcome is not None and outcome.result == "0-1"


def test_no_fischer_draw_still_at_once_without_an_immediate_win() -> None:
    """A lone king on the main road against three kings, none able to take it: drawn at once
    without increments (000 7.2.9), not with them (7.2.7 counts five moves)."""
    start = Position.from_fen("russian", "W:WKe3,Kg5,Kh4:BKa1")
    for fischer, drawn in ((False, True), (True, False)):
        game = Game("russian", start, fischer=fischer)
        game.push(parse_move(game.position, "e3-f4"))
        outcome = game.outcome()
        assert (outcome is not None and outcome.result == "1/2-1/2") is drawn


@pytest.mark.parametrize("rules", sorted(F2_CASES))
def test_reply_accepts_an_irregular_move_never_pressed(rules: str) -> None:
    """With a clock, White makes the irregular move and forgets to press; Black replies and
    presses: the irregularity is reported then, and accepted by the reply (000 5.7)."""
    fen, quiet, reply, again, accepted, texts, last = F2_CASES[rules]
    s = session(rules, fen, "600", True)
    start, end, took = reply
    text = f"1 lift {quiet[0]}; 1.3 place {quiet[1]}; 5 lift {start}; 5.4 place {end}"
    text += "".join(f"; {5.8 + 0.3 * i} lift {sq}" for i, sq in enumerate(took))
    text += f"; 7 press black; 9 lift {again[0]}; 9.3 place {again[1]}; 9.6 press white"
    out = run(s, text, 15)
    assert kinds(out) == ["missed-capture"] and moves(out) == texts
    positions = [r["fen"] for r in out if r["type"] == "position"]
    assert positions == [_fen(rules, accepted)] and s.position.fen() == _fen(rules, last)


def test_quick_reply_without_clock_accepts_an_unreported_irregular_move() -> None:
    """No clock: Black replies before White's irregular move has rested 1.5 s."""
    s = session("russian", "W:Wc3,h2:Bd4,h8", None, False)
    out = run(s, "1 lift h2; 1.3 place g3; 1.8 lift d4; 2.1 place b2; 2.4 lift c3", 6)
    assert kinds(out) == ["missed-capture"] and moves(out) == ["d4:b2"]
    assert s.position.fen() == _fen("russian", "W:Wg3:Bb2,h8")


@pytest.mark.parametrize("clocked", [True, False], ids=["clock", "noclock"])
def test_reply_accepts_two_moves_in_a_row(clocked: bool) -> None:
    """White plays twice in a row (000 5.4.1); Black replies from the board: accepted, Black
    keeps the turn he had (the turn does not pass), and the game goes on."""
    s = session("russian", None, "600" if clocked else None, clocked)
    text = "0.4 lift c3; 0.8 place d4" + _press("white", 1, clocked)
    text += "; 3.7 lift e3; 4.1 place f4" + _press("white", 4.3, clocked)
    out = feed(s, text) + s.tick(6 * NS)
    assert kinds(out) == ["two-moves"] and moves(out) == ["c3-d4"]
    out = run(s, "7 lift f6; 7.4 place e5" + _press("black", 7.6, clocked), 12)
    assert moves(out) == ["f6-e5"] and kinds(out) == []
    accepted = [r["fen"] for r in out if r["type"] == "position"]
    assert len(accepted) == 1 and accepted[0].startswith("B:")
    pos = Position.start("russian")
    pieces = pos.pieces()
    for a, b in (("c3", "d4"), ("e3", "f4"), ("f6", "e5")):
        g = pos.rules.geometry
        pieces[g.number(b)] = pieces.pop(g.number(a))
    assert s.position.fen() == Position.from_pieces("russian", Side.WHITE, pieces).fen()
    if clocked:
        assert s.status()["running"] == "white"


def test_replay_feed_carries_snapshots() -> None:
    """A snapshot every 10 s of log time and one at the end (CONTRACT.md "Broadcast feed")."""
    log = [b'{"type": "start", "t": 0}\n']
    t = 1.0
    for a, b in (("c3", "d4"), ("b6", "a5"), ("g3", "h4")):
        log.append(b'{"type": "lift", "t": %.1f, "square": "%s"}\n' % (t, a.encode()))
        log.append(b'{"type": "place", "t": %.1f, "square": "%s"}\n' % (t + 0.4, b.encode()))
        t += 9
    out = replay_lines(log, "g.jsonl", rules="russian", fmt="feed")
    recs = [json.loads(line) for line in out.splitlines()]
    snaps = [r for r in recs if r["type"] == "snapshot"]
    assert len(snaps) == 2 and recs[-1]["type"] == "snapshot"  # at t=10 and at the end
    assert [m["move"] for m in snaps[0]["moves"]] == ["c3-d4"]
    assert [m["move"] for m in snaps[-1]["moves"]] == ["c3-d4", "b6-a5", "g3-h4"]
    assert snaps[-1]["fen"] == s_fen_after(["c3-d4", "b6-a5", "g3-h4"])


def s_fen_after(texts: list[str]) -> str:
    pos = Position.start("russian")
    for text in texts:
        pos = pos.play(parse_move(pos, text))
    return pos.fen()


def test_snapshot_after_accepted_position_replays_to_its_fen() -> None:
    """A king jumps its own man (illegal, accepted by Black's reply): the snapshot starts at
    the accepted position, so start_fen + moves give fen; the crown was followed."""
    s = session("russian", "W:WKa1,b2,h2:Bh8,a7", "600", True)
    out = run(
        s,
        "1 lift a1; 1.4 place c3; 1.6 press white; 3 lift a7; 3.3 place b6"
        "; 3.5 press black; 5 lift c3; 5.4 place f6; 5.6 press white",
        8,
    )
    assert kinds(out) == ["illegal-move"] and moves(out) == ["a7-b6", "c3-f6"]
    snap = s.snapshot("g")
    pos = Position.from_fen("russian", snap["start_fen"])
    for m in snap["moves"]:
        pos = pos.play(parse_move(pos, m["move"]))
    assert pos.fen() == snap["fen"] == s.position.fen()
    assert "Kf6" in snap["fen"]


def test_forgotten_press_reply_with_captured_man_lifted_while_holding_the_capturer() -> None:
    """F10's identity check must not refuse a legitimate two-ply reading: White forgets to
    press; Black lifts his man, takes off White's man with it in hand, sets it down, presses
    (the hand held both colours: which piece went down is not known)."""
    s = session("russian", "W:Wc3,h2:Be5,h8", "600", True)
    out = run(s, "1 lift c3; 1.3 place d4; 3 lift e5; 3.3 lift d4; 3.6 place c3; 4 press black", 6)
    assert moves(out) == ["c3-d4", "e5:c3"] and kinds(out) == []


def test_two_plies_refused_when_the_pieces_do_not_fit() -> None:
    """No clock: White's man goes c3-d4 and, within the settle time, White's a1 and Black's
    h8 are knocked off together (000 5.3): the move stands, no ply is invented for the knock,
    and once the pieces are back Black plays on."""
    s = session("russian", "W:Wa1,c3,h2:Bf6,h8", None, False)
    out = run(s, "1 lift c3; 1.3 place d4; 1.6 lift a1; 1.62 lift h8", 5)
    out += run(s, "6 place a1; 6.2 place h8; 8 lift f6; 8.3 place g5", 12)
    assert moves(out)[:1] == ["c3-d4"]
    assert moves(out) == ["c3-d4", "f6-g5"], out


@pytest.mark.parametrize(
    ("text", "touch"),
    [
        ("1 lift c3; 1.3 place d4; 1.6 lift e3; 2.2 place e3", False),  # knocked after the move
        ("1 lift e3; 1.6 place e3; 2 lift c3; 2.3 place d4", True),  # touched first (000 3.10)
    ],
)
def test_touch_move_only_for_a_piece_touched_before_the_move(text: str, touch: bool) -> None:
    s = session("russian", None, None, False)
    out = run(s, text, 6)
    assert moves(out) == ["c3-d4"]
    assert kinds(out) == (["touch-move"] if touch else [])


def test_replay_reads_the_released_hand_from_a_log_without_presses() -> None:
    """A log without presses, replayed with a time control: moves are read from the board at
    rest (the clock follows the board); with presses, the presses commit; an unpressed last
    move resting on the board is committed at the end of the log in both modes."""
    quiet = [
        b'{"type": "lift", "t": 1, "square": "c3"}\n',
        b'{"type": "place", "t": 1.3, "square": "d4"}\n',
        b'{"type": "lift", "t": 4, "square": "f6"}\n',
        b'{"type": "place", "t": 4.3, "square": "e5"}\n',
    ]
    out = replay_lines(quiet, "g.jsonl", rules="russian", time_control="300", fmt="feed")
    recs = [json.loads(line) for line in out.splitlines()]
    got = [r for r in recs if r["type"] == "move"]
    assert [r["move"] for r in got] == ["c3-d4", "f6-e5"]
    assert got[0]["clock"]["white"] < 300 and got[1]["clock"]["black"] < 300
    pressed = quiet[:2] + [b'{"type": "press", "t": 1.5, "side": "white"}\n'] + quiet[2:]
    out = replay_lines(pressed, "g.jsonl", rules="russian", time_control="300", fmt="feed")
    recs = [json.loads(line) for line in out.splitlines()]
    assert [r["move"] for r in recs if r["type"] == "move"] == ["c3-d4", "f6-e5"]


def _random_irregular_case(rules: str, seed: int) -> tuple[Position, int, int, Any] | None:
    """A random position, a piece of the side to move put on an empty square it cannot
    legally reach (an irregular move), and the opponent's random legal reply from there."""
    import random

    rnd = random.Random(seed)
    pos = Position.start(rules)
    for _ in range(rnd.randrange(0, 40)):
        legal = pos.legal_moves()
        if not legal:
            return None
        pos = pos.play(rnd.choice(legal))
    g = pos.rules.geometry
    legal = pos.legal_moves()
    own = sorted(pos.squares_of(pos.turn))
    if not legal or not own:
        return None
    sq = rnd.choice(own)
    reach = {m.end for m in legal if m.start == sq}
    rows = (0, g.size - 1)
    empty = [
        e
        for e in g.squares
        if e not in pos.occupied() and e not in reach and g.row_from_white(e) not in rows
    ]
    if not empty:
        return None
    e = rnd.choice(empty)
    pieces = pos.pieces()
    pieces[e] = pieces.pop(sq)
    base = Position.from_pieces(rules, pos.turn.other, pieces)
    replies = [m for m in base.legal_moves() if m.start != m.end]
    if not replies:
        return None
    return pos, sq, e, (base, rnd.choice(replies))


@pytest.mark.parametrize("clocked", [True, False], ids=["clock", "noclock"])
@pytest.mark.parametrize("rules", ["international", "russian", "brazilian"])
def test_random_irregular_moves_accepted_by_the_reply(rules: str, clocked: bool) -> None:
    """Random positions: an irregular move nobody corrects, then the opponent's legal reply
    from the board as sensed: the position is accepted (000 5.7) and the reply recorded."""
    tried = 0
    for seed in range(60):
        case = _random_irregular_case(rules, seed)
        if case is None:
            continue
        pos, sq, e, (base, reply) = case
        tried += 1
        s = session(rules, pos.fen(), "600" if clocked else None, clocked)
        alg = pos.rules.geometry.algebraic
        mover, other = pos.turn.value, pos.turn.other.value
        text = f"1 lift {alg(sq)}; 1.3 place {alg(e)}" + _press(mover, 1.6, clocked)
        text += f"; 4 lift {alg(reply.start)}; 4.4 place {alg(reply.end)}"
        text += "".join(f"; {4.7 + 0.2 * i} lift {alg(c)}" for i, c in enumerate(reply.captured))
        text += _press(other, 9, clocked)
        out = run(s, text, 14)
        where = f"seed {seed}: {pos.fen()} {alg(sq)}->{alg(e)}, reply {reply.route}"
        assert kinds(out) and kinds(out)[0] in FAULTS, (where, out)
        assert [r["fen"] for r in out if r["type"] == "position"] == [base.fen()], (where, out)
        assert len(moves(out)) == 1 and s.position.fen() == base.play(reply).fen(), (where, out)
    assert tried >= 20


FAULTS = {"illegal-move", "missed-capture", "wrong-capture", "incomplete-removal"}


def test_a_sensor_name_off_the_board_is_an_error_not_a_silent_no_op() -> None:
    from firmware.errors import SquareError
    from firmware.formats.events import Lift, Place
    from firmware.rules.sets import find_rules

    session = BoardSession(find_rules("russian"), None, None, started=True)
    with pytest.raises(SquareError, match="i5"):
        session.handle(Lift(10**9, "i5"))
    with pytest.raises(SquareError, match="a9"):
        session.handle(Place(10**9, "a9"))
    assert session.handle(Lift(2 * 10**9, "c3")) == []  # the game is untouched
