"""Issue 10: the service's game is ``boardctl replay``'s game whatever the timing: presses
0-30 ms after the set-down, a journal whose fsync stalls, a pause (one clock line)."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest
from support.service_helpers import (
    S,
    VirtualClock,
    fast_presses,
    game_log,
    moves_of,
    replayed,
    run_until,
    sim_service,
)

from boardctl.service.journal_file import current_path, load_journal
from boardctl.service.service import rebuild
from firmware.formats.feed import decode_line


@pytest.mark.parametrize(("plies", "lo", "hi", "seed"), [(46, 4, 30, 1), (14, 0, 5, 2)])
def test_fast_presses_play_the_replayed_game(tmp_path: Path, plies: int, lo: float, hi: float,
                                             seed: int) -> None:
    """Presses 0-30 ms after the last sensor event (the issue's 46-ply game: 3 moves before)."""
    events = fast_presses(game_log(plies, seed=seed, think=(0.3, 0.6)), lo, hi, seed)
    want = replayed(events)
    assert len(want.moves) == plies
    service, clock = sim_service(tmp_path, events)
    service.boot()
    run_until(service, clock, events[-1].at / S + 2)
    got = service.session
    assert moves_of(got) == moves_of(want)
    for mine, theirs in zip(got.moves, want.moves, strict=True):
        for side in ("white", "black"):  # stamps of the real button code: exact to the ns
            assert mine["clock"][side] == pytest.approx(theirs["clock"][side], abs=0.001)
    service.close()


def test_a_pause_puts_one_clock_line_on_the_feed(tmp_path: Path) -> None:
    lines: list[str] = []
    service, clock = sim_service(tmp_path, None, lines=lines)
    service.boot()
    assert service.command({"cmd": "start"})["ok"]
    run_until(service, clock, 1.0)
    service.command({"cmd": "pause"})
    run_until(service, clock, 2.0)
    service.command({"cmd": "resume"})
    run_until(service, clock, 3.0)
    service.close()
    clocks = [r for r in map(decode_line, lines) if r and r["type"] == "clock"]
    assert [r["event"] for r in clocks] == ["start", "pause", "resume", "pause"]


class StallingClock(VirtualClock):
    """A virtual clock whose advance wakes the fsync fault below."""

    def __init__(self) -> None:
        super().__init__()
        self.cond = threading.Condition()
        self.wake_at: int | None = None

    def advance_to(self, now: int) -> None:
        self.now = now
        if self.wake_at is not None and now >= self.wake_at:  # only then: no GIL ping-pong
            with self.cond:
                self.cond.notify_all()


class SlowFsync:
    """fsync that takes ``seconds`` of the virtual clock (an SD card in wear levelling): the
    calling thread (the journal writer's) waits until the test's loop has moved time on."""

    def __init__(self, clock: StallingClock, seconds: float) -> None:
        self.clock, self.ns, self.calls = clock, round(seconds * S), 0

    def __call__(self, fd: int) -> None:
        self.calls += 1
        until = self.clock.now + self.ns
        with self.clock.cond:
            self.clock.wake_at = until
            self.clock.cond.wait_for(lambda: self.clock.now >= until, timeout=60)
            self.clock.wake_at = None
        os.fsync(fd)


def test_fsync_stalled_for_1_5_s_changes_no_decision(tmp_path: Path) -> None:
    events = fast_presses(game_log(14, seed=4, think=(0.3, 0.9)), 4, 30, 4)
    want = replayed(events)
    clock = StallingClock()
    fsync = SlowFsync(clock, 1.5)
    lines: list[str] = []
    late: list[str] = []

    def on_line(line: str) -> None:  # the journal writer's thread: the move is durable first
        rec = decode_line(line)
        if rec is not None and rec["type"] == "move":
            journal = load_journal(current_path(tmp_path))
            if not any(d.get("type") == "move" and d.get("ply") == rec["ply"]
                       for d in journal.decisions):
                late.append(line)
        lines.append(line)

    service, _ = sim_service(tmp_path, events, clock=clock, fsync=fsync, threaded_io=True,
                             on_line=on_line)
    service.boot()
    end = events[-1].at / S + 2
    period = service.hw.scanner.period_ns
    lagged = False
    while service.game_time(clock.now) < end * S:
        due = service.script.next_at()
        step = clock.now + period
        if due is not None:
            step = min(step, max(clock.now + 1, service.origin + due))
        clock.advance_to(step)
        service.step(clock.now)
        moved = sum(1 for line in lines[-3:] if '"move"' in line)
        lagged |= len(service.session.moves) > 0 and moved == 0 and fsync.calls > 0
    assert moves_of(service.session) == moves_of(want)
    for mine, theirs in zip(service.session.moves, want.moves, strict=True):
        assert mine["clock"] == pytest.approx(theirs["clock"], abs=0.001)
    fsync.ns = 0
    clock.advance_to(clock.now + 3600 * S)  # the card comes back
    assert service.flush(10.0)
    service.close()
    assert fsync.calls >= 2 and lagged
    feed_moves = [r["move"] for r in map(decode_line, lines) if r and r["type"] == "move"]
    assert feed_moves == moves_of(want) and late == []
    again = rebuild(load_journal(current_path(tmp_path))).session
    assert moves_of(again) == moves_of(want)


class ListSink:
    def __init__(self, path: Path) -> None:
        self.path, self.lines, self.unjournaled = path, [], 0

    def send(self, line: str) -> None:
        rec = decode_line(line)
        if rec is not None and rec["type"] == "move":  # in the journal before the sink
            journal = load_journal(current_path(self.path))
            self.unjournaled += not any(d.get("ply") == rec["ply"] for d in journal.decisions)
        self.lines.append(line)


class BrokenSink:
    def send(self, line: str) -> None:
        raise ConnectionError("broker away")


def test_feed_sinks_get_every_line_after_the_journal(tmp_path: Path) -> None:
    events = game_log(6, seed=8)
    lines: list[str] = []
    sink = ListSink(tmp_path)
    service, clock = sim_service(tmp_path, events, lines=lines, threaded_io=True,
                                 sinks=[BrokenSink(), sink])
    service.boot()
    run_until(service, clock, events[-1].at / S + 2)
    service.close()
    assert sink.lines == lines and len(lines) > 8  # the broken sink stopped nothing
    assert sink.unjournaled == 0
    moves = [r["move"] for r in map(decode_line, sink.lines) if r and r["type"] == "move"]
    assert moves == moves_of(replayed(events))
