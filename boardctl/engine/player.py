"""The computer as one of the players on the board (``boardctl run --engine``, issue 28).

:class:`EnginePlayer` is a player not at the board, seated through the player door
(:mod:`boardctl.service.door`: it is a :class:`~boardctl.service.door.Player` and acts through
the :class:`~boardctl.service.door.Seat` it is made with, never on the service's parts). It runs
on the referee's thread at every turn and never waits for the engine, which thinks in its own
process (:class:`boardctl.engine.client.EngineClient`); the engine's answer comes on the
client's thread, goes through a queue and wakes the referee (``Seat.wake``).

- The engine's turn, its clock running: the engine is asked (its clock's remaining time, or
  ``move_time``). Its move goes on the feed (``engine-move``: route and captured squares), into
  the journal (a ``note``) and on the LEDs (:func:`move_picture`).
- The person carries it out. When the board shows its result the move is committed by a press
  of the engine's clock, made here as an event of the journal (nobody presses for the engine;
  ``boardctl replay`` of the journal gives the same game). A board showing another legal move
  is a ``not-engine-move`` irregularity, the LEDs showing the way to the engine's result.
- The person's turn: a board that shows the position from before his last move (his move and
  the engine's reply undone, captured pieces put back) takes both plies back (a ``takeback``
  event); in the engine's turn (thinking, or its move shown) his move undone on the board
  takes that one ply back; the engine's clock button pressed, or the ``hint`` request, lights
  a hint; ``resign``; ``offer-draw``, which the engine answers from its last evaluation.
"""

from __future__ import annotations

import logging
import queue
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from boardctl.engine.client import (
    EngineClient,
    EngineReply,
    EngineSpec,
    ThinkRequest,
)
from boardctl.engine.lines import alternatives
from boardctl.engine.process import EngineProcess
from boardctl.service.control.schema import ControlError
from boardctl.service.door import Seat
from boardctl.service.games import GameSetup
from firmware.clock.face import MoveOnFaces, segment_squares
from firmware.errors import BoardError
from firmware.formats.events import NS, Press, Result, TakeBack
from firmware.formats.journal import StartMode
from firmware.formats.records import (
    ClearedRecord,
    EngineMoveRecord,
    EngineRecord,
    IrregularityRecord,
)
from firmware.referee.decisions import MUST_MOVE, REMOVE
from firmware.referee.kinds import IrregularityKind
from firmware.rules.game import result_text
from firmware.rules.notation import move_text
from firmware.rules.position import Move, Position
from firmware.rules.sets import Side
from firmware.session.session import BoardSession

logger = logging.getLogger(__name__)

#: How long each landing square of the engine's move is lit alone before the next one joins
#: (the route is drawn square by square, then starts again).
STEP_NS = 400_000_000
#: The LED meaning of a hint's end square (its start square is ``must-move``).
HINT_END = "last-move"
#: The LED meaning of a landing square of the engine's move (nothing stood there to put back).
LAND = "land"
#: A press of the engine's button this soon after its move was committed is the habit of
#: pressing after a move, not a hint.
HABIT_NS = 3 * NS
#: A hint's search: this many seconds (or less at the engine's level).
HINT_S = 1.0
#: The moves a hint scores (the best and its alternatives: ``multipv``).
HINT_LINES = 3
#: Without a clock the engine gets this many seconds a move.
DEFAULT_MOVE_S = 2.0
#: After an engine error the next request waits this long (a missing engine is not spun on).
RETRY_NS = 2 * NS
#: After this many errors in a row the engine's side is handed back to the person (he moves
#: for it and presses its clock) until the next game.
MAX_FAILURES = 3
#: The engine accepts a draw when its evaluation (hundredths of a man, its own side) is at most
#: this.
DRAW_SCORE = 0


