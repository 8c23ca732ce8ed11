"""The player door (boardctl.service.door, docs/DESIGN.md "The player door"): a player who is
not at the board, written against the door alone, no engine in it. Its moves come on a thread
of its own, as an online opponent's or another board's would: shown on the LEDs, a
``remote-move`` on the feed, committed by a press of its clock when the board shows them (an
event of the journal: a replay gives the same game). The service on an injected clock, the
person's hand the control socket's ``sim`` acts."""

from __future__ import annotations

import json
import queue
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from support.service_helpers import VirtualClock, sim_service, wk_game

from boardctl.engine.player import EnginePlayer
from boardctl.service.door import CALLS, Seat, player_calls
from boardctl.service.games import GameSetup, rebuild
from boardctl.service.journal_file import current_path, load_journal
from boardctl.service.service import Service
from firmware.formats.events import Press, Result
from firmware.formats.records import RemoteMoveRecord
from firmware.rules.notation import move_text, parse_move
from firmware.rules.position import Move
from firmware.rules.sets import Side
from hw.config import DEFAULT_COLOURS

REPLY_S = 10.0


class RemoteOpponent:
    """The other side of the game, somewhere else: what it plays arrives on its own thread
    (:meth:`send`); the person carries it out on the board, where the door shows it."""

    def __init__(self, seat: Seat, side: Side) -> None:
        self.seat = seat
        self.side = side
        self.inbox: queue.SimpleQueue[str] = queue.SimpleQueue()
        self.move: Move | None = None
        self.presses = 0
        self.closed = False

    def send(self, text: str) -> None:
        """The remote side's thread: a move in, the referee woken."""
        self.inbox.put(text)
        self.seat.wake()

    def on_turn(self, at: int) -> None:
        session = self.seat.session
        while not self.inbox.empty():
            self.move = parse_move(session.position, self.inbox.get_nowait())
            alg = session.rules.geometry.algebraic
            record = RemoteMoveRecord(len(session.moves) + 1, self.side.value,
                                      move_text(session.position, self.move),
                                      tuple(alg(sq) for sq in self.move.route),
                                      tuple(alg(sq) for sq in self.move.captured), "test")
            self.seat.emit(record)
            self.seat.note("remote-move", at, move=record.move)
        move = self.move
        if move is None or session.position.turn is not self.side:
            return
        if session.referee.board() == session.position.play(move).occupied():
            self.seat.commit(Press(at, self.side.value))  # nobody presses for it
            self.move = None

    def on_press(self, side: str, at: int) -> bool:
        """Its clock button is its own once the game runs (before, any press starts it)."""
        if side != self.side.value or not self.seat.session.referee.started:
            return False
        self.presses += 1
        return True

    def leds(self, now: int) -> Mapping[str, str]:
        move, session = self.move, self.seat.session
        if move is None:
            return {}
        alg = session.rules.geometry.algebraic
        return {alg(move.end): "restore", alg(move.start): "must-move",
                **{alg(sq): "remove" for sq in move.captured}}

    def answer(self, cmd: str, args: Mapping[str, Any]) -> dict[str, Any] | None:
        if cmd == "resign":
            result = "0-2" if self.side is Side.WHITE else "2-0"
            records = self.seat.commit(Result(self.seat.now(), result, "resignation"))
            return {"records": [r.to_json() for r in records]}
        return None  # no hint from it

    def amend_setup(self, setup: GameSetup) -> None:
        setup.tags.setdefault(self.side.value.capitalize(), "Remote")

    def sides(self) -> frozenset[Side]:
        return frozenset((self.side,))

    def status(self) -> dict[str, Any]:
        move = self.move
        return {"remote": {"side": self.side.value,
                           "move": None if move is None else move_text(
                               self.seat.session.position, move)}}

    def close(self) -> None:
        self.closed = True


class Person:
    """The person at the simulated board: the control socket's ``sim`` acts, the service
    stepped on the injected clock."""

    def __init__(self, service: Service, clock: VirtualClock) -> None:
        self.service = service
        self.clock = clock

    def act(self, kind: str, where: str) -> None:
        key = "side" if kind == "press" else "square"
        answer = self.service.command({"cmd": "sim", "type": kind, key: where})
        assert answer["ok"], answer
        self.clock.now += 3_000_000

    def steps(self, n: int = 8) -> None:
        period = self.service.hw.scanner.period_ns
        for _ in range(n):
            self.clock.now += period
            self.service.step(self.clock.now)

    def carry_out(self, move: Move, press: str | None) -> None:
        alg = self.service.game.the_session.rules.geometry.algebraic
        self.act("lift", alg(move.start))
        self.act("place", alg(move.end))
        for sq in move.captured:
            self.act("lift", alg(sq))
        if press is not None:
            self.act("press", press)
        self.steps()

    def lit(self) -> dict[str, str]:
        strip = self.service.hw.leds
        assert strip is not None
        meaning = {colour: name for name, colour in DEFAULT_COLOURS.items()}
        return {sq: meaning[colour] for sq, colour in strip.lit().items()}  # type: ignore


