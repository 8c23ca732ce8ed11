"""The board service: ``hw`` wired to ``firmware`` along one data path.

Each turn of the loop (:meth:`Service.step`, 200 times a second by default)::

    scanner scan -> debounced lift/place ─┐
    clock buttons -> press / pause ───────┼─> BoardSession.handle(event) -> feed records
    control socket -> arbiter events ─────┘        │
                                                   ├─> journal (event, then decisions; fsync
                                                   │   on every committed move and pause)
                                                   ├─> feed port (numbered, checksummed)
                                                   └─> LEDs, clock faces (what changed)

Nothing flows back upstream. Everything the board knows comes from events, and every event is
written to the game's journal (``firmware.journal``) before anything is shown, so a journal
replayed through a fresh :class:`~firmware.session.BoardSession` rebuilds the game, the clocks
and the LED picture exactly (:func:`rebuild`): that is how the service comes back after a power
cut, a crash or ``kill -9``, with the clocks paused at the last recorded time.

Time: the service reads one injected monotonic clock (ns). A game has its own time line, which
starts at 0 when the game is set up and runs on across restarts (``origin`` maps the monotonic
clock onto it); events, the journal and the clock all use game time.
"""

from __future__ import annotations

import dataclasses
import os
import select
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from boardctl.control import ControlError, ControlServer, Request
from boardctl.hardware import EventScript, Hardware, log
from boardctl.journal_file import (
    JournalWriter,
    create_journal,
    current_path,
    new_game_id,
    open_journal,
)
from boardctl.notify import Notifier
from firmware.errors import BoardError, EventLogError
from firmware.events import (
    NS,
    Accept,
    Adjourn,
    ClockSet,
    Event,
    MovesSet,
    Pause,
    Press,
    Result,
    Resume,
    ResumeAdjourned,
    Start,
    event_from_record,
)
from firmware.feed import encode_line, header_record
from firmware.game import RESULTS
from firmware.journal import GameHeader, Journal, decision_record, note_record
from firmware.rules import find_rules
from firmware.session import BoardSession

#: Records after which the journal is made durable at once (committed moves and results).
DURABLE_RECORDS = frozenset({"move", "result", "position", "adjourned"})
#: Events after which the journal is made durable at once (pause and every arbiter act).
DURABLE_EVENTS = frozenset(
    {"start", "pause", "resume", "accept", "clock-set", "moves-set", "adjourn",
     "resume-adjourned", "result"}
)  # fmt: skip
#: Events after which the feed tells the clocks (a broadcast shows them stopped or corrected).
CLOCK_EVENTS = frozenset({"start", "pause", "resume", "clock-set", "moves-set"})




# --------------------------------------------------------------------------------------------
# Games and their journals


@dataclass
class GameSetup:
    """What an arbiter sets up before a game (issue 6 item 3)."""

    rules: str
    time_control: str | None = None
    fen: str | None = None
    tags: dict[str, str] = field(default_factory=dict)
    #: True: play from the first event; False: the game waits for ``start`` (or a press).
    started: bool = False
    settle: float | None = None
    #: Moves committed by presses (None: when there is a time control, the session's default).
    clocked: bool | None = None

    def header(self, board: str, game_id: str | None = None) -> GameHeader:
        return GameHeader(
            game_id or new_game_id(), self.rules, self.fen, self.time_control, dict(self.tags),
            board, self.settle, self.started, self.clocked,
        )


def session_for(header: GameHeader) -> BoardSession:
    """A fresh session for a journal's game (BoardError for a bad rule set, FEN or control)."""
    kwargs: dict[str, Any] = {"started": header.started, "tags": dict(header.tags),
                              "clocked": header.clocked}
    if header.settle is not None:
        kwargs["settle_ns"] = round(header.settle * NS)
    return BoardSession(header.rules, header.time_control, header.fen, **kwargs)


@dataclass
class Rebuilt:
    """A game rebuilt from its journal."""

    session: BoardSession
    #: The feed records the replay produced, in order.
    records: list[dict[str, Any]]
    #: Game time (ns) the journal last recorded: where the game stands.
    at: int


