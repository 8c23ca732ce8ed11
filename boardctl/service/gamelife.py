"""A game's life in the service: set up a new one, or come back to the one in the state
directory by replaying its journal (clocks paused, 004 §32), checking it fits the board."""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

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
from firmware.formats.events import NS, Pause, Recovered, Resume
from firmware.formats.journal import note_record
from firmware.rules.geometry import Geometry, a_board
from firmware.rules.sets import find_rules
from firmware.session.gap import BOUND, Gap, find_gap, plies_text
from firmware.session.session import BoardSession

logger = logging.getLogger(__name__)


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
        self.path.gap = None
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
            raise BoardError(f"{what}: {rules} is played on {a_board(n)}; "
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
        if self.hw.sim is not None:
            board = sim_board_override(board, session.rules.geometry)
        self.hw.set_out(board)
        if self.script is None:  # a simulated hand's log acts the lost plies out again
            self.find_lost_plies(session, at)
        sensed = sensed_squares(session)
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

    def find_lost_plies(self, session: BoardSession, at: int) -> None:
        """Plies a power cut lost (issue 30): the pieces as the sensors read them at the start
        against the game the journal rebuilt. One legal sequence of up to :data:`BOUND` plies
        leading there -> played as ``recovered`` (journaled, on the feed, in the log and the
        status); none or several -> the feed's ``gap`` line and the log name them, and the
        referee shows the squares that differ as it does for any board that does not match."""
        board = read_settled(self.hw)
        if board is None or session.result is not None or session.sealed is not None:
            return
        if board == sensed_squares(session):
            return
        geometry = session.rules.geometry
        ply = len(session.moves)
        dark = {sq for sq in board if geometry.is_dark(sq)}
        gap = find_gap(session.position, {geometry.number(sq) for sq in dark}, BOUND)
        if dark != board:
            gap = Gap()  # a piece on a light square: no sequence of moves puts it there
        found = gap.unique
        if found is not None:
            texts = plies_text(session.position, found.moves)
            self.path.handle(Recovered(at, tuple(texts)))
            report: dict[str, Any] = {"ply": ply, "recovered": texts, "candidates": [texts],
                                      "count": 1}
            text = (f"{_plies(len(texts))} after ply {ply} not in the journal (a power cut):"
                    f" rebuilt from the board as sensed: {' '.join(texts)}")
            logger.warning(text)
        else:
            candidates = [plies_text(session.position, c.moves) for c in gap.candidates]
            report = {"ply": ply, "recovered": None, "candidates": candidates[:SHOWN],
                      "count": len(candidates)}
            text = gap_alarm(ply, candidates, gap.exhausted)
            logger.error(text)
        report["text"] = text
        self.path.gap = report  # on the feed with the announcement (header, game, snapshot)

    def gap_status(self) -> dict[str, Any]:
        """For ``status``: the plies found lost at the start, when there were any."""
        return {"gap": self.path.gap} if self.path.gap is not None else {}


#: Candidates named on the feed and in the status at most (the log and ``count`` say more).
SHOWN = 8


def _plies(n: int) -> str:
    return f"{n} ply" if n == 1 else f"{n} plies"


def gap_alarm(ply: int, candidates: list[list[str]], exhausted: bool) -> str:
    """The log's and the feed's line for plies lost that the board cannot rebuild alone."""
    head = (f"the board does not show the journal's position after ply {ply} (plies lost to a"
            " power cut?): ")
    if exhausted:
        return head + f"too many sequences of up to {BOUND} plies to tell; the arbiter decides"
    if not candidates:
        return head + f"no legal sequence of up to {BOUND} plies leads there; the arbiter decides"
    shown = "; ".join(f"{_plies(len(c))}: {' '.join(c)}" for c in candidates[:SHOWN])
    more = f" (and {len(candidates) - SHOWN} more)" if len(candidates) > SHOWN else ""
    return (head + f"{len(candidates)} legal sequences lead there: {shown}{more}; the arbiter "
            "decides")


#: Settled reads of the sensors at the start: ``samples`` equal scans in a row, within this many.
START_SCANS = 200
#: Test and recovery aid (docs/DESIGN.md): the squares the simulated pieces stand on when
#: ``boardctl run --sim`` resumes a game, as a real board's pieces stand after a power cut.
SIM_BOARD_ENV = "BOARDCTL_SIM_BOARD"


def read_settled(hw: Hardware) -> set[str] | None:
    """The squares the sensors report occupied, once ``samples`` scans agree (None: they do
    not settle, as with a hand moving pieces at the start)."""
    matrix = hw.scanner.matrix
    last, same = None, 0
    for _ in range(START_SCANS):
        raw = matrix.scan()
        same = same + 1 if raw == last else 1
        last = raw
        if same >= max(1, hw.samples):
            return set(matrix.layout.occupied(raw))
    return None


def sim_board_override(board: set[str], geometry: Geometry) -> set[str]:
    """``$BOARDCTL_SIM_BOARD`` (comma-separated squares) instead of ``board``, when set: a
    BoardError naming a square that is not on the board."""
    text = os.environ.get(SIM_BOARD_ENV)
    if text is None:
        return board
    squares = {sq.strip().lower() for sq in text.split(",") if sq.strip()}
    cells = set(geometry.all_cells())
    for sq in sorted(squares):
        if sq not in cells:
            raise BoardError(f"${SIM_BOARD_ENV}: {sq!r} is not a square of a "
                             f"{geometry.size}x{geometry.size} board")
    return squares