def move_picture(position: Position, move: Move, now: int, step_ns: int = STEP_NS
                 ) -> dict[str, str]:
    """The LED language of an engine's move (docs/ENGINE.md): the start square ``must-move``,
    the pieces to take off ``remove``, and the landing squares ``land``, drawn in order:
    the first alone, then the first two, ... the whole route, then again (a flying king's
    long capture reads square by square on 8x8 and 10x10 alike)."""
    alg = position.rules.geometry.algebraic
    picture = {alg(sq): REMOVE for sq in move.captured}
    landings = move.route[1:]
    shown = (now // step_ns) % (len(landings) + 1) + 1
    for sq in landings[:shown]:
        picture[alg(sq)] = LAND
    picture[alg(move.start)] = MUST_MOVE
    return picture


def move_line(position: Position, move: Move, ply: int) -> EngineMoveRecord:
    """The feed's ``engine-move`` record for ``move`` in ``position``."""
    alg = position.rules.geometry.algebraic
    return EngineMoveRecord(ply, position.turn.value, move_text(position, move),
                            tuple(alg(sq) for sq in move.route),
                            tuple(alg(sq) for sq in move.captured))


def probe(spec: EngineSpec, timeout: float = 10.0) -> dict[str, str]:
    """Start the engine once and read its ``id`` (name, version): the PDN tags need it before
    the game begins. EngineSpecError-free: an engine that cannot start gives ``{}`` (the game goes
    on; its first request says why)."""
    inbox: queue.Queue[tuple[Any, ...]] = queue.Queue()
    proc = EngineProcess(spec.argv, spec.name, inbox, time.monotonic, 10)
    try:
        if proc.spawn() is not None:
            return {}
        if proc.handshake(timeout, {}, lambda item: None) is not None:
            return {}
        return dict(proc.engine_id)
    finally:
        proc.kill()


def engine_tags(spec: EngineSpec, engine_id: Mapping[str, str], side: Side,
                level: str) -> dict[str, str]:
    """The PDN tags of a game against the engine: its side's name (``name version``) and,
    for the built-in engine, its level (``WhiteLevel`` / ``BlackLevel``)."""
    name = " ".join(v for v in (engine_id.get("name"), engine_id.get("version")) if v)
    side_tag = "White" if side is Side.WHITE else "Black"
    tags = {side_tag: name or spec.name}
    if spec.builtin:
        tags[f"{side_tag}Level"] = level
    return tags


#: A game as a request or a shown move is for: the session, its ply count, its position.
Key = tuple[int, int, str]


def game_key(session: BoardSession) -> Key:
    return (id(session), len(session.moves), session.position.fen())


@dataclass
class _Asked:
    """A request out: its number, the game it was asked for, and whether it is a hint."""

    number: int
    key: Key
    hint: bool = False


@dataclass
class Play:
    """Where the engine's side stands in the game on the board: the state its parts share
    (:class:`EnginePlayer`, :class:`PersonsRequests`, :class:`Shown`), all on the referee's
    thread."""

    #: The game the last turn saw (a new one resets the rest).
    session: BoardSession | None = None
    asked: _Asked | None = None
    #: The engine's move shown on the board, and the key of the game it is for.
    move: tuple[Move, Key] | None = None
    hint: tuple[Move, Key] | None = None
    #: The hint's alternatives, best first (boardctl.engine.lines: move, score, line).
    alternatives: list[dict[str, Any]] = field(default_factory=list)
    #: The engine's last evaluation (hundredths of a man, its own side).
    score: int | None = None
    #: When the engine's last move was committed (game time).
    committed_at: int | None = None
    #: The engine failed MAX_FAILURES times: the person plays its side until a new game.
    handed_back: bool = False

    def current(self, session: BoardSession) -> bool:
        """Whether ``session`` (the service's game now) is the one the last turn saw."""
        return self.session is not None and self.session is session

    def move_on(self, session: BoardSession) -> Move | None:
        """The engine's move, when it is for the position ``session`` shows."""
        return self.move[0] if self.move is not None and self.move[1] == game_key(session) \
            else None

    def hint_on(self, session: BoardSession) -> Move | None:
        return self.hint[0] if self.hint is not None and self.hint[1] == game_key(session) \
            else None

    def forget(self) -> None:
        """No request out, no move nor hint shown."""
        self.asked = self.move = self.hint = None


class PersonsRequests:
    """What the person asks of the engine's side: a hint, a resignation, a draw offer (the
    engine's button is his hint gesture); handed the engine's client and its seat (the game,
    the time, an event of its own); run on the referee's thread."""

    def __init__(self, play: Play, side: Side, move_time: float | None, client: EngineClient,
                 seat: Seat) -> None:
        self.play = play
        self.side = side
        self.move_time = move_time
        self.client = client
        self.seat = seat

    def on_press(self, side: str, at: int) -> bool:
        """The engine's clock button is the engine's: during the person's turn a press of it
        asks for a hint; during the engine's turn it is ignored (the board commits the
        engine's move). Before the game starts any press starts it."""
        session = self.seat.session
        if side != self.side.value or not session.referee.started or self.play.handed_back:
            return False
        committed = self.play.committed_at
        habit = committed is not None and at - committed < HABIT_NS
        if session.position.turn is not self.side and not habit:
            self._ask_hint(session)
        return True

    def hint(self) -> dict[str, Any]:
        """The hint for the position on the board: the move and its alternatives (the best
        :data:`HINT_LINES` moves with their scores and lines) once the engine has it, else
        asked (the LEDs and ``status`` show it when it comes)."""
        session = self.seat.session
        if session.result is not None:
            raise ControlError("hint: the game is over")
        if session.position.turn is self.side:
            raise ControlError("hint: it is the engine's turn")
        hint = self.play.hint_on(session)
        if hint is not None:
            return {"hint": move_text(session.position, hint),
                    "alternatives": list(self.play.alternatives)}
        self._ask_hint(session)
        return {"hint": "asked"}

    def _ask_hint(self, session: BoardSession) -> None:
        """A hint is a short analysis of the person's position: no book, the best
        :data:`HINT_LINES` moves scored."""
        if self.play.asked is not None:
            return
        request = ThinkRequest(session.record, move_time=min(HINT_S, self.move_time or HINT_S),
                               analyse=True, lines=HINT_LINES)
        self.play.asked = _Asked(self.client.think(request), game_key(session), hint=True)

    def resign(self) -> dict[str, Any]:
        session = self.seat.session
        if session.result is not None:
            raise ControlError(f"resign: the game is over already ({session.result['result']})")
        return {"records": self._end(session, result_text(session.rules, self.side),
                                     "resignation")}

    def offer_draw(self) -> dict[str, Any]:
        """The engine's answer from its last evaluation: a draw when it is not better."""
        session = self.seat.session
        if session.result is not None:
            raise ControlError(f"offer-draw: the game is over already "
                               f"({session.result['result']})")
        score = self.play.score
        if score is None or score > DRAW_SCORE:
            return {"draw": "declined", "score": score}
        records = self._end(session, result_text(session.rules, None), "agreement")
        return {"draw": "accepted", "score": score, "records": records}

    def _end(self, session: BoardSession, result: str, reason: str) -> Any:
        """The game ends now (a ``result`` event); the engine stops thinking."""
        self.client.cancel()
        self.play.forget()
        return [r.to_json() for r in self.seat.commit(Result(self.seat.now(), result, reason))]


class Shown:
    """What the board shows of the engine's side (referee's thread): its move (or a hint) on
    the LEDs, its move on the clock faces, and, when the board shows another move than the
    engine's, the way to it (a ``not-engine-move``: on the feed, in the journal, on the
    LEDs); handed its seat (the game, the feed, the journal)."""

    def __init__(self, play: Play, side: Side, seat: Seat) -> None:
        self.play = play
        self.side = side
        self.seat = seat
        #: The board as sensed when it showed another move than the engine's, and the LEDs
        #: that show the way from it to the engine's move.
        self.wrong: frozenset[int] | None = None
        self.wrong_leds: dict[str, str] = {}

    def _session(self) -> BoardSession | None:
        """The game shown, unless the service has a new one not yet seen by a turn."""
        session = self.seat.session
        return session if self.play.current(session) else None

    def leds(self, now: int) -> dict[str, str]:
        """The LED picture of the engine's move, or of a hint (referee's thread)."""
        session = self._session()
        if session is None:
            return {}
        move = self.play.move_on(session)
        if move is not None:
            if self.wrong is not None:  # another move on the board: the way to the engine's
                return dict(self.wrong_leds)
            return move_picture(session.position, move, now)
        hint = self.play.hint_on(session)
        if hint is not None:
            alg = session.rules.geometry.algebraic
            return {alg(hint.end): HINT_END, alg(hint.start): MUST_MOVE}
        return {}

    def face_move(self) -> MoveOnFaces | None:
        """The engine's move for the clock faces while it waits to be carried out: its start
        and final square (``32.28``, ``C3.d4``; docs/ENGINE.md)."""
        session = self._session()
        move = self.play.move_on(session) if session is not None else None
        if session is None or move is None or session.result is not None:
            return None
        name = session.rules.square_name
        return MoveOnFaces(self.side, segment_squares(name(move.start), name(move.end)).text)

    def not_engine_move(self, sensed: frozenset[int], table: Any, move: Move, at: int) -> None:
        """The board shows another legal result than the engine's move: told once."""
        if self.wrong == sensed:
            return
        self.wrong = frozenset(sensed)
        marks = table.marks_towards(sensed, table.result_of(move))
        self.wrong_leds = {m.square: m.meaning for m in marks}
        kind = IrregularityKind.NOT_ENGINE_MOVE
        self.seat.emit(IrregularityRecord(kind.value, self.side.value,
                                          [m.square for m in marks], dict(self.wrong_leds)))
        self.seat.note(kind.value, at)

    def clear(self, sensed: frozenset[int]) -> None:
        """A ``not-engine-move`` is over unless the board still shows ``sensed``."""
        if self.wrong is not None and self.wrong != sensed:
            self.forget()
            self.seat.emit(ClearedRecord())

    def forget(self) -> None:
        self.wrong, self.wrong_leds = None, {}

    def status(self) -> dict[str, Any]:
        """The ``status`` answer's shown parts: the hint, the engine's move as the feed's
        ``engine-move`` has it while it is to be carried out, the irregularity (the strip's
        picture is the door's: :meth:`leds` under the referee's)."""
        said: dict[str, Any] = {"hint": None, "move": None, "irregularity": None,
                                "alternatives": []}
        session = self._session()
        if session is None:
            return said
        hint, move = self.play.hint_on(session), self.play.move_on(session)
        if hint is not None:
            said["hint"] = move_text(session.position, hint)
            said["alternatives"] = list(self.play.alternatives)
        if move is not None:
            said["move"] = move_line(session.position, move, len(session.moves) + 1).members()
            if self.wrong is not None:
                said["irregularity"] = {"kind": IrregularityKind.NOT_ENGINE_MOVE.value,
                                        "squares": sorted(self.wrong_leds)}
        return said


class EnginePlayer:
    """The engine's side of the game (module docstring), a player of the door
    (:class:`boardctl.service.door.Player`): its engine's client, the state of its play
    (:class:`Play`), and its parts, each handed the seat it acts through: the person's
    requests (:class:`PersonsRequests`) and what is shown (:class:`Shown`). Everything but
    :meth:`_on_reply` and :meth:`close` runs on the referee's thread."""

    def __init__(self, spec: EngineSpec, side: Side, seat: Seat, *, level: str = "10",
                 move_time: float | None = None, tags: Mapping[str, str] | None = None,
                 client: Callable[..., EngineClient] = EngineClient,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.spec = spec
        self.side = side
        self.seat = seat
        self.level = level
        self.move_time = move_time
        self.tags = dict(tags or {})
        self.client = client(spec, on_reply=self._on_reply, clock=clock)
        self.play = Play()
        self.requests = PersonsRequests(self.play, side, move_time, self.client, seat)
        self.shown = Shown(self.play, side, seat)
        self._replies: queue.SimpleQueue[EngineReply] = queue.SimpleQueue()
        self._retry_at = 0
        self.error: str | None = None
        self._failures = 0

    @property
    def score(self) -> int | None:
        return self.play.score

    @property
    def handed_back(self) -> bool:
        return self.play.handed_back

    @property
    def _asked(self) -> _Asked | None:
        """The request out (the tests look whether there is one)."""
        return self.play.asked

    # -- the door: what the service calls ---------------------------------------------------

    def on_press(self, side: str, at: int) -> bool:
        return self.requests.on_press(side, at)

    def owns_pause(self) -> bool:
        return False  # the pause button pauses the clock against the engine

    def leds(self, now: int) -> dict[str, str]:
        return self.shown.leds(now)

    def face_move(self) -> MoveOnFaces | None:
        return self.shown.face_move()

    def answer(self, cmd: str, args: Mapping[str, Any]) -> dict[str, Any] | None:
        """The person's requests: ``hint``, ``resign``, ``offer-draw`` (None: not its own)."""
        requests = self.requests
        if cmd == "hint":
            return requests.hint()
        if cmd == "resign":
            return requests.resign()
        if cmd == "offer-draw":
            return requests.offer_draw()
        return None

    def amend_setup(self, setup: GameSetup) -> None:
        """A new game gets the engine's tags (a name given in the request wins), and without
        a clock moves committed by presses (the engine's by the board)."""
        for tag, value in self.tags.items():
            setup.tags.setdefault(tag, value)
        if setup.time_control is None:
            setup.clocked = True

    def sides(self) -> frozenset[Side]:
        """The engine's side, the person carrying out its moves, unless it was handed back to
        him in this game (touch-move then binds him there)."""
        handed_back = self.play.handed_back and self.play.current(self.seat.session)
        return frozenset() if handed_back else frozenset((self.side,))

    def close(self) -> None:
        self.client.close()

    def _on_reply(self, reply: EngineReply) -> None:
        """The client's thread: hand the reply over and wake the referee."""
        self._replies.put(reply)
        self.seat.wake()

    # -- the referee's turn ------------------------------------------------------------------

    def on_turn(self, at: int) -> None:
        """One referee's turn at game time ``at`` (module docstring)."""
        play = self.play
        session = self.seat.session
        if not play.current(session):  # a new game, or the service came back
            play.session = session
            play.forget()
            self.shown.forget()
            self._failures, play.handed_back = 0, False
            self.client.new_game()
        while True:
            try:
                self._take(self._replies.get_nowait(), session, at)
            except queue.Empty:
                break
        key = game_key(session)
        if play.move is not None and play.move[1] != key:
            play.move = None  # the game went elsewhere (the arbiter took plies back)
        if play.asked is not None and play.asked.key != key:
            self.client.cancel()  # a search for a position that is gone
            play.asked = None
        if session.result is not None or session.sealed is not None or play.handed_back:
            return
        if session.position.turn is self.side:
            if self._take_back(session, at, 1):
                return
            if play.move is None and play.asked is None and self._may_think(session, at):
                self._think(session, at)
            if play.move is not None:
                self._follow(session, at)
        else:
            self._take_back(session, at, 2)

    def _may_think(self, session: BoardSession, at: int) -> bool:
        """While the clock runs; before the start too in a game its first move starts (issue
        36): the engine's first move is shown, and the person carrying it out starts it."""
        if at < self._retry_at:
            return False
        if not session.referee.started:
            return session.start_mode is StartMode.MOVE and session.result is None
        clock = session.clock
        return clock is None or (clock.started and clock.running is not None)

    def _think(self, session: BoardSession, at: int) -> None:
        clock = session.clock
        if self.move_time is not None or clock is None:
            request = ThinkRequest(session.record, move_time=self.move_time or DEFAULT_MOVE_S)
        else:
            control = clock.control
            stage = control.stage_after(clock.moves_made(self.side))[1] if control.stages \
                else None
            request = ThinkRequest(session.record, remaining=clock.remaining(self.side, at) / NS,
                                   increment=stage.bonus_ns / NS if stage is not None else 0.0)
        self.play.asked = _Asked(self.client.think(request), game_key(session))

    def _take(self, reply: EngineReply, session: BoardSession, at: int) -> None:
        play = self.play
        asked = play.asked
        if asked is None or reply.request != asked.number:
            return  # cancelled, or for another game
        play.asked = None
        if reply.error is not None or reply.move is None:
            self._failed(reply.error or "no move", at)
            return
        self.error = None
        self._failures = 0
        if asked.key != game_key(session):
            return  # the game moved on meanwhile
        if asked.hint:
            play.hint = (reply.move, asked.key)
            play.alternatives = alternatives(session.position, reply.lines)
            return
        if reply.score is not None:  # hundredths of a man (firmware.engine.hub.read_score)
            play.score = reply.score
        self.shown.clear(frozenset())  # a not-engine-move of a former move of its is over
        play.move = (reply.move, asked.key)
        line = move_line(session.position, reply.move, len(session.moves) + 1)
        self.seat.note("engine-move", at, **line.members())
        self.seat.emit(line)

    def _failed(self, error: str, at: int) -> None:
        """An engine's error: on the feed and in status; asked again after RETRY_NS (the
        client restarts the process), and after MAX_FAILURES in a row the person plays the
        engine's side himself."""
        self.error = error
        self._retry_at = at + RETRY_NS
        self._failures += 1
        handed_back = self.play.handed_back = self._failures >= MAX_FAILURES
        said: dict[str, Any] = {"error": error}
        if handed_back:
            said["handed_back"] = True
        self.seat.emit(EngineRecord(error, handed_back))
        self.seat.note("engine", at, **said)
        logger.warning(f"engine: {error}" + (" (its side handed back to the player)"
                                             if handed_back else ""))

    def _follow(self, session: BoardSession, at: int) -> None:
        """The board against the engine's move: its result commits it (a press of the
        engine's clock, as an event), another legal result is an irregularity."""
        assert self.play.move is not None
        move, key = self.play.move
        referee = session.referee
        sensed = referee.board()
        reading = referee.table.read(sensed)
        if reading.kind != "result":
            self.shown.clear(sensed)
            return
        if move.key not in {m.key for m in reading.moves}:
            self.shown.not_engine_move(sensed, referee.table, move, at)
            return
        self.shown.clear(sensed)
        clock = session.clock
        if clock is not None and (clock.running is None or clock.adjournment is not None):
            return  # paused: committed when the clock runs again
        self.seat.commit(Press(at, self.side.value))
        if len(session.moves) > key[1]:
            self.play.move = None
            self.play.committed_at = at

    def _take_back(self, session: BoardSession, at: int, plies: int) -> bool:
        """The board showing the position from before the person's last move takes it back:
        in his turn with the engine's reply (``plies`` 2), in the engine's turn alone, the
        engine thinking or its move shown (``plies`` 1). Whether it did."""
        history = session.record.history
        moves = session.moves
        last = self.side.value if plies == 2 else self.side.other.value
        if len(moves) < plies or len(history) < plies + 1 or moves[-1]["side"] != last:
            return False
        sensed = session.referee.board()
        if sensed != history[-1 - plies].occupied() or sensed == session.position.occupied():
            return False
        if self.play.asked is not None:
            self.client.cancel()
        self.client.new_game()
        self.play.forget()
        self.shown.clear(frozenset())  # a not-engine-move shown is over
        # the person's clock runs (on, or again after the engine's), as the journal's event
        # says
        self.seat.commit(TakeBack(at, plies, stop=False))
        return True

    def status(self) -> dict[str, Any]:
        """The ``status`` answer's ``engine`` member (what is shown: :meth:`Shown.status`)."""
        shown = self.shown.status()
        asked = self.play.asked
        return {"engine": {"name": self.spec.name, "side": self.side.value,
                           "level": self.level, "id": dict(self.client.engine_id),
                           "pid": self.client.pid,
                           "thinking": asked is not None and not asked.hint,
                           "move": shown["move"], "irregularity": shown["irregularity"],
                           "error": self.error, "hint": shown["hint"],
                           "alternatives": shown["alternatives"],
                           "handed_back": self.play.handed_back,
                           "score": self.play.score}}


def check_side(text: str) -> Side:
    try:
        return Side(text)
    except ValueError:
        raise BoardError(f"--engine-side must be white or black, not {text[:20]!r}") from None
