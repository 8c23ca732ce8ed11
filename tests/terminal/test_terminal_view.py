"""boardctl.terminal.view and --plain: real feed lines (real games played by the service on the
simulated board, and a log with an illegal move) into what a terminal shows."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest
from support.records_helpers import typed
from support.terminal_helpers import (
    IRREGULAR,
    IRREGULAR_END,
    USSR1947,
    WK2003,
    FakeClock,
    demo_feed,
    pdn_moves,
    records,
    replay_feed,
)

from boardctl.service.gamelife import SHOWN, gap_alarm
from boardctl.terminal.plain import PlainPrinter
from boardctl.terminal.view import GAP_TEXT, BoardView
from firmware.formats.feed import encode_line, frame
from firmware.formats.records import ClockRecord, IrregularityRecord, MoveRecord
from firmware.rules.notation import move_text
from firmware.rules.position import Position
from firmware.rules.sets import find_rules
from firmware.session.gap import BOUND, find_gap, plies_text


@pytest.fixture(scope="module")
def wk_lines(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    return demo_feed(tmp_path_factory.mktemp("wk") / "state", WK2003, 4, 30)


def test_a_real_game_s_feed_gives_its_moves_position_and_clocks(wk_lines: list[str]) -> None:
    view, clock = BoardView(), FakeClock()
    recs = records(wk_lines)
    last = max(i for i, r in enumerate(recs) if isinstance(r, MoveRecord))
    for rec in recs[: last + 1]:  # as a watcher saw it just after the 30th move
        view.apply(rec, clock())
    assert view.moves == pdn_moves(WK2003, 4, 30)
    last_move = recs[last]
    want = Position.from_fen("international", last_move.fen).pieces()
    assert {sq: (p.side, p.king) for sq, p in view.pieces.items()} == {
        view_sq: (p.side.value, p.king) for view_sq, p in
        ((Position.start("international").rules.geometry.algebraic(n), p)
         for n, p in want.items())}
    assert view.tags["White"] == "Weitsman,V."
    assert view.turn == "white" and view.running == "white"
    white = last_move.clock["white"]
    assert view.faces(clock())["white"] == view.faces(clock())["white"]
    clock.now += 61.0  # White's face counts down from the reading; Black's stands
    faces = view.faces(clock())
    assert faces["black"] == _face(last_move.clock["black"])
    assert faces["white"] == _face(white - 61.0)
    for rec in recs[last + 1:]:  # export's closing snapshot: the journal at rest
        view.apply(rec, clock())
    assert view.running == recs[-1].running and view.moves == pdn_moves(WK2003, 4, 30)


def _face(seconds: float) -> str:
    whole = int(seconds)
    h, rest = divmod(whole, 3600)
    return f"{h}:{rest // 60:02d}:{rest % 60:02d}" if h else f"{rest // 60}:{rest % 60:02d}"


def test_an_8x8_game_reads_in_algebraic(tmp_path: Path) -> None:
    view = BoardView()
    for rec in records(demo_feed(tmp_path / "state", USSR1947, 1, 12)):
        view.apply(rec, 0.0)
    assert view.size == 8 and view.rules == "russian"
    assert view.moves == pdn_moves(USSR1947, 1, 12)
    assert view.pieces["c7"].side == "black"  # 12. a5:c7 landed there
    assert "a5" not in view.pieces


def test_an_illegal_move_lights_its_squares_until_it_is_made_good(tmp_path: Path) -> None:
    log = tmp_path / "irregular.jsonl"
    log.write_text(IRREGULAR)
    view = BoardView()
    for rec in records(replay_feed(log)):
        view.apply(rec, 0.0)
    assert view.irregularity == "illegal-move (white): 32, 22"
    assert view.leds == {"d4": "restore", "d6": "wrong"}
    assert view.led_text() == "32 put back, 22 wrong"  # numbered, as everything else on 10x10
    log.write_text(IRREGULAR + IRREGULAR_END)
    view = BoardView()
    for rec in records(replay_feed(log)):
        view.apply(rec, 0.0)
    assert view.moves == ["32-28"] and view.leds == {} and view.irregularity is None


def test_plain_says_each_thing_once_as_a_sentence(tmp_path: Path) -> None:
    log = tmp_path / "irregular.jsonl"
    log.write_text(IRREGULAR + IRREGULAR_END)
    out = io.StringIO()
    printer = PlainPrinter(BoardView(), out, clock=FakeClock())
    for rec in records(replay_feed(log)):
        printer.deliver("record", rec)
    printer.deliver("link", "broker lost; reconnecting")
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("board replay started")
    assert "irregularity: illegal-move (white): 32, 22" in lines
    assert "1. 32-28 by white; white 5:00, black 5:00" in lines
    assert lines[-1] == "link: broker lost; reconnecting"
    assert sum("32-28" in line for line in lines) == 1


def test_bad_records_change_nothing_and_never_raise() -> None:
    view = BoardView()
    for bad in ({"type": "move"}, {"type": "move", "move": 5, "side": "white"},
                {"type": "snapshot", "fen": "nonsense", "rules": "international"},
                {"type": "irregularity", "kind": None}, {"type": 3}, {"no": "type"},
                {"type": "clock", "clock": {"white": "x"}}):
        view.apply(typed(bad), 0.0)
    assert view.moves == [] and view.pieces == {} and view.irregularity is None
    said = view.apply(typed({"type": "snapshot", "fen": "W:W99:B1", "rules": "international"}),
                      0.0)
    assert said and said[0].startswith("unreadable position")


def test_a_takeback_drops_the_moves_after_its_ply(wk_lines: list[str]) -> None:
    view = BoardView()
    for rec in records(wk_lines):
        view.apply(rec, 0.0)
    assert view.apply(typed({"type": "takeback", "ply": 27}), 0.0) == [
        "taken back: 27 plies left"]
    assert view.moves == pdn_moves(WK2003, 4, 27)
    assert view.apply(typed({"type": "takeback", "ply": -1}), 0.0) == []


def test_status_answers_say_moves_once_and_takebacks() -> None:
    from boardctl.terminal.status import apply_status

    view = BoardView()
    base = {"game": "g1", "rules": "russian", "fen": "W:Wa1,c1,e1,g1,b2,d2,f2,h2,a3,c3,e3,g3:"
            "Bb6,d6,f6,h6,a7,c7,e7,g7,b8,d8,f8,h8", "turn": "white", "time_control": None,
            "clock": None, "running": None, "leds": {}, "irregularity": None}
    assert apply_status(view, {**base, "moves": []}, 0.0) == []
    said = apply_status(view, {**base, "moves": ["c3-d4", "f6-e5"]}, 0.0)
    assert said == ["1. c3-d4 by white", "1... f6-e5 by black"]
    assert apply_status(view, {**base, "moves": ["c3-d4", "f6-e5"]}, 0.0) == []
    said = apply_status(view, {**base, "moves": ["c3-d4", "f6-g5"]}, 0.0)
    assert said == ["taken back: 1 plies left", "1... f6-g5 by black"]
    said = apply_status(view, {**base, "game": "g2", "moves": []}, 0.0)
    assert said == ["new game: russian, time control none"] and view.moves == []


def test_hostile_values_are_bounded() -> None:
    view = BoardView()
    # values past the reader's bounds (the reader refuses such a line: tests/session/
    # test_feed_reader.py) handed to the view straight: it keeps its own bounds all the same
    view.apply(ClockRecord("x", {"white": 1e300, "black": 12.5}, "black"), 0.0)
    assert view.clock == {"black": 12.5}
    assert view.faces(1.0) == {"white": "-", "black": "0:11.5"}
    leds = {f"sq{i}": "wrong" for i in range(500)}
    view.apply(IrregularityRecord("setup", None, (), leds), 0.0)
    assert view.led_text().endswith("and 476 more") and len(view.led_text()) < 400


def test_the_engine_s_move_is_told_until_it_is_made() -> None:
    from boardctl.terminal.app import notices_text
    from boardctl.terminal.status import apply_status

    view = BoardView()
    base = {"game": "g1", "rules": "russian", "turn": "black", "time_control": None,
            "clock": None, "running": None, "irregularity": None, "moves": ["c3-d4"],
            "fen": "B:Wa1,c1,e1,g1,b2,d2,f2,h2,a3,d4,e3,g3:"
                   "Bb6,d6,f6,h6,a7,c7,e7,g7,b8,d8,f8,h8"}
    engine = {"name": "builtin", "side": "black", "thinking": False,  # as run --engine says
              "move": {"ply": 2, "side": "black", "move": "d6-c5", "route": ["d6", "c5"],
                       "captured": []}}
    said = apply_status(view, {**base, "leds": {"c5": "land", "d6": "must-move"},
                               "engine": engine}, 0.0)
    assert said[-1] == ("the engine plays 1... d6-c5: carry it out "
                        "(LEDs: d6 must move, c5 land here)")
    assert "Engine plays 1... d6-c5: carry it out" in notices_text(view).plain
    assert apply_status(view, {**base, "leds": {"c5": "land", "d6": "must-move"},
                               "engine": engine}, 0.0) == []
    said = apply_status(view, {**base, "moves": ["c3-d4", "d6-c5"], "turn": "white",
                               "leds": {}, "engine": engine}, 0.0)
    assert said == ["1... d6-c5 by black"] and view.engine_move is None


def gap_record(plies: list[str]) -> dict[str, Any]:
    """The feed's ``gap`` line as the service makes it (boardctl.service.gamelife) for a board
    whose pieces stand ``plies`` ahead of the journal's start position."""
    start = Position.start(find_rules("international"))
    after = start
    for ply in plies:
        after = after.play(next(m for m in after.legal_moves()
                                if move_text(after, m) == ply))
    gap = find_gap(start, after.occupied(), BOUND)
    candidates = [plies_text(start, c.moves) for c in gap.candidates]
    found = gap.unique
    if found is not None:
        texts = plies_text(start, found.moves)
        return {"type": "gap", "ply": 0, "recovered": texts, "candidates": [texts], "count": 1,
                "text": "rebuilt"}
    return {"type": "gap", "ply": 0, "recovered": None, "candidates": candidates[:SHOWN],
            "count": len(candidates), "text": gap_alarm(0, candidates, gap.exhausted)}


