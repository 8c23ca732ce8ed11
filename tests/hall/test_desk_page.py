"""The desk page in headless Chromium, end to end: a real Mosquitto, a real ``boardctl run --sim
--hall-key`` board playing a real game, a real ``boardctl relay --hall-key --arbiter-token``.
The arbiter clicks the acts (each asks for a confirmation first), the whole hall's pause, and
steps through the sensor timeline of a ply; the board's control socket shows what happened.
Waiting is bounded polling on real processes and the browser, never a timing assertion."""

from __future__ import annotations

import os
import re
import signal
from pathlib import Path
from typing import Any

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select
from support.browser import console_errors
from support.hall_helpers import Board, RelayProcess, wait_for, write_log
from support.mqtt_broker import Mosquitto
from support.service_helpers import PACE, game_log, replayed
from test_desk_control import TOKEN, broker_state, hall_key

from boardctl.service.control import request as socket_request


def status(board: Board) -> dict[str, Any]:
    return socket_request(board.state / "control.sock", "status")


def click(browser: Any, selector: str) -> None:
    browser.find_element(By.CSS_SELECTOR, selector).click()


def act(browser: Any, selector: str, out: str = "#desk-out") -> str:
    """Click an act, confirm it, and wait for the board's answer on the page."""
    browser.execute_script(f"document.querySelector('{out}').dataset.ok = '';")
    click(browser, selector)
    confirm = browser.find_element(By.ID, "confirm")
    wait_for(confirm.is_displayed, 10, "the confirmation")
    question = browser.find_element(By.ID, "confirm-text").text
    click(browser, "#confirm-yes")
    wait_for(lambda: browser.find_element(By.CSS_SELECTOR, out).get_attribute("data-ok"), 20,
             f"the answer to {question!r}")
    return question


def test_the_arbiter_acts_from_the_page(mosquitto: Mosquitto, tmp_path: Path,
                                        browser: Any) -> None:
    key = hall_key(tmp_path)
    events = game_log(4, seed=2, think=(0.02, 0.06), change_mind=0.0, pace=PACE)
    moves = replayed(events).moves
    # --desk-timeout: the stalled board's 504 comes after 2 s (5 by default)
    relay = RelayProcess(mosquitto.url, "H", tmp_path, "--arbiter-token", TOKEN,
                         "--hall-key", str(key), "--desk-timeout", "2")
    board = Board(mosquitto.url, "H", "b1", tmp_path / "b1",
                  write_log(tmp_path / "b1.jsonl", events), "--hall-key", str(key),
                  "--round", "3")
    try:
        relay.start()
        board.start()
        wait_for(lambda: broker_state(board) == "ready", 60, "b1 on the broker")
        # The public page has no desk.
        browser.get(relay.url)
        card = f'[data-board="b1"][data-fen="{moves[-1]["fen"]}"]'
        wait_for(lambda: browser.find_elements(By.CSS_SELECTOR, card), 60, "b1's last move")
        assert not browser.find_element(By.ID, "hallbar").is_displayed()
        click(browser, card)
        assert not browser.find_element(By.ID, "desk").is_displayed()

        browser.get(f"{relay.url}?token={TOKEN}")
        wait_for(lambda: browser.find_elements(By.CSS_SELECTOR, card), 60, "the arbiters' page")
        assert browser.find_element(By.CSS_SELECTOR, f"{card} .rd").text == "Round 3"
        click(browser, card)
        wait_for(browser.find_element(By.ID, "desk").is_displayed, 10, "the desk")
        assert browser.find_element(By.ID, "detail-title").text == "Board b1, round 3"

        # Cancelled: nothing reaches the board.
        click(browser, '#desk [data-act="start"]')
        click(browser, "#confirm-no")
        assert status(board)["desk"]["answered"] == 0

        # Set a clock: the question names it, the board's clock shows it.
        Select(browser.find_element(By.ID, "clock-side")).select_by_value("black")
        browser.find_element(By.ID, "clock-time").send_keys("20:00")
        question = act(browser, '#desk [data-act="clock-set"]')
        assert question == "Set black's clock to 20:00 on board b1?"
        assert browser.find_element(By.ID, "desk-out").text == "Board b1: done"
        assert round(status(board)["clock"]["black"]) in (1199, 1200)

        # The whole hall, from above the boards: pause every board.
        click(browser, "#close")
        assert act(browser, '#hallbar [data-act="pause-all"]', "#hall-out").startswith(
            "Pause the clocks on every board (1)")
        assert browser.find_element(By.ID, "hall-out").text == "1 of 1 boards paused"
        assert status(board)["running"] is None
        click(browser, card)
        wait_for(browser.find_element(By.ID, "desk").is_displayed, 10, "the desk again")


        # The dispute view: the lifts and places that made ply 2, stepped through.
        ply = browser.find_element(By.ID, "tl-ply")
        ply.clear()
        ply.send_keys("2")
        click(browser, "#tl-show")
        wait_for(lambda: browser.find_elements(By.CSS_SELECTOR, "#tl-list li.made"), 20,
                 "the timeline of ply 2")
        kinds = [li.get_attribute("data-type")
                 for li in browser.find_elements(By.CSS_SELECTOR, "#tl-list li[data-type]")]
        assert "lift" in kinds and "place" in kinds
        made = browser.find_element(By.CSS_SELECTOR, "#tl-list li.made").text
        assert made == f"ply 2: {moves[1]['move']}"
        assert browser.find_element(By.ID, "tl-at").text.startswith(f"1/{len(kinds)}: ")
        click(browser, "#tl-next")
        at = browser.find_element(By.ID, "tl-at").text
        lit = browser.find_element(By.CSS_SELECTOR, "#d-svg path.hl").get_attribute("d")
        if kinds[1] in ("lift", "place"):  # its square by number (100 squares), lit
            assert re.fullmatch(rf"2/{len(kinds)}: {kinds[1]} \d{{1,2}} at \+\d+\.\d\d s", at), at
            assert re.fullmatch(r"M\d \dh1v1h-1z", lit), lit
        else:
            assert at.startswith(f"2/{len(kinds)}: ") and lit == ""

        # A result, from the choices of a 100-square board.
        options = [o.text for o in Select(browser.find_element(By.ID, "result")).options]
        assert options == ["2-0", "1-1", "0-2", "0-0"]
        Select(browser.find_element(By.ID, "result")).select_by_visible_text("1-1")
        Select(browser.find_element(By.ID, "reason")).select_by_visible_text("agreement")
        act(browser, '#desk [data-act="result"]')
        assert status(board)["result"] == "1-1"
        # A refusal is shown in the board's own words: no adjournment after the result.
        browser.find_element(By.ID, "sealed").send_keys("32-28")
        act(browser, '#desk [data-act="adjourn"]')
        said = browser.find_element(By.ID, "desk-out").text
        assert said.startswith("Board b1 refused: ") and "adjourn" in said, said
        assert status(board)["adjourned"] is False
        # A board that does not answer (stalled): the page says so, not that it refused,
        # and that it may have acted.
        assert board.proc is not None
        os.kill(board.proc.pid, signal.SIGSTOP)
        try:
            act(browser, '#desk [data-act="clock-set"]')
            said = browser.find_element(By.ID, "desk-out").text
        finally:
            os.kill(board.proc.pid, signal.SIGCONT)
        assert said.startswith("Board b1 did not answer: ") and "may have acted" in said, said
        # the browser logs the 504 itself; nothing else went wrong on the page
        assert [e for e in console_errors(browser) if "status of 504" not in e] == []
    finally:
        board.stop()
        relay.stop()
