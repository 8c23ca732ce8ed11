"""A game's life in the service: set up a new one, or come back to the one in the state
directory by replaying its journal (clocks paused, 004 §32), checking it fits the board."""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path

from boardctl.service.datapath import DataPath
from boardctl.service.games import (
    CurrentGame,
    GameSetup,
    rebuild,
    sensed_squares,
    session_for,
)
from boardctl.service.hardware import EventScript, Hardware
from boardctl.service.journal_file import (
    GAMES,
    open_journal,
    read_bytes,
)
from boardctl.service.outputs import Outbox
from boardctl.service.sensing import Sensing
from firmware.errors import BoardError
from firmware.formats.events import NS, Pause, Resume
from firmware.formats.journal import note_record
from firmware.rules.sets import find_rules

logger = logging.getLogger("boardctl.service.service")


class GameLife:
    """New games and recovered ones: the game in play (:class:`CurrentGame`) begun, the
    journal opened for it, the (simulated) board set out and the debouncer told."""

    def __init__(self, game: CurrentGame, path: DataPath, outbox: Outbox, sensing: Sensing,
                 hardware: Hardware, *, state_dir: Path, board: str, clock: Callable[[], int],
                 script: EventScript | None, fsync: Callable[[int], None]) -> None:
        self.game = game
        self.path = path
        self.outbox = outbox
        self.sensing = sensing
        self.hw = hardware
        self.state_dir = state_dir
        self.board = board
        self.clock = clock
        self.script = script
        self.fsync = fsync

    def new_game(self, setup: GameSetup) -> None:
        header = setup.header(self.board)
        session = session_for(header)  # BoardError before anything is written
        self.check_size(header.rules, "new game")
        if (self.state_dir / GAMES / f"{header.id}.jsonl").exists():
            raise BoardError(f"game {header.id} has a journal already")
        self.outbox.use(None, b"", header)  # created on the journal writer's thread
        self.game.begin(header, session, self.clock(), 0)  # the new game's time line
        with self.sensing.lock:
            self.hw.set_out(sensed_squares(session))  # the arbiter sets the pieces out
            self.hw.expect(sensed_squares(session))
        self.sensing.merge.clear(self.game.origin)
        logger.info(f"new game {header.id}: {header.rules}"
                    + (f", {header.time_control}" if header.time_control else ""))

    def check_size(self, rules: str, what: str) -> None:
        """A game must fit the board it is played on (BoardError before anything changes)."""
        n = find_rules(rules).size
        size = getattr(self.hw, "size", n)
        if n != size:
            raise BoardError(f"{what}: {rules} is played on a {n}x{n} board; "
                             f"this board is {size}x{size}")

    def recover(self, path: Path) -> None:
        journal, writer = open_journal(path, fsync=self.fsync)
        self.outbox.use(writer, read_bytes(path, writer.size), journal.header)
        self.check_size(journal.header.rules, str(path))
        rebuilt = rebuild(journal, str(path))
        session = rebuilt.session
        at = rebuilt.at
        self.game.begin(journal.header, session, self.clock() - at, at)
        self.outbox.record(note_record("recovered", t=at / NS, torn=journal.torn))
        clock = session.clock
        running = clock is not None and clock.running is not None and session.result is None
        if running:
            self.path.handle(Pause(at))  # seed 004 §32: the arbiter restarts the clocks
        sensed = sensed_squares(session)
        board = sensed  # where the pieces stand after the restart: as the game left them, or
        if self.script is not None:  # where the simulated hand's log has them by now
            start = {session.rules.geometry.algebraic(sq) for sq in session.start.occupied()}
            board = self.script.board_at(start, at)
        self.hw.set_out(board)
        self.sensing.expect(sensed)
        stopped = (clock is not None and clock.started and clock.running is None
                   and clock.adjournment is None and session.result is None)
        if stopped and self.script is not None and not self.script.paused:
            self.path.handle(Resume(at))  # the simulated arbiter goes on with the log at once
        torn = ", torn tail dropped" if journal.torn else ""
        logger.info(f"resumed game {journal.header.id} at ply {len(session.moves)}"
                    f" ({len(journal.events)} events{torn})"
                    + (", clocks paused" if running and self.script is None else ""))
        self.outbox.commit()