def rebuild(journal: Journal, source: str = "journal") -> Rebuilt:
    """Replay a journal's events through a fresh session: the game, the clocks and the LEDs
    as they stood at the journal's last recorded time (the one code path: issue 6 item 6)."""
    session = session_for(journal.header)
    cells = set(session.rules.geometry.all_cells())
    size = session.rules.size
    records: list[dict[str, Any]] = []
    for rec, lineno in zip(journal.events, journal.lines, strict=True):
        where = f"{source}: line {lineno}"
        event = event_from_record(rec, where)
        square = getattr(event, "square", None)
        if square is not None and square not in cells:
            # A journal whose sensor squares do not fit its rule set's board is damaged (or
            # its header was edited): say so rather than rebuild some other game from it.
            raise EventLogError(f"{where}: square {square!r} is not on a {size}x{size} board")
        try:
            records += session.handle(event)
        except BoardError:
            continue  # an arbiter event the session refused changed nothing then, nor now
    at = round(journal.last_t * NS)
    records += session.tick(at)
    return Rebuilt(session, records, max(at, session.last_at))


def sensed_squares(session: BoardSession) -> set[str]:
    """The squares the referee believes occupied (algebraic, light squares included)."""
    alg = session.rules.geometry.algebraic
    referee = session.referee
    return {alg(sq) for sq in referee.board()} | set(referee.light)