def test_a_gap_line_says_the_plies_rebuilt_or_the_candidates() -> None:
    view = BoardView()
    view.apply(typed({"type": "game", "rules": "international", "fen": None,
                      "time_control": None, "tags": {}}), 0.0)
    said = view.apply(typed(gap_record(["31-26"])), 0.0)
    assert said == ["rebuilt 1 ply after ply 0 from the board (lost to a power cut): 31-26"]
    assert view.gap == said[0]
    said = view.apply(typed(gap_record(["34-29", "20-25"])), 0.0)
    assert said == ["plies missing after ply 0 (a power cut?): 2 candidates: 1) 34-29 20-25; "
                    "2) 34-30 20-24 30-25 24-29; the arbiter decides"]
    view.apply(typed({"type": "game", "rules": "international", "fen": None,
                      "time_control": None, "tags": {}}), 0.0)
    assert view.gap is None  # a new game


def test_a_gap_line_names_at_most_its_candidates_and_bad_ones_change_nothing() -> None:
    view = BoardView()
    many = {"type": "gap", "ply": 12, "recovered": None, "count": 30,
            "candidates": [["32-28", "19-23"]] * 8}
    said = view.apply(typed(many), 0.0)[0]
    assert said.count("32-28 19-23") == 8 and said.endswith("(and 22 more); the arbiter decides")
    none = {"type": "gap", "ply": 12, "recovered": None, "candidates": [], "count": 0}
    assert "no legal sequence found" in view.apply(typed(none), 0.0)[0]
    view.gap = None
    for bad in ({"type": "gap"}, {"type": "gap", "ply": "3"}, {"type": "gap", "ply": True},
                {"type": "gap", "ply": -1, "recovered": ["32-28"]}):
        assert view.apply(typed(bad), 0.0) == [] and view.gap is None
    hostile = {"type": "gap", "ply": 1, "recovered": None, "count": "x",
               "candidates": [["x" * 10_000] * 10_000, 5, ["32-28", 7]] * 100}
    said = view.apply(typed(hostile), 0.0)[0]
    assert len(said) <= GAP_TEXT and "3 candidates:" in said  # the 8 first: 3 lists of moves


