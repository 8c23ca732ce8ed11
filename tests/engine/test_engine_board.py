"""Playing the computer on the simulated board (issue 28 item 3): the service with an
:class:`~boardctl.engine.player.EnginePlayer` hooked in, on an injected clock, driven through
the ``sim`` command as a person plays: the engine's moves carried out as the ``engine-move``
line and the LEDs show them, a wrong one answered by a ``not-engine-move`` irregularity, a
take-back by restoring the position, a hint, resignation and a draw offer; real engine
processes (the built-in one, and ``dame hub``)."""

from __future__ import annotations

import json
import shutil
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from support.service_helpers import VirtualClock

from boardctl.engine.client import parse_engine
from boardctl.engine.player import EnginePlayer, engine_tags, move_picture, probe
from boardctl.service.games import GameSetup
from boardctl.service.hardware import sim_hardware
from boardctl.service.service import Service
from firmware.pdn import read_games
from firmware.rules.notation import move_text
from firmware.rules.position import Move, Position
from firmware.rules.sets import Side, find_rules
from hw.config import DEFAULT_COLOURS

#: Real seconds an engine may take to answer before a test fails (never a timing assertion:
#: the game's time is the injected clock's).
REPLY_S = 30.0


class Board:
    """A service with an engine, and a person at its simulated board."""

    def __init__(self, state: Path, rules: str, engine: str, side: str, *, level: str = "1",
                 tc: str | None = "600+5", move_time: float = 0.05,
                 clock: VirtualClock | None = None) -> None:
        self.clock = clock or VirtualClock()
        self.lines: list[dict[str, Any]] = []
        #: The feed line from which the engine's next move is looked for: set as the person
        #: begins a move and as the engine's is carried out (an engine on a short move time
        #: may answer while the person's move is still being stepped through).
        self.mark = 0
        self.rules = find_rules(rules)
        hw = sim_hardware(self.rules.size, clock=self.clock)
        spec = parse_engine(engine, self.rules.name, level)
        self.side = Side(side)
        setup = GameSetup(self.rules.name, tc)
        self.service = Service(state, setup, hw, board="t", clock=self.clock,
                               on_line=lambda line: self.lines.append(json.loads(line)))
        self.player = EnginePlayer(spec, self.side, self.service.door, level=level,
                                   move_time=move_time,
                                   tags=engine_tags(spec, probe(spec), self.side, level))
        self.service.door.seat(self.player)  # through the door: amends the setup at boot
        self.service.boot()

    def close(self) -> None:
        self.service.close()  # the player seated closes with it

    @property
    def session(self) -> Any:
        return self.service.game.the_session

    def ask(self, **req: Any) -> dict[str, Any]:
        answer = self.service.command(req)
        assert answer["ok"], (req, answer)
        return answer

    def steps(self, n: int = 8) -> None:
        period = self.service.hw.scanner.period_ns
        for _ in range(n):
            self.clock.now += period
            self.service.step(self.clock.now)

    def act(self, kind: str, where: str) -> None:
        key = "side" if kind == "press" else "square"
        self.ask(cmd="sim", type=kind, **{key: where})
        self.clock.now += 3_000_000

    def play(self, move: Move, press: bool = True) -> None:
        """The person's move by hand: the piece lifted and set down, the captured ones off,
        his clock pressed."""
        alg = self.rules.geometry.algebraic
        side = self.session.position.turn.value
        self.mark = len(self.lines)
        self.act("lift", alg(move.start))
        self.act("place", alg(move.end))
        for sq in move.captured:
            self.act("lift", alg(sq))
        if press:
            self.act("press", side)
        self.steps()

    def wait(self, kind: str, after: int) -> dict[str, Any]:
        """Step the service (its game time on the injected clock) until a feed line of
        ``kind`` comes after line ``after``; the engine thinks in real time meanwhile."""
        deadline = time.monotonic() + REPLY_S
        while True:
            for rec in self.lines[after:]:
                if rec.get("type") == kind:
                    return rec
            assert time.monotonic() < deadline, f"no {kind} line: {self.lines[after:]}"
            self.steps(1)
            time.sleep(0.002)

    def engine_move(self) -> dict[str, Any]:
        """The engine's next move, as a person sees it: the feed's line, checked against the
        LED picture the board shows."""
        rec = self.wait("engine-move", self.mark)
        leds = self.leds()
        assert leds[rec["route"][0]] == "must-move"
        assert all(leds[sq] == "remove" for sq in rec["captured"])
        return rec

    def leds(self) -> dict[str, str]:
        """The LED strip as it is lit, each square's colour read back as its meaning."""
        strip = self.service.hw.leds
        assert strip is not None
        meaning = {colour: name for name, colour in DEFAULT_COLOURS.items()}
        return {sq: meaning[colour] for sq, colour in strip.lit().items()}  # type: ignore

    def carry_out(self, rec: dict[str, Any]) -> None:
        """Carry out the engine's move as the LEDs show it (nobody presses for the engine)."""
        self.act("lift", rec["route"][0])
        self.act("place", rec["route"][-1])
        for sq in rec["captured"]:
            self.act("lift", sq)
        self.steps()
        self.mark = len(self.lines)

    def engine_reply(self) -> dict[str, Any]:
        """The game started (Black's button starts White's clock), the person's first move
        made (he has White), and the engine's reply as the feed and the LEDs show it."""
        self.act("press", "black")
        self.steps()
        self.play(self.persons_move())
        return self.engine_move()

    def other_move(self, rec: dict[str, Any], *, elsewhere: bool = False) -> Move:
        """A legal move of the engine's side from another square than its move ``rec``
        (with ``elsewhere``, to another square too)."""
        alg = self.rules.geometry.algebraic
        return next(m for m in self.session.position.legal_moves()
                    if alg(m.start) != rec["route"][0]
                    and not (elsewhere and alg(m.end) == rec["route"][-1]))

    def persons_move(self, choose: int = 0) -> Move:
        moves = sorted(self.session.position.legal_moves(), key=lambda m: m.route)
        return moves[choose % len(moves)]