def snapshot_of(session: BoardSession, header: GameHeader, at: int) -> dict[str, Any]:
    """The feed's full-state record for a reader joining late: the session's own snapshot
    (which starts from an accepted position where there is one), with the journal's tags."""
    record = session.snapshot(header.id, at)
    record["tags"] = header.tags
    record["time_control"] = header.time_control
    return record


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
        self.control: ControlServer | None = None
        self.header: GameHeader | None = None
        self.writer: JournalWriter | None = None
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

    # -- life cycle -------------------------------------------------------------------------

    def boot(self) -> None:
        """Resume the game in the state directory, or set up a new one; then listen."""
        self.state_dir.mkdir(parents=True, exist_ok=True)
        self._lock_state_dir()
        path = current_path(self.state_dir)
        if path is not None:
            self._recover(path)
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
        log("ready: " + ", ".join(where))
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
        if self.session is not None and self.writer is not None:
            at = self.game_time(self.clock())
            clock = self.session.clock
            if clock is not None and clock.running is not None and self.session.result is None:
                self._handle(Pause(at))
            self.writer.write(note_record("stop", t=at / NS), sync=True)
            self._emit(snapshot_of(self.session, self._header, at))
        if self.control is not None:
            self.control.close()
            self.control = None
        self.hw.close()
        if self.writer is not None:
            self.writer.close()
        if self._lock_fd >= 0:
            os.close(self._lock_fd)  # releases the state directory's lock
            self._lock_fd = -1
        self.notifier.close()

    def run(self, stop: threading.Event) -> None:
        """Boot, loop on real time until ``stop`` is set, close."""
        period = self.hw.scanner.period_ns
        try:
            self.boot()
            next_at = self.clock()
            while not stop.is_set():
                self.step()
                now = self.clock()
                if next_at <= now:  # the next scan on the fixed schedule; missed slots skipped
                    next_at += ((now - next_at) // period + 1) * period
                wake = next_at
                due = self.script.next_at() if self.script is not None else None
                if due is not None:  # the simulated hand acts on time, not a scan later
                    wake = min(wake, self.origin + due)
                wait = (wake - now) / NS
                if self.control is not None:
                    select.select([self.control.fileno()], [], [], max(0.0, wait))
                elif wait > 0:
                    stop.wait(wait)
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
        if self.writer is not None:
            self.writer.close()
        self.writer = create_journal(self.state_dir, header)
        self.header, self.session = header, session
        self.origin = self.clock()
        self.last_at = 0
        self._leds = None
        self._next_heartbeat = self._next_snapshot = 0  # the new game's time line
        if self.hw.sim is not None:
            # The simulated arbiter sets the pieces out: the start position.
            self.hw.sim.set_pieces(sensed_squares(session))
        self.hw.expect(sensed_squares(session))
        log(f"new game {header.id}: {header.rules}"
            + (f", {header.time_control}" if header.time_control else ""))

    def _check_size(self, rules: str, what: str) -> None:
        """A game must fit the board it is played on (BoardError before anything changes)."""
        n = find_rules(rules).size
        size = getattr(self.hw, "size", n)
        if n != size:
            raise BoardError(f"{what}: {rules} is played on a {n}x{n} board; "
                             f"this board is {size}x{size}")

    def _recover(self, path: Path) -> None:
        journal, self.writer = open_journal(path)
        self._check_size(journal.header.rules, str(path))
        rebuilt = rebuild(journal, str(path))
        self.header, self.session = journal.header, rebuilt.session
        at = rebuilt.at
        self.origin = self.clock() - at
        self.last_at = at
        self._next_heartbeat = self._next_snapshot = at
        self.writer.write(note_record("recovered", t=at / NS, torn=journal.torn), sync=False)
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
        self.hw.expect(sensed)
        stopped = (clock is not None and clock.started and clock.running is None
                   and clock.adjournment is None and self.session.result is None)
        if stopped and self.script is not None and not self.script.paused:
            self._handle(Resume(at))  # the simulated arbiter goes on with the log at once
        log(f"resumed game {journal.header.id} at ply {len(self.session.moves)}"
            f" ({len(journal.events)} events{', torn tail dropped' if journal.torn else ''})"
            + (", clocks paused" if running and self.script is None else ""))

    # -- one turn of the loop ------------------------------------------------------------------

    def step(self, now: int | None = None) -> None:
        """One turn of the loop at monotonic ``now`` (read from the clock by default)."""
        now = self.clock() if now is None else now
        self.steps += 1
        at = self.game_time(now)
        if self.script is not None:
            for event in self.script.act(at, self.hw):
                self._try(event)
        events: list[Event] = [e.to_event() for e in self.hw.scan()]
        if self.hw.buttons is not None:
            for press in self.hw.buttons.poll():
                events.append(self._press_event(press.name, press.at))
        events = [dataclasses.replace(e, at=self.game_time(e.at)) for e in events]
        for event in sorted(events, key=lambda e: e.at):
            self._handle(self._before_start(event))
        if self.control is not None:
            self.control.poll(0.0)
        at = max(at, self.last_at)  # a press stamped after this turn's scan came first
        self._tick(at)
        self._show(at, now)
        if self._reconnected.is_set():
            self._reconnected.clear()
            self._announce(with_header=False)
        elif now - self.origin >= self._next_snapshot:
            self._emit(snapshot_of(self._session, self._header, at))
        self._watchdog(now)

    def _press_event(self, name: str, mono: int) -> Event:
        if name == "pause":
            clock = self._session.clock
            paused = clock is not None and clock.started and clock.running is None
            return Resume(mono) if paused else Pause(mono)
        return Press(mono, name)

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
            log(f"{event.type} refused: {exc}")

    def _handle(self, event: Event) -> list[dict[str, Any]]:
        """The one data path: session, journal, then feed (LEDs and faces follow in _show)."""
        session = self._session
        writer = self.writer
        assert writer is not None
        if event.at < self.last_at:
            event = dataclasses.replace(event, at=self.last_at)
        records = session.handle(event)  # BoardError: refused, nothing written
        self.last_at = event.at
        writer.write(event.record())
        t = event.at / NS
        for rec in records:
            writer.write(decision_record(rec, t))
        if event.type in DURABLE_EVENTS or any(r["type"] in DURABLE_RECORDS for r in records):
            writer.sync()
        for rec in records:
            self._emit(rec)
        if event.type in CLOCK_EVENTS and session.clock is not None:
            status = session.status(event.at)
            self._emit({"type": "clock", "event": event.type, "clock": status["clock"],
                        "running": status["running"]})
        return records

    def _tick(self, at: int) -> None:
        at = max(at, self.last_at)
        records = self._session.tick(at)
        writer = self.writer
        assert writer is not None
        if records:
            for rec in records:
                writer.write(decision_record(rec, at / NS))
            if any(r["type"] in DURABLE_RECORDS for r in records):
                writer.sync()
            for rec in records:
                self._emit(rec)
        clock = self._session.clock
        if clock is not None and clock.running is not None and at >= self._next_heartbeat:
            # Where the clocks stood, for a recovery after kill -9 (no fsync: a power cut may
            # lose up to the last fsync, a crash of the process loses nothing written).
            writer.write(note_record("clock", t=at / NS))
            self._next_heartbeat = at + self.heartbeat_ns

    def _show(self, at: int, now: int) -> None:
        session = self._session
        picture = session.leds()
        if picture != self._leds and self.hw.leds is not None:
            try:
                self.hw.leds.show(picture)
            except BoardError as exc:
                log(f"LEDs: {exc}")
            self._leds = dict(picture)
        if self.hw.faces is not None and session.clock is not None and now >= self._next_faces:
            self._next_faces = now + self.faces_ns
            try:
                self.hw.faces.update(session.clock, at)
            except BoardError as exc:
                log(f"clock faces: {exc}")

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
        if self.hw.feed is not None:
            self.hw.feed.send(line)
        if self.on_line is not None:
            self.on_line(line)

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
        return [line]

    def _header_record(self) -> dict[str, Any]:
        header = self._header
        return header_record(self.board, self.run_id, header.rules, game=header.id)

    # -- control -----------------------------------------------------------------------------

    def command(self, request: Mapping[str, Any] | str) -> dict[str, Any]:
        """Answer one control request in-process (the socket's code path without the socket):
        ``{"ok": false, "error": ...}`` for anything wrong."""
        import json

        from boardctl.control import parse_request

        line = request if isinstance(request, str) else json.dumps(request)
        try:
            response = self._on_request(parse_request(line))
        except BoardError as exc:
            return {"ok": False, "error": str(exc)}
        except Exception as exc:  # the same guard as the socket's (boardctl.control)
            return {"ok": False, "error": f"internal error: {type(exc).__name__}: {exc}"}
        response.setdefault("ok", True)
        return response

    def _on_request(self, req: Request) -> dict[str, Any]:
        at = max(self.game_time(self.clock()), self.last_at)
        session = self._session
        cmd, args = req.cmd, req.args
        if cmd == "status":
            return self.status(at)
        if cmd == "pdn":
            return {"pdn": session.pdn()}
        if cmd == "feed":
            return {"snapshot": snapshot_of(session, self._header, at)}
        if cmd == "new":
            in_play = session.moves and session.result is None
            if in_play and not args.get("force"):
                raise ControlError(
                    f"game {self._header.id} is in play (ply {len(session.moves)}): record its "
                    "result first, or use --force"
                )
            setup = GameSetup(
                rules=args.get("rules", self._header.rules),
                time_control=args.get("time_control", self._header.time_control),
                fen=args.get("fen"),
                tags=args.get("tags", {}),
                settle=self._header.settle,
            )
            if "time_control" in args and args["time_control"].lower() in ("none", "-"):
                setup.time_control = None
            self._new_game(setup)
            self._announce()
            return self.status(0)
        if session.clock is None and cmd in ("pause", "resume", "clock-set", "moves-set",
                                             "adjourn", "resume-adjourned"):
            raise ControlError(f"{cmd}: this game has no clock (no time control)")
        event: Event
        if cmd == "start":
            if session.referee.started and (session.clock is None or session.clock.started):
                raise ControlError("start: the game has started already")
            event = Start(at)
        elif cmd == "pause":
            event = Pause(at)
        elif cmd == "resume":
            if session.clock is not None and session.clock.adjournment is not None:
                raise ControlError("resume: the game is adjourned; use resume-adjourned")
            event = Resume(at)
        elif cmd == "clock-set":
            event = ClockSet(at, args["side"], args["seconds"])
        elif cmd == "moves-set":
            event = MovesSet(at, args["side"], args["moves"])
        elif cmd == "accept":
            event = Accept(at)
        elif cmd == "adjourn":
            event = Adjourn(at, args["sealed"])
        elif cmd == "resume-adjourned":
            if session.sealed is None:
                raise ControlError("resume-adjourned: the game is not adjourned")
            event = ResumeAdjourned(at)
        elif cmd == "result":
            if args["result"] not in RESULTS:
                raise ControlError(
                    f"result: {args['result']!r} is not a result ({', '.join(sorted(RESULTS))})"
                )
            if session.result is not None:
                raise ControlError(f"result: the game is over already ({session.result['result']})")
            event = Result(at, args["result"], args.get("reason", "arbiter"))
        else:  # parse_request only lets known commands through
            raise ControlError(f"{cmd}: not handled")
        records = self._handle(event)
        response = self.status(at)
        response["records"] = records
        return response

    def status(self, at: int) -> dict[str, Any]:
        header = self._header
        status = self._session.status(max(at, self.last_at))
        status.update(
            game=header.id,
            board=self.board,
            tags=dict(header.tags),
            time_control=header.time_control,
            t=round(max(at, self.last_at) / NS, 3),
            moves=[m["move"] for m in self._session.moves],
            feed_lines=self.lines_sent,
        )
        if self.hw.missing:
            status["missing"] = list(self.hw.missing)
        if self.hw.feed is not None:
            status["feed_port"] = {"connected": self.hw.feed.connected,
                                   "written": self.hw.feed.written,
                                   "dropped": self.hw.feed.dropped}
        return status
