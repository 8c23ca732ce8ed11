"""``boardctl watch`` of an analysing board (issue 42 item 4): the feed's ``analysis`` lines
and the ``status`` answer's ``analysis`` give the same sentence, the score for the side to
move in men or a win announced; a move or a take-back clears it; a hostile status is left."""

from __future__ import annotations

from boardctl.terminal.status import apply_status
from boardctl.terminal.view import BoardView
from firmware.formats.records import AnalysisRecord, GameRecord, MoveRecord, TakeBackRecord

FEN = "B:W28,31,33-50:B1-20"


def _view() -> BoardView:
    view = BoardView()
    view.apply(GameRecord("international", None, None, {}), 0.0)
    view.apply(MoveRecord(1, "white", "32-28", FEN), 0.0)
    return view


def test_an_analysis_line_from_the_feed_in_words() -> None:
    view = _view()
    version = view.version
    said = view.apply(AnalysisRecord(1, -35, ("18-23", "28x19", "14x23"), 9), 0.0)
    assert said == ["analysis after 1. 32-28: -0.35 for black, depth 9: 18-23 28x19 14x23"]
    assert view.version > version
    said = view.apply(AnalysisRecord(1, 9995, ("18-23",), 11, 3), 0.0)
    assert said == ["analysis after 1. 32-28: wins in 3 for black, depth 11: 18-23"]
    view.apply(TakeBackRecord(0), 0.0)
    assert view.analysis is None  # the position it was of is gone


def test_the_status_answer_s_analysis_gives_the_same_sentence() -> None:
    view = BoardView()
    status = {"game": "g", "rules": "international", "fen": FEN, "moves": ["32-28"],
              "turn": "black",
              "analysis": {"engine": "builtin", "line": {"ply": 1, "score": -35, "depth": 9,
                                                         "best": ["18-23", "28x19", "14x23"]}}}
    said = apply_status(view, status, 0.0)
    assert said[-1] == "analysis after 1. 32-28: -0.35 for black, depth 9: 18-23 28x19 14x23"
    assert apply_status(view, status, 0.1) == []  # told once
    status["analysis"] = {"line": {"ply": 1, "score": -9996, "depth": 4, "best": [],
                                   "win": -2}}
    assert apply_status(view, status, 0.2) == [
        "analysis after 1. 32-28: loses in 2 for black, depth 4"]


def test_a_hostile_status_analysis_is_left() -> None:
    view = BoardView()
    for hostile in ("x", {"line": "x"}, {"line": {"ply": "1", "score": 5, "depth": 1,
                                                   "best": []}},
                    {"line": {"ply": 1, "score": 5, "depth": 1, "best": "32-28"}}):
        said = apply_status(view, {"game": "g", "rules": "international", "fen": FEN,
                                   "analysis": hostile}, 0.0)
        assert not [s for s in said if s.startswith("analysis")] and view.analysis is None
