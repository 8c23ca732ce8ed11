"""Every irregularity kind (000 5.4, 003 5.4; CONTRACT.md kinds), its LED picture, and play
going on afterwards: the board back to the position, a legal result, or the opponent's
``accept`` (000 5.4, 5.7)."""

from __future__ import annotations

from typing import Any

from support.records_helpers import FeedShapedSession as BoardSession  # records as feed lines

from firmware.formats.events import NS, Accept, Event, Lift, Place, Press, Start, event_from_record


def script(text: str) -> list[Event]:
    """``"1.0 lift c3; 1.5 place d4; 2 press white"`` -> events."""
    events: list[Event] = []
    for part in text.split(";"):
        words = part.split()
        if not words:
            continue
        t, kind, *rest = words
        rec: dict[str, Any] = {"type": kind, "t": float(t)}
        if kind in ("lift", "place"):
            rec["square"] = rest[0]
        elif kind == "press":
            rec["side"] = rest[0]
        events.append(event_from_record(rec))
    return events


def feed(session: BoardSession, text: str) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for e in script(text):
        out += session.handle(e)
    return out


def kinds(records: list[dict[str, Any]]) -> list[str]:
    return [r["kind"] for r in records if r["type"] == "irregularity"]


def moves(records: list[dict[str, Any]]) -> list[str]:
    return [r["move"] for r in records if r["type"] == "move"]


def new(fen: str | None = None, tc: str | None = "600", rules: str = "russian") -> BoardSession:
    session = BoardSession(rules, tc, fen)
    session.handle(Start(0))
    return session


def test_illegal_move_refused_then_corrected() -> None:
    s = new()
    out = feed(s, "1 lift c3; 1.5 place e5; 2 press white")
    assert kinds(out) == ["illegal-move"] and moves(out) == []
    irr = next(r for r in out if r["type"] == "irregularity")
    assert irr["side"] == "white" and set(irr["squares"]) == {"c3", "e5"}
    assert s.leds() == {"c3": "restore", "e5": "wrong"}
    assert s.status()["running"] == "white"  # refused: White's clock keeps running
    out = feed(s, "3 lift e5; 3.2 place d4; 4 press white")
    assert moves(out) == ["c3-d4"] and s.leds() == {}


def test_back_to_the_position_clears() -> None:
    s = new(tc=None)
    out = feed(s, "1 lift c3; 1.5 place e5; 4 lift e5; 4.3 place c3; 9 lift a3; 9.2 place b4")
    assert kinds(out) == ["illegal-move"]
    assert "cleared" in [r["type"] for r in out]
    assert moves(s.finish(12 * NS)) == ["a3-b4"]


def test_missed_capture_shows_the_capturing_piece() -> None:
    s = new("W:Wc3,g3:Bd4,h8")
    out = feed(s, "1 lift g3; 1.5 place h4; 2 press white")
    assert kinds(out) == ["missed-capture"] and moves(out) == []
    assert s.leds()["c3"] == "must-move" and s.leds()["g3"] == "restore"


def test_capture_stopped_half_way_is_a_wrong_capture() -> None:
    s = new("W:Wc3:Bd4,f6,a7")  # c3:e5:g7 is compulsory in full (000 4.5)
    out = feed(s, "1 lift c3; 1.4 place e5; 2 lift d4; 3 press white")
    assert kinds(out) == ["wrong-capture"] and moves(out) == []
    out = feed(s, "4 lift e5; 4.3 place g7; 4.8 lift f6; 5 press white")
    assert moves(out) == ["c3:g7"]


def test_fewer_pieces_than_the_majority_is_a_wrong_capture() -> None:
    """Brazilian: the capture taking the most is compulsory (000 4.16.1); Russian: free."""
    s = new("W:Wc3,h2:Bd4,f6,g3", rules="brazilian")
    out = feed(s, "1 lift h2; 1.5 place f4; 1.8 lift g3; 3 press white")
    assert moves(out) == [] and kinds(out) == ["wrong-capture"]
    assert s.leds() == {"g3": "restore", "h2": "restore", "f4": "wrong"}
    s = new("W:Wc3,h2:Bd4,f6,g3", rules="russian")
    out = feed(s, "1 lift h2; 1.5 place f4; 1.8 lift g3; 3 press white")
    assert moves(out) == ["h2:f4"] and kinds(out) == []


def test_incomplete_removal_then_completed() -> None:
    s = new("W:Wc3:Bd4,a7")
    out = feed(s, "1 lift c3; 1.5 place e5; 2 press white")
    assert kinds(out) == ["incomplete-removal"]
    assert s.leds() == {"d4": "remove"}
    out = feed(s, "3 lift d4; 3.5 press white")
    assert moves(out) == ["c3:e5"]


