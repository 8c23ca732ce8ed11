"""``boardctl run --sim`` as a real process: kill -9 and restart, the control socket, the pty
feed, sd_notify. Waiting here is for a subprocess to get somewhere, never a timing assertion."""

from __future__ import annotations

import json
import os
import pty
import random
import signal
import socket
import subprocess
import sys
import time
import tty
from pathlib import Path

import pytest
from support.service_helpers import PACE, TC, S, game_log, replayed, wait_for

from boardctl.relay.serial import LineSplitter
from boardctl.relay.state import RelayState
from boardctl.service.control import request
from firmware.formats.events import iter_records
from firmware.formats.feed import decode_line
from firmware.pdn import read_games

BOARDCTL = [sys.executable, "-m", "boardctl"]


def run(*args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*BOARDCTL, *args], capture_output=True, text=True, timeout=60,
                          check=check)


def start(state: Path, *extra: str, env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [*BOARDCTL, "run", "--sim", "--rules", "international", "--time-control", TC,
         "--state-dir", str(state), *extra],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
        env={**os.environ, **(env or {})},
    )


def status(state: Path) -> dict:
    return request(state / "control.sock", "status", timeout=2.0)


def stop(proc: subprocess.Popen[str]) -> str:
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=20)
    assert proc.returncode == 0, err
    return err


def test_kill_9_at_random_moments_then_the_same_game_and_clocks(tmp_path: Path) -> None:
    events = game_log(6, seed=1, think=(0.05, 0.15), change_mind=0.0, pace=PACE)  # 2 s of play
    log = tmp_path / "game.jsonl"
    log.write_text("".join(iter_records(events)))
    state, feed = tmp_path / "state", tmp_path / "feed.jsonl"
    want = replayed(events)
    rng = random.Random(1)
    last_end = events[-1].at / S
    for _ in range(3):
        proc = start(state, "--events", str(log), "--feed", str(feed))
        wait_for(lambda: status(state))
        time.sleep(rng.uniform(0.1, last_end / 3))  # a random moment of the game
        proc.kill()
        proc.wait(timeout=10)
        proc.stderr.close()
        # Whatever the moment, the journal reads back into a game (export needs no service).
        exported = run("export", "--state-dir", str(state)).stdout
        next(read_games(exported, "export"))
    proc = start(state, "--events", str(log), "--feed", str(feed))
    final = wait_for(lambda: (s := status(state))["ply"] == len(want.moves) and s, timeout=40,
                     what="the game to finish")
    assert final["moves"] == [m["move"] for m in want.moves]
    for side in ("white", "black"):
        assert final["clock"][side] == pytest.approx(want.moves[-1]["clock"][side], abs=0.5)
    stop(proc)
    game = next(read_games(run("export", "--state-dir", str(state)).stdout, "export"))
    assert [m.text for m in game.moves] == [m["move"] for m in want.moves]
    # ... which is what `boardctl replay` makes of the same log, clocks to the second.
    replay = run("replay", "--rules", "international", "--time-control", TC, str(log)).stdout
    theirs = next(read_games(replay, "replay"))
    assert [m.text for m in theirs.moves] == [m.text for m in game.moves]
    for mine, ref in zip(game.moves, theirs.moves, strict=True):
        assert mine.clock is not None and ref.clock is not None
        assert abs(mine.clock.white - ref.clock.white) <= 1
        assert abs(mine.clock.black - ref.clock.black) <= 1
    # The feed file holds four runs (a line cut by kill -9 is dropped by its checksum): the
    # relay still gets the whole game.
    relay = RelayState()
    for line in feed.read_bytes().splitlines(keepends=True):
        relay.feed_line("file", line)
    (only,) = relay.games.values()
    assert [m["move"] for m in only.moves] == [m["move"] for m in want.moves]


def test_restart_without_the_log_resumes_paused(tmp_path: Path) -> None:
    events = game_log(4, seed=3, think=(0.05, 0.1), change_mind=0.0, pace=PACE)
    log = tmp_path / "game.jsonl"
    log.write_text("".join(iter_records(events)))
    state = tmp_path / "state"
    proc = start(state, "--events", str(log))
    wait_for(lambda: status(state)["ply"] >= 1, what="a move")
    proc.kill()
    proc.wait(timeout=10)
    proc.stderr.close()
    feed_out = run("export", "--state-dir", str(state), "--format", "feed").stdout.splitlines()
    snapshot = decode_line(feed_out[-1])
    assert snapshot is not None and snapshot["type"] == "snapshot"
    proc = start(state)
    first = wait_for(lambda: status(state))
    assert first["running"] is None  # clocks paused after the crash
    assert first["moves"] == [m["move"] for m in snapshot["moves"]]
    assert first["clock"] == snapshot["clock"]
    second = status(state)
    assert second["clock"] == first["clock"]  # and they stay paused
    resumed = request(state / "control.sock", "resume")
    assert resumed["running"] == snapshot["running"]
    stop(proc)


