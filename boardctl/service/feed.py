"""The service's feed out: :class:`Feed` numbers the records and hands them to the journal
writer (``boardctl.service.outputs.Outbox``: a record is in the journal before its line is on
the feed); :class:`FeedPorts` is where the writer's thread then sends each line (the feed port,
``on_line``, the sinks such as the broker link)."""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any

from boardctl.service.games import CurrentGame
from boardctl.service.hardware import Hardware
from boardctl.service.outputs import FeedSink, Outbox
from firmware.formats.feed import encode_line, header_record
from hw import parts

logger = logging.getLogger("boardctl.service.service")


class FeedPorts:
    """The outputs of feed lines; :meth:`send` is the journal writer's one call (its thread).
    ``on_line`` and the sinks' ``send`` never block and take lines from any thread."""

    def __init__(self, port: parts.Feed | None, on_line: Callable[[str], None] | None,
                 sinks: list[FeedSink]) -> None:
        self.port = port
        self.on_line = on_line
        self.sinks = sinks

    def send(self, line: str) -> None:
        """One feed line to the port, ``on_line`` and the sinks."""
        if self.port is not None:
            self.port.send(line)
        self.beside_port(line)

    def beside_port(self, line: str) -> None:
        """One feed line to every output but the port."""
        if self.on_line is not None:
            self.on_line(line)
        for sink in self.sinks:
            try:
                sink.send(line)
            except Exception as exc:  # one sink's failure must not stop the others
                logger.warning(f"feed sink {type(sink).__name__}: {type(exc).__name__}: {exc}")


class Feed:
    """Numbers the feed's records (``seq``, no gap) and hands each to the outbox, on the
    referee's thread; the header line at once when the port (re)connects (its thread)."""

    def __init__(self, game: CurrentGame, outbox: Outbox, ports: FeedPorts, hardware: Hardware,
                 *, board: str, snapshot_every_ns: int, clock: Callable[[], int]) -> None:
        self.game = game
        self.outbox = outbox
        self.ports = ports
        self.hw = hardware
        self.board = board
        self.snapshot_every_ns = snapshot_every_ns
        self.clock = clock
        self.run_id = f"{int(time.time()):x}-{os.getpid():x}"
        self.seq = 0
        self.lines_sent = 0
        self._lock = threading.Lock()

    def emit(self, record: Mapping[str, Any]) -> None:
        """One record on the feed, sent once the turn's records are journaled."""
        rec = dict(record)
        game = self.game
        if rec.get("type") != "header":
            rec.setdefault("game", game.the_header.id)
        with self._lock:
            seq = self.seq
            self.seq += 1
            self.lines_sent += 1
        if rec.get("type") == "snapshot":
            game.next_snapshot = game.game_time(self.clock()) + self.snapshot_every_ns
        self.outbox.line(rec, seq)
        beeper = self.hw.beeper
        if beeper is not None:  # hw.buzzer: flag, irregularity, 10 s
            beeper.on_record(rec)

    def header_record(self) -> dict[str, Any]:
        header = self.game.the_header
        # The time control names its Fischer convention (``+60`` after the move, ``+60@start``
        # when the side's clock starts: issue 11), so a reader knows what the clocks mean.
        return header_record(self.board, self.run_id, header.rules, game=header.id,
                             time_control=header.time_control)

    def header_line(self) -> str:
        """The header line for a port that has just connected (on its writer thread), sent
        at once to the other outputs too: the broker's feed carries every line the port does,
        the same ``seq`` with no gap."""
        with self._lock:
            line = encode_line(self.header_record(), self.seq)
            self.seq += 1
            self.lines_sent += 1
            # Before any line numbered after it; one numbered before it and still waiting for
            # the journal follows it (a reader counts a gap, the snapshot that follows settles
            # it).
            self.ports.beside_port(line)
        return line