def test_extra_removal_and_own_piece_removed() -> None:
    s = new("W:Wc3,a1:Bd4,a7")
    out = feed(s, "1 lift c3; 1.5 place e5; 2 lift d4; 2.2 lift a7; 3 press white")
    assert kinds(out) == ["extra-removal"] and s.leds() == {"a7": "restore"}
    out = feed(s, "4 place a7; 4.2 lift a1; 5 press white")
    assert kinds(out) == ["own-piece-removed"] and s.leds() == {"a1": "restore"}
    out = feed(s, "6 place a1; 7 press white")
    assert moves(out) == ["c3:e5"]


def test_touch_move_reported_and_the_move_recorded() -> None:
    s = new()
    out = feed(s, "1 lift c3; 1.6 place c3; 3 lift e3; 3.3 place f4; 4 press white")
    assert moves(out) == ["e3-f4"] and kinds(out) == ["touch-move"]
    assert s.leds() == {"c3": "must-move"}
    # a bounce or a brush is no touch
    s = new()
    out = feed(s, "1 lift c3; 1.004 place c3; 3 lift e3; 3.3 place f4; 4 press white")
    assert moves(out) == ["e3-f4"] and kinds(out) == []


def test_wrong_side_moves_first() -> None:
    s = new()
    out = feed(s, "1 lift b6; 1.4 place a5; 4 press white")
    assert kinds(out)[0] == "wrong-side"
    assert next(r for r in out if r["type"] == "irregularity")["side"] == "black"


def test_two_moves_in_a_row() -> None:
    s = new()
    out = feed(s, "1 lift c3; 1.4 place d4; 2 press white; 3 lift e3; 3.3 place f4; 6 lift g7")
    assert moves(out) == ["c3-d4"] and kinds(out) == ["two-moves"]
    assert s.leds() == {"e3": "restore", "f4": "wrong"}


def test_take_back() -> None:
    s = new()
    out = feed(s, "1 lift c3; 1.4 place d4; 2 press white; 3 lift d4; 3.3 place c3; 6 lift g7")
    assert kinds(out) == ["take-back"]


def test_press_without_move_refused_clock_runs() -> None:
    s = new()
    out = feed(s, "5 press white")
    assert kinds(out) == ["press-without-move"] and moves(out) == []
    assert s.status(6 * NS)["running"] == "white"
    assert s.status(6 * NS)["clock"]["white"] == 594.0


def test_board_mismatch_piece_from_nowhere() -> None:
    s = new()
    out = feed(s, "1 place d4; 3 lift a7")
    assert kinds(out) == ["board-mismatch"]
    assert s.leds() == {"d4": "wrong"}