def test_plain_says_the_gap_line() -> None:
    out = io.StringIO()
    printer = PlainPrinter(BoardView(), out, clock=FakeClock())
    printer.deliver("record", typed(gap_record(["31-26"])))
    assert out.getvalue().splitlines()[-1] == (
        "rebuilt 1 ply after ply 0 from the board (lost to a power cut): 31-26")


def test_mqtt_watch_says_the_link_is_back_once_and_sums_up_at_the_snapshot(
        wk_lines: list[str]) -> None:
    """What a watcher over MQTT hears (issue 36 item 6): it joins late, so the first snapshot
    sums the game up; the routine snapshots after it say nothing (not ``link: back`` each
    time); lost lines are told, and the snapshot that makes good says the link is back and
    sums the game up again."""
    from boardctl.terminal.sources import MqttSource

    out = io.StringIO()
    printer = PlainPrinter(BoardView(board="b7"), out, clock=FakeClock())
    source = MqttSource(None, "H", "b7")
    printer.deliver("link", "waiting for a snapshot")
    source._message(False, b"online", printer.deliver)
    move = next(r for r in records(wk_lines) if isinstance(r, MoveRecord))
    snapshot = records(wk_lines)[-1]
    for seq, record in enumerate((move, snapshot, snapshot, snapshot), 50):  # joined late
        source._message(True, frame(record, seq, "g").encode(), printer.deliver)
    said = out.getvalue().splitlines()
    assert said[:2] == ["link: waiting for a snapshot", "board online"]
    assert said[2].startswith(f"1. {move.move} by white")
    assert said[3] == "link: back" and said.count("link: back") == 1
    assert said[4].startswith("board b7: international, time control 5400+30; 30 moves, ")
    assert len(said) == 5  # the routine snapshots say nothing
    ahead = encode_line({"type": "snapshot", "game": "g", "rules": "international",
                         "moves": []}, 10_000)
    source._message(True, ahead.encode(), printer.deliver)  # seq far on: lines were lost
    said = out.getvalue().splitlines()
    assert said[5:] == ["link: lost lines: waiting for a snapshot", "link: back",
                        said[7]] and said[7].startswith("board b7: ")