def test_control_socket_cli_and_garbage(tmp_path: Path) -> None:
    state = tmp_path / "state"
    gone = run("status", "--state-dir", str(tmp_path / "nowhere"), check=False)
    assert gone.returncode == 2 and "not running" in gone.stderr
    assert gone.stderr.count("\n") == 1 and "Traceback" not in gone.stderr
    dates = {time.strftime("%Y.%m.%d")}  # the wall date the game is set up on
    proc = start(state, "--white", "Sijbrands", "--round", "4")
    wait_for(lambda: status(state))
    dates.add(time.strftime("%Y.%m.%d"))
    out = run("status", "--state-dir", str(state)).stdout
    assert "waiting for the start" in out and "Sijbrands" in out
    run("start", "--state-dir", str(state))
    done = run("clock-set", "white", "1:00", "--state-dir", str(state))
    assert "white 0:01:00" in done.stdout or "white 0:00:59" in done.stdout
    assert done.stderr.startswith("boardctl: warning: white's time shortened to 60 s, below 15")
    run("pause", "--state-dir", str(state))
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.settimeout(5)
        s.connect(str(state / "control.sock"))
        s.sendall(b"\xff\xfe garbage\n{\"cmd\": \"clock-set\", \"side\": 3}\n{}\n")
        answers = b""
        while answers.count(b"\n") < 3:
            answers += s.recv(4096)
    replies = [json.loads(line) for line in answers.splitlines()]
    assert [r["ok"] for r in replies] == [False, False, False]
    bad = run("result", "5-5", "--state-dir", str(state), check=False)
    assert bad.returncode == 2 and "not a result" in bad.stderr
    answer = json.loads(run("status", "--json", "--state-dir", str(state)).stdout)
    assert answer["running"] is None and answer["clock"]["white"] <= 60
    assert answer["tags"].pop("Date") in dates  # issue 36: a game today was "????.??.??"
    assert answer["tags"] == {"White": "Sijbrands", "Round": "4"}
    pdn = run("pdn", "--state-dir", str(state)).stdout
    assert '[White "Sijbrands"]' in pdn
    stop(proc)
    assert not (state / "control.sock").exists()
    exported = run("export", "--state-dir", str(state)).stdout  # from the journal alone
    date = next(read_games(exported, "export")).tags["Date"]
    assert date in dates and f'[Date "{date}"]' in pdn


def test_feed_on_a_pty_and_sd_notify(tmp_path: Path) -> None:
    master, slave = pty.openpty()
    tty.setraw(slave)
    port = os.ttyname(slave)
    notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    notify.bind(str(tmp_path / "notify"))
    notify.settimeout(10)
    state = tmp_path / "state"
    proc = start(state, "--feed", port, "--name", "b12",
                 env={"NOTIFY_SOCKET": str(tmp_path / "notify"), "WATCHDOG_USEC": "200000"})
    try:
        messages = [notify.recv(4096).decode()]
        assert messages[0].startswith("READY=1")
        messages.append(notify.recv(4096).decode())
        assert "WATCHDOG=1" in messages
        splitter = LineSplitter()
        lines: list[bytes] = []
        os.set_blocking(master, False)

        def got_snapshot() -> bool:
            try:
                lines.extend(splitter.feed(os.read(master, 65536)))
            except BlockingIOError:
                pass
            return any(b'"snapshot"' in line for line in lines)

        wait_for(got_snapshot, what="the feed")
        records = [decode_line(line) for line in lines]
        assert records[0] is not None and records[0]["type"] == "header"
        assert records[0]["board"] == "b12"
        request(state / "control.sock", "start")
        stop(proc)
        while True:
            message = notify.recv(4096).decode()
            if "STOPPING=1" in message:
                break
    finally:
        if proc.poll() is None:
            proc.kill()
        os.close(master)
        os.close(slave)
        notify.close()


def test_a_russian_game_resumes_without_its_rules_given_again(tmp_path: Path) -> None:
    """`boardctl run --sim --state-dir DIR` after any stop resumes the game where it stood:
    the simulated board takes the size of the game in the journal (8x8 here), not the default
    10x10 of a new game."""
    log = tmp_path / "russian.jsonl"
    log.write_text("".join(json.dumps(e) + "\n" for e in [
        {"type": "start", "t": 0.2},
        {"type": "lift", "t": 0.5, "square": "c3"}, {"type": "place", "t": 0.7, "square": "d4"},
        {"type": "press", "t": 0.9, "side": "white"},
        {"type": "lift", "t": 1.3, "square": "f6"}, {"type": "place", "t": 1.5, "square": "e5"},
        {"type": "press", "t": 1.7, "side": "black"},
    ]))
    state = tmp_path / "state"
    proc = subprocess.Popen(
        [*BOARDCTL, "run", "--sim", "--rules", "russian", "--time-control", "300",
         "--state-dir", str(state), "--events", str(log)],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    wait_for(lambda: status(state)["ply"] == 2, what="two moves")
    proc.kill()
    proc.wait(timeout=10)
    proc.stderr.close()
    proc = subprocess.Popen([*BOARDCTL, "run", "--sim", "--state-dir", str(state)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        resumed = wait_for(lambda: proc.poll() is not None or status(state), what="a resume")
        assert resumed is not True, proc.stderr.read() if proc.stderr else ""
        assert resumed["rules"] == "russian" and resumed["moves"] == ["c3-d4", "f6-e5"]
        assert resumed["running"] is None
    finally:
        if proc.poll() is None:
            stop(proc)
