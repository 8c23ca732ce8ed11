"""The menus at the board and the spoken game on the board's real-time path (issue 40):
run ``python benchmarks/bench_menu_voice.py [--plies 40] [--rounds 3]``.

1. press -> move line on the feed's pty, p50/p99: the service on real time in a thread (as
   benchmarks/bench_service.py measures it), a real game's moves made on the simulated board,
   the clock button pressed; without the voice and the menus, then with both: the voice a
   feed sink speaking every move through espeak-ng into WAV files (its threads and one
   espeak-ng process an utterance on the same cores), the menus plugged into the buttons
   (every press handed to them first). Rounds alternate, so the machine's load falls on both.
2. With the menus open the players' buttons step through them (no move is made by a press):
   press -> the faces' new text in ``status``, p50/p99.

Target (issue 40): press -> feed p99 unchanged within 10 % with the voice on and the menus
plugged. The first audio sample of a spoken move is benchmarks/bench_voice.py's figure.
"""

from __future__ import annotations

import argparse
import os
import pty
import select
import statistics
import sys
import tempfile
import threading
import time
import tty
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


class Board:
    """A service on real time in a thread, its feed on a pty (the serial cable)."""

    def __init__(self, extras: bool, start: bool = True) -> None:
        from boardctl.relay.serial import LineSplitter
        from boardctl.service.hardware import sim_hardware
        from boardctl.service.service import GameSetup, Service

        self.master, slave = pty.openpty()
        self.slave = slave
        tty.setraw(slave)
        os.set_blocking(self.master, False)
        self.splitter = LineSplitter()
        self.state = Path(tempfile.mkdtemp(prefix="bench-menu-voice-"))
        self.hw = sim_hardware(10, feed_url=os.ttyname(slave))
        self.voice: Any = None
        sinks = []
        if extras:
            from boardctl.voice import Voice, VoiceSettings

            self.voice = Voice(VoiceSettings(enabled=True, out_dir=str(self.state / "wav"),
                                             queue=100)).start()
            sinks.append(self.voice)
        setup = GameSetup("international", "5400+30")
        self.service = Service(self.state, setup, self.hw, board="bench", sinks=sinks)
        self.menu: Any = None
        if extras:
            from boardctl.menu.plug import plug_menu

            self.menu = plug_menu(self.service, setup=setup, lineup=None, state_dir=self.state,
                                  hall=False, address=lambda: None)
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.service.run, args=(self.stop,), daemon=True)
        self.thread.start()
        while self.service.session is None or not self.hw.feed.connected:
            time.sleep(0.01)
        if start:
            self.service.command({"cmd": "start"})

    def drain(self) -> list[Any]:
        from firmware.formats.reader import FeedLine, read_line

        out = []
        while True:
            try:
                chunk = os.read(self.master, 65536)
            except BlockingIOError:
                return out
            for line in self.splitter.feed(chunk):
                read = read_line(line)
                if isinstance(read, FeedLine):
                    out.append(read.record)

    def close(self) -> None:
        self.stop.set()
        self.thread.join()
        if self.voice is not None:
            self.voice.close()
        os.close(self.master)
        os.close(self.slave)


def settle(board: Board, timeout: float = 5.0) -> None:
    """Until the sensing thread has confirmed every square changed (no debounce run pending)
    and scanned twice more: the move stands on the board when the press comes."""
    scanner, sensing = board.hw.scanner, board.service.sensing
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if scanner.debouncer.pending_since() is None:
            scans = sensing.scans
            while sensing.scans < scans + 2 and time.monotonic() < deadline:
                time.sleep(0.002)
            if scanner.debouncer.pending_since() is None:
                time.sleep(0.02)  # the referee takes the confirmed squares
                return
        time.sleep(0.002)


def press_to_feed(plies: int, extras: bool) -> list[float]:
    """Figure 1: seconds from each press to its move line on the pty."""
    from firmware.formats.records import MoveRecord
    from firmware.pdn import read_games

    data = HERE.parent / "boardctl" / "data" / "wk2003.pdn"
    game = next(read_games(data.read_text(), "wk2003.pdn")).replay()
    geo = game.start.rules.geometry
    board = Board(extras)
    latencies = []
    try:
        board.drain()
        for move in game.moves[:plies]:
            sim = board.hw.sim
            sim.lift(geo.algebraic(move.start))
            sim.place(geo.algebraic(move.end))
            for sq in move.captured:
                sim.lift(geo.algebraic(sq))
            settle(board)  # the debouncer confirms the squares (espeak-ng may hold a core)
            side = board.service.session.position.turn.value
            board.drain()
            t0 = time.perf_counter()
            board.hw.press(side)
            while True:
                select.select([board.master], [], [], 0.5)  # wait without holding the GIL
                if any(isinstance(r, MoveRecord) for r in board.drain()):
                    latencies.append(time.perf_counter() - t0)
                    break
                if time.perf_counter() - t0 > 2:
                    raise RuntimeError(f"no move line after the press ({move})")
            time.sleep(0.25)  # a person's pace: the voice speaks meanwhile
    finally:
        board.close()
    return latencies


def press_to_faces(presses: int) -> list[float]:
    """Figure 2: seconds from a step press to the faces' new text, the menus open (before the
    game: every item offered)."""
    board = Board(True, start=False)
    latencies = []
    try:
        board.hw.press("pause", 2_000_000_000)
        while board.menu.place is None:
            time.sleep(0.001)
        for n in range(presses):
            before = board.service.face.overlay
            t0 = time.perf_counter()
            board.hw.press("black" if n % 2 else "white")
            while board.service.face.overlay == before:
                time.sleep(0.0002)
                if time.perf_counter() - t0 > 2:
                    raise RuntimeError("the faces did not change")
            latencies.append(time.perf_counter() - t0)
            time.sleep(0.02)
    finally:
        board.close()
    return latencies


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--plies", type=int, default=40)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    off: list[float] = []
    on: list[float] = []
    for _ in range(args.rounds):
        off += press_to_feed(args.plies, extras=False)
        on += press_to_feed(args.plies, extras=True)
    for what, lat in (("voice and menus off", off), ("voice on, menus plugged", on)):
        print(f"press -> move line on the pty, {what}: p50 {statistics.median(lat) * 1e3:.1f} "
              f"ms, p99 {pct(lat, 0.99) * 1e3:.1f} ms, max {max(lat) * 1e3:.1f} ms "
              f"({len(lat)} presses)")
    print(f"p99 with / without: {pct(on, 0.99) / pct(off, 0.99):.2f}")
    faces = press_to_faces(100)
    print(f"press -> the menus' faces (status), menus open: p50 "
          f"{statistics.median(faces) * 1e3:.1f} ms, p99 {pct(faces, 0.99) * 1e3:.1f} ms")


if __name__ == "__main__":
    main()
