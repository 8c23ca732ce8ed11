"""End to end in processes: two real ``boardctl run --sim`` services play real games onto ptys,
their feeds reach a real ``boardctl relay`` process over ptys, and headless Chromium shows
both boards on the relay's live page. Waiting here is for processes to get somewhere, never a
timing assertion."""

from __future__ import annotations

import os
import pty
import re
import signal
import subprocess
import sys
import threading
import tty
import urllib.request
from pathlib import Path
from typing import Any

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait
from support.browser import console_errors
from support.service_helpers import PACE, TC, game_log, replayed

from boardctl.relay.serial import LineSplitter
from firmware.formats.events import iter_records
from firmware.formats.feed import decode_line
from firmware.pdn import read_games

BOARDCTL = [sys.executable, "-m", "boardctl"]


def raw_pty() -> tuple[int, int, str]:
    master, slave = pty.openpty()
    tty.setraw(slave)
    return master, slave, os.ttyname(slave)


def bridge(src: int, dst: int, stop: threading.Event, moves: list[dict[str, Any]]
           ) -> threading.Thread:
    """Copy what a service writes on one pty into the pty the relay reads: a serial cable.
    The move records that pass are kept in ``moves`` (what the page must end up showing)."""

    def run() -> None:
        import select

        lines = LineSplitter()
        while not stop.is_set():
            ready, _, _ = select.select([src], [], [], 0.1)
            if ready:
                try:
                    data = os.read(src, 65536)
                    os.write(dst, data)
                except OSError:
                    return
                for line in lines.feed(data):
                    record = decode_line(line)
                    if record is not None and record.get("type") == "move":
                        moves.append(record)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


def test_sim_services_through_a_relay_process_to_the_page(tmp_path: Path, browser: Any) -> None:
    stop = threading.Event()
    fds: list[int] = []
    procs: list[subprocess.Popen[str]] = []
    want = {}
    sent: dict[str, list[dict[str, Any]]] = {}
    try:
        relay_ports: list[str] = []
        boards: list[list[str]] = []
        for name, seed, white in (("b12", 1, "Ann Aas"), ("b7", 2, "Cai Kask")):
            events = game_log(4, seed=seed, think=(0.02, 0.06), change_mind=0.0, pace=PACE)
            log = tmp_path / f"{name}.jsonl"
            log.write_text("".join(iter_records(events)))
            want[name] = replayed(events)
            service_master, service_slave, service_port = raw_pty()
            relay_master, relay_slave, relay_port = raw_pty()
            fds += [service_master, service_slave, relay_master, relay_slave]
            relay_ports.append(relay_port)
            bridge(service_master, relay_master, stop, sent.setdefault(name, []))
            boards.append([*BOARDCTL, "run", "--sim", "--rules", "international",
                           "--time-control", TC, "--state-dir", str(tmp_path / name),
                           "--events", str(log), "--feed", service_port, "--name", name,
                           "--white", white, "--black", "Bert Berg", "--snapshot-every", "2"])
        # The relay first, on its ports, as in a hall: a serial port opened flushes what
        # waited on it, so a board started first could have its header and moves thrown away.
        relay = subprocess.Popen(
            [*BOARDCTL, "relay", *relay_ports, "--http", "127.0.0.1:0",
             "--arbiter-token", "hall-arbiter-1"],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        procs.append(relay)
        assert relay.stderr is not None
        url, opened = "", set[str]()
        while not url or len(opened) < len(relay_ports):
            line = relay.stderr.readline()
            assert line, "the relay ended before serving"
            match = re.search(r"live page at (http://127\.0\.0\.1:\d+/)", line)
            url = match.group(1) if match else url
            opened |= {port for port in relay_ports if f"{port} connected" in line}
        procs += [subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                   text=True) for args in boards]
        browser.get(url + "?token=hall-arbiter-1")
        for name, session in want.items():
            # The services play in real time: wait for their last move to be on the wire (on
            # a machine loaded enough to change how a hand's events read, the feed rules).
            plies = len(session.moves)
            WebDriverWait(browser, 60, poll_frequency=0.1).until(
                lambda d, n=name, p=plies: any(m["ply"] >= p for m in sent[n]))
            last = sent[name][-1]
            # ... and then on the page (the relay and Chromium share the loaded machine too).
            WebDriverWait(browser, 30, poll_frequency=0.1).until(
                lambda d, n=name, f=last["fen"]: d.find_elements(
                    By.CSS_SELECTOR, f'[data-board="{n}"][data-fen="{f}"]'))
            card = browser.find_element(By.CSS_SELECTOR, f'[data-board="{name}"]')
            assert card.get_attribute("data-ply") == str(last["ply"])
            assert card.find_element(By.CSS_SELECTOR, ".last .move").text == last["move"]
            assert re.fullmatch(r"\d+:\d\d", card.find_element(
                By.CSS_SELECTOR, ".white .clock").text)
        assert "Ann Aas" in browser.find_element(By.CSS_SELECTOR, '[data-board="b12"]').text
        with urllib.request.urlopen(url + "games.pdn", timeout=5) as resp:
            games = list(read_games(resp.read().decode(), "relay"))
        assert len(games) == 2  # the broadcast PDN is still served beside the page
        assert console_errors(browser) == []
    finally:
        stop.set()
        for proc in procs:
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
        for proc in procs:
            try:
                proc.communicate(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.communicate()
        for fd in fds:
            os.close(fd)
    assert relay.returncode == 0
