"""A game's life in the service: set up a new one, or come back to the one in the state
directory by replaying its journal (clocks paused, 004 §32), checking it fits the board."""

from __future__ import annotations

import logging
from pathlib import Path

from boardctl.service.base import ServiceBase
from boardctl.service.games import (  # re-exported: the service's callers import them from here
    GameSetup,
    rebuild,
    sensed_squares,
    session_for,
)
from boardctl.service.journal_file import (
    GAMES,
    open_journal,
    read_bytes,
)
from firmware.errors import BoardError
from firmware.formats.events import (
    NS,
    Pause,
    Resume,
)
from firmware.formats.journal import note_record
from firmware.rules.sets import find_rules

logger = logging.getLogger("boardctl.service.service")


class GameLife(ServiceBase):
    """New games and recovered ones (a layer of the service)."""

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
            self.hw.set_out(sensed_squares(session))  # the arbiter sets the pieces out
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
        board = sensed  # where the pieces stand after the restart: as the game left them, or
        if self.script is not None:  # where the simulated hand's log has them by now
            start = {self.session.rules.geometry.algebraic(sq)
                     for sq in self.session.start.occupied()}
            board = self.script.board_at(start, at)
        self.hw.set_out(board)
        self.sensing.expect(sensed)
        stopped = (clock is not None and clock.started and clock.running is None
                   and clock.adjournment is None and self.session.result is None)
        if stopped and self.script is not None and not self.script.paused:
            self._handle(Resume(at))  # the simulated arbiter goes on with the log at once
        logger.info(f"resumed game {journal.header.id} at ply {len(self.session.moves)}"
            f" ({len(journal.events)} events{', torn tail dropped' if journal.torn else ''})"
            + (", clocks paused" if running and self.script is None else ""))
        self.outbox.commit()