def test_move_picture_draws_a_long_route_in_order() -> None:
    rules = find_rules("international")
    geo = rules.geometry
    pos = Position.from_fen(rules, "W:WK46:B41,32,22,13")
    move = next(m for m in pos.legal_moves() if len(m.captured) >= 2)
    step = 400_000_000
    pictures = [move_picture(pos, move, i * step, step) for i in range(len(move.route))]
    landings = [geo.algebraic(sq) for sq in move.route[1:]]
    for i, picture in enumerate(pictures):
        assert picture[geo.algebraic(move.start)] == "must-move"
        lit = [sq for sq in landings if picture.get(sq) == "land"]
        assert lit == landings[:i + 1]  # the route drawn square by square
        assert {sq for sq, m in picture.items() if m == "remove"} == {
            geo.algebraic(sq) for sq in move.captured}
    assert move_picture(pos, move, len(move.route) * step, step) == pictures[0]  # again


def play_engine_game(board: Board, plies: int) -> None:
    """Alternate the person's moves and the engine's until ``plies`` or the end."""
    choose = 0
    while board.session.result is None and len(board.session.moves) < plies:
        if board.session.position.turn is board.side:
            before = len(board.session.moves)
            rec = board.engine_move()
            board.carry_out(rec)
            assert len(board.session.moves) == before + 1, (rec, board.lines[-3:],
                                                            board.session.leds())
        else:
            board.play(board.persons_move(choose))
            choose += 7


def test_builtin_engine_game_with_wrong_move_takeback_hint_and_result(tmp_path: Path) -> None:
    board = Board(tmp_path / "state", "russian", "builtin", "black")
    try:
        assert board.service.header is not None
        tags = board.service.header.tags
        assert tags["Black"].startswith("boardctl") and tags["BlackLevel"] == "1"
        board.act("press", "black")  # the person with White: Black's button starts the game
        board.steps()
        board.play(board.persons_move())
        rec = board.engine_move()
        assert rec["side"] == "black" and rec["ply"] == 2
        # A wrong move: another legal move of Black's is made on the board instead.
        legal = board.session.position.legal_moves()
        alg = board.rules.geometry.algebraic
        other = next(m for m in legal if alg(m.start) != rec["route"][0] or
                     alg(m.end) != rec["route"][-1])
        mark = len(board.lines)
        board.play(other, press=False)
        irr = board.wait("irregularity", mark)
        assert irr["kind"] == "not-engine-move" and irr["side"] == "black"
        assert irr["leds"][alg(other.end)] in ("remove", "wrong")  # the wrong piece off
        assert irr["leds"][rec["route"][-1]] == "restore"  # to the engine's square
        assert len(board.session.moves) == 1  # not committed
        board.act("press", "black")  # a press for the engine is not the engine's: ignored
        board.steps()
        assert len(board.session.moves) == 1
        # Put it back and make the engine's move.
        board.act("lift", alg(other.end))
        board.act("place", alg(other.start))
        board.steps()
        board.carry_out(rec)
        assert [m["move"] for m in board.session.moves][1] == rec["move"]
        clock = board.session.clock
        assert clock is not None and clock.running is Side.WHITE
        # A hint (the request, then the gesture: the engine's button in the person's turn).
        assert board.ask(cmd="hint")["hint"] == "asked"
        deadline = time.monotonic() + REPLY_S
        while board.ask(cmd="status")["engine"]["hint"] is None:
            assert time.monotonic() < deadline
            board.steps(1)
            time.sleep(0.002)
        hint = board.ask(cmd="status")["engine"]["hint"]
        leds = board.leds()
        assert "last-move" in leds.values() and "must-move" in leds.values(), (hint, leds)
        # asked again, it answers the hint and its alternatives (multipv), best first
        again = board.ask(cmd="hint")
        alternatives = again["alternatives"]
        # as many as asked for, or every legal move when there are fewer (a forced capture)
        choices = len(board.session.position.legal_moves())
        assert again["hint"] == hint == alternatives[0]["move"]
        assert len(alternatives) >= min(2, choices), (alternatives, choices)
        scores = [alt["score"] for alt in alternatives]
        assert scores == sorted(scores, reverse=True)
        assert board.ask(cmd="status")["engine"]["alternatives"] == alternatives
        # Play on a few plies, then take both plies back by restoring the position.
        play_engine_game(board, 6)
        moves_before = [m["move"] for m in board.session.moves]
        history = board.session.record.history
        target = history[-3]
        mark = len(board.lines)
        restore(board, board.session.position, target)
        takeback = board.wait("takeback", mark)
        assert takeback["ply"] == 4
        assert [m["move"] for m in board.session.moves] == moves_before[:4]
        assert board.session.clock.running is Side.WHITE  # play goes on
        # The game goes on to its end: the person resigns after a few more plies.
        play_engine_game(board, 10)
        answer = board.ask(cmd="resign")
        assert board.session.result["result"] == "0-1"
        assert answer["records"][-1]["reason"] == "resignation"
        pdn = board.ask(cmd="pdn")["pdn"]
        game = next(read_games(pdn, "pdn"))
        assert game.result == "0-1" and game.tags["BlackLevel"] == "1"
    finally:
        board.close()


