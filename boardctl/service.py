"""The board service: ``hw`` wired to ``firmware`` along one data path, on threads that never
wait for each other (docs/DESIGN.md "Threads")::

    sensing thread (boardctl.sensing): scan, debounce, buttons, stamped by when they happened
        │ EventMerge: released in time stamp order once no source can still deliver earlier
    referee (this module, Service.turn): BoardSession.handle(event) -> feed records
        ├─> Outbox (boardctl.outputs): journal writer thread, group fsync, then the feed
        │   (port, on_line, sinks): a move is in the journal before it is on the feed
        └─> Display thread: LEDs and faces (only what changed)
    control thread (boardctl.control): requests answered on the referee's thread (inbox)

:meth:`Service.run` starts the threads on real time; :meth:`Service.step` is one turn of
sensing and of the referee on an injected clock (tests, ``boardctl demo``).

Nothing flows back upstream. Everything the board knows comes from events, and every event is
written to the game's journal (``firmware.journal``) before its feed lines go out, so a journal
replayed through a fresh :class:`~firmware.session.BoardSession` rebuilds the game, the clocks
and the LED picture exactly (:func:`rebuild`): that is how the service comes back after a power
cut, a crash or ``kill -9``, with the clocks paused at the last recorded time.

Time: the service reads one injected monotonic clock (ns). A game has its own time line, which
starts at 0 when the game is set up and runs on across restarts (``origin`` maps the monotonic
clock onto it); events, the journal and the clock all use game time.
"""

from __future__ import annotations

import dataclasses
import logging
import os
import queue
import sys
import threading
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from boardctl import arbiter
from boardctl.arbiter import _Reply
from boardctl.control import ControlServer, Request
from boardctl.games import (  # re-exported: the service's callers import them from here
    GameSetup,
    rebuild,
    sensed_squares,
    session_for,
    snapshot_of,
)
from boardctl.hardware import EventScript, Hardware
from boardctl.journal_file import (
    GAMES,
    current_path,
    open_journal,
    read_bytes,
)
from boardctl.notify import Notifier
from boardctl.outputs import Display, FeedSink, Outbox, update_faces
from boardctl.sensing import BUTTONS, SCRIPT, SENSORS, EventMerge, Sensing
from boardctl.threadname import name_thread
from firmware.errors import BoardError, EventLogError
from firmware.events import (
    NS,
    Event,
    Pause,
    Press,
    Resume,
    Start,
)
from firmware.feed import encode_line, header_record
from firmware.journal import GameHeader, decision_record, note_record
from firmware.rules import find_rules
from firmware.session import BoardSession

logger = logging.getLogger(__name__)

#: Records after which the journal is made durable at once (committed moves and results).
DURABLE_RECORDS = frozenset({"move", "result", "position", "adjourned"})
#: Events after which the journal is made durable at once (pause and every arbiter act).
DURABLE_EVENTS = frozenset(
    {"start", "pause", "resume", "accept", "clock-set", "moves-set", "adjourn",
     "resume-adjourned", "result"}
)  # fmt: skip
#: Longest sleep of the referee's thread with nothing released while something is due soon
#: (a running clock, a board coming to rest): clock ticks, flags, heartbeats.
HOUSEKEEPING_S = 0.02
#: Longest sleep with nothing pending at all (an idle board before or between games): every
#: event, control request, alarm and reconnection wakes the thread at once anyway.
IDLE_S = 0.25
#: Events after which the feed tells the clocks (a broadcast shows them stopped or corrected).
CLOCK_EVENTS = frozenset({"start", "pause", "resume", "clock-set", "moves-set"})




# --------------------------------------------------------------------------------------------
# The service


