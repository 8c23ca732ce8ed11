"""``boardctl watch`` as a real process: against a real ``boardctl run --sim`` (control
socket) and against a real Mosquitto with feed lines published straight to it. Processes are
stopped by their pid; waiting here is for a process to get somewhere, never a timing
assertion."""

from __future__ import annotations

import queue
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

from support.mqtt_broker import mosquitto  # noqa: F401  (the fixture)
from support.service_helpers import PACE, TC, game_log
from support.terminal_helpers import WK2003, demo_feed, pdn_moves, sim_service_process, stop_process

from firmware.formats.events import iter_records
from firmware.formats.feed import decode_line

BOARDCTL = [sys.executable, "-m", "boardctl"]


class Lines:
    """A process's stdout, line by line, read on a thread (so a wait can end)."""

    def __init__(self, proc: subprocess.Popen[str]) -> None:
        self.proc = proc
        self.seen: list[str] = []
        self._queue: queue.Queue[str] = queue.Queue()
        assert proc.stdout is not None
        out = proc.stdout
        threading.Thread(target=lambda: [self._queue.put(line) for line in out],
                         daemon=True).start()

    def until(self, predicate, timeout: float = 30.0) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                line = self._queue.get(timeout=0.1).rstrip("\n")
            except queue.Empty:
                continue
            self.seen.append(line)
            if predicate(line):
                return line
        raise AssertionError(f"timed out; the process said: {self.seen[-20:]}")


def _moves_said(lines: list[str]) -> list[str]:
    """The moves in ``N. MOVE by SIDE`` sentences."""
    return [line.split(" by ")[0].split(" ", 1)[1] for line in lines
            if " by white" in line or " by black" in line]


