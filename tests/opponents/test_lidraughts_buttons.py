"""What the person does with the clock's buttons and sees on its faces in a lidraughts game,
on a real ``boardctl run --sim --opponent lidraughts`` process against the stand-in: the pause
button offers a draw (it goes with the next move) and takes up the opponent's; a hold of it
opens the menus and offers nothing; the opponent's face shows ``--.--`` while the link is
down and the offer standing (``drUU``) in turn with its time."""

from __future__ import annotations

from support.lidraughts_standin import LidraughtsStandin
from support.online_board import OnlineBoard, board, opened, play_plies, real_moves, standin

from boardctl.online.moves import li_route
from boardctl.opponents.offers import OFFER_FACE
from boardctl.opponents.shown import LINK_DOWN_FACE
from firmware.rules.sets import Side

__all__ = ["board", "standin"]  # fixtures


def press_pause(board: OnlineBoard, hold_ms: int = 0) -> None:
    board.ask("sim", type="press", side="pause", hold_ms=hold_ms)


def test_the_pause_button_offers_a_draw_and_takes_one_up(board: OnlineBoard,
                                                         standin: LidraughtsStandin) -> None:
    moves = real_moves(4)
    game = opened(board, standin, moves[:2])
    press_pause(board)  # the person's offer: with his next move
    board.until(lambda: board.game()["draw_offer"]["mine"], "the offer noted")
    status = board.ask("status")
    assert status["running"] == "white" and status["result"] is None  # no pause online
    board.play(moves[2])
    standin.wait_for(lambda: len(standin.games[game.id].plies) >= 3)
    assert Side.WHITE in standin.games[game.id].offers
    standin.offer_draw(game.id)  # alice offers in turn, with her move
    standin.play(game.id, li_route(moves[3]))
    board.opponents_move()
    board.until(lambda: board.game()["draw_offer"]["theirs"], "the opponent's offer")
    board.until(lambda: board.ask("status")["faces"]["black"] == OFFER_FACE,
                "the offer on the opponent's face")
    press_pause(board)  # taken up
    result = board.result()
    assert (result["result"], result["reason"]) == ("1-1", "agreement")
    assert standin.games[game.id].status == "draw"


def test_a_hold_of_the_pause_button_offers_no_draw(board: OnlineBoard,
                                                   standin: LidraughtsStandin) -> None:
    moves = real_moves(3)
    game = opened(board, standin, moves[:2])
    press_pause(board, hold_ms=2500)  # the menus' gesture
    board.until(lambda: board.ask("status")["menu"]["open"], "the menus open")
    assert board.game()["draw_offer"] == {"theirs": False, "mine": False}
    press_pause(board, hold_ms=2500)  # closed again
    board.until(lambda: not board.ask("status")["menu"]["open"], "the menus closed")
    board.play(moves[2])
    standin.wait_for(lambda: len(standin.games[game.id].plies) >= 3)
    assert standin.games[game.id].offers == set()


def test_the_opponents_face_shows_the_link_down(board: OnlineBoard,
                                                standin: LidraughtsStandin) -> None:
    moves = real_moves(4)
    game = opened(board, standin, moves[:1])  # black (alice) to move
    faces = board.ask("status")["faces"]
    assert LINK_DOWN_FACE not in faces.values()
    standin.unavailable = True
    standin.cut_streams()
    board.until(lambda: board.online()["link"] == "down", "the link said down")
    board.until(lambda: board.ask("status")["faces"]["black"] == LINK_DOWN_FACE,
                "--.-- on the opponent's face")
    assert board.ask("status")["faces"]["white"] != LINK_DOWN_FACE
    standin.unavailable = False
    board.until(lambda: board.online()["link"] == "up", "the link back")
    board.until(lambda: LINK_DOWN_FACE not in board.ask("status")["faces"].values(),
                "the times again")
    play_plies(board, standin, game.id, Side.WHITE, moves, first=2)