class Service:
    """The service loop (module docstring). ``boot()``, then ``step()`` until stopped, then
    ``close()``; :meth:`run` does all three on real time."""

    def __init__(
        self,
        state_dir: Path,
        setup: GameSetup,
        hardware: Hardware,
        *,
        board: str = "board",
        clock: Callable[[], int] = time.monotonic_ns,
        notifier: Notifier | None = None,
        socket_path: Path | None = None,
        group: str | None = None,
        script: EventScript | None = None,
        snapshot_every: float = 10.0,
        heartbeat: float = 1.0,
        faces_hz: float = 20.0,
        on_line: Callable[[str], None] | None = None,
        sinks: list[FeedSink] | None = None,
        fsync: Callable[[int], None] = os.fsync,
        threaded_io: bool = False,
    ) -> None:
        self.state_dir = Path(state_dir)
        self.setup = setup
        self.hw = hardware
        self.board = board
        self.clock = clock
        self.notifier = notifier or Notifier({})
        self.socket_path = socket_path
        self.group = group
        self.script = script
        self.snapshot_every_ns = round(snapshot_every * NS)
        self.heartbeat_ns = round(heartbeat * NS)
        self.faces_ns = round(NS / faces_hz)
        self.on_line = on_line
        self.run_id = f"{int(time.time()):x}-{os.getpid():x}"
        #: Feed sinks (boardctl.outputs.FeedSink), after the feed port and ``on_line``.
        self.sinks: list[FeedSink] = list(sinks or [])
        self.fsync = fsync
        self.control: ControlServer | None = None
        self.header: GameHeader | None = None
        sources = [SENSORS, BUTTONS] + ([SCRIPT] if script is not None else [])
        self.merge = EventMerge(sources)
        self.sensing = Sensing(hardware, script, self.merge, lambda: self.origin, clock)
        self.outbox = Outbox(self.state_dir, self._send, fsync=fsync, on_alarm=self._on_alarm,
                             clock=lambda: self.clock() / NS)
        self.threaded_io = threaded_io
        self.display: Display | None = None
        #: The journal's alarm (a full disk, a deleted state directory), or None.
        self.alarm: str | None = None
        self._alarm_sent: str | None = None
        self._status_cache: tuple[float, Mapping[str, Any]] | None = None
        #: The referee's thread while run() runs (None: whoever calls step()).
        self._referee: int | None = None
        self._inbox: queue.SimpleQueue[tuple[Request, _Reply]] = queue.SimpleQueue()
        self.session: BoardSession | None = None
        self.origin = 0
        self.seq = 0
        self.lines_sent = 0
        self.last_at = 0
        self.steps = 0
        self._leds: dict[str, str] | None = None
        self._next_snapshot = 0
        self._next_heartbeat = 0
        self._next_faces = 0
        self._next_watchdog = 0
        self._reconnected = threading.Event()
        self._seq_lock = threading.Lock()
        self.stopped = threading.Event()
        self._lock_fd = -1
        self._soon: queue.SimpleQueue[Callable[[], None]] = queue.SimpleQueue()  # hall (13)
        #: What the faces show instead of the clock until it starts (a round's pairing).
        self.face_note: tuple[str, str] | None = None
        #: More for ``status`` (the broker link's state), called on the service's thread.
        self.status_extras: list[Callable[[], dict[str, Any]]] = []

    # -- life cycle -------------------------------------------------------------------------

    def boot(self) -> None:
        """Resume the game in the state directory, or set up a new one; then listen."""
        self.state_dir.mkdir(parents=True, exist_ok=True)
        self._lock_state_dir()
        if self.threaded_io:
            self.outbox.start()
        path = current_path(self.state_dir)
        if path is not None:
            try:
                self._recover(path)
            except EventLogError as exc:  # never silently another game: the arbiter decides
                raise EventLogError(f"{exc} (`boardctl export --salvage --state-dir "
                                    f"{self.state_dir}` shows what can be recovered)") from None
        else:
            self._new_game(self.setup)
        if self.socket_path is not None:
            self.control = ControlServer(self.socket_path, self._on_request, self.group)
        if self.hw.feed is not None:
            self.hw.feed.start()  # its connection announces the board (port_connected)
            self._next_snapshot = self.last_at + self.snapshot_every_ns
        else:
            self._announce()
        assert self.header is not None and self.session is not None
        self.notifier.ready(self._status_line())
        where = [f"state {self.state_dir}"]
        if self.control is not None:
            where.append(f"control {self.control.path}")
        if self.hw.feed is not None:
            where.append(f"feed {self.hw.feed.url}")
        logger.info("ready: " + ", ".join(where))
        now = self.clock()
        self._next_watchdog = now
        self._watchdog(now)

    def _lock_state_dir(self) -> None:
        """One service per state directory: a second one (another ``boardctl run`` on the same
        DIR, whatever its --socket) would append to the same journal as the first, recover
        and pause a game the first is playing. A POSIX record lock on STATE_DIR/lock is held
        for the life of the process (the kernel drops it on any exit, kill -9 included)."""
        import fcntl

        fd = os.open(self.state_dir / "lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o640)
        try:
            fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            raise BoardError(f"{self.state_dir}: another boardctl service is running on this "
                             "state directory") from None
        self._lock_fd = fd

    def _status_line(self) -> str:
        assert self.header is not None and self.session is not None
        return f"game {self.header.id}, {self.session.rules.name}, ply {len(self.session.moves)}"

    def close(self) -> None:
        """Clean stop: clocks paused and journaled, a last snapshot, every part closed."""
        self.notifier.stopping()
        self.sensing.stop()
        if self.session is not None and self.header is not None:
            at = max(self.game_time(self.clock()), self.last_at)
            clock = self.session.clock
            if clock is not None and clock.running is not None and self.session.result is None:
                self._handle(Pause(at))
            self.outbox.record(note_record("stop", t=at / NS), durable=True)
            self._emit(snapshot_of(self.session, self._header, at))
        if self.control is not None:
            self.control.close()
            self.control = None
        if self.display is not None:
            self.display.stop()
        self.outbox.close()  # what is still queued is written before the parts close
        self.hw.close()
        if self._lock_fd >= 0:
            os.close(self._lock_fd)  # releases the state directory's lock
            self._lock_fd = -1
        self.notifier.close()

    def flush(self, timeout: float = 5.0) -> bool:
        """Wait until the journal writer has written (and sent on) everything so far."""
        return self.outbox.flush(timeout)

    def run(self, stop: threading.Event) -> None:
        """Boot, then run on real time until ``stop`` is set, then close: sensing, the journal
        writer, the display and the control socket each on their own thread; this thread is
        the referee (the only one that touches the session: module docstring)."""
        try:
            self.threaded_io = True
            sys.setswitchinterval(0.001)  # a busy thread holds the GIL 1 ms, not 5, at most
            self._referee = threading.get_ident()
            name_thread("boardctl-referee")
            self.boot()
            self.display = Display(self.hw, self.faces_ns, self.clock)
            self.display.start()
            if self.control is not None:
                self.control.handler = self._via_referee
                self.control.start()
            self.sensing.start()
            while not stop.is_set():
                self.merge.wait(self._idle_wait(self.clock()))
                self.turn(self.clock())
                if self.sensing.error is not None:
                    logger.error(f"sensing stopped: {self.sensing.error}")
                    raise self.sensing.error
        finally:
            self.close()

    # -- time ------------------------------------------------------------------------------

    def game_time(self, mono: int) -> int:
        return mono - self.origin

    @property
    def _header(self) -> GameHeader:
        assert self.header is not None
        return self.header

    @property
    def _session(self) -> BoardSession:
        assert self.session is not None
        return self.session

    # -- games -----------------------------------------------------------------------------

    def _new_game(self, setup: GameSetup) -> None:
        header = setup.header(self.board)
        session = session_for(header)  # BoardError before anything is written
        self._check_size(header.rules, "new game")
        if (self.state_dir / GAMES / f"{header.id}.jsonl").exists():
            raise BoardError(f"game {header.id} has a journal already")
        self.outbox.use(None, b"", header)  # created on the journal writer's thread
        self.header, self.session = header, session
        self.origin = self.clock()
        self.last_at = 0
        self._leds = None
        self._next_heartbeat = self._next_snapshot = 0  # the new game's time line
        with self.sensing.lock:
            if self.hw.sim is not None:
                # The simulated arbiter sets the pieces out: the start position.
                self.hw.sim.set_pieces(sensed_squares(session))
            self.hw.expect(sensed_squares(session))
        self.merge.clear(self.origin)
        logger.info(f"new game {header.id}: {header.rules}"
            + (f", {header.time_control}" if header.time_control else ""))

    def _check_size(self, rules: str, what: str) -> None:
        """A game must fit the board it is played on (BoardError before anything changes)."""
        n = find_rules(rules).size
        size = getattr(self.hw, "size", n)
        if n != size:
            raise BoardError(f"{what}: {rules} is played on a {n}x{n} board; "
                             f"this board is {size}x{size}")

    def _recover(self, path: Path) -> None:
        journal, writer = open_journal(path, fsync=self.fsync)
        self.outbox.use(writer, read_bytes(path, writer.size), journal.header)
        self._check_size(journal.header.rules, str(path))
        rebuilt = rebuild(journal, str(path))
        self.header, self.session = journal.header, rebuilt.session
        at = rebuilt.at
        self.origin = self.clock() - at
        self.last_at = at
        self._next_heartbeat = self._next_snapshot = at
        self.outbox.record(note_record("recovered", t=at / NS, torn=journal.torn))
        clock = self.session.clock
        running = clock is not None and clock.running is not None and self.session.result is None
        if running:
            self._handle(Pause(at))  # seed 004 §32: the arbiter restarts the clocks
        sensed = sensed_squares(self.session)
        if self.hw.sim is not None:
            board = sensed
            if self.script is not None:
                start = {self.session.rules.geometry.algebraic(sq)
                         for sq in self.session.start.occupied()}
                board = self.script.board_at(start, at)
            self.hw.sim.set_pieces(board)
        self.sensing.expect(sensed)
        stopped = (clock is not None and clock.started and clock.running is None
                   and clock.adjournment is None and self.session.result is None)
        if stopped and self.script is not None and not self.script.paused:
            self._handle(Resume(at))  # the simulated arbiter goes on with the log at once
        logger.info(f"resumed game {journal.header.id} at ply {len(self.session.moves)}"
            f" ({len(journal.events)} events{', torn tail dropped' if journal.torn else ''})"
            + (", clocks paused" if running and self.script is None else ""))
        self.outbox.commit()

    # -- one turn of the loop ------------------------------------------------------------------

    def step(self, now: int | None = None) -> None:
        """One turn of sensing and one of the referee at monotonic ``now`` (read from the
        clock by default): the service without threads, on an injected clock."""
        now = self.clock() if now is None else now
        self.sensing.sense(now)
        if self.control is not None and self.control.handler is not self._via_referee:
            self.control.poll(0.0)
        self.turn(now)

    def turn(self, now: int) -> None:
        """One turn of the referee: the control requests waiting, the events the merge
        releases (in time stamp order), the clock up to the merge's frontier, the LEDs and
        faces, the feed's snapshot, the watchdog; then the turn's batch to the journal."""
        self.steps += 1
        replies: list[_Reply] = []
        while True:
            try:
                req, reply = self._inbox.get_nowait()
            except queue.Empty:
                break
            reply.answer(self, req)
            replies.append(reply)
        if replies:
            ticket = self.outbox.commit()
            for reply in replies:
                reply.send(ticket)
        while not self._soon.empty():  # work handed over by other threads (call_soon)
            self._soon.get_nowait()()
        for event in self.merge.take():
            event = dataclasses.replace(event, at=self.game_time(event.at))
            if isinstance(event, Press):
                event = self._press_event(event.side, event.at)
            self._try(self._before_start(event))  # a refused event is logged, not fatal
        at = max(self.frontier(), self.last_at)
        self._tick(at)
        self._show(at, now)
        if self.alarm != self._alarm_sent:
            self._alarm_sent = self.alarm
            self._emit({"type": "alarm", "alarm": self.alarm})
        if self._reconnected.is_set():
            self._reconnected.clear()
            self._announce(with_header=False)
        elif now - self.origin >= self._next_snapshot:
            self._emit(snapshot_of(self._session, self._header, at))
        self._watchdog(now)
        self.outbox.commit()

    def _idle_wait(self, now: int) -> float:
        """How long the referee may sleep when nothing wakes it: :data:`HOUSEKEEPING_S` while
        the clock runs or the session waits for a moment (a board coming to rest, a flag),
        else until the next snapshot or watchdog ping, at most :data:`IDLE_S`."""
        session = self.session
        if session is None or session.wake_at() is not None:
            return HOUSEKEEPING_S
        clock = session.clock
        if clock is not None and clock.running is not None:
            return HOUSEKEEPING_S
        due = [self.origin + self._next_snapshot]
        if self.notifier.watchdog_ns is not None:
            due.append(self._next_watchdog)
        wait = (min(due) - now) / NS
        return min(IDLE_S, max(HOUSEKEEPING_S, wait))

    def frontier(self) -> int:
        """Game time up to which every source of events has delivered (the referee's now)."""
        return self.game_time(self.merge.frontier()) - 1

    def _press_event(self, name: str, at: int) -> Event:
        if name == "pause":
            clock = self._session.clock
            paused = clock is not None and clock.started and clock.running is None
            return Resume(at) if paused else Pause(at)
        return Press(at, name)

    def _before_start(self, event: Event) -> Event:
        """A clock press before the game has started starts it (the player with Black
        starts White's clock, seed 004 §32)."""
        if isinstance(event, Press) and not self._session.referee.started:
            return Start(event.at)
        return event

    def _try(self, event: Event) -> None:
        try:
            self._handle(event)
        except BoardError as exc:
            logger.warning(f"{event.type} refused: {exc}")

    def _handle(self, event: Event) -> list[dict[str, Any]]:
        """The one data path: session, journal, then feed (LEDs and faces follow in _show)."""
        session = self._session
        if event.at < self.last_at:
            event = dataclasses.replace(event, at=self.last_at)
        records = session.handle(event)  # BoardError: refused, nothing written
        self.last_at = event.at
        durable = event.type in DURABLE_EVENTS or any(r["type"] in DURABLE_RECORDS
                                                      for r in records)
        out = self.outbox
        out.record(event.record(), durable=durable)
        t = event.at / NS
        for rec in records:
            out.record(decision_record(rec, t))
        for rec in records:
            self._emit(rec)
        clocked = any(r["type"] == "clock" for r in records)
        if event.type in CLOCK_EVENTS and session.clock is not None and not clocked:
            status = session.status(event.at)
            self._emit({"type": "clock", "event": event.type, "clock": status["clock"],
                        "running": status["running"]})
        if self.display is not None and session.clock is not None:
            self.display.publish(session.clock, self.origin)
        return records

    def _tick(self, at: int) -> None:
        at = max(at, self.last_at)
        records = self._session.tick(at)
        out = self.outbox
        if records:
            durable = any(r["type"] in DURABLE_RECORDS for r in records)
            for rec in records:
                out.record(decision_record(rec, at / NS), durable=durable)
            for rec in records:
                self._emit(rec)
            if self.display is not None and self._session.clock is not None:
                self.display.publish(self._session.clock, self.origin)
        clock = self._session.clock
        if clock is not None and clock.running is not None and at >= self._next_heartbeat:
            # Where the clocks stood, for a recovery after kill -9 (no fsync: a power cut may
            # lose up to the last fsync, a crash of the process loses nothing written).
            out.record(note_record("clock", t=at / NS))
            self._next_heartbeat = at + self.heartbeat_ns

    def _show(self, at: int, now: int) -> None:
        session = self._session
        picture = session.leds()
        if self.face_note is not None and session.clock is not None and session.clock.started:
            self.face_note = None  # a round's pairing shows until the game's clock starts
        if self.display is not None:  # threaded: the display thread writes them
            self.display.note = self.face_note
            if picture != self._leds:
                self.display.show(picture)
                self._leds = dict(picture)
            return
        if picture != self._leds and self.hw.leds is not None:
            try:
                self.hw.leds.show(picture)
            except BoardError as exc:
                logger.warning(f"LEDs: {exc}")
            self._leds = dict(picture)
        if self.hw.faces is not None and session.clock is not None and now >= self._next_faces:
            self._next_faces = now + self.faces_ns
            try:
                update_faces(self.hw.faces, session.clock, at, self.alarm, self.face_note)
            except BoardError as exc:
                logger.warning(f"clock faces: {exc}")

    def _watchdog(self, now: int) -> None:
        interval = self.notifier.watchdog_ns
        if interval is not None and now >= self._next_watchdog:
            self.notifier.watchdog()
            self._next_watchdog = now + interval

    # -- the feed ----------------------------------------------------------------------------

    def _emit(self, record: Mapping[str, Any]) -> None:
        rec = dict(record)
        if rec.get("type") != "header":
            rec.setdefault("game", self._header.id)
        with self._seq_lock:
            line = encode_line(rec, self.seq)
            self.seq += 1
            self.lines_sent += 1
        if rec.get("type") == "snapshot":
            self._next_snapshot = self.game_time(self.clock()) + self.snapshot_every_ns
        self.outbox.line(line)  # sent once the turn's records are in the journal
        if getattr(self.hw, "beeper", None) is not None:  # hw.buzzer: flag, irregularity, 10 s
            self.hw.beeper.on_record(rec)

    def _send(self, line: str) -> None:
        """The journal writer's thread: one feed line to the port, ``on_line`` and the sinks."""
        if self.hw.feed is not None:
            self.hw.feed.send(line)
        if self.on_line is not None:
            self.on_line(line)
        for sink in self.sinks:
            try:
                sink.send(line)
            except Exception as exc:  # one sink's failure must not stop the others
                logger.warning(f"feed sink {type(sink).__name__}: {type(exc).__name__}: {exc}")

    def _on_alarm(self, message: str | None) -> None:
        """The journal writer's thread: an alarm raised or cleared (the referee shows it)."""
        self.alarm = message
        if self.display is not None:
            self.display.alarm = message
        self.merge.wake()

    def _announce(self, with_header: bool = True) -> None:
        """Header, game and snapshot: what a reader needs to start from nothing."""
        session = self._session
        at = max(self.game_time(self.clock()), self.last_at)
        if with_header:
            self._emit(self._header_record())
        header = self._header
        self._emit({"type": "game", "rules": header.rules, "fen": header.fen,
                    "time_control": header.time_control, "tags": dict(header.tags)})
        self._emit(snapshot_of(session, header, at))
        if self.hw.missing:  # degraded mode (boardctl.hardware.pi_hardware)
            self._emit({"type": "hardware", "missing": list(self.hw.missing)})

    def port_connected(self) -> list[str]:
        """FeedPort's on_connect hook (on its writer thread): the header line goes out first,
        at once (lines queued before are dropped: the snapshot that follows supersedes them);
        the loop then sends the game and a snapshot."""
        with self._seq_lock:
            line = encode_line(self._header_record(), self.seq)
            self.seq += 1
            self.lines_sent += 1
        self._reconnected.set()
        self.merge.wake()
        return [line]

    def request_snapshot(self) -> None:
        """From any thread: the game and a snapshot go out on the next turn (a reader such as
        the broker link has (re)connected)."""
        self._reconnected.set()
        self.merge.wake()

    def emit(self, record: Mapping[str, Any]) -> None:
        """On the service's thread: one more record on the feed (numbered like the rest)."""
        self._emit(record)

    def call_soon(self, fn: Callable[[], None]) -> None:
        """From any thread: run ``fn`` on the service's own thread, on the next turn."""
        self._soon.put(fn)
        self.merge.wake()

    def _header_record(self) -> dict[str, Any]:
        header = self._header
        # The time control names its Fischer convention (``+60`` after the move, ``+60@start``
        # when the side's clock starts: issue 11), so a reader knows what the clocks mean.
        return header_record(self.board, self.run_id, header.rules, game=header.id,
                             time_control=header.time_control)

    # -- control (boardctl.arbiter) --------------------------------------------------------

    def command(self, request: Mapping[str, Any] | str) -> dict[str, Any]:
        """Answer one control request in-process: ``{"ok": false, "error": ...}`` for
        anything wrong (boardctl.arbiter.command)."""
        return arbiter.command(self, request)

    def _via_referee(self, req: Request) -> Mapping[str, Any]:
        return arbiter.via_referee(self, req)

    def _on_request(self, req: Request) -> dict[str, Any]:
        return arbiter.on_request(self, req)

    def status(self, at: int) -> dict[str, Any]:
        return arbiter.status(self, at)