def test_watch_follows_a_real_service_over_its_socket(tmp_path: Path) -> None:
    events = game_log(8, seed=2, think=(0.05, 0.15), change_mind=0.0, pace=PACE)
    log = tmp_path / "game.jsonl"
    log.write_text("".join(iter_records(events)))
    state, feed = tmp_path / "state", tmp_path / "feed.jsonl"
    service = sim_service_process(state, "international", "--time-control", TC, "--events",
                                  str(log), "--feed", str(feed))
    watch = None
    try:
        watch = subprocess.Popen([*BOARDCTL, "watch", "--state-dir", str(state), "--plain"],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        lines = Lines(watch)
        first = lines.until(lambda line: True)
        assert first.startswith("board ") and "international, time control 300+5" in first
        lines.until(lambda line: line.startswith("4... "))
        said = _moves_said(lines.seen)
        want = pdn_moves(WK2003, 1, 8)
        # the first line summed up the moves made before it; every later one was said once
        already = int(first.split("; ")[1].split(" moves")[0])
        assert said == want[already:]
        deadline = time.monotonic() + 20
        while True:  # the status may tell a move before its feed line reaches the file
            written = [decode_line(line) for line in feed.read_text().splitlines()]
            moves = [r["move"] for r in written if r and r["type"] == "move"]
            if len(moves) >= len(want) or time.monotonic() > deadline:
                break
            time.sleep(0.05)
        assert moves == want
        assert all("white" in line and "black" in line for line in lines.seen
                   if " by " in line)  # each move with both clocks
        err = stop_process(watch, signal.SIGINT)
        assert watch.returncode == 130 and "Traceback" not in err
    finally:
        stop_process(watch)
        stop_process(service)


def test_watch_without_a_service_says_why_in_one_line(tmp_path: Path) -> None:
    done = subprocess.run([*BOARDCTL, "watch", "--state-dir", str(tmp_path), "--plain"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert done.stderr.startswith("boardctl: error: the board service is not running")
    assert len(done.stderr.splitlines()) == 1
    done = subprocess.run([*BOARDCTL, "watch", "--broker", "mqtt://127.0.0.1:1", "--hall",
                           "h/#", "--board", "b", "--plain"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "--hall" in done.stderr and "Traceback" not in done.stderr


def test_watch_a_hall_board_over_mqtt(tmp_path: Path, mosquitto) -> None:  # noqa: F811
    import paho.mqtt.client as mqtt

    lines = demo_feed(tmp_path / "state", WK2003, 4, 12)
    publisher = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="test-board")
    publisher.connect("127.0.0.1", mosquitto.port)
    publisher.loop_start()
    watch = None
    try:
        base = "kabelaud/hall1/b7"
        publisher.publish(f"{base}/status", "online", qos=1, retain=True).wait_for_publish(5)
        watch = subprocess.Popen([*BOARDCTL, "watch", "--broker", mosquitto.url, "--hall",
                                  "hall1", "--board", "b7", "--plain"],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        out = Lines(watch)
        out.until(lambda line: line == "board online")  # subscribed: the retained status
        moves = [i for i, line in enumerate(lines) if '"type":"move"' in line]
        send = lines[: moves[5] + 1]
        send += [lines[moves[5]]]  # QoS 1 may deliver a line again: taken once
        send += [lines[moves[6]].replace('"move":', '"move" :')]  # damaged: its crc fails
        send += lines[moves[7]:]  # a gap: the 7th move lost; told, then made good
        for line in send:
            publisher.publish(f"{base}/feed", line, qos=1).wait_for_publish(5)
        out.until(lambda line: line.startswith("6... "))
        said = _moves_said(out.seen)
        want = pdn_moves(WK2003, 4, 12)
        assert said == want[:6] + want[7:]  # each numbered by its ply: "4. 44-40" is lost
        assert f"4... {want[7]} by black" in " ".join(out.seen)
        assert "link: lost lines: waiting for a snapshot" in out.seen
        publisher.publish(f"{base}/status", "offline", qos=1, retain=True).wait_for_publish(5)
        out.until(lambda line: line == "board offline")
        err = stop_process(watch, signal.SIGINT)
        assert "Traceback" not in err
    finally:
        publisher.loop_stop()
        publisher.disconnect()
        stop_process(watch)


def test_watch_plain_over_mqtt_sums_up_a_real_board_as_soon_as_it_has_the_state(
        tmp_path: Path, mosquitto) -> None:  # noqa: F811
    """Issue 36 item 6: ``watch --plain --broker`` printed the link's state and ``board
    online`` but never the board's own (a screen-reader user over the network got nothing),
    where ``watch --plain --state-dir`` sums the game up at once. A real ``boardctl run --sim
    --broker`` has played its moves before the watch starts; the watch's first snapshot gives
    the summary, the same as the board's own status tells."""
    from support.hall_helpers import Board, write_log

    from boardctl.service.control import ControlError, default_socket, request

    events = game_log(6, seed=2, think=(0.05, 0.15), change_mind=0.0, pace=PACE)
    state = tmp_path / "b1"
    board = Board(mosquitto.url, "H", "b1", state, write_log(tmp_path / "game.jsonl", events),
                  "--snapshot-every", "1").start()
    watch = None
    try:
        def played() -> dict | None:
            try:
                status = request(default_socket(state), "status")
            except ControlError:
                return None
            return status if status.get("ply") == 6 else None

        status = None
        deadline = time.monotonic() + 60
        while status is None and time.monotonic() < deadline:  # the board's own process
            status = played()
            time.sleep(0.05)
        assert status is not None, board.stderr()
        watch = subprocess.Popen([*BOARDCTL, "watch", "--plain", "--broker", mosquitto.url,
                                  "--hall", "H", "--board", "b1"],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        out = Lines(watch)
        summary = out.until(lambda line: line.startswith("board b1: "))
        moves = pdn_moves(WK2003, 1, 6)
        assert summary.startswith("board b1: international, time control 300+5; 6 moves, "
                                  f"last 3... {moves[-1]}; white to move; white "), summary
        assert ", black " in summary
        assert out.seen[:2] == ["link: waiting for a snapshot", "board online"]
        assert out.seen[-2:] == ["link: back", summary]  # nothing said of the game before it
        status = request(default_socket(state), "status")  # the board says no less
        assert status["moves"] == moves and status["turn"] == "white"
        err = stop_process(watch, signal.SIGINT)
        assert "Traceback" not in err
    finally:
        stop_process(watch)
        board.stop()