def test_a_remote_player_through_the_door(tmp_path: Path) -> None:
    lines: list[str] = []
    service, clock = sim_service(tmp_path, None, lines=lines)
    remote = RemoteOpponent(service.door, Side.BLACK)
    service.door.seat(remote)
    service.boot()
    person = Person(service, clock)
    session = service.game.the_session
    assert session.tags["Black"] == "Remote"  # its setup: amend_setup
    start, moves = wk_game(1)
    person.act("press", "black")  # before the start its button starts the game as any does
    person.steps()
    assert session.referee.started and remote.presses == 0
    person.carry_out(moves[0], "white")
    assert len(session.moves) == 1
    text = move_text(session.position, moves[1])
    thread = threading.Thread(target=remote.send, args=(text,))  # its move, off the referee's
    thread.start()
    thread.join(REPLY_S)
    person.steps(2)
    said = [json.loads(line) for line in lines]
    remote_move = [r for r in said if r["type"] == "remote-move"]
    assert [(r["move"], r["side"], r["ply"], r["source"]) for r in remote_move] == [
        (text, "black", 2, "test")]
    alg = session.rules.geometry.algebraic
    assert person.lit()[alg(moves[1].start)] == "must-move"  # its LEDs under the referee's
    status = service.command({"cmd": "status"})
    assert status["remote"] == {"side": "black", "move": text}
    assert status["leds"][alg(moves[1].start)] == "must-move"
    assert session.referee.machine_sides == frozenset({Side.BLACK})  # the hand carries it out
    person.act("press", "black")  # its own button while it waits: taken, not the referee's
    person.steps()
    assert remote.presses == 1 and len(session.moves) == 1
    person.carry_out(moves[1], None)  # the board shows its move: committed by its press
    assert [m["move"] for m in session.moves] == [move_text(start, moves[0]), text]
    assert service.command({"cmd": "status"})["remote"]["move"] is None
    refused = service.command({"cmd": "hint"})  # not its request: refused in one line
    assert refused["ok"] is False and "\n" not in refused["error"]
    resigned = service.command({"cmd": "resign"})  # its own: answered through the door
    assert resigned["ok"] and session.result is not None and session.result["result"] == "2-0"
    service.close()
    assert remote.closed
    again = rebuild(load_journal(current_path(tmp_path))).session  # the one data path
    assert [m["move"] for m in again.moves] == [m["move"] for m in session.moves]
    assert again.result == session.result


class TurnCounter:
    """A player of one part: it counts the turns and says so in ``status``; the rest of the
    door takes its defaults."""

    def __init__(self) -> None:
        self.turns = 0

    def on_turn(self, at: int) -> None:
        self.turns += 1

    def status(self) -> dict[str, Any]:
        return {"counter": self.turns}


def test_a_player_defines_what_it_needs_the_door_the_rest(tmp_path: Path) -> None:
    calls = player_calls(TurnCounter())
    assert calls.leds(0) == {} and calls.face_move() is None and calls.sides() == frozenset()
    assert calls.on_press("white", 0) is False and calls.answer("hint", {}) is None
    service, clock = sim_service(tmp_path, None)
    counter = TurnCounter()
    service.door.seat(counter)
    service.boot()
    person = Person(service, clock)
    person.act("press", "black")  # not taken: the game starts
    person.steps()
    person.carry_out(wk_game(1)[1][0], "white")
    assert len(service.game.the_session.moves) == 1 and counter.turns > 0
    status = service.command({"cmd": "status"})
    assert status["counter"] == counter.turns and "engine" not in status
    service.close()


def test_a_player_is_something_the_door_can_call() -> None:
    with pytest.raises(TypeError, match="not a player"):
        player_calls(object())
    # the engine is a whole player: every call of the door is its own
    assert all(callable(getattr(EnginePlayer, name, None)) for name in CALLS)
