"""Whole lidraughts games on a real ``boardctl run --sim --opponent lidraughts`` process
against the stand-in server, the person's hand the control socket's ``sim`` (issue 41 item
4): results both ways, a flag, a resignation, a draw by agreement; the game in the journal
(``boardctl export``) with the server's id as a tag, the opponent's moves on the feed as
``remote-move``. The stand-in's clock is the test's (``clock.advance``)."""

from __future__ import annotations

import subprocess
import sys

from support.lidraughts_standin import LidraughtsStandin
from support.online_board import OnlineBoard, board, opened, real_moves, standin, texts

from boardctl.online.moves import li_route
from firmware.pdn import read_games
from firmware.rules.sets import Side

__all__ = ["board", "standin"]  # fixtures


def export(board: OnlineBoard) -> str:
    return subprocess.run([sys.executable, "-m", "boardctl", "export", "--state-dir",
                           str(board.state)], capture_output=True, text=True,
                          check=True).stdout


def test_a_game_won_by_the_board_the_opponent_resigning(board: OnlineBoard,
                                                          standin: LidraughtsStandin) -> None:
    moves = real_moves(6)
    game = opened(board, standin, moves)
    status = board.ask("status")
    assert status["tags"]["GameId"] == game.id and status["tags"]["White"] == "boardbot"
    assert status["time_control"] == "300+3"
    assert [m.key for m in standin.games[game.id].plies] == [m.key for m in moves]
    standin.resign(game.id)
    result = board.result()
    assert (result["result"], result["reason"]) == ("2-0", "resignation")
    feed = board.feed_lines()
    remote = [r for r in feed if r["type"] == "remote-move"]
    assert [r["move"] for r in remote] == texts(moves)[1::2]
    pdn = export(board)
    assert f'[GameId "{game.id}"]' in pdn and '[Result "2-0"]' in pdn
    exported = next(iter(read_games(pdn, "export")))
    assert [m.key for m in exported.replay().moves] == [m.key for m in moves]
    assert board.online()["game"]["ended"] == {"result": "2-0", "reason": "resign"}


def test_a_game_lost_by_the_person_resigning_on_the_board(board: OnlineBoard,
                                                            standin: LidraughtsStandin
                                                            ) -> None:
    game = opened(board, standin, real_moves(4), side=Side.BLACK)
    answer = board.ask("resign")
    assert answer["online"] == "resignation sent"
    result = board.result()
    assert (result["result"], result["reason"]) == ("2-0", "resignation")
    assert standin.games[game.id].status == "resign"
    assert standin.games[game.id].winner is Side.WHITE


def test_a_flag_from_the_server_ends_the_game(board: OnlineBoard,
                                              standin: LidraughtsStandin) -> None:
    opened(board, standin, real_moves(3), limit_s=60, increment_s=0)
    standin.clock.advance(90)  # black (alice) thinks too long
    standin.tick()
    result = board.result()
    assert (result["result"], result["reason"]) == ("2-0", "time forfeit")


def test_a_draw_by_agreement_both_ways(board: OnlineBoard, standin: LidraughtsStandin) -> None:
    moves = real_moves(4)
    game = opened(board, standin, moves[:2])
    assert board.ask("offer-draw")["draw"] == "offered"  # goes with the next move
    board.play(moves[2])  # the person's move, the offer with it; nothing scripted after
    standin.wait_for(lambda: Side.WHITE in standin.games[game.id].offers
                     or len(standin.games[game.id].plies) >= 3)
    assert Side.WHITE in standin.games[game.id].offers
    standin.offer_draw(game.id)  # alice offers one in turn: seen with her next state
    standin.play(game.id, li_route(moves[3]))
    board.opponents_move()
    board.until(lambda: board.game()["draw_offer"]["theirs"], "the opponent's offer")
    assert board.ask("offer-draw")["draw"] == "accepted"  # the standing offer taken up
    result = board.result()
    assert (result["result"], result["reason"]) == ("1-1", "agreement")

