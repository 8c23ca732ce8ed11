"""The live page in a real browser (headless Chromium, tests/support/browser.py) against the relay's
real HTTP server with the live hub on its hooks: the DOM follows the records (data-fen, clocks,
last move), the clocks tick, badges, the move list and stepping, the PDN download, the delay
and the arbiter's token, reconnection; no JavaScript console error anywhere."""

from __future__ import annotations

import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait
from support.browser import chrome, console_errors
from support.live_helpers import SCREENSHOTS, FakeClock, LiveRelay, game_records

from firmware.formats.feed import header_record
from firmware.pdn import read_games

TOKEN = "arbiter-secret-1"


@pytest.fixture(scope="module")
def one_chromium(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """One headless Chromium for the module (starting one costs ~2 s)."""
    driver = chrome(tmp_path_factory.mktemp("chromium-profile"))
    try:
        yield driver
    finally:
        driver.quit()


@pytest.fixture
def browser(one_chromium: Any) -> Iterator[Any]:
    """The module's Chromium, one window at desktop size, its console log emptied."""
    driver = one_chromium
    for handle in driver.window_handles[1:]:
        driver.switch_to.window(handle)
        driver.close()
    driver.switch_to.window(driver.window_handles[0])
    driver.set_window_size(1280, 900)
    driver.get("about:blank")
    console_errors(driver)
    yield driver
    driver.get("about:blank")  # closes the page's event stream before its relay stops


@pytest.fixture
def relay() -> Iterator[LiveRelay]:
    r = LiveRelay(token=TOKEN)
    try:
        yield r
    finally:
        r.close()


def board(driver: Any, name: str) -> Any:
    return driver.find_element(By.CSS_SELECTOR, f'[data-board="{name}"]')


def until(driver: Any, check: Any, timeout: float = 5.0) -> Any:
    """Wait (polling the DOM) for ``check(driver)`` to be true; its value."""
    return WebDriverWait(driver, timeout, poll_frequency=0.05).until(check)


def text_of(driver: Any, css: str) -> str:
    return str(driver.execute_script(
        "var e = document.querySelector(arguments[0]); return e ? e.textContent : null;", css))


def shot(driver: Any, name: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    driver.save_screenshot(str(SCREENSHOTS / name))


def test_boards_follow_moves_within_a_second(relay: LiveRelay, browser: Any) -> None:
    records = game_records("g12", 8, board="12")
    relay.feed("12", *records[:-1])
    relay.feed("7", *game_records("g7", 5, board="7", number=2, white="Cai", black="Dora"))
    browser.get(relay.url)
    until(browser, lambda d: board(d, "12").get_attribute("data-fen") == records[-2]["fen"])
    assert text_of(browser, "#title") == "Test hall"  # the games' Event tag
    assert [e.get_attribute("data-board") for e in
            browser.find_elements(By.CSS_SELECTOR, "[data-board]")] == ["7", "12"]
    card = '[data-board="12"]'
    assert text_of(browser, f"{card} .last .move") == records[-2]["move"]
    assert text_of(browser, f"{card} .white .clock") == "4:32"  # 272 s
    assert text_of(browser, f"{card} .white .name") == "Ann Aas"
    relay.feed("12", records[-1])
    until(browser, lambda d: board(d, "12").get_attribute("data-fen") == records[-1]["fen"],
          timeout=1.0)  # the contract: within a second of the move
    assert text_of(browser, f"{card} .last .move") == records[-1]["move"]
    assert text_of(browser, f"{card} .black .clock") == "4:32"
    assert browser.execute_script("return window.liveStats.n") >= 1
    shot(browser, "live-desktop.png")
    browser.set_window_size(360, 780)
    shot(browser, "live-360.png")
    width = browser.execute_script("return document.documentElement.scrollWidth")
    assert width <= 360  # nothing sticks out sideways on a phone
    assert console_errors(browser) == []


def test_clocks_tick_from_the_last_reading_and_follow_corrections(
        relay: LiveRelay, browser: Any) -> None:
    relay.feed("5", *game_records("g5", 2, board="5", base=65.0))  # both at 0:58, White runs
    browser.get(relay.url)
    white, black = '[data-board="5"] .white .clock', '[data-board="5"] .black .clock'
    until(browser, lambda d: text_of(d, white) in ("0:58", "0:57"))
    until(browser, lambda d: text_of(d, white) in ("0:56", "0:55"), timeout=4.0)  # ticking
    assert text_of(browser, black) == "0:58"  # the side not to move keeps its time
    relay.feed("5", {"type": "clock", "game": "g5", "event": "pause",
                     "clock": {"white": 3725.0, "black": 58.0}, "running": None})
    until(browser, lambda d: text_of(d, white) == "1:02:05")  # corrected, H:MM:SS
    assert "Clocks paused" in text_of(browser, '[data-board="5"] .badges')
    assert "running" not in board(browser, "5").find_element(
        By.CSS_SELECTOR, ".white .clock").get_attribute("class")
    assert console_errors(browser) == []


def test_badges_for_irregularity_flag_offline_and_result(relay: LiveRelay, browser: Any) -> None:
    relay.feed("9", *game_records("g9", 3, board="9"))
    browser.get(relay.url)
    badges = '[data-board="9"] .badges'
    until(browser, lambda d: board(d, "9").get_attribute("data-ply") == "3")
    relay.feed("9", {"type": "irregularity", "game": "g9", "kind": "illegal-move",
                     "side": "black", "squares": ["d4", "e5"]})
    until(browser, lambda d: "Irregularity: illegal-move d4 e5" in text_of(d, badges))
    assert "alert" in board(browser, "9").get_attribute("class")
    relay.feed("9", {"type": "cleared", "game": "g9"})
    until(browser, lambda d: "Irregularity" not in text_of(d, badges))
    relay.clock.now += 60  # nothing heard for a minute
    relay.hub.tick()
    until(browser, lambda d: "Offline" in text_of(d, badges))
    relay.feed("9", {"type": "result", "game": "g9", "result": "2-0", "reason": "time forfeit",
                     "at": 300.0, "side": "black"})
    until(browser, lambda d: "Flag: black" in text_of(d, badges))
    assert "2-0 (time forfeit)" in text_of(browser, badges)
    assert "Offline" not in text_of(browser, badges)
    # an arbiter's time forfeit (the feed's result line names no side): the loser's flag
    relay.feed("8", *game_records("g8", 2, board="8"))
    relay.feed("8", {"type": "result", "game": "g8", "result": "0-2", "reason": "time forfeit"})
    until(browser, lambda d: "Flag: white" in text_of(d, '[data-board="8"] .badges'))
    assert "?" not in text_of(browser, '[data-board="8"] .badges')
    assert console_errors(browser) == []


def test_move_list_stepping_and_pdn_download(relay: LiveRelay, browser: Any) -> None:
    records = game_records("g4", 6, board="4")
    relay.feed("4", *records)
    browser.get(relay.url)
    until(browser, lambda d: board(d, "4").get_attribute("data-ply") == "6")
    board(browser, "4").click()
    until(browser, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#moves .mv")) == 6)
    moves = browser.find_elements(By.CSS_SELECTOR, "#moves .mv")
    assert [m.text.split()[0] for m in moves] == [r["move"] for r in records[2:]]
    assert moves[0].find_element(By.CSS_SELECTOR, ".ct").text == "4:53"  # White's clock after
    assert text_of(browser, "#d-at") == f"Move 3… {records[-1]['move']}"
    browser.find_element(By.ID, "prev").click()
    assert text_of(browser, "#d-at") == f"Move 3. {records[-2]['move']}"
    assert moves[4].get_attribute("aria-current") == "step"
    browser.find_element(By.ID, "first").click()
    assert text_of(browser, "#d-at") == "Start"
    drawn = [p.get_attribute("d").count("M") for p in
             browser.find_elements(By.CSS_SELECTOR, "#d-svg path.man")]
    assert drawn == [20, 20]  # one disc a man: the start position
    moves[1].click()
    assert text_of(browser, "#d-at") == f"Move 1… {records[3]['move']}"
    relay.feed("4", *game_records("g4", 7, board="4")[-1:])  # live: the list grows
    until(browser, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#moves .mv")) == 7)
    assert text_of(browser, "#d-at") == f"Move 1… {records[3]['move']}"  # where the user was
    shot(browser, "live-board-open.png")
    browser.set_window_size(360, 780)
    shot(browser, "live-board-open-360.png")
    assert browser.execute_script("return document.getElementById('detail').scrollWidth") <= 360
    link = browser.find_element(By.ID, "download").get_attribute("href")
    assert link.endswith("/board/4.pdn")
    with urllib.request.urlopen(link, timeout=5) as resp:
        assert "attachment" in resp.headers["Content-Disposition"]
        text = resp.read().decode()
    game = next(read_games(text, "download"))
    assert [m.text for m in game.moves] == [r["move"] for r in records[2:]] + [
        game_records("g4", 7)[-1]["move"]]
    assert game.tags["White"] == "Ann Aas" and game.tags["Round"] == "3.4"
    assert "{[%clock w0:04:53 B0:05:00]}" in text
    assert console_errors(browser) == []


def test_delay_for_the_public_and_the_arbiter_view_live(browser: Any) -> None:
    clock = FakeClock()
    relay = LiveRelay(delay=120.0, token=TOKEN, clock=clock)
    try:
        records = game_records("g2", 4, board="2")
        relay.feed("2", *records[:-1])
        relay.hub.tick()
        clock.now += 300  # the first three moves are old enough for the public
        relay.hub.tick()
        relay.feed("2", records[-1], {"type": "irregularity", "game": "g2",
                                      "kind": "touch-move", "side": "white", "squares": ["c3"]})
        relay.hub.tick()
        browser.get(relay.url)
        until(browser, lambda d: board(d, "2").get_attribute("data-ply") == "3")
        assert text_of(browser, "#status") == "Delayed by 2 min"
        assert "Irregularity" not in text_of(browser, '[data-board="2"] .badges')
        assert browser.find_element(By.ID, "log").get_attribute("hidden") is not None
        with urllib.request.urlopen(relay.url + "board/2.pdn", timeout=5) as resp:
            assert records[-1]["move"] not in resp.read().decode()  # the download waits too
        browser.execute_script("window.open(arguments[0], 'arbiter')", f"{relay.url}?token={TOKEN}")
        browser.switch_to.window("arbiter")
        until(browser, lambda d: board(d, "2").get_attribute("data-ply") == "4")
        until(browser, lambda d: "touch-move c3" in text_of(d, "#log-list"))
        assert "Irregularity: touch-move c3" in text_of(browser, '[data-board="2"] .badges')
        assert "not delayed" in text_of(browser, "#status")
        shot(browser, "live-arbiter.png")
        browser.switch_to.window(browser.window_handles[0])
        clock.now += 121
        relay.hub.tick()  # the last move comes due for the public
        until(browser, lambda d: board(d, "2").get_attribute("data-fen") == records[-1]["fen"])
        assert "touch-move" in text_of(browser, '[data-board="2"] .badges')
        with pytest.raises(urllib.error.HTTPError) as wrong:
            urllib.request.urlopen(relay.url + "events?token=guess-guess", timeout=5)
        assert wrong.value.code == 403
        assert console_errors(browser) == []
    finally:
        relay.close()


def test_the_page_reconnects_and_catches_up_after_a_relay_restart(browser: Any) -> None:
    first = LiveRelay()
    port = first.port
    first.feed("1", *game_records("g1", 2, board="1"))
    first.feed("2", *game_records("g2", 2, board="2"))
    browser.get(first.url)
    until(browser, lambda d: board(d, "1").get_attribute("data-ply") == "2")
    assert len(browser.find_elements(By.CSS_SELECTOR, "[data-board]")) == 2
    first.close()
    until(browser, lambda d: text_of(d, "#status") == "Reconnecting…")
    second = LiveRelay(port=port)
    try:
        records = game_records("g1", 5, board="1")
        second.feed("1", *records)
        until(browser, lambda d: board(d, "1").get_attribute("data-fen") == records[-1]["fen"],
              timeout=10.0)
        assert text_of(browser, "#status") == "Live"
        assert len(browser.find_elements(By.CSS_SELECTOR, "[data-board]")) == 1  # the relay's
        # the browser logs the dropped stream as an error while the relay is away; nothing else
        assert [e for e in console_errors(browser) if "/events" not in e] == []
    finally:
        second.close()


def test_a_hall_at_a_glance_8x8_and_10x10_kings_and_every_badge(
        relay: LiveRelay, browser: Any) -> None:
    names = [("Ann Aas", "Bert Berg"), ("Cai Kask", "Dora Dale"), ("Eva Ernits", "Fred Faber"),
             ("Gert Gross", "Hanna Hein"), ("Ivo Ilves", "Jaan Jõe"), ("Kati Kuus", "Lee Lind")]
    for i, (white, black) in enumerate(names):
        name = str(i + 1)
        relay.feed(name, *game_records(f"g{name}", 10 + 3 * i, number=i + 1, board=name,
                                       white=white, black=black))
    relay.feed("2", {"type": "irregularity", "game": "g2", "kind": "missed-capture",
                     "side": "black", "squares": ["19", "28"]})
    relay.feed("3", {"type": "result", "game": "g3", "result": "0-2", "reason": "time forfeit",
                     "at": 300.0, "side": "white"})
    relay.feed("4", {"type": "clock", "game": "g4", "event": "pause",
                     "clock": {"white": 1802.0, "black": 1750.0}, "running": None})
    relay.feed("5", {"type": "result", "game": "g5", "result": "1-1", "reason": "agreed"})
    relay.feed("7", {"type": "game", "game": "r7", "rules": "russian", "fen": None,
                     "time_control": "600", "tags": {"White": "Mari Mets", "Black": "Olev Org"}},
               {"type": "move", "game": "r7", "ply": 1, "side": "white", "move": "c3-d4",
                "fen": "x", "clock": {"white": 590.0, "black": 600.0}},
               {"type": "move", "game": "r7", "ply": 2, "side": "black", "move": "f6-g5",
                "fen": "x", "clock": {"white": 590.0, "black": 588.0}})
    relay.feed("8", {"type": "game", "game": "k8", "rules": "international",
                     "fen": "W:WK46,31,32,33:BK5,18,19", "time_control": None,
                     "tags": {"White": "Piret Pihl", "Black": "Rein Raud"}})
    relay.clock.now += 30
    for name in "1234578":  # every board but 6 says something now and then
        relay.feed(name, header_record(name, f"run-{name}"))
    relay.hub.tick()  # board 6 has been silent for 30 s: offline
    browser.get(relay.url)
    until(browser, lambda d: len(d.find_elements(By.CSS_SELECTOR, "[data-fen]")) == 8)
    badges = {b.get_attribute("data-board"): b.find_element(By.CSS_SELECTOR, ".badges").text
              for b in browser.find_elements(By.CSS_SELECTOR, "[data-board]")}
    assert badges["2"] == "Irregularity: missed-capture 19 28"
    assert badges["3"].split("\n") == ["Flag: white", "0-2 (time forfeit)"]
    assert badges["4"] == "Clocks paused" and badges["5"] == "1-1 (agreed)"
    assert "Offline" in badges["6"] and badges["1"] == ""
    russian = board(browser, "7")
    assert russian.find_element(By.CSS_SELECTOR, "svg").get_dom_attribute("viewBox") == "0 0 8 8"
    assert russian.get_attribute("data-fen").startswith("W:W")  # played out by the relay
    assert text_of(browser, '[data-board="7"] .last .move') == "f6-g5"
    assert text_of(browser, '[data-board="4"] .white .clock') == "30:02"
    kings = [p.get_attribute("d").count("M") for p in
             board(browser, "8").find_elements(By.CSS_SELECTOR, "path.k")]
    assert kings == [1, 1]
    browser.set_window_size(1280, 1000)
    shot(browser, "live-hall.png")
    assert console_errors(browser) == []


def test_the_page_says_connecting_until_its_first_state(relay: LiveRelay, browser: Any) -> None:
    """Issue 36: "No game has started yet." showed while the page was still connecting. The
    event stream held back (Chromium's own blocking of the URL) stands for a slow first
    answer; then the same page, the stream let through, tells the empty hall."""
    browser.set_window_size(412, 915)
    browser.execute_cdp_cmd("Network.enable", {})
    browser.execute_cdp_cmd("Network.setBlockedURLs", {"urls": ["*/events*"]})
    try:
        browser.get(relay.url)
        until(browser, lambda d: d.execute_script("return document.readyState") == "complete")
        assert text_of(browser, "#empty") == "Connecting to the relay…"
        assert text_of(browser, "#status") == "Connecting…"
        assert "No game" not in browser.find_element(By.TAG_NAME, "body").text
        shot(browser, "live-connecting-412.png")
    finally:
        browser.execute_cdp_cmd("Network.setBlockedURLs", {"urls": []})
    browser.get(relay.url)
    until(browser, lambda d: text_of(d, "#empty") == "No game has started yet.")
    assert text_of(browser, "#status") == "Live"
    shot(browser, "live-empty-412.png")
    assert [e for e in console_errors(browser) if "/events" not in e] == []
