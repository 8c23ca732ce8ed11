"""The board's page with an opponent not at the board (issue 41: the link down on the page;
resign and draw offers from the page), in headless Chromium (tests/support/browser.py) against
one real ``boardctl run --sim --opponent lidraughts --http`` process playing on the stand-in
server (tests/support/lidraughts_standin.py): the page names the opponent, says the link is
down while it is and drops it when back, shows the opponent's draw offer with Accept (taken
up on the server from the page), and the page's Resign ends the game on the server. One
service and one browser for the module; waiting is for the page to get somewhere."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest
from selenium.webdriver.common.by import By
from support.browser import chrome, console_errors, until
from support.lidraughts_standin import LidraughtsStandin
from support.online_board import OnlineBoard, play_plies, real_moves
from support.page_helpers import SCREENSHOTS

from boardctl.online.moves import li_route
from boardctl.page.view import page_state
from firmware.rules.sets import Side

LINK_DOWN = "Link to lidraughts down — the board keeps refereeing; moves are sent when it is back"


@pytest.fixture(scope="module")
def standin() -> Iterator[LidraughtsStandin]:
    with LidraughtsStandin() as server:
        yield server


@pytest.fixture(scope="module")
def board(tmp_path_factory: pytest.TempPathFactory,
          standin: LidraughtsStandin) -> Iterator[OnlineBoard]:
    served = OnlineBoard(tmp_path_factory.mktemp("online-page"), standin,
                         extra=("--http", "127.0.0.1:0"))
    try:
        yield served
    finally:
        served.stop()


@pytest.fixture(scope="module")
def driver(tmp_path_factory: pytest.TempPathFactory, board: OnlineBoard) -> Iterator[Any]:
    browser = chrome(tmp_path_factory.mktemp("opponent-profile"), width=412, height=915,
                     mobile=True)
    try:
        browser.get(str(board.ask("status")["page"]["url"]))
        yield browser
        browser.get("about:blank")  # the page's event stream closed before the board stops
        assert console_errors(browser) == []
    finally:
        browser.quit()


def text(driver: Any, css: str) -> str:
    return str(driver.execute_script(
        "var e = document.querySelector(arguments[0]); "
        "return e && !e.closest('[hidden]') ? e.textContent : '';", css))


def shot(driver: Any, name: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    driver.save_screenshot(str(SCREENSHOTS / name))


def shows(driver: Any, element_id: str) -> bool:
    return bool(driver.find_element(By.ID, element_id).is_displayed())


def on_the_page(board: OnlineBoard, driver: Any, game_id: str) -> None:
    """The server's game set up on the board and shown on the page."""
    board.adopted(game_id)
    game = board.ask("status")["game"]
    until(driver, lambda d: d.find_element(By.ID, "v-game").get_attribute("data-game") == game)


def test_the_opponent_named_and_the_link_down_and_back(board: OnlineBoard,
                                                       standin: LidraughtsStandin,
                                                       driver: Any) -> None:
    game = standin.create_game(bot_side=Side.WHITE, limit_s=300, increment_s=3)
    on_the_page(board, driver, game.id)
    until(driver, lambda d: "Alice (1500)" in text(d, "#opp-name"))
    assert "on lidraughts" in text(driver, "#opp-name")
    assert text(driver, "#pl-black .name") == "Alice (1500)"
    assert shows(driver, "resign") and shows(driver, "draw") and not shows(driver, "hint")
    assert not shows(driver, "link-note")
    standin.unavailable = True  # the way out gone: every stream dropped, no answer
    standin.cut_streams()
    until(driver, lambda d: LINK_DOWN in text(d, "#link-note"))
    assert board.online()["link"] == "down"
    shot(driver, "page-opponent-link-down.png")
    standin.unavailable = False
    until(driver, lambda d: not shows(d, "link-note"))
    assert board.online()["link"] == "up"
    assert "Alice (1500)" in text(driver, "#opp-name")
    standin.resign(game.id)  # the board free for the next game (it plays one at a time)
    assert board.result() == {"result": "2-0", "reason": "resignation"}


