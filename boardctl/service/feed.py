"""The service's feed out: :class:`Feed` numbers the records and hands them to the journal
writer (``boardctl.service.outputs.Outbox``: a record is in the journal before its line is on
the feed); :class:`FeedPorts` is where the writer's thread then frames each record as its line
(once, ``firmware.formats.feed.frame``) and sends it (the feed port, ``on_line``, the sinks,
and the links that take the written line whole, such as the hall's broker link: the line as
the broker carries it, with the run's id, and its record)."""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable
from typing import Protocol

from boardctl.service.games import CurrentGame
from boardctl.service.hardware import Hardware
from boardctl.service.outputs import FeedSink, Outbox
from firmware.formats.feed import Written, frame
from firmware.formats.records import FeedRecord, HeaderRecord, SnapshotRecord
from hw import parts

logger = logging.getLogger(__name__)


class FeedLink(Protocol):
    """An output that takes each line as written (``Written``: its record, the serial line,
    the line as the broker carries it), on the writer's thread; it must not block."""

    def take(self, written: Written) -> None: ...


class FeedPorts:
    """The outputs of feed lines; :meth:`send` is the journal writer's one call (its thread).
    ``on_line``, the sinks' ``send`` and the links' ``take`` never block and take lines from
    any thread."""

    def __init__(self, port: parts.FeedOutput | None, on_line: Callable[[str], None] | None,
                 sinks: list[FeedSink], links: list[FeedLink] | None = None) -> None:
        self.port = port
        self.on_line = on_line
        self.sinks = sinks
        self.links: list[FeedLink] = links if links is not None else []
        #: The service run's id, which the broker's lines carry (set by :class:`Feed`).
        self.run: str | None = None

    def send(self, outgoing: tuple[FeedRecord, str | None], seq: int) -> None:
        """Feed record number ``seq`` (and its game's id), framed here as its line and sent to
        the port, ``on_line``, the sinks and the links."""
        record, game = outgoing
        written = Written(record, frame(record, seq, game), self.run)
        if self.port is not None:
            self.port.send(written.line)
        self.beside_port(written)

    def beside_port(self, written: Written) -> None:
        """One feed line to every output but the port."""
        line = written.line
        if self.on_line is not None:
            self.on_line(line)
        for sink in self.sinks:
            try:
                sink.send(line)
            except Exception as exc:  # one sink's failure must not stop the others
                logger.warning(f"feed sink {type(sink).__name__}: {type(exc).__name__}: {exc}")
        for link in self.links:
            try:
                link.take(written)
            except Exception as exc:
                logger.warning(f"feed link {type(link).__name__}: {type(exc).__name__}: {exc}")


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
        ports.run = self.run_id
        self.seq = 0
        self.lines_sent = 0
        self._lock = threading.Lock()

    def emit(self, record: FeedRecord) -> None:
        """One record on the feed, sent once the turn's records are journaled."""
        game = None if isinstance(record, HeaderRecord) else self.game.the_header.id
        with self._lock:
            seq = self.seq
            self.seq += 1
            self.lines_sent += 1
        if isinstance(record, SnapshotRecord):
            self.game.next_snapshot = self.game.game_time(self.clock()) + self.snapshot_every_ns
        self.outbox.line((record, game), seq)
        beeper = self.hw.beeper
        if beeper is not None:  # hw.buzzer: flag, irregularity, 10 s
            beeper.on_record(record)

    def header_record(self) -> HeaderRecord:
        header = self.game.the_header
        # The time control names its Fischer convention (``+60`` after the move, ``+60@start``
        # when the side's clock starts: issue 11), so a reader knows what the clocks mean.
        return HeaderRecord(self.board, self.run_id, header.rules, header.id,
                            header.time_control)

    def header_line(self) -> str:
        """The header line for a port that has just connected (on its writer thread), sent
        at once to the other outputs too: the broker's feed carries every line the port does,
        the same ``seq`` with no gap."""
        with self._lock:
            record = self.header_record()
            written = Written(record, frame(record, self.seq), self.run_id)
            self.seq += 1
            self.lines_sent += 1
            # Before any line numbered after it; one numbered before it and still waiting for
            # the journal follows it (a reader counts a gap, the snapshot that follows settles
            # it).
            self.ports.beside_port(written)
        return written.line
