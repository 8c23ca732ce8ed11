"""The journal writer, off the referee's path (issue 10 item 2): the journal, then the feed
(the LEDs and faces have their own thread: :class:`boardctl.service.showing.Display`).

:class:`Outbox` takes what one referee turn produced (journal records, whether they must be
durable, feed lines) as one batch. Its thread (the journal writer; ``threaded=False`` runs it
inline, for tests on a virtual clock) takes every batch waiting, writes their records, runs one
``fsync`` for all of them if any must be durable (a group commit), and only then hands their
feed lines on to the feed sinks: a move is in the journal before it is on the feed. A slow
disk delays the feed, never the referee, which has moved on long before.

Faults. A failing write (a full disk: ENOSPC; EIO) keeps the encoded lines in memory and in a
spill file on another file system (``boardctl.service.journal_file.spill_path``, fsync'd before
their feed lines go out: a stop or a kill loses nothing the feed said, and the next start takes
them back), raises an alarm naming the file and the spill (``on_alarm``), and tries again every
:data:`RETRY_S`; when space returns the lines are written in order, the spill removed and the
alarm cleared. A stop with lines not in the journal says so in the log, naming the spill (or,
when the spill could not be written either, the lines lost). Every :data:`WATCH_S` the
thread checks that the journal is still where ``current`` points: a deleted state directory,
journal or pointer is an alarm, and the journal is written again from memory (the writer keeps
every line of the game). While the journal cannot be written, feed lines go out anyway (the
broadcast must not stop) after the alarm.

Feed sinks are objects with ``send(line: str) -> None`` (a serial port's queue, an MQTT link):
called on this thread, in feed order, after the line's records are durable; they must not
block (queue and return). One that raises is logged and kept.
"""

from __future__ import annotations

import errno
import logging
import os
import queue
import threading
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Protocol

from boardctl.durable import JournalWriter
from boardctl.service.journal_file import CURRENT, Spill, create_journal, spill_path
from boardctl.service.threadname import name_thread

logger = logging.getLogger(__name__)

RETRY_S = 1.0
WATCH_S = 0.5


class FeedSink(Protocol):
    """Where feed lines go (``Service(..., sinks=[...])``); ``send`` must not block."""

    def send(self, line: str) -> None: ...


class Batch:
    """What one referee turn hands to the journal writer."""

    __slots__ = ("records", "durable", "lines", "writer", "ticket")

    def __init__(self) -> None:
        self.ticket = 0
        self.records: list[Mapping[str, Any]] = []
        self.durable = False
        #: Feed records and their sequence numbers, encoded as lines on the writer's thread
        #: (JSON and CRC are output work: the referee's thread only numbers them).
        self.lines: list[tuple[Any, int]] = []
        #: Go on with another journal: (writer, what is on disk already, header), or
        #: (None, b"", header): create a new game's journal (on the writer's thread).
        self.writer: tuple[JournalWriter | None, bytes, Any] | None = None

    def __bool__(self) -> bool:
        return bool(self.records or self.lines or self.writer)