def test_the_opponents_draw_offer_taken_up_on_the_page(board: OnlineBoard,
                                                       standin: LidraughtsStandin,
                                                       driver: Any) -> None:
    game = standin.create_game(bot_side=Side.WHITE, limit_s=300, increment_s=3)
    on_the_page(board, driver, game.id)
    moves = real_moves(2)
    play_plies(board, standin, game.id, Side.WHITE, moves[:1])
    standin.offer_draw(game.id)  # alice offers with her move, as lidraughts takes it
    standin.play(game.id, li_route(moves[1]))
    board.opponents_move()
    until(driver, lambda d: "Alice (1500) offers a draw." in text(d, "#offer"))
    assert shows(driver, "offer-accept") and not shows(driver, "offer-decline")
    shot(driver, "page-opponent-draw-offer.png")
    driver.find_element(By.ID, "offer-accept").click()
    driver.find_element(By.ID, "confirm-yes").click()
    until(driver, lambda d: "Draw agreed." in text(d, "#act-out"))
    standin.wait_for(lambda: standin.games[game.id].status == "draw")
    until(driver, lambda d: "Game over: 1-1 (agreement)" in text(d, "#said"))
    assert not shows(driver, "offer") and not shows(driver, "acts")
    url = str(board.ask("status")["page"]["url"]).rstrip("/") + "/api/decline-draw"
    with pytest.raises(urllib.error.HTTPError) as refused:  # no offer stands, no game in play
        urllib.request.urlopen(urllib.request.Request(url, data=b"", method="POST"), timeout=10)
    assert refused.value.code == 400
    assert json.loads(refused.value.read())["error"].startswith("decline-draw: ")


def test_resigning_on_the_page_ends_the_game_on_the_server(board: OnlineBoard,
                                                           standin: LidraughtsStandin,
                                                           driver: Any) -> None:
    game = standin.create_game(bot_side=Side.BLACK, limit_s=300, increment_s=3)
    on_the_page(board, driver, game.id)
    play_plies(board, standin, game.id, Side.BLACK, real_moves(2))
    until(driver, lambda d: d.find_element(By.ID, "v-game").get_attribute("data-ply") == "2")
    driver.find_element(By.ID, "resign").click()
    driver.find_element(By.ID, "confirm-yes").click()
    standin.wait_for(lambda: standin.games[game.id].status == "resign")
    assert standin.games[game.id].winner is Side.WHITE  # alice's
    until(driver, lambda d: "Game over" in text(d, "#said"))
    assert "resignation" in text(driver, "#said")



def test_the_opponent_from_status_for_the_page() -> None:
    """``opponent`` of the page's state from ``status``'s ``online`` (lidraughts) and
    ``opponent`` (another board), whatever shape they come in."""
    status = {"rules": "international", "online": {
        "link": "down", "reason": "connection refused", "game": {
            "side": "white", "opponent": "Alice (1500)", "ended": None,
            "draw_offer": {"theirs": True, "mine": False}}}}
    assert page_state(status)["opponent"] == {
        "kind": "lidraughts", "side": "black", "name": "Alice (1500)", "link": "down",
        "reason": "connection refused", "draw_offer": {"theirs": True, "mine": False},
        "playing": True}
    idle = page_state({"online": {"link": "up", "reason": None, "game": None}})["opponent"]
    assert idle["name"] is None and idle["side"] is None and idle["playing"] is False
    away = {"board": "B2", "side": "black", "peer": "offline", "connected": True,
            "draw_offer": {"mine": True, "theirs": False, "ply": 4}}
    assert page_state({"opponent": away})["opponent"] == {
        "kind": "board", "side": "black", "name": "B2", "link": "down",
        "reason": "the other board is offline", "draw_offer": {"theirs": False, "mine": True},
        "playing": True}
    back = page_state({"opponent": {**away, "peer": "online"}})["opponent"]
    assert back["link"] == "up" and back["reason"] is None
    cut = page_state({"opponent": {**away, "peer": "online", "connected": False}})["opponent"]
    assert cut["link"] == "down" and "broker" in cut["reason"]
    hostile = page_state({"online": {"link": ["x"] * 3, "game": {"draw_offer": "yes",
                                                                   "side": 7}}})["opponent"]
    assert hostile["draw_offer"] == {"theirs": False, "mine": False} and hostile["side"] is None
    assert page_state({"opponent": {"board": "B" * 500, "peer": 1}})["opponent"]["name"] == \
        "B" * 200
