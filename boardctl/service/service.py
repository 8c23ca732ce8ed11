"""The board service: ``hw`` wired to ``firmware`` along one data path, on threads that never
wait for each other (docs/DESIGN.md "The service")::

    sensing thread (boardctl.service.sensing.Sensing): scan, debounce, buttons, stamped by
    when they happened
        │ EventMerge: released in time stamp order once no source can still deliver earlier
    referee thread (boardctl.service.loop.RefereeLoop.turn)
        │ DataPath (boardctl.service.datapath): BoardSession.handle(event) -> feed records
        ├─> Outbox (boardctl.service.outputs): journal writer thread, group fsync, then the feed
        │   (FeedPorts: the port, on_line, sinks): a move is in the journal before it is on the
        │   feed
        └─> BoardFace (boardctl.service.showing) -> Display thread: LEDs and faces, only what
            changed
    control thread (boardctl.service.control): requests through the referee's inbox
    (boardctl.service.inbox), answered by boardctl.service.arbiter; the simulated hand's acts
    (boardctl.service.sensing.SimHand) on the control thread, through the sensors
    a player not at the board (an engine): called through the player door
    (boardctl.service.door) on the referee's thread, and acting through it

:class:`Service` builds these parts, each handed only the others it uses, and is the public
entry: :meth:`Service.run` starts the threads on real time; :meth:`Service.step` is one turn of
sensing and of the referee on an injected clock (tests, ``boardctl demo``).

Nothing flows back upstream. Everything the board knows comes from events, and every event is
written to the game's journal (``firmware.formats.journal``) before its feed lines go out, so a
journal replayed through a fresh :class:`~firmware.session.session.BoardSession` rebuilds the
game, the clocks and the LED picture exactly (:func:`rebuild`): that is how the service comes
back after a power cut, a crash or ``kill -9``, with the clocks paused at the last recorded
time.

Time: the service reads one injected monotonic clock (ns). A game has its own time line, which
starts at 0 when the game is set up and runs on across restarts (``origin`` maps the monotonic
clock onto it: :class:`~boardctl.service.games.CurrentGame`); events, the journal and the clock
all use game time.
"""

from __future__ import annotations

import gc
import json
import logging
import os
import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from boardctl.service.control.schema import respond
from boardctl.service.control.server import ControlServer
from boardctl.service.datapath import CLOCK_EVENTS, DURABLE_EVENTS, DURABLE_RECORDS, DataPath
from boardctl.service.desk import ControlDesk
from boardctl.service.door import Lineup, PlayerDoor
from boardctl.service.feed import Feed, FeedLink, FeedPorts
from boardctl.service.gamelife import GameLife
from boardctl.service.games import (  # re-exported: the service's callers import them from here
    CurrentGame,
    GameSetup,
    rebuild,
    sensed_squares,
    session_for,
    snapshot_of,
)
from boardctl.service.hardware import EventScript, Hardware
from boardctl.service.inbox import RefereeInbox
from boardctl.service.journal_file import current_path
from boardctl.service.loop import HOUSEKEEPING_S, IDLE_S, RefereeLoop
from boardctl.service.notify import Notifier
from boardctl.service.outputs import FeedSink, Outbox
from boardctl.service.sensing import BUTTONS, SCRIPT, SENSORS, EventMerge, Sensing, SimHand
from boardctl.service.showing import BoardFace, Display
from boardctl.service.threadname import name_thread
from firmware.errors import BoardError, EventLogError, HardwareError
from firmware.formats.events import NS, Pause
from firmware.formats.journal import GameHeader, note_record
from firmware.formats.records import FeedRecord
from firmware.session.session import BoardSession

logger = logging.getLogger(__name__)

__all__ = ["CLOCK_EVENTS", "DURABLE_EVENTS", "DURABLE_RECORDS", "HOUSEKEEPING_S", "IDLE_S",
           "GameSetup", "Service", "rebuild", "sensed_squares", "session_for", "snapshot_of"]


