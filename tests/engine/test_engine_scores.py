"""The engine's evaluation made meaningful (issue 42 item 5, docs/ENGINE.md "Scores"): scores
in hundredths of a man, read from Hub's men in one place; Scan's band of forced wins and its
``wins in M``; evaluations inside their bound; ``multipv`` lines, exact and best first, over
the Hub protocol as the built-in engine writes them (alternatives before the best) and as
Scan's ``info`` lines read."""

from __future__ import annotations

import io

import pytest
from support.service_helpers import wk_game

from boardctl.engine.server import HubServer
from firmware.engine.common import Limits
from firmware.engine.evaluate import evaluator
from firmware.engine.hub import (
    HubError,
    parse_line,
    position_text,
    read_info,
    read_score,
    score_text,
)
from firmware.engine.scores import EVAL_MAX, WIN, WIN_IN_MAX, win_moves, win_plies, won_score
from firmware.engine.search import Engine, EngineError
from firmware.rules.game import Game
from firmware.rules.position import Position
from firmware.rules.sets import RULESETS, Side, find_rules

#: protocol.txt's example of Scan's info line, from the start position.
SCAN_INFO = ('info depth=21 mean-depth=20.8 score=-0.01 nodes=31261613 time=3.906 nps=8.0 '
             'pv="32-28 17-22 28x17x22 12x21x17 33-28 7-12 39-33 19-23 28x19x23 14x23x19 44-39 '
             '9-14 50-44 4-9 34-29 23x34x29 39x30x34 21-26 44-39 11-17 31-27 6-11 37-31 '
             '26x37x31 41x32x37 20-24 30x19x24 13x24x19"')


def test_wins_in_m_moves_read_from_the_band() -> None:
    assert win_plies(WIN - 1) == 1 and win_moves(WIN - 1) == 1  # the winning move now
    assert win_plies(WIN - 3) == 3 and win_moves(WIN - 3) == 2
    assert win_plies(-(WIN - 2)) == -2 and win_moves(-(WIN - 2)) == -1  # mated next move
    for moves in (*range(1, 60), *range(-60, 0)):
        assert win_moves(won_score(moves)) == moves
        assert abs(won_score(moves)) > WIN_IN_MAX
    for score in (0, 250, -EVAL_MAX, EVAL_MAX, 8999, WIN_IN_MAX, -WIN_IN_MAX):
        assert win_moves(score) is None and win_plies(score) is None  # an evaluation


@pytest.mark.parametrize("name", sorted(RULESETS))
def test_no_evaluation_reaches_the_band(name: str) -> None:
    rules = find_rules(name)
    evaluate = evaluator(rules)
    n, side = rules.squares, len(Position.start(rules).pieces()) // 2
    for turn in Side:
        for kings in (True, False):  # a whole side (kings, or men far advanced) against one
            row = rules.size // 2  # a row's squares: White's men one row short of crowning
            squares = range(1, side + 1) if kings else range(row + 1, row + 1 + side)
            position = Position(rules, turn, dict.fromkeys(squares, kings), {n: True})
            w, b, k = position.bitboards
            assert abs(evaluate(w, b, k, turn is Side.WHITE)) < EVAL_MAX


def test_hub_scores_are_men_converted_in_one_place() -> None:
    for score in (0, 1, -1, 35, -120, 9997, -9996, 8000):
        assert read_score(score_text(score)) == score
    assert score_text(-25) == "-0.25" and read_score("99.97") == 9997
    for bad in ("abc", "nan", "inf", "1e308", "100.01", ""):
        with pytest.raises(HubError):
            read_score(bad)


def test_scan_s_info_line_is_read_whole() -> None:
    info = read_info(Position.start("international"), parse_line(SCAN_INFO).args)
    assert (info.depth, info.score, info.line) == (21, -1, 1)
    assert len(info.pv) == 28 and info.pv[2].captured == (22,)


@pytest.mark.parametrize(("text", "words"), [
    ('info depth=3 score=abc pv=""', "score 'abc' is not a number"),
    ("info depth=3 score=1e308", "out of range"),
    ("info depth=-2 score=0.10", "depth '-2'"),
    ("info depth=3 multipv=0 score=0.10", "multipv '0'"),
    ('info depth=3 score=0.1 pv="32-28 1-2"', "pv move 2"),
    ('info depth=3 score=0.1 pv="' + "zz " * 1000 + '"', "pv move 1"),
])
def test_an_info_line_that_does_not_read_names_why(text: str, words: str) -> None:
    with pytest.raises(HubError) as caught:
        read_info(Position.start("international"), parse_line(text).args)
    assert words in str(caught.value) and "\n" not in str(caught.value)


def _game(plies: int) -> Game:
    """WK 2003's first game after ``plies``, or later: the first position with 5 moves."""
    start, moves = wk_game(1)
    game = Game("international", start)
    for move in moves:
        if len(game.moves) >= plies and len(game.position.legal_moves()) >= 5:
            break
        game.push(move)
    return game


def test_multipv_lines_are_exact_distinct_and_best_first() -> None:
    game = _game(12)
    result = Engine("international", seed=1).search(game, Limits(depth=4), lambda: 0.0,
                                                    lines=3, analyse=True)
    assert len(result.lines) == 3
    assert (result.lines[0].score, result.lines[0].pv) == (result.score, result.pv)
    scores = [line.score for line in result.lines]
    assert scores == sorted(scores, reverse=True)
    firsts = [line.pv[0] for line in result.lines]
    assert len({m.key for m in firsts}) == 3 and all(
        m in game.position.legal_moves() for m in firsts)
    # each alternative's score is its own: the best of the others searched alone agrees
    alone = Engine("international", seed=1).search(game, Limits(depth=4), lambda: 0.0,
                                                   analyse=True)
    assert alone.score == result.score and alone.move.key == result.move.key
    with pytest.raises(EngineError):
        Engine("international").search(game, Limits(depth=1), lambda: 0.0, lines=9)


def test_the_hub_server_writes_alternatives_before_the_best() -> None:
    out = io.StringIO()
    server = HubServer("international", out=out)
    server.handle("set-param name=multipv value=3")
    server.handle("set-param name=multipv value=7")  # beyond 5: one error line, 3 kept
    server.handle(f"pos pos={position_text(_game(12).position)}")
    server.handle("level depth=3")
    server.handle("go analyze")
    assert server._thread is not None
    server._thread.join(timeout=60)
    lines = [parse_line(x) for x in out.getvalue().splitlines()]
    assert [x.command for x in lines].count("error") == 1
    infos = [x for x in lines if x.command == "info"]
    assert [x.args["multipv"] for x in infos] == ["2", "3", "1"] * 3  # depths 1, 2, 3
    assert [x.args["depth"] for x in infos[-3:]] == ["3", "3", "3"]
    scores = [read_score(x.args["score"]) for x in infos[-3:]]
    assert scores[2] >= scores[0] >= scores[1]  # the best, last, is the best
    assert lines[-1].command == "done" and lines[-1].args["move"] == infos[-1].args[
        "pv"].split()[0]


def test_a_won_position_is_announced_over_the_hub() -> None:
    out = io.StringIO()
    server = HubServer("international", out=out)
    win = Position.from_fen("international", "W:W28,38:B23,13")
    server.handle(f"pos pos={position_text(win)}")
    server.handle("level infinite")
    server.handle("go analyze")  # a found win ends even an infinite analysis
    assert server._thread is not None
    server._thread.join(timeout=60)
    info = [parse_line(x) for x in out.getvalue().splitlines() if x.startswith("info")][-1]
    assert read_score(info.args["score"]) == WIN - 1 and info.args["score"] == "99.99"