def test_the_person_takes_his_move_back_in_the_engine_s_turn(tmp_path: Path) -> None:
    board = Board(tmp_path / "state", "russian", "builtin", "black", move_time=1.0)
    try:
        board.act("press", "black")
        board.steps()
        start = board.session.position
        board.play(board.persons_move())
        assert board.ask(cmd="status")["engine"]["thinking"]
        # While the engine thinks: his move undone on the board takes it back.
        mark = len(board.lines)
        restore(board, board.session.position, start)
        assert board.wait("takeback", mark)["ply"] == 0
        engine = board.ask(cmd="status")["engine"]
        assert board.session.moves == [] and not engine["thinking"] and engine["move"] is None
        clock = board.session.clock
        assert clock is not None and clock.running is Side.WHITE  # his clock again
        # Another move, the engine's reply shown on the LEDs: undone again before it is
        # carried out.
        board.play(board.persons_move(3))
        assert board.engine_move()["ply"] == 2
        mark = len(board.lines)
        restore(board, board.session.position, start)
        assert board.wait("takeback", mark)["ply"] == 0
        assert board.ask(cmd="status")["engine"]["move"] is None
        assert not [r for r in board.lines[mark:] if r["type"] == "irregularity"]
        # A third try stands: the engine answers it and play goes on.
        third = board.persons_move(5)
        board.play(third)
        rec = board.engine_move()
        board.carry_out(rec)
        assert [m["move"] for m in board.session.moves] == [move_text(start, third),
                                                            rec["move"]]
        assert clock.running is Side.WHITE
    finally:
        board.close()


def restore(board: Board, now: Position, target: Position) -> None:
    """Make the board show ``target`` again from ``now``: pieces off, then back on."""
    alg = board.rules.geometry.algebraic
    have, want = now.pieces(), target.pieces()
    for sq in sorted(set(have) - set(want)):
        board.act("lift", alg(sq))
    for sq in sorted(set(want) - set(have)):
        board.act("place", alg(sq))
    board.steps()


@pytest.mark.skipif(shutil.which("dame") is None, reason="dame-rs (the engine extra) missing")
def test_a_game_against_dame_to_a_result(tmp_path: Path) -> None:
    board = Board(tmp_path / "state", "international", "hub:dame hub", "white", tc=None,
                  move_time=0.02)
    try:
        header = board.service.header
        assert header is not None and "dame" in header.tags["White"].lower()
        board.act("press", "black")
        board.steps()
        play_engine_game(board, 400)  # dame beats the person's naive moves well before
        result = board.session.result
        assert result is not None and result["reason"] != "resignation"
        pdn = board.ask(cmd="pdn")["pdn"]
        game = next(read_games(pdn, "pdn"))
        assert game.result == result["result"] and len(game.moves) == len(board.session.moves)
    finally:
        board.close()