class Service:
    """The service (module docstring): ``boot()``, ``step()`` until stopped, ``close()``;
    :meth:`run` does all three on real time. Its parts are built here, each handed the others
    it uses (docs/DESIGN.md "The service"); here too the life cycle and the threads."""

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
        sinks: Sequence[FeedSink] | None = None,
        fsync: Callable[[int], None] = os.fsync,
        threaded_io: bool = False,
        lineup: Lineup | None = None,
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
        self.faces_ns = round(NS / faces_hz)
        self.threaded_io = threaded_io
        self.control: ControlServer | None = None
        self._lock_fd = -1
        self.game = CurrentGame()
        self.merge = EventMerge(merge_sources(hardware, script))
        self.sensing = Sensing(hardware, script, self.merge, lambda: self.game.origin, clock)
        self.hand = SimHand(hardware, self.sensing, clock)
        self.ports = FeedPorts(hardware.feed, on_line, list(sinks or []))
        self.outbox = Outbox(self.state_dir, self.ports.send, fsync=fsync,
                             on_alarm=lambda message: self.face.on_alarm(message),
                             clock=lambda: self.clock() / NS)
        self.feed = Feed(self.game, self.outbox, self.ports, hardware, board=board,
                         snapshot_every_ns=round(snapshot_every * NS), clock=clock)
        self.path = DataPath(self.game, self.feed, self.outbox, hardware,
                             heartbeat_ns=round(heartbeat * NS), clock=clock)
        self.door = PlayerDoor(self.game, self.path, self.outbox, self.merge.wake, clock,
                               now=lambda: max(self.frontier(), self.game.last_at), lineup=lineup)
        self.face = BoardFace(hardware, self.game, self.door, faces_ns=self.faces_ns,
                              wake=self.merge.wake)
        self.life = GameLife(self.game, self.path, self.outbox, self.sensing, hardware,
                             state_dir=self.state_dir, board=board, clock=clock, script=script,
                             fsync=fsync)
        self.inbox = RefereeInbox(self.merge.wake, self.outbox)
        self.desk = ControlDesk(self.game, self.merge, self.path, self.life, self.door,
                                self.face, self.hand, self.inbox, hardware, board=board)
        #: More for ``status`` (the broker link's state), called on the referee's thread.
        self.status_extras = self.desk.status_extras
        self.loop = RefereeLoop(self.game, self.merge, self.inbox, self.path, self.door,
                                self.face, self.outbox, self.notifier, answer=self.desk.answer)

    def boot(self) -> None:
        """Resume the game in the state directory, or set up a new one, with its player not
        at the board (the lineup's: boardctl.service.door); then listen."""
        self.state_dir.mkdir(parents=True, exist_ok=True)
        self._lock_fd = lock_state_dir(self.state_dir)
        if self.threaded_io:
            self.outbox.start()
        path = current_path(self.state_dir)
        if path is not None:
            try:
                self.life.recover(path)
            except EventLogError as exc:  # never silently another game: the arbiter decides
                raise EventLogError(f"{exc} (`boardctl export --salvage --state-dir "
                                    f"{self.state_dir}` shows what can be recovered)") from None
            self.door.open(self.game.the_header.rules)
        else:
            self.door.open(self.setup.rules)
            self.door.amend_setup(self.setup)
            self.life.new_game(self.setup)
        if self.socket_path is not None:
            self.control = ControlServer(self.socket_path, self.desk.answer, self.group)
        if self.hw.feed is not None:
            self.hw.feed.start()  # its connection announces the board (port_connected)
            self.game.next_snapshot = self.game.last_at + self.feed.snapshot_every_ns
        else:
            self.path.announce()
        session = self.game.the_session
        self.notifier.ready(f"game {self.game.the_header.id}, {session.rules.name}, "
                            f"ply {len(session.moves)}")
        logger.info("ready: " + where_it_listens(self.state_dir, self.control, self.hw))
        now = self.clock()
        self.loop.next_watchdog = now
        self.loop.watchdog(now)

    def step(self, now: int | None = None) -> None:
        """One turn of sensing and one of the referee at monotonic ``now`` (read from the
        clock by default): the service without threads, on an injected clock."""
        now = self.clock() if now is None else now
        self.sensing.sense(now)
        if self.control is not None and self.inbox.referee is None:
            self.control.poll(0.0)
        self.loop.turn(now)

    def turn(self, now: int) -> None:
        """One turn of the referee (boardctl.service.loop.RefereeLoop.turn)."""
        self.loop.turn(now)

    def run(self, stop: threading.Event) -> None:
        """Boot, then run on real time until ``stop`` is set, then close: sensing, the journal
        writer, the display and the control socket each on their own thread; this thread is
        the referee (the only one that touches the session: module docstring)."""
        try:
            self.threaded_io = True
            sys.setswitchinterval(0.001)  # a busy thread holds the GIL 1 ms, not 5, at most
            self.inbox.referee = threading.get_ident()
            name_thread("boardctl-referee")
            self.boot()
            self.face.display = Display(self.hw, self.faces_ns, self.clock)
            self.face.display.start()
            if self.control is not None:
                self.control.handler = self.desk.from_elsewhere
                self.control.start()
            # What boot made (modules, tables, the recovered game) lives as long as the
            # service: out of the collector's sight, a collection on any thread (the GIL
            # stops the others meanwhile) has only the game's young objects to walk.
            gc.freeze()
            self.sensing.start()
            while not stop.is_set():
                self.merge.wait(self.loop.idle_wait(self.clock()))
                self.loop.turn(self.clock())
                check_sensing(self.sensing)
        finally:
            self.close()

    def close(self) -> None:
        """Clean stop: clocks paused and journaled, a last snapshot, every part closed."""
        self.notifier.stopping()
        self.sensing.stop()
        self.door.close()  # the player not at the board stops (an engine's process)
        session, header = self.game.session, self.game.header
        if session is not None and header is not None:
            at = max(self.game.game_time(self.clock()), self.game.last_at)
            clock = session.clock
            if clock is not None and clock.running is not None and session.result is None:
                self.path.handle(Pause(at))
            self.outbox.record(note_record("stop", t=at / NS), durable=True)
            self.feed.emit(snapshot_of(session, header, at))
        if self.control is not None:
            self.control.close()
            self.control = None
        if self.face.display is not None:
            self.face.display.stop()
        self.outbox.close()  # what is still queued is written before the parts close
        self.hw.close()
        if self._lock_fd >= 0:
            os.close(self._lock_fd)  # releases the state directory's lock
            self._lock_fd = -1
        self.notifier.close()

    def flush(self, timeout: float = 5.0) -> bool:
        """Wait until the journal writer has written (and sent on) everything so far."""
        return self.outbox.flush(timeout)

    def command(self, request: Mapping[str, Any] | str) -> dict[str, Any]:
        """Answer one control request in-process (the socket's code path without the socket):
        ``{"ok": false, "error": ...}`` for anything wrong. From another thread while run()
        referees: through the referee's inbox."""
        line = request if isinstance(request, str) else json.dumps(request)
        if self.inbox.elsewhere():
            return respond(self.desk.from_elsewhere, line)
        try:
            return respond(self.desk.answer, line)
        finally:
            self.outbox.commit()  # on the referee's thread: the turn's batch

    def status(self, at: int) -> dict[str, Any]:
        return self.desk.status(at)

    def frontier(self) -> int:
        """Game time up to which every source of events has delivered (the referee's now)."""
        return self.loop.frontier()

    def port_connected(self) -> list[str]:
        """FeedPort's on_connect hook (its writer thread): the header line at once (lines queued
        before are dropped), then on the referee's next turn the game and a snapshot."""
        line = self.feed.header_line()
        self.loop.request_snapshot()
        return [line]

    def request_snapshot(self) -> None:
        """From any thread: the game and a snapshot on the next turn (a reader reconnected)."""
        self.loop.request_snapshot()

    def emit(self, record: FeedRecord) -> None:
        """On the service's thread: one more record on the feed (numbered like the rest), a
        typed record (``firmware.formats.records``)."""
        self.feed.emit(record)

    def add_link(self, link: FeedLink) -> None:
        """An output that takes each feed line as written (the hall's broker link), on the
        journal writer's thread."""
        self.ports.links.append(link)

    def call_soon(self, fn: Callable[[], None]) -> None:
        """From any thread: run ``fn`` on the service's own thread, on the next turn."""
        self.loop.call_soon(fn)

    def game_time(self, mono: int) -> int:
        return self.game.game_time(mono)

    @property
    def session(self) -> BoardSession | None:
        return self.game.session

    @property
    def header(self) -> GameHeader | None:
        return self.game.header

    @property
    def origin(self) -> int:
        return self.game.origin

    @property
    def steps(self) -> int:
        return self.loop.steps

    @property
    def face_note(self) -> tuple[str, str] | None:
        """What the faces show instead of the clock until it starts (a round's pairing)."""
        return self.face.note

    @face_note.setter
    def face_note(self, note: tuple[str, str] | None) -> None:
        self.face.note = note

    @property
    def on_line(self) -> Callable[[str], None] | None:
        return self.ports.on_line

    @on_line.setter
    def on_line(self, on_line: Callable[[str], None] | None) -> None:
        self.ports.on_line = on_line


