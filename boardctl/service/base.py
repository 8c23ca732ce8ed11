"""The board service's state and its feed out: what the service holds (the game, its time
line, the threads' queues) and how a record becomes a numbered feed line, in the journal
before it is on the feed (``boardctl.service.outputs.Outbox``). The bottom layer of
:class:`boardctl.service.service.Service` (its module docstring has the whole picture)."""

from __future__ import annotations

import dataclasses
import logging
import os
import queue
import threading
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from boardctl.service.arbiter import _Reply
from boardctl.service.control import ControlServer, Request
from boardctl.service.games import (  # re-exported: the service's callers import them from here
    GameSetup,
    snapshot_of,
)
from boardctl.service.hardware import EventScript, Hardware
from boardctl.service.notify import Notifier
from boardctl.service.outputs import Display, FeedSink, Outbox
from boardctl.service.sensing import BUTTONS, SCRIPT, SENSORS, EventMerge, Sensing
from firmware.formats.events import (
    NS,
    Event,
)
from firmware.formats.feed import encode_line, header_record
from firmware.formats.journal import GameHeader, decision_record
from firmware.session.session import BoardSession

logger = logging.getLogger("boardctl.service.service")

#: Records after which the journal is made durable at once (committed moves and results).
DURABLE_RECORDS = frozenset({"move", "result", "position", "adjourned"})
#: Events after which the journal is made durable at once (pause and every arbiter act).
DURABLE_EVENTS = frozenset(
    {"start", "pause", "resume", "accept", "clock-set", "moves-set", "adjourn",
     "resume-adjourned", "result"}
)  # fmt: skip
#: Events after which the feed tells the clocks (a broadcast shows them stopped or corrected).
CLOCK_EVENTS = frozenset({"start", "pause", "resume", "clock-set", "moves-set"})




class ServiceBase:
    """The service's state, its time line and its feed (a layer of the service)."""

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
        #: Feed sinks (boardctl.service.outputs.FeedSink), after the feed port and ``on_line``.
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
        self._init_state()

    def _init_state(self) -> None:
        """The game's, the loop's and the threads' state, before :meth:`boot`."""
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
        #: The clock last handed to the display, and its generation then (_publish_clock).
        self._clock_shown: tuple[Any, int] | None = None

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

    # -- the feed ----------------------------------------------------------------------------

    def _handle(self, event: Event) -> list[dict[str, Any]]:
        """The one data path: session, journal, then feed (LEDs and faces follow at the end of
        the referee's turn: _show, _publish_clock)."""
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
        return records

    def _publish_clock(self) -> None:
        """Hand the display a copy of the clock when it is another game's or one of its own
        changes moved its generation (a press, a pause, the arbiter's correction); a turn of
        lifts and places costs no copy. A flag falling needs none: the copy works it out
        from the time as the clock does (tests/test_clock_properties.py)."""
        clock = self._session.clock
        if self.display is None or clock is None:
            return
        shown = self._clock_shown
        if shown is None or shown[0] is not clock or shown[1] != clock.generation:
            self.display.publish(clock, self.origin)
            self._clock_shown = (clock, clock.generation)

    def _emit(self, record: Mapping[str, Any]) -> None:
        rec = dict(record)
        if rec.get("type") != "header":
            rec.setdefault("game", self._header.id)
        with self._seq_lock:
            seq = self.seq
            self.seq += 1
            self.lines_sent += 1
        if rec.get("type") == "snapshot":
            self._next_snapshot = self.game_time(self.clock()) + self.snapshot_every_ns
        self.outbox.line(rec, seq)  # encoded and sent once the turn's records are journaled
        beeper = self.hw.beeper
        if beeper is not None:  # hw.buzzer: flag, irregularity, 10 s
            beeper.on_record(rec)

    def _send(self, line: str) -> None:
        """The journal writer's thread: one feed line to the port, ``on_line`` and the sinks."""
        if self.hw.feed is not None:
            self.hw.feed.send(line)
        self._send_beside_port(line)

    def _send_beside_port(self, line: str) -> None:
        """One feed line to ``on_line`` and the sinks (the broker link): every output but the
        port. Their ``send`` never blocks and takes lines from any thread."""
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
        if self.hw.missing:  # degraded mode (boardctl.service.hardware.pi_hardware)
            self._emit({"type": "hardware", "missing": list(self.hw.missing)})

    def port_connected(self) -> list[str]:
        """FeedPort's on_connect hook (on its writer thread): the header line goes out first,
        at once (lines queued before are dropped: the snapshot that follows supersedes them);
        the loop then sends the game and a snapshot. The header goes to the other outputs too
        (the broker's feed carries every line the port does, the same ``seq`` with no gap)."""
        with self._seq_lock:
            line = encode_line(self._header_record(), self.seq)
            self.seq += 1
            self.lines_sent += 1
            # Before any line numbered after it; one numbered before it and still waiting for
            # the journal follows it (a reader counts a gap, the snapshot below settles it).
            self._send_beside_port(line)
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