def test_draw_offer_hint_gesture_and_a_new_game(tmp_path: Path) -> None:
    board = Board(tmp_path / "state", "russian", "builtin", "white")
    try:
        assert not board.service.command({"cmd": "offer-draw", "x": 1})["ok"]  # bad argument
        board.act("press", "black")  # starts the game: White's (the engine's) clock runs
        board.steps()
        board.carry_out(board.engine_move())
        score = board.ask(cmd="status")["engine"]["score"]
        assert isinstance(score, int)
        # The habit of pressing after carrying out the engine's move: no hint.
        board.act("press", "white")
        board.steps(50)
        assert board.player._asked is None  # no search asked for
        assert len(board.session.moves) == 1
        board.clock.now += 3 * 10**9
        # The gesture: the engine's (White's) button in the person's turn asks for a hint.
        mark = len(board.lines)
        board.act("press", "white")
        deadline = time.monotonic() + REPLY_S
        while board.ask(cmd="status")["engine"]["hint"] is None:
            assert time.monotonic() < deadline
            board.steps(1)
            time.sleep(0.002)
        assert len(board.session.moves) == 1  # the press was no move of the referee's
        assert not [r for r in board.lines[mark:] if r["type"] == "irregularity"]
        answer = board.ask(cmd="offer-draw")
        if score <= 0:  # the engine is not better: it accepts
            assert answer["draw"] == "accepted"
            assert board.session.result == {"type": "result", "result": "1/2-1/2",
                                            "reason": "agreement"}
        else:
            assert answer["draw"] == "declined" and board.session.result is None
        board.ask(cmd="new", force=True)
        header = board.service.header
        assert header is not None and header.tags["WhiteLevel"] == "1"
        assert board.session.moves == [] and board.ask(cmd="status")["engine"]["hint"] is None
        board.act("press", "black")
        board.steps()
        board.carry_out(board.engine_move())  # the engine plays the new game too
        assert len(board.session.moves) == 1
    finally:
        board.close()


def test_an_engine_that_lies_hands_its_side_back(tmp_path: Path) -> None:
    hostile = str(Path(__file__).with_name("hostile_engine.py"))
    board = Board(tmp_path / "state", "international", f"hub:{sys.executable} {hostile} lie",
                  "black")
    try:
        board.act("press", "black")
        board.steps()
        board.play(board.persons_move())
        errors: list[dict[str, Any]] = []
        while not errors or not errors[-1].get("handed_back"):
            errors.append(board.wait("engine", len(board.lines)))
            assert "not legal" in errors[-1]["error"] or "illegal" in errors[-1]["error"]
        assert len(errors) == 3
        status = board.ask(cmd="status")["engine"]
        assert status["handed_back"] and status["error"] == errors[-1]["error"]
        board.play(board.persons_move())  # the person moves for Black and presses its clock
        assert len(board.session.moves) == 2
    finally:
        board.close()


def test_the_arbiter_takes_back_while_the_engine_s_move_is_shown(tmp_path: Path) -> None:
    board = Board(tmp_path / "state", "russian", "builtin", "black")
    try:
        board.act("press", "black")
        board.steps()
        first = board.persons_move()
        board.play(first)
        shown = board.engine_move()
        assert shown["ply"] == 2
        board.ask(cmd="takeback", plies=1)  # the person's move goes back: his turn again
        board.steps()
        status = board.ask(cmd="status")
        assert status["engine"]["move"] is None and status["moves"] == []
        alg = board.rules.geometry.algebraic
        board.act("lift", alg(first.end))  # the board restored as the LEDs show
        board.act("place", alg(first.start))
        mark = len(board.lines)
        board.steps(300)  # at rest: the referee takes the restored board
        assert board.wait("cleared", mark)
        board.ask(cmd="resume")
        again = board.persons_move(3)
        board.play(again)
        shown = board.engine_move()  # the engine thinks on the new position
        assert shown["ply"] == 2
        board.carry_out(shown)
        assert [m["move"] for m in board.session.moves][1] == shown["move"]
    finally:
        board.close()


def test_a_piece_of_the_engine_s_touched_first_is_no_touch_move(tmp_path: Path) -> None:
    """The person carries out the engine's move: touch-move (000 3.10) binds a player choosing
    his move, not the hand that picks up another of the engine's pieces first."""
    board = Board(tmp_path / "state", "russian", "builtin", "black")
    try:
        rec = board.engine_reply()
        alg = board.rules.geometry.algebraic
        other = board.other_move(rec)
        mark = len(board.lines)
        board.act("lift", alg(other.start))  # held long enough to be a touch, put back
        board.steps()
        board.clock.now += 600_000_000
        board.act("place", alg(other.start))
        board.steps()
        board.carry_out(rec)
        assert [m["move"] for m in board.session.moves][1] == rec["move"]
        assert not [r for r in board.lines[mark:] if r["type"] == "irregularity"]
        assert board.session.referee.notice is None
    finally:
        board.close()
