"""Analysis on the board (``boardctl run --analyse``, issue 42): no clock; every position the
board shows is studied by the engine (the built-in one, or a Hub engine whose ``info`` lines are
read), its lines on the feed as they come.

:class:`AnalysisPlayer` is a player of the door (:mod:`boardctl.service.door`), as the engine's
is (:mod:`boardctl.engine.player`): called on the referee's thread, it never waits for the
engine, which thinks in its own process; the engine's lines come on the client's thread, go
through a queue and wake the referee (``Seat.wake``).

- **Every position.** When the board's game moves on (a move, a take-back, a new game) the
  search of the position before is stopped and the new one studied (``go analyze``, ``level
  infinite``, :data:`LINES` lines scored), for at most :data:`ANALYSE_S` seconds; a found win
  ends it sooner. Each iteration's best line is a feed line ``{"type": "analysis", "ply",
  "score", "best", "depth"}`` (``win`` in a forced win or loss: docs/ENGINE.md "Scores"), at
  most one a :data:`LINE_GAP_NS` (the first of a position at once), and the latest is in
  ``status`` (``analysis.line``, with ``alternatives``).
- **The board.** The person plays both sides, moves committed when the board comes to rest (no
  clock, no presses; touch-move binds nobody). A move is taken back by restoring the board: a
  board that shows an earlier position of the game (not a move from the position in play)
  takes back the plies since it (a ``takeback`` event, journaled: the PDN holds the line the
  board ends with).
- **Shown.** The side to move's face shows the score in men (`` 0.35``, ``UU 5`` for a win in 5
  moves, ``L  5`` for a loss), the other face the best move (``32.28``); a press of either
  clock button shows the best move on the LEDs (its start ``must-move``, its end
  ``last-move``, as a hint) or hides it; ``hint`` answers the best move and its alternatives.
- **Failures.** An engine that fails (missing, dies, hangs) is a one-line ``engine`` record and
  asked again after :data:`RETRY_NS`, at most :data:`MAX_FAILURES` times a position; an
  ``info`` line that does not read is told once a search, in one line, and left.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from boardctl.engine.client import (
    EngineClient,
    EngineInfo,
    EngineReply,
    EngineSpec,
    ThinkRequest,
    parse_engine,
)
from boardctl.engine.lines import alternatives, pdn_moves
from boardctl.engine.player import HINT_END, Key, game_key
from boardctl.service.control.schema import ControlError
from boardctl.service.door import Pick, Seat
from boardctl.service.games import GameSetup
from firmware.clock.face import MoveOnFaces, segment_score, segment_squares
from firmware.engine.hub import HubInfo
from firmware.engine.scores import win_moves
from firmware.errors import BoardError
from firmware.formats.events import NS, TakeBack
from firmware.formats.records import AnalysisRecord, EngineRecord
from firmware.referee.decisions import MUST_MOVE
from firmware.rules.position import Move
from firmware.rules.sets import Side
from firmware.session.session import BoardSession

logger = logging.getLogger(__name__)

#: A position is studied at most this long (seconds); its last line then stands.
ANALYSE_S = 60.0
#: The lines scored: the best and its alternatives (the hint's).
LINES = 3
#: Analysis lines on the feed at most this often (game time, ns); a position's first at once.
LINE_GAP_NS = 100_000_000
#: After an engine's failure the position is asked again this much later (ns) ...
RETRY_NS = 2 * NS
#: ... at most this many times in a row.
MAX_FAILURES = 3


@dataclass
class Study:
    """The position studied (its key) and what the engine said of it so far."""

    key: Key | None = None
    #: The request out (its number), and whether the engine is done with the position.
    asked: int | None = None
    done: bool = False
    #: The latest best line (as the feed has it), its first move, and the last of each line
    #: read (``multipv`` number -> info).
    line: AnalysisRecord | None = None
    best: Move | None = None
    lines: dict[int, HubInfo] = field(default_factory=dict)
    #: The last line on the feed and when it went (game time).
    sent: AnalysisRecord | None = None
    sent_at: int | None = None
    failures: int = 0
    retry_at: int = 0


def taken_back(session: BoardSession) -> int | None:
    """The plies a board that shows an earlier position of the game (the latest such), and no
    move from the one in play, takes back; None: it shows none."""
    referee = session.referee
    sensed = referee.board()
    history, moves = session.record.history, session.moves
    if not moves or sensed == session.position.occupied() or referee.light:
        return None
    if referee.table.read(sensed).kind == "result":
        return None  # a move from the position in play (a king going back is one)
    for plies in range(1, min(len(moves), len(history) - 1) + 1):
        if history[-1 - plies].occupied() == sensed:
            return plies
    return None


class AnalysisPlayer:
    """The engine studying the board's game (module docstring), a player of the door. All on
    the referee's thread but :meth:`_on_info`, :meth:`_on_reply` (the client's) and
    :meth:`close`."""

    def __init__(self, spec: EngineSpec, seat: Seat, *,
                 client: Callable[..., EngineClient] = EngineClient,
                 clock: Callable[[], float] = time.monotonic, analyse_s: float = ANALYSE_S,
                 lines: int = LINES) -> None:
        self.spec = spec
        self.seat = seat
        self.analyse_s = analyse_s
        self.lines = lines
        self.client = client(spec, on_reply=self._on_reply, on_info=self._on_info, clock=clock)
        self.study = Study()
        #: The best move shown on the LEDs (a press shows it, the next hides it).
        self.shown = False
        #: The engine's last error (cleared when it answers again).
        self.error: str | None = None
        self._session: BoardSession | None = None
        #: The board last looked at for a take-back.
        self._looked: frozenset[int] | None = None
        self._inbox: queue.SimpleQueue[EngineInfo | EngineReply] = queue.SimpleQueue()
        #: The latest line of each (request, line number) since the referee's last turn.
        self._infos: dict[tuple[int, int], EngineInfo] = {}
        self._lock = threading.Lock()

    # -- the client's thread -----------------------------------------------------------------

    def _on_info(self, info: EngineInfo) -> None:
        """An engine's line: kept as the latest of its request and line (an engine that
        floods its output costs no memory here), the referee woken."""
        if info.info is None:
            self._inbox.put(info)  # an error, told once a search
        else:
            with self._lock:
                self._infos[info.request, info.info.line] = info
        self.seat.wake()

    def _on_reply(self, reply: EngineReply) -> None:
        self._inbox.put(reply)
        self.seat.wake()

    # -- the referee's turn ------------------------------------------------------------------

    def on_turn(self, at: int) -> None:
        """The board's game against what is studied: a take-back, a new position asked, the
        engine's lines taken and the latest sent."""
        session = self.seat.session
        if session is not self._session:  # a new game, or the service came back
            self._session, self._looked = session, None
            self._forget()
            self.client.new_game()
        self._take_back(session, at)
        key = game_key(session)
        if self.study.key != key:  # the game moved on (a move, a take-back)
            self._forget()
            self.study.key = key
        study = self.study
        self._take(study, session, at)
        if study.asked is None and not study.done and at >= study.retry_at:
            self._ask(study, session)
        self._send(study, at)
        rest = session.wake_at()
        if rest is not None and rest <= at:  # this turn's tick commits a move: see it at once
            self.seat.wake()

    def _forget(self) -> None:
        """The position studied is gone: its search dropped, its lines and LEDs with it."""
        if self.study.asked is not None:
            self.client.cancel()
        self.study = Study()
        self.shown = False

    def _ask(self, study: Study, session: BoardSession) -> None:
        """Study the position on the board, unless the game is over there."""
        if session.result is not None or not session.position.has_legal_move():
            study.done = True
            return
        request = ThinkRequest(session.record, infinite=self.analyse_s, analyse=True,
                               lines=self.lines)
        study.asked = self.client.think(request)

    def _take(self, study: Study, session: BoardSession, at: int) -> None:
        """What the engine said of the position studied (what it said of another is left):
        its latest lines, then its errors and its reply."""
        with self._lock:
            infos, self._infos = self._infos, {}
        for (request, _), said in sorted(infos.items()):
            if said.info is not None and request == study.asked:
                self._read(study, said.info, session)
        while True:
            try:
                item = self._inbox.get_nowait()
            except queue.Empty:
                return
            if study.asked is None or item.request != study.asked:
                continue
            if isinstance(item, EngineReply):
                self._finished(study, item, session, at)
            elif item.info is None:
                self._failed(item.error or "an info line that does not read", at)
            else:
                self._read(study, item.info, session)

    def _read(self, study: Study, info: HubInfo, session: BoardSession) -> None:
        """One line of the engine's: the best's becomes the position's line."""
        study.lines[info.line] = info
        if info.line != 1 or info.score is None:
            return
        position = session.position
        study.best = info.pv[0] if info.pv else None
        study.line = AnalysisRecord(len(session.moves), info.score,
                                    pdn_moves(position, info.pv), info.depth,
                                    win_moves(info.score))
        self.error = None

    def _finished(self, study: Study, reply: EngineReply, session: BoardSession,
                  at: int) -> None:
        """The search is over: its last lines stand, or it failed (asked again later)."""
        study.asked = None
        if reply.error is not None:
            study.failures += 1
            study.retry_at = at + RETRY_NS
            study.done = study.failures >= MAX_FAILURES
            self._failed(reply.error, at)
            return
        study.done = True
        study.failures = 0
        for info in reply.lines:
            if info.line not in study.lines or info.depth >= study.lines[info.line].depth:
                self._read(study, info, session)

    def _failed(self, error: str, at: int) -> None:
        """An engine's error: one line on the feed, in the log and in ``status``."""
        self.error = error[:300]
        self.seat.emit(EngineRecord(self.error))
        self.seat.note("engine", at, error=self.error)
        logger.warning(f"analysis: {self.error}")

    def _send(self, study: Study, at: int) -> None:
        """The position's latest line on the feed, when it says something new and the last
        one went at least :data:`LINE_GAP_NS` ago (the first of a position at once)."""
        line = study.line
        if line is None or line == study.sent:
            return
        if study.sent_at is not None and at - study.sent_at < LINE_GAP_NS:
            return
        study.sent, study.sent_at = line, at
        self.seat.emit(line)

    def _take_back(self, session: BoardSession, at: int) -> None:
        """The board restored to an earlier position takes the plies since it back (looked at
        when the board changed)."""
        sensed = session.referee.board()
        if sensed == self._looked:
            return
        self._looked = sensed
        plies = taken_back(session)
        if plies is None:
            return
        try:
            self.seat.commit(TakeBack(at, plies, stop=False))
        except BoardError as exc:
            logger.warning(f"analysis: take-back refused: {exc}")

    # -- the door: what the service calls ---------------------------------------------------

    def on_press(self, side: str, at: int) -> bool:
        """Either clock button shows the best move on the LEDs, or hides it (the buttons
        commit nothing here: there is no clock)."""
        self.shown = not self.shown
        return True

    def leds(self, now: int) -> dict[str, str]:
        """The best move as a hint is shown: its start square and its end square."""
        session, best = self._session, self.study.best
        if not self.shown or best is None or session is None or session is not \
                self.seat.session:
            return {}
        alg = session.rules.geometry.algebraic
        return {alg(best.end): HINT_END, alg(best.start): MUST_MOVE}

    def face_move(self) -> MoveOnFaces | None:
        """The side to move's face: the score; the other: the best move (both faces told, no
        clock shown)."""
        session = self._session
        if session is None or session is not self.seat.session or session.result is not None:
            return None
        line, best = self.study.line, self.study.best
        score = segment_score(line.score if line is not None else None,
                              line.win if line is not None else None)
        name = session.rules.square_name
        move = segment_squares(name(best.start), name(best.end)).text if best is not None \
            else "    ;"
        return MoveOnFaces(session.position.turn, score.text, move)

    def answer(self, cmd: str, args: Mapping[str, Any]) -> dict[str, Any] | None:
        """``hint``: the best move and its alternatives (shown on the LEDs too); the other
        requests are not an analysis's."""
        if cmd != "hint":
            return None
        session = self.seat.session
        if session.result is not None:
            raise ControlError("hint: the game is over")
        self.shown = True
        study = self.study
        if study.line is None or study.key != game_key(session):
            return {"hint": "asked"}
        return {"hint": study.line.best[0] if study.line.best else None,
                "score": study.line.score,
                "alternatives": alternatives(session.position, self._lines(study))}

    @staticmethod
    def _lines(study: Study) -> list[HubInfo]:
        return [study.lines[k] for k in sorted(study.lines)]

    def amend_setup(self, setup: GameSetup) -> None:
        """An analysis has no clock: moves committed when the board comes to rest, the game
        on from the first event."""
        setup.time_control = None
        setup.clocked = False
        setup.started = True

    def sides(self) -> frozenset[Side]:
        """Both: the person tries moves for either side, and touch-move binds neither."""
        return frozenset(Side)

    def status(self) -> dict[str, Any]:
        """``analysis``: the engine, whether it thinks, the latest line for the position on
        the board (as the feed has it), its alternatives, the LEDs' best move, the error."""
        study, session = self.study, self._session
        current = session is not None and session is self.seat.session and \
            study.key == game_key(session)
        line = study.line if current else None
        return {"analysis": {
            "engine": self.spec.name, "id": dict(self.client.engine_id),
            "pid": self.client.pid, "thinking": current and study.asked is not None,
            "line": line.members() if line is not None else None,
            "alternatives": alternatives(session.position, self._lines(study))
            if current and session is not None else [],
            "shown": self.shown, "error": self.error}}

    def close(self) -> None:
        self.client.close()


class AnalysisLineup:
    """The player of an analysing board (``boardctl run --analyse``): the engine studying
    each game, started again for a new rule set; a ``new`` request chooses nothing else (an
    engine, a side), refused in one line."""

    def __init__(self, engine: str) -> None:
        self.engine = engine
        #: The rule set of the game the player seated was made for.
        self.rules: str | None = None

    def first(self, rules: str, seat: Seat) -> AnalysisPlayer:
        self.rules = rules
        return self._player(rules, seat)

    def ready(self, args: Mapping[str, Any], rules: str) -> None:
        return None

    def choose(self, args: Mapping[str, Any], rules: str, seat: Seat) -> Pick | None:
        if args:
            raise ControlError(f"new: {sorted(args)[0]!r}: an analysing board chooses no "
                               "player per game (restart it without --analyse)")
        if rules == self.rules:
            return None  # the same engine studies the new game

        def taken() -> None:
            self.rules = rules

        return Pick(self._player(rules, seat), taken)

    def _player(self, rules: str, seat: Seat) -> AnalysisPlayer:
        return AnalysisPlayer(parse_engine(self.engine, rules), seat)
