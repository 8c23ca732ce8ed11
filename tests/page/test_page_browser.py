"""The board's own page in headless Chromium (tests/browser.py), on a phone's screen (412x915,
Chromium's device emulation) and on a desktop's (1280x800), against real ``boardctl run --sim
--http`` processes: a new game started from the page, moves made by the simulated hand (the
control socket's ``sim`` requests) on the diagram, an irregularity and what the LEDs ask for,
the finished game in the list, stepped through and downloaded (the same PDN as ``boardctl
export``), signing in, playing the computer. Screenshots go to build/screenshots
(``PAGE_SCREENSHOTS=docs/img`` refreshes the README's). No request leaves the machine; no
JavaScript console error. Waiting is for the page to get somewhere, never a timing
assertion."""

from __future__ import annotations

import json
import subprocess
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urljoin, urlsplit

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select
from support.browser import chrome, console_errors, until
from support.page_helpers import BOARDCTL, SCREENSHOTS, PageBoard
from support.service_helpers import wait_for

from firmware.rules.notation import move_text
from firmware.rules.position import Position

MOVES = ("32-28", "19-23", "28x19", "14x23", "37-32")


@pytest.fixture(scope="module")
def phone(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    driver = chrome(tmp_path_factory.mktemp("phone-profile"), width=412, height=915,
                    mobile=True, performance=True)
    try:
        yield driver
    finally:
        driver.quit()


@pytest.fixture(scope="module")
def desktop(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    driver = chrome(tmp_path_factory.mktemp("desktop-profile"), width=1280, height=800)
    try:
        yield driver
    finally:
        driver.quit()


@pytest.fixture
def board(tmp_path: Path) -> Iterator[PageBoard]:
    page = PageBoard(tmp_path / "state")
    try:
        yield page
    finally:
        page.stop()


def text(driver: Any, css: str) -> str:
    return str(driver.execute_script(
        "var e = document.querySelector(arguments[0]); return e ? e.textContent : '';", css))


def attr(driver: Any, css: str, name: str) -> str:
    return str(driver.execute_script(  # (the DOM's own: an SVG's camel-case names too)
        "var e = document.querySelector(arguments[0]); "
        "return e ? e.getAttribute(arguments[1]) || '' : '';", css, name))


def shot(driver: Any, name: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    driver.save_screenshot(str(SCREENSHOTS / name))


def discs(driver: Any, css: str) -> int:
    return int(driver.execute_script(
        "var p = document.querySelector(arguments[0]); return p ? "
        "(p.getAttribute('d').match(/M/g) || []).length : -1;", css))


def leave(driver: Any) -> None:
    driver.get("about:blank")  # closes the page's event stream before its board stops
    console_errors(driver)


def hosts(driver: Any) -> set[str]:
    """The hosts of every network request the browser made since the last call (its own
    chrome:// pages and data: URLs leave nothing)."""
    out = set()
    for entry in driver.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        if message.get("method") == "Network.requestWillBeSent":
            url = message["params"]["request"]["url"]
            if url.startswith(("http:", "https:", "ws:", "wss:")):  # (not chrome://, data:)
                out.add(urlsplit(url).netloc)
    return out


def new_game_from_the_form(driver: Any, *, tc: str, white: str, black: str,
                           engine: str = "off", level: str | None = None) -> None:
    driver.find_element(By.ID, "tab-new").click()
    until(driver, lambda d: d.find_element(By.ID, "v-new").is_displayed())
    until(driver, lambda d: len(Select(d.find_element(By.ID, "tc")).options) > 3)
    Select(driver.find_element(By.ID, "tc")).select_by_value(tc)
    driver.find_element(By.CSS_SELECTOR, f'input[name="engine"][value="{engine}"]').click()
    if level is not None:
        Select(driver.find_element(By.ID, "level")).select_by_value(level)
    for field, name in (("white", white), ("black", black)):
        box = driver.find_element(By.ID, field)
        box.clear()
        box.send_keys(name)
    driver.find_element(By.ID, "start-new").click()


def test_on_a_phone_a_new_game_its_moves_and_the_game_kept(board: PageBoard,
                                                            phone: Any) -> None:
    phone.get(board.url)
    until(phone, lambda d: attr(d, "#v-game", "data-game") == board.ask("status")["game"])
    first = attr(phone, "#v-game", "data-game")
    new_game_from_the_form(phone, tc="fmjd-blitz", white="Ann", black="Bob")
    assert "wcblitz2023" in text(phone, "#tc-source")  # the preset's source, shown
    until(phone, lambda d: attr(d, "#v-game", "data-game") not in ("", first))
    assert phone.execute_script("return location.hash") == "#game"
    assert text(phone, "#pl-white .name") == "Ann" and text(phone, "#pl-black .name") == "Bob"
    assert text(phone, "#pl-white .clock") == "5:00"
    assert "Waiting for the start" in text(phone, "#said")
    game = attr(phone, "#v-game", "data-game")
    assert wait_for(lambda: board.ask("status")["game"] == game)
    board.ask("start")
    for ply, move in enumerate(MOVES, 1):
        board.play(move)
        fen = board.ask("status")["fen"]
        until(phone, lambda d, fen=fen: attr(d, "#v-game", "data-fen") == fen)
        assert attr(phone, "#v-game", "data-ply") == str(ply)
    assert [b.text for b in phone.find_elements(By.CSS_SELECTOR, "#moves .mv")] == list(MOVES)
    assert discs(phone, "#board .man.w") == 19 and discs(phone, "#board .man.b") == 19
    assert discs(phone, "#board .hl") == 2  # the last move's two squares
    assert "running" in attr(phone, "#pl-black .clock", "class")
    assert len(phone.find_elements(By.CSS_SELECTOR, "#board .num text")) == 50
    shot(phone, "page-phone.png")
    board.hand.act("lift", "b4")  # White's piece (31), in Black's turn: an irregularity
    until(phone, lambda d: "Irregularity" in text(d, "#notices"))
    until(phone, lambda d: "The LEDs ask: put a piece back on 31." in text(d, "#notices"))
    assert phone.find_elements(By.CSS_SELECTOR, "#board .marks rect.led")
    shot(phone, "page-phone-irregularity.png")
    board.hand.act("place", "b4")
    until(phone, lambda d: "Irregularity" not in text(d, "#notices"))
    board.ask("result", result="2-0", reason="resignation")
    until(phone, lambda d: "Game over: 2-0 (resignation)" in text(d, "#said"))
    check_the_game_kept(board, phone, game)
    assert hosts(phone) == {f"127.0.0.1:{board.port}"}  # nothing from anywhere else
    width = phone.execute_script("return document.documentElement.scrollWidth")
    assert width <= 412
    assert console_errors(phone) == []
    leave(phone)


def check_the_game_kept(board: PageBoard, phone: Any, game: str, *, says: tuple[str, ...] = (
        "Ann – Bob", "2-0", "5 plies"), screenshot: str | None = "page-phone-games.png",
        ) -> None:
    """The finished ``game`` first in the page's list (``says`` in its line), stepped through
    on the diagram, its PDN downloaded from the page's link: the same as boardctl export's."""
    phone.find_element(By.ID, "tab-games").click()
    until(phone, lambda d: d.find_elements(By.CSS_SELECTOR, "#game-list .pick"))
    pick = phone.find_elements(By.CSS_SELECTOR, "#game-list .pick")[0]
    assert pick.get_attribute("data-id") == game
    assert all(part in pick.text for part in says), pick.text
    pick.click()
    until(phone, lambda d: attr(d, "#replay", "data-game") == game)
    replay = board.get(f"/api/games/{game}.json").json()
    moves = replay["moves"]
    assert attr(phone, "#replay", "data-fen") == moves[-1]["fen"]
    phone.find_element(By.ID, "r-first").click()
    assert attr(phone, "#replay", "data-fen") == replay["start"]["fen"]
    assert text(phone, "#r-at") == "Start"
    phone.find_element(By.ID, "r-next").click()
    assert attr(phone, "#replay", "data-fen") == moves[0]["fen"]
    assert text(phone, "#r-at") == f"Move 1. {moves[0]['move']}"
    last = min(3, len(moves) - 1)
    phone.find_elements(By.CSS_SELECTOR, "#r-moves .mv")[last].click()
    assert attr(phone, "#replay", "data-fen") == moves[last]["fen"]
    assert text(phone, "#r-at") == (f"Move {last // 2 + 1}{'…' if last % 2 else '.'} "
                                    f"{moves[last]['move']}")
    if screenshot:
        phone.execute_script("window.scrollTo(0, 0)")
        shot(phone, screenshot)
    link = urljoin(board.url, attr(phone, "#r-pdn", "href"))
    with urllib.request.urlopen(link, timeout=10) as resp:
        downloaded = resp.read().decode()
        assert "attachment" in resp.headers["Content-Disposition"]
    exported = subprocess.run([*BOARDCTL, "export", "--state-dir", str(board.state),
                               "--journal", str(board.state / "games" / f"{game}.jsonl")],
                              capture_output=True, text=True, timeout=60, check=True).stdout
    assert downloaded == exported and moves[0]["move"] in downloaded


def test_on_a_desktop_an_8x8_board(tmp_path: Path, desktop: Any) -> None:
    board = PageBoard(tmp_path / "state", rules="russian", tc="russian-blitz")
    try:
        desktop.get(board.url)
        until(desktop, lambda d: attr(d, "#v-game", "data-game") != "")
        assert attr(desktop, "#board svg", "viewBox") == "0 0 8 8"
        assert not desktop.find_elements(By.CSS_SELECTOR, "#board .num")  # algebraic: no numbers
        board.ask("start")
        board.play("c3-d4", "f6-g5")
        fen = board.ask("status")["fen"]
        until(desktop, lambda d: attr(d, "#v-game", "data-fen") == fen)
        assert text(desktop, "#pl-white .clock") != ""
        shot(desktop, "page-desktop.png")
        desktop.find_element(By.ID, "tab-new").click()
        until(desktop, lambda d: len(Select(d.find_element(By.ID, "rules")).options) > 1)
        rules = [o.text for o in Select(desktop.find_element(By.ID, "rules")).options]
        assert "russian" in rules and "international" not in rules  # the board's size only
        assert Select(desktop.find_element(By.ID, "tc")).first_selected_option.get_attribute(
            "value") == "russian-blitz"
        assert desktop.find_element(By.ID, "open-note").is_displayed()  # no password set
        shot(desktop, "page-desktop-new.png")
        assert desktop.execute_script("return document.documentElement.scrollWidth") <= 1280
        assert console_errors(desktop) == []
        leave(desktop)
    finally:
        board.stop()


def test_signing_in_on_the_phone_before_a_new_game(tmp_path: Path, phone: Any) -> None:
    secret = tmp_path / "pw"
    secret.write_text("open sesame\n")
    board = PageBoard(tmp_path / "state", "--http-password-file", str(secret))
    try:
        phone.delete_all_cookies()
        phone.get(board.url)
        until(phone, lambda d: attr(d, "#v-game", "data-game") != "")
        first = attr(phone, "#v-game", "data-game")
        new_game_from_the_form(phone, tc="fmjd-rapid", white="Ann", black="Bob")
        until(phone, lambda d: d.find_element(By.ID, "signin").is_displayed())
        assert "password" in text(phone, "#new-out")
        assert not phone.find_element(By.ID, "open-note").is_displayed()
        assert attr(phone, "#v-game", "data-game") == first  # nothing changed
        phone.find_element(By.ID, "password").send_keys("wrong")
        phone.find_element(By.CSS_SELECTOR, "#signin-form button").click()
        until(phone, lambda d: "wrong password" in text(d, "#signin-out"))
        box = phone.find_element(By.ID, "password")
        box.clear()
        box.send_keys("open sesame")
        phone.find_element(By.CSS_SELECTOR, "#signin-form button").click()
        until(phone, lambda d: not d.find_element(By.ID, "signin").is_displayed())
        cookie = phone.get_cookie("board_session")
        assert cookie is not None and cookie["httpOnly"] and cookie["sameSite"] == "Strict"
        new_game_from_the_form(phone, tc="fmjd-rapid", white="Ann", black="Bob")
        until(phone, lambda d: attr(d, "#v-game", "data-game") not in ("", first))
        assert text(phone, "#pl-white .name") == "Ann"
        assert console_errors(phone) == [] or all("401" in e for e in console_errors(phone))
        leave(phone)
    finally:
        board.stop()


@pytest.mark.parametrize("screen", ["phone", "desktop"])
def test_playing_the_computer_chosen_on_the_page(board: PageBoard, screen: str,
                                                 request: pytest.FixtureRequest) -> None:
    """The computer chosen for one game on the page's form (``new`` with ``engine``,
    ``engine_side``, ``engine_level``, as the control socket takes it), on a phone's screen
    and a desktop's: its move shown, carried out by the hand, the person's move, resigned from
    the page, then the game in the list, stepped through and downloaded."""
    driver = request.getfixturevalue(screen)
    driver.get(board.url)
    until(driver, lambda d: attr(d, "#v-game", "data-game") != "")
    first = attr(driver, "#v-game", "data-game")
    new_game_from_the_form(driver, tc="fmjd-rapid", white="Ann", black="", engine="black",
                           level="1")
    until(driver, lambda d: attr(d, "#v-game", "data-game") not in ("", first))
    game = attr(driver, "#v-game", "data-game")
    assert text(driver, "#pl-black .name").startswith("Computer (level 1)")
    assert driver.find_element(By.ID, "acts").is_displayed()  # hint, draw, resign
    status = board.ask("status")
    assert status["game"] == game and status["engine"]["side"] == "black"
    board.ask("start")
    board.play("32-28")
    until(driver, lambda d: "The computer plays" in text(d, "#notices"), timeout=60)
    move = board.ask("status")["engine"]["move"]
    assert move["move"] in text(driver, "#notices")
    assert driver.find_elements(By.CSS_SELECTOR, "#board .marks rect.go.end")
    shot(driver, f"page-{screen}-engine.png")
    board.hand.act("lift", move["route"][0])
    board.hand.act("place", move["route"][-1])
    for square in move["captured"]:
        board.hand.act("lift", square)
    until(driver, lambda d: attr(d, "#v-game", "data-ply") == "2", timeout=20)
    assert [b.text for b in driver.find_elements(By.CSS_SELECTOR, "#moves .mv")] == [
        "32-28", move["move"]]
    after = Position.from_fen("international", board.ask("status")["fen"])
    board.play(move_text(after, after.legal_moves()[0]))  # whatever the computer's move left
    until(driver, lambda d: attr(d, "#v-game", "data-ply") == "3", timeout=20)
    driver.find_element(By.ID, "resign").click()
    driver.find_element(By.ID, "confirm-yes").click()
    until(driver, lambda d: "Game over" in text(d, "#said"))
    check_the_game_kept(board, driver, game, says=("Ann", "0-2", "3 plies"), screenshot=None)
    assert console_errors(driver) == []
    leave(driver)
