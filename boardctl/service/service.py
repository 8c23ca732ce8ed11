"""The board service: ``hw`` wired to ``firmware`` along one data path, on threads that never
wait for each other (docs/DESIGN.md "Threads")::

    sensing thread (boardctl.service.sensing): scan, debounce, buttons, stamped by when they
    happened
        │ EventMerge: released in time stamp order once no source can still deliver earlier
    referee (this module, Service.turn): BoardSession.handle(event) -> feed records
        ├─> Outbox (boardctl.service.outputs): journal writer thread, group fsync, then the feed
        │   (port, on_line, sinks): a move is in the journal before it is on the feed
        └─> Display thread: LEDs and faces (only what changed)
    control thread (boardctl.service.control): requests answered on the referee's thread (inbox)

:meth:`Service.run` starts the threads on real time; :meth:`Service.step` is one turn of
sensing and of the referee on an injected clock (tests, ``boardctl demo``).

Nothing flows back upstream. Everything the board knows comes from events, and every event is
written to the game's journal (``firmware.formats.journal``) before its feed lines go out, so a
journal
replayed through a fresh :class:`~firmware.session.session.BoardSession` rebuilds the game, the
clocks
and the LED picture exactly (:func:`rebuild`): that is how the service comes back after a power
cut, a crash or ``kill -9``, with the clocks paused at the last recorded time.

Time: the service reads one injected monotonic clock (ns). A game has its own time line, which
starts at 0 when the game is set up and runs on across restarts (``origin`` maps the monotonic
clock onto it); events, the journal and the clock all use game time.
"""

from __future__ import annotations

import gc
import logging
import os
import sys
import threading
from collections.abc import Mapping
from typing import Any

from boardctl.service import arbiter
from boardctl.service.base import CLOCK_EVENTS, DURABLE_EVENTS, DURABLE_RECORDS
from boardctl.service.control import ControlServer
from boardctl.service.games import (  # re-exported: the service's callers import them from here
    GameSetup,
    rebuild,
    sensed_squares,
    session_for,
    snapshot_of,
)
from boardctl.service.journal_file import (
    current_path,
)
from boardctl.service.loop import HOUSEKEEPING_S, IDLE_S, RefereeLoop
from boardctl.service.outputs import Display
from boardctl.service.threadname import name_thread
from firmware.errors import BoardError, EventLogError, HardwareError
from firmware.formats.events import (
    NS,
    Pause,
)
from firmware.formats.journal import note_record

logger = logging.getLogger(__name__)

__all__ = ["CLOCK_EVENTS", "DURABLE_EVENTS", "DURABLE_RECORDS", "HOUSEKEEPING_S", "IDLE_S",
           "GameSetup", "Service", "rebuild", "sensed_squares", "session_for", "snapshot_of"]


class Service(RefereeLoop):
    """The service loop (module docstring). ``boot()``, then ``step()`` until stopped, then
    ``close()``; :meth:`run` does all three on real time. Its layers: ``service_base`` (state
    and the feed), ``service_games`` (new and recovered games), ``service_loop`` (the
    referee's turn); here the life cycle, the threads and the control requests."""

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
            # What boot made (modules, tables, the recovered game) lives as long as the
            # service: out of the collector's sight, a collection on any thread (the GIL
            # stops the others meanwhile) has only the game's young objects to walk.
            gc.freeze()
            self.sensing.start()
            while not stop.is_set():
                self.merge.wait(self._idle_wait(self.clock()))
                self.turn(self.clock())
                error = self.sensing.error
                if error is not None:  # one line, never a traceback: systemd restarts us
                    logger.error(f"sensing stopped: {error}")
                    if isinstance(error, BoardError):
                        raise error
                    raise HardwareError(f"sensing stopped: {type(error).__name__}: "
                                        f"{error}") from error
        finally:
            self.close()

    def command(self, request: Mapping[str, Any] | str) -> dict[str, Any]:
        """Answer one control request in-process: ``{"ok": false, "error": ...}`` for
        anything wrong (boardctl.service.arbiter.command)."""
        return arbiter.command(self, request)

    def status(self, at: int) -> dict[str, Any]:
        return arbiter.status(self, at)
