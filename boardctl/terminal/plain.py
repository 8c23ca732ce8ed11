"""``--plain``: what the screens show, as sentences one a line, for screen readers and logs
(as ``boardctl clock --plain``): a summary first, then one line for each thing that happens
(a move with both clocks, an irregularity, a result, an alarm, a hardware warning, the link
lost or back). Nothing is drawn in place and the clocks' ticking says nothing.

The summary comes as soon as the view knows the game: the control socket's first ``status``;
a feed read from a run's or a game's first line (its header, its game line) says each thing
as it comes; one joined late (MQTT: the board is heard from its next snapshot) is summed up
at that snapshot, and again at the snapshot that makes good after the link or lines were
lost (the moves said meanwhile may have been missed)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import IO, Any

from boardctl.terminal.status import apply_status
from boardctl.terminal.view import BoardView
from firmware.formats.records import GameRecord, HeaderRecord, SnapshotRecord


def summary(view: BoardView, now: float) -> str:
    """``board b1: international, 300+5; 12 moves, last 6... 17-22; white to move;
    white 4:58, black 5:00``."""
    parts = [f"board {view.board or '?'}: {view.rules or '?'}, "
             f"time control {view.time_control or 'none'}"]
    last = view.last_move()
    parts.append(f"{len(view.moves)} moves" + (f", last {last}" if last else ""))
    if view.result:
        parts.append(f"result {view.result}")
    elif view.turn:
        parts.append(f"{view.turn} to move")
    if view.clock is not None:
        parts.append(view.times_text(now))
    if view.irregularity:
        parts.append(f"irregularity: {view.irregularity}")
    if view.alarm:
        parts.append(f"ALARM: {view.alarm}")
    return "; ".join(parts)


class PlainPrinter:
    """Takes what a source delivers and writes its sentences to ``out``."""

    def __init__(self, view: BoardView, out: IO[str],
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.view = view
        self.out = out
        self.clock = clock
        self._first = True
        #: The game summed up or followed from its start (since the link last failed).
        self._told = False
        self._sensors = ""
        self.lock = threading.Lock()

    def deliver(self, kind: str, payload: Any) -> None:
        now = self.clock()
        view = self.view
        if kind == "record":
            said = view.apply(payload, now)
            if isinstance(payload, HeaderRecord | GameRecord):
                self._told = True  # followed from its start: each thing said as it comes
            elif isinstance(payload, SnapshotRecord) and not self._told:
                said.append(summary(view, now))  # the game as it stands, at last
                self._told = True
        elif kind == "status":
            said = apply_status(view, payload, now)
            if self._first:  # the game as it stands, not each of its moves again
                said = [summary(view, now)]
            self._told = True
        elif kind == "sensors":
            from boardctl.terminal.sensors import sensors_sentence

            line = sensors_sentence(payload)
            said = [line] if line != self._sensors else []
            self._sensors = line
        else:
            said = [f"link: {payload}" if payload else "link: back"]
            if payload:
                self._told = False
        self._first = False
        self.say(*said)

    def say(self, *sentences: str) -> None:
        """Whole lines, never mixed with another thread's (``play``'s prompt answers)."""
        if sentences:
            with self.lock:
                self.out.write("".join(sentence + "\n" for sentence in sentences))
                self.out.flush()


def run_plain(source: Any, view: BoardView, out: IO[str],
              stop: threading.Event | None = None) -> int:
    """Follow ``source`` until ``stop`` (or Ctrl-C), writing sentences to ``out``."""
    printer = PlainPrinter(view, out)
    source.run(printer.deliver, stop or threading.Event())
    return 0