class JournalWriting:
    """The journal writer's side of the outbox, a part :class:`Outbox` holds and calls on its
    thread (or inline without one) with the batches waiting: encode the records, create or
    reopen the journal, write and group-fsync, send the lines after, watch the state
    directory, raise and clear alarms."""

    def __init__(self, state_dir: Path, send: Callable[[Any, int], None], *,
                 fsync: Callable[[int], None] = os.fsync,
                 on_alarm: Callable[[str | None], None] = lambda message: None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.state_dir = state_dir
        self.send = send
        self.fsync = fsync
        self.on_alarm = on_alarm
        self.clock = clock
        self.writer: JournalWriter | None = None
        self.header: Any = None
        self.history: list[bytes] = []
        self.backlog: list[bytes] = []
        self.durable = False
        self.alarm: str | None = None
        self.written = 0
        self._next_watch = 0.0
        #: The ``current`` pointer, its (inode, size, mtime) when last read, what it named.
        self._pointer = str(state_dir / CURRENT)
        self._pointer_stamp: tuple[int, int, int] | None = None
        self._pointer_named = ""
        self._next_retry = 0.0
        self._kind = ""
        #: A new game's records while its journal cannot be created (None: it exists).
        self.unborn: list[Mapping[str, Any]] | None = None
        #: How many of ``backlog``'s lines are in the spill file (module docstring).
        self.spilled = 0
        self._spill_error: str | None = None

    def due(self) -> bool:
        """Work without a batch: an alarm to retry, or the state directory to watch."""
        return self.alarm is not None or self.clock() >= self._next_watch

    def handle(self, batches: list[Batch]) -> None:
        """The batches waiting (none: the watch and the retries only), in one write and at
        most one fsync, then their feed lines."""
        lines: list[tuple[Any, int]] = []
        for batch in batches:
            if batch.writer is not None:
                self._write()
                if self.writer is not None and self.writer is not batch.writer[0]:
                    self.writer.close()
                writer, written, self.header = batch.writer
                self.writer = writer
                self.history = [written] if written else []
                self.backlog, self.spilled = [], 0
                self.durable = False
                self.unborn = [] if writer is None else None
                if self.alarm is not None:
                    self.raise_alarm(None)  # a new game, a new journal
            if self.unborn is not None:  # the new game's journal is not created yet
                self.unborn += batch.records
                self.durable |= batch.durable
            elif self.writer is not None:
                self._encode(batch.records)
                self.durable |= batch.durable
            lines += batch.lines
        self._create()
        self._write()
        self._watch()
        for record, seq in lines:
            try:
                self.send(record, seq)  # framed as its line there (boardctl.service.feed)
            except Exception as exc:  # a sink's bug must not stop the journal
                logger.warning(f"feed line {seq}: {type(exc).__name__}: {exc}")

    def _encode(self, records: list[Mapping[str, Any]]) -> None:
        writer = self.writer
        assert writer is not None
        for rec in records:
            data = writer.encode(rec)
            self.history.append(data)
            self.backlog.append(data)

    def _create(self) -> None:
        """Create the new game's journal (and point ``current`` at it); on failure (a full
        disk) keep its records in memory, raise the alarm and try again every RETRY_S."""
        if self.unborn is None or (self.alarm is not None and self.clock() < self._next_retry):
            return  # (a retry waits; a first try never waits for the last write's time)
        try:
            writer = create_journal(self.state_dir, self.header, fsync=self.fsync)
        except OSError as exc:
            self._next_retry = self.clock() + RETRY_S
            self.raise_alarm(f"journal of game {self.header.id} in {self.state_dir / 'games'}: "
                        f"cannot be created: {exc.strerror or exc}; {len(self.unborn)} records "
                        "kept in memory", "write")
            return
        self.writer = writer
        self.history = [writer.path.read_bytes()]
        records, self.unborn = self.unborn, None
        self._encode(records)
        if self._kind == "write":
            self.raise_alarm(None)

    def _write(self, force: bool = False) -> None:
        writer = self.writer
        if writer is None or not (self.backlog or self.durable):
            return
        if self.alarm is not None and self.clock() < self._next_retry and not force:
            self._spill(writer)  # the lines since the last try: spilled before the feed
            return
        self._next_retry = self.clock() + RETRY_S
        try:
            if self.backlog:
                writer.append(b"".join(self.backlog))
                self.written += len(self.backlog)
                self.backlog = []
            if self.durable:
                writer.sync()
                self.durable = False
        except OSError as exc:
            what = "disk full" if exc.errno == errno.ENOSPC else (exc.strerror or str(exc))
            where = (f"in memory and in {self._spill_path(writer)}" if self._spill(writer)
                     else "in memory ONLY (the spill cannot be written either: a stop now "
                     "loses them)")
            self.raise_alarm(f"journal {writer.path}: {what}: {len(self.backlog)} records kept "
                        f"{where} until it can be written", "write")
            return
        if self.spilled:
            Spill(self._spill_path(writer)).clear()
            self.spilled = 0
        if self._kind == "write":
            self.raise_alarm(None)
            logger.warning(f"journal {writer.path}: written again, nothing lost")

    def _spill_path(self, writer: JournalWriter) -> Any:
        return spill_path(self.state_dir, writer.path)

    def _spill(self, writer: JournalWriter) -> bool:
        """The backlog's lines not yet spilled into the spill file; True when every line of
        the backlog is there (module docstring)."""
        if self.spilled >= len(self.backlog):
            return True
        spill = Spill(self._spill_path(writer))
        try:
            spill.add(b"".join(self.backlog[self.spilled:]))
        except OSError as exc:
            message = f"spill {spill.path}: cannot be written: {exc.strerror or exc}"
            if message != self._spill_error:
                logger.error(message)
            self._spill_error = message
            return False
        self.spilled = len(self.backlog)
        self._spill_error = None
        return True

    def close(self) -> None:
        """The last word at a stop: lines not in the journal are named, loudly; the journal
        closed."""
        self._write(force=True)
        writer = self.writer
        if writer is None:
            return
        if self.backlog and self._spill(writer):
            logger.error(f"STOPPING with {len(self.backlog)} records not in the journal "
                         f"{writer.path} (it cannot be written): they are in "
                         f"{self._spill_path(writer)}, taken back at the next start")
        elif self.backlog:
            logger.error(f"STOPPING with {len(self.backlog)} records not in the journal "
                         f"{writer.path} nor in a spill: they are LOST; the board's position "
                         "is ahead of its journal")
        writer.close()

    def _watch(self) -> None:
        """The state directory, the pointer and the journal still there (module docstring)."""
        now = self.clock()
        if now < self._next_watch or self.writer is None or self.header is None:
            return
        self._next_watch = now + WATCH_S
        writer = self.writer
        pointer = self._pointer
        try:  # the pointer is read again only when its file changed (a stat twice a second)
            seen = os.stat(pointer)
            stamp = (seen.st_ino, seen.st_size, seen.st_mtime_ns)
            if stamp != self._pointer_stamp:
                with open(pointer, encoding="ascii") as f:
                    self._pointer_named = f.read().strip()
                self._pointer_stamp = stamp
            named = self._pointer_named
        except (OSError, UnicodeDecodeError):
            named = ""
            self._pointer_stamp = None
        if named == writer.path.name and not writer.unlinked():
            return
        self.raise_alarm(f"journal {writer.path}: deleted (state directory {self.state_dir}); "
                    "written again from memory")
        try:
            self._write()
            fresh = create_journal(self.state_dir, self.header, fsync=writer.fsync,
                                   lines=b"".join(self.history))
        except OSError as exc:
            self.raise_alarm(f"journal {writer.path}: cannot be written again: "
                        f"{exc.strerror or exc}; {len(self.history)} records kept in memory")
            return
        fresh.n, fresh.c, fresh.sealed = writer.n, writer.c, writer.sealed
        writer.close()
        self.writer = fresh
        self.backlog = []
        logger.warning(f"journal {fresh.path}: written again from memory "
                       f"({len(self.history)} records)")

    def raise_alarm(self, message: str | None, kind: str = "") -> None:
        """Raise (or clear, None) the alarm; ``kind`` "write" clears itself once a write
        succeeds, any other stays up for the rest of the game (the arbiter must know)."""
        if message == self.alarm:
            return
        self.alarm = message
        self._kind = kind
        if message is not None:
            logger.error(message)
        self.on_alarm(message)


class Outbox:
    """The journal writer and the feed behind it (module docstring): the referee's side here
    (the turn's batch, tickets, the queue and the thread), the writing in :attr:`journal`
    (a :class:`JournalWriting`)."""

    def __init__(self, state_dir: Path, send: Callable[[Any, int], None], *,
                 fsync: Callable[[int], None] = os.fsync,
                 on_alarm: Callable[[str | None], None] = lambda message: None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.journal = JournalWriting(state_dir, send, fsync=fsync, on_alarm=on_alarm,
                                      clock=clock)
        self.batch = Batch()
        self._queue: queue.SimpleQueue[Batch | None] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._idle = threading.Condition()
        self._busy = 0
        self._tickets = 0  # batches handed on (the referee's count)
        self._done = 0  # the last batch written (the writer's)

    # -- the referee's side ---------------------------------------------------------------

    def record(self, rec: Mapping[str, Any], durable: bool = False) -> None:
        self.batch.records.append(rec)
        self.batch.durable |= durable

    def line(self, record: Any, seq: int) -> None:
        """Feed record number ``seq``, a line on the feed once the turn's records are in the
        journal (the record is the outbox's from now on: nobody changes it)."""
        self.batch.lines.append((record, seq))

    def use(self, writer: JournalWriter | None, written: bytes, header: Any) -> None:
        """Go on with this journal (one recovered: ``written`` is what is on disk already),
        or with None, a new journal for ``header``'s game, created and made durable (with
        the ``current`` pointer) on the writer's thread."""
        self.commit()
        self.batch.writer = (writer, written, header)
        self.commit()

    def commit(self) -> int:
        """Hand the turn's batch on (inline when no thread runs); the ticket of the last
        batch handed on (:meth:`wait_done`)."""
        batch = self.batch
        if not batch:
            if self._thread is None and self.journal.due():
                self.journal.handle([])  # inline: the watch and the retries run from here
            return self._tickets
        self.batch = Batch()
        self._tickets += 1
        batch.ticket = self._tickets
        if self._thread is None:
            self.journal.handle([batch])
            self._done = batch.ticket
            return batch.ticket
        with self._idle:
            self._busy += 1
        self._queue.put(batch)
        return batch.ticket

    def wait_done(self, ticket: int, timeout: float) -> bool:
        """Wait until the batch ``ticket`` is written (and its lines sent), or ``timeout``."""
        with self._idle:
            return self._idle.wait_for(lambda: self._done >= ticket or self._thread is None,
                                       timeout)

    # -- the thread -----------------------------------------------------------------------

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="journal", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        name_thread("boardctl-journal")
        journal = self.journal
        while True:
            try:
                first = self._queue.get(timeout=WATCH_S)
            except queue.Empty:
                journal.handle([])
                continue
            batches = [first]
            while True:  # group commit: everything waiting goes in one write and one fsync
                try:
                    batches.append(self._queue.get_nowait())
                except queue.Empty:
                    break
            stop = None in batches
            real = [b for b in batches if b is not None]
            try:
                journal.handle(real)
            except Exception as exc:  # never let the writer die silently
                journal.raise_alarm(f"journal writer: {type(exc).__name__}: {exc}")
            with self._idle:
                self._busy -= len(real)
                self._done = max([self._done, *(b.ticket for b in real)])
                self._idle.notify_all()
            if stop:
                return

    def flush(self, timeout: float = 5.0) -> bool:
        """Wait until every batch committed so far is handled (True) or ``timeout``."""
        self.commit()
        if self._thread is None:
            return True
        with self._idle:
            return self._idle.wait_for(lambda: self._busy == 0, timeout)

    def stop(self, timeout: float = 5.0) -> None:
        self.flush(timeout)
        if self._thread is not None:
            self._queue.put(None)
            self._thread.join(timeout)
            self._thread = None

    def close(self) -> None:
        self.stop()
        self.journal.close()