def test_setup_checked_at_the_start() -> None:
    s = BoardSession("russian", "600")
    out = s.handle(Lift(NS, "a3")) + s.handle(Place(2 * NS, "b1"))  # wrong, and a light square
    out += s.handle(Start(5 * NS))
    assert kinds(out)[-1] == "setup"
    assert s.leds() == {"a3": "restore", "b1": "wrong"}
    out = s.handle(Lift(6 * NS, "b1")) + s.handle(Place(7 * NS, "a3"))
    out += s.handle(Lift(10 * NS, "c3")) + s.handle(Place(10.5 * NS // 1, "d4"))  # type: ignore[arg-type]
    out += s.handle(Press(11 * NS, "white"))
    assert moves(out) == ["c3-d4"]


def test_accept_continues_from_the_board_keeping_kings() -> None:
    s = new("W:WKa1,c1:Bh8,f8")
    out = feed(s, "1 lift a1; 1.5 place c3; 1.6 lift c1; 1.8 place d2; 2 press white")
    assert moves(out) == []  # two pieces moved: not a move
    out = s.handle(Accept(3 * NS))
    pos = [r for r in out if r["type"] == "position"]
    assert pos and pos[0]["fen"] == "B:WKc3,d2:Bf8,h8"
    assert s.status()["running"] == "black"
    assert '/FEN "B:WKc3,d2:Bf8,h8"/' in s.pdn()
    out = feed(s, "4 lift f8; 4.4 place e7; 5 press black")
    assert moves(out) == ["f8-e7"]


def test_accept_crowns_a_man_left_on_the_far_row() -> None:
    s = new("W:Wc7,a1:Bh6")
    out = feed(s, "1 lift c7; 1.2 place b8; 3 lift a1; 3.2 place b2; 4 press white")
    assert kinds(out) == ["board-mismatch"] and moves(out) == []
    out = s.handle(Accept(5 * NS))
    assert [r["fen"] for r in out if r["type"] == "position"] == ["B:WKb8,b2:Bh6"]


def test_accept_an_illegal_move_passes_the_turn() -> None:
    s = new("W:Wc3,a1:Bh6", tc=None)
    out = feed(s, "1 lift c3; 1.2 place e5; 5 lift h6")
    assert kinds(out) == ["illegal-move"]
    s.handle(Place(6 * NS, "h6"))
    out = s.handle(Accept(9 * NS))
    assert [r["fen"] for r in out if r["type"] == "position"] == ["B:We5,a1:Bh6"]
    assert "/FEN" in s.pdn()


def test_piece_left_on_a_light_square_is_flagged() -> None:
    s = new(tc=None)
    out = feed(s, "1 lift c3; 1.1 place c4; 1.2 lift c4; 1.4 place d4")  # a brush: no report
    assert kinds(out) == []
    out = feed(s, "3 place a2; 6 lift g7")
    assert moves(out) == ["c3-d4"] and kinds(out) == ["board-mismatch"]
    assert s.leds() == {"a2": "wrong"}
    feed(s, "7 place g7; 8 lift a2; 11 lift b6")
    assert s.leds() == {}


def test_opponent_starting_ends_the_move_without_a_clock() -> None:
    s = new(tc=None)
    out = feed(s, "1 lift c3; 1.4 place d4; 1.6 lift f6")
    assert moves(out) == ["c3-d4"]
    out = feed(s, "1.9 place g5; 2.1 lift g3")
    assert moves(out) == ["f6-g5"]


def test_own_piece_lift_after_the_move_does_not_end_it() -> None:
    """Lifting one's own piece again (released hand, 000 3.11) is no opponent's start."""
    s = new(tc=None)
    out = feed(s, "1 lift c3; 1.4 place d4; 1.6 lift d4; 1.8 place b4")
    assert moves(out) == []
    assert moves(s.tick(5 * NS)) == ["c3-b4"]


def test_reply_before_the_move_rested_both_stand() -> None:
    """No clock: the reply starts by taking off the man it captures (003 4.16) at once."""
    s = new(tc=None, rules="international")
    from firmware.rules.geometry import geometry

    a = geometry(10).algebraic
    out = feed(s, f"1 lift {a(32)}; 1.3 place {a(28)}; 2 lift {a(19)}; 2.4 place {a(23)}")
    out += s.tick(10 * NS)
    assert moves(out) == ["32-28", "19-23"]
    out = feed(s, f"11 lift {a(23)}; 11.3 lift {a(28)}; 11.6 place {a(19)}")
    out += s.tick(20 * NS)
    assert moves(out) == ["28x19"] and kinds(out) == []


def test_forgotten_press_then_reply() -> None:
    s = new()
    out = feed(s, "1 lift c3; 1.4 place d4; 5 lift f6; 5.5 place g5; 6 press black")
    assert moves(out) == ["c3-d4", "f6-g5"]
    status = s.status(7 * NS)  # White's clock ran until Black's press, and runs again
    assert status["running"] == "white"
    assert status["clock"] == {"white": 593.0, "black": 600.0}


def test_piece_knocked_off_shows_what_to_restore() -> None:
    """An opponent's piece knocked off the board (5.3): shown at once, not only at a press."""
    s = new()
    out = feed(s, "1 lift h6; 5 lift c3")
    assert kinds(out) == ["extra-removal"] and s.leds() == {"h6": "restore"}
    out = feed(s, "5.5 place d4; 6 place h6; 9 press white")
    assert moves(out) == ["c3-d4"]


def test_who_pressed_tells_who_moved() -> None:
    """White to move presses with a Black piece moved: White moved it (wrong-side, 5.4.5);
    White pressing again out of turn with his own second move on the board: two-moves."""
    s = new()
    out = feed(s, "1 lift f6; 1.4 place g5; 1.8 press white")
    assert kinds(out) == ["wrong-side"] and moves(out) == []
    assert next(r for r in out if r["type"] == "irregularity")["side"] == "white"
    s = new()
    out = feed(s, "1 lift c3; 1.4 place d4; 2 press white; 3 lift e3; 3.3 place f4")
    out += feed(s, "3.6 press white")
    assert moves(out) == ["c3-d4"] and kinds(out) == ["two-moves"]
    assert s.status()["running"] == "black"


def test_quick_reply_taking_the_man_just_moved_first() -> None:
    """No clock: the opponent at once takes off the man just moved (003 4.16) and jumps; the
    move before is the one the board showed, whatever came next."""
    from firmware.rules.geometry import geometry

    a = geometry(10).algebraic
    s = new("W:W33,38:B23,3", tc=None, rules="international")
    out = feed(
        s,
        f"1 lift {a(33)}; 1.3 place {a(29)}; 1.5 lift {a(29)}; 1.8 lift {a(23)}; "
        f"2.2 place {a(34)}; 2.5 lift {a(38)}; 2.8 place {a(32)}",
    )
    out += s.finish(3 * NS)
    assert moves(out) == ["33-29", "23x34", "38-32"] and kinds(out) == []