def lock_state_dir(state_dir: Path) -> int:
    """One service per state directory: a second one (another ``boardctl run`` on the same
    DIR, whatever its --socket) would append to the same journal as the first, recover and
    pause a game the first is playing. A POSIX record lock on STATE_DIR/lock is held for the
    life of the process (the kernel drops it on any exit, kill -9 included); its descriptor is
    returned."""
    import fcntl

    fd = os.open(state_dir / "lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o640)
    try:
        fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        raise BoardError(f"{state_dir}: another boardctl service is running on this "
                         "state directory") from None
    return fd


def check_sensing(sensing: Sensing) -> None:
    """Raise the sensing thread's error, if it stopped on one (one line, never a traceback:
    systemd restarts the service)."""
    error = sensing.error
    if error is not None:
        logger.error(f"sensing stopped: {error}")
        if isinstance(error, BoardError):
            raise error
        raise HardwareError(f"sensing stopped: {type(error).__name__}: {error}") from error


def merge_sources(hardware: Hardware, script: EventScript | None) -> list[str]:
    """The event sources the referee waits on: the sensors, the clock buttons (none when the
    board runs without them, degraded: no watermark to wait for, or nothing is released) and
    an event log's script."""
    return [SENSORS] + ([BUTTONS] if hardware.buttons is not None else []) \
        + ([SCRIPT] if script is not None else [])


def where_it_listens(state_dir: Path, control: ControlServer | None, hardware: Hardware) -> str:
    """The service's places for its ``ready`` log line: state, control socket, feed port."""
    where = [f"state {state_dir}"]
    if control is not None:
        where.append(f"control {control.path}")
    if hardware.feed is not None:
        where.append(f"feed {hardware.feed.url}")
    return ", ".join(where)
