"""Analysis on the board (``boardctl run --analyse``, issue 42 item 4): the service with the
analysis lineup on an injected clock, a person's hand through the control socket's ``sim``
command, the built-in engine in its own process. Moves are tried and taken back by restoring
the board; every position gets its ``analysis`` lines on the feed, ``status`` and the faces
carry the latest; a press shows the best move on the LEDs; the PDN and the journal hold the
line the board ends with; a won ending is announced as such."""

from __future__ import annotations

import json
import shlex
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from support.service_helpers import VirtualClock, wk_game

from boardctl.engine.analysis import AnalysisLineup
from boardctl.service.games import GameSetup, rebuild
from boardctl.service.hardware import sim_hardware
from boardctl.service.journal_file import current_path, load_journal
from boardctl.service.service import Service
from firmware.formats.reader import FeedLine, Refusal, read_line
from firmware.formats.records import AnalysisRecord
from firmware.pdn import read_games
from firmware.rules.notation import move_text, parse_move
from firmware.rules.position import Move, Position
from firmware.rules.sets import Side
from hw.config import DEFAULT_COLOURS

#: Real seconds the engine may take to say something (never a timing assertion: the game's
#: time is the injected clock's).
REPLY_S = 30.0
S = 1_000_000_000


class Analysis:
    """A service analysing, and a person at its simulated board."""

    def __init__(self, state: Path, engine: str = "builtin", fen: str | None = None) -> None:
        self.clock = VirtualClock()
        self.raw: list[str] = []
        hw = sim_hardware(10, clock=self.clock)
        setup = GameSetup("international", "300+5", fen)  # the analysis drops the clock
        self.service = Service(state, setup, hw, board="a", clock=self.clock,
                               on_line=self.raw.append, lineup=AnalysisLineup(engine))
        self.service.boot()

    @property
    def session(self) -> Any:
        return self.service.game.the_session

    @property
    def lines(self) -> list[dict[str, Any]]:
        return [json.loads(line) for line in self.raw]

    def ask(self, **req: Any) -> dict[str, Any]:
        answer = self.service.command(req)
        assert answer["ok"], (req, answer)
        return answer

    def steps(self, n: int = 8, every: int | None = None) -> None:
        period = every or self.service.hw.scanner.period_ns
        for _ in range(n):
            self.clock.now += period
            self.service.step(self.clock.now)

    def act(self, kind: str, where: str) -> None:
        key = "side" if kind == "press" else "square"
        self.ask(cmd="sim", type=kind, **{key: where})
        self.clock.now += 3_000_000

    def rest(self) -> None:
        """The hands off: the board comes to rest (a move is committed 1.5 s later)."""
        self.steps()
        self.steps(20, every=S // 10)

    def play(self, move: Move) -> None:
        alg = self.session.rules.geometry.algebraic
        self.act("lift", alg(move.start))
        self.act("place", alg(move.end))
        for sq in move.captured:
            self.act("lift", alg(sq))
        self.rest()

    def undo(self, *moves: Move) -> None:
        """Restore the board as it stood before ``moves`` (the last first): each piece back
        on its start square, the pieces it took put back."""
        alg = self.session.rules.geometry.algebraic
        for move in reversed(moves):
            self.act("lift", alg(move.end))
            self.act("place", alg(move.start))
            for sq in move.captured:
                self.act("place", alg(sq))
        self.rest()

    def analysis(self, ply: int, after: int = 0, depth: int = 1) -> dict[str, Any]:
        """Step the service until an ``analysis`` line of ``ply`` at least ``depth`` deep comes
        after feed line ``after``; the engine thinks in real time meanwhile."""
        deadline = time.monotonic() + REPLY_S
        while True:
            for rec in self.lines[after:]:
                if rec["type"] == "analysis" and rec["ply"] == ply and rec["depth"] >= depth:
                    return rec
            assert time.monotonic() < deadline, f"no analysis of ply {ply}: {self.lines[after:]}"
            self.steps(1)
            time.sleep(0.005)

    def leds(self) -> dict[str, str]:
        strip = self.service.hw.leds
        assert strip is not None
        meaning = {colour: name for name, colour in DEFAULT_COLOURS.items()}
        return {sq: meaning[colour] for sq, colour in strip.lit().items()}  # type: ignore

    def faces(self) -> dict[Side, str]:
        faces = self.service.hw.faces
        assert faces is not None
        self.steps(int(self.service.face.faces_ns // self.service.hw.scanner.period_ns) + 2)
        return {side: faces.i2c.chips[faces.addresses[side]].text() for side in Side}


def pdn_moves(game: Any) -> list[str]:
    played = game.replay()
    position, out = played.start, []
    for move in played.moves:
        out.append(move_text(position, move))
        position = position.play(move)
    return out


def check_line(rec: dict[str, Any], position: Position) -> None:
    """An analysis line's score in its range and its line legal from ``position``."""
    assert isinstance(rec["score"], int) and abs(rec["score"]) <= 10_000
    at = position
    for text in rec["best"]:
        at = at.play(parse_move(at, text))
    assert rec["best"], rec


def test_an_analysis_session_with_take_backs_to_its_end(tmp_path: Path) -> None:
    board = Analysis(tmp_path)
    try:
        session = board.session
        assert session.clock is None and session.referee.started  # no clock, no start
        start, moves = wk_game(1)
        first = board.analysis(0, depth=2)  # the start position studied at once
        check_line(first, start)
        for ply, move in enumerate(moves[:3], start=1):
            mark = len(board.raw)
            board.play(move)
            assert len(session.moves) == ply
            check_line(board.analysis(ply, mark), session.position)
        # taken back by restoring the board: the last ply, then two at once
        mark = len(board.raw)
        board.undo(moves[2])
        assert [m["move"] for m in session.moves] == [
            move_text(start, moves[0]), move_text(start.play(moves[0]), moves[1])]
        said = board.lines[mark:]
        assert {"type": "takeback", "ply": 2}.items() <= next(
            r for r in said if r["type"] == "takeback").items()
        check_line(board.analysis(2, mark), session.position)
        other = sorted(session.position.legal_moves(), key=lambda m: m.route)[0]
        board.play(other)
        mark = len(board.raw)
        board.undo(moves[1], other)
        assert len(session.moves) == 1
        line = board.analysis(1, mark, depth=3)
        check_line(line, session.position)
        # the best move on the LEDs at a press, hidden at the next; the faces
        status = board.ask(cmd="status")["analysis"]
        assert status["line"]["ply"] == 1 and status["engine"] == "builtin"
        best = parse_move(session.position, status["line"]["best"][0])
        alg = session.rules.geometry.algebraic
        board.act("press", "white")
        board.steps()
        assert board.leds()[alg(best.start)] == "must-move"
        assert board.leds()[alg(best.end)] == "last-move"
        assert len(session.moves) == 1  # a press commits nothing here
        faces = board.faces()
        turn = session.position.turn
        score = board.ask(cmd="status")["analysis"]["line"]["score"]
        assert faces[turn] == f"{score / 100:5.2f}".replace("-0.00", " 0.00")
        assert faces[turn.other].replace(".", "") == "".join(
            f"{sq:>2}" for sq in (best.start, best.end))
        board.act("press", "black")
        board.steps()
        assert alg(best.start) not in board.leds()
        hint = board.ask(cmd="hint")
        assert hint["hint"] == hint["alternatives"][0]["move"]
        assert hint["score"] == hint["alternatives"][0]["score"]
        scores = [alt["score"] for alt in hint["alternatives"]]
        assert len(scores) >= 2 and scores == sorted(scores, reverse=True)  # multipv
        [game] = read_games(board.ask(cmd="pdn")["pdn"], "analysis.pdn")
        assert pdn_moves(game) == [m["move"] for m in session.moves]  # the line it ends with
        assert game.tags.get("TimeControl", "-") in ("", "-")
        # the analysis lines on the feed: one game's plies, each readable, a position's
        # first line at depth 1 and deeper ones after it
        analysed = [r for r in board.lines if r["type"] == "analysis"]
        assert {r["ply"] for r in analysed} == {0, 1, 2, 3}
        for raw in board.raw:
            rec = read_line(raw)
            assert isinstance(rec, FeedLine) and not isinstance(rec.record, Refusal), raw
            if '"analysis"' in raw:
                assert isinstance(rec.record, AnalysisRecord)
    finally:
        board.service.close()
    again = rebuild(load_journal(current_path(tmp_path))).session  # the journal holds it
    assert [m["move"] for m in again.moves] == [m["move"] for m in session.moves]


def test_a_won_ending_is_announced_and_played_to_its_end(tmp_path: Path) -> None:
    # White to move takes the last black pieces: 28x8 over 23 and 13 wins now
    board = Analysis(tmp_path, fen="W:W28,38:B23,13")
    try:
        line = board.analysis(0)
        assert line["win"] == 1 and line["score"] == 9999 and line["best"] == ["28x8"]
        status = board.ask(cmd="status")["analysis"]["line"]
        assert status["win"] == 1
        assert board.faces()[Side.WHITE] == "UU 1"
        session = board.session
        board.play(parse_move(session.position, "28x8"))
        assert session.result is not None and session.result["result"] == "2-0"
        pdn = board.ask(cmd="pdn")["pdn"]
        assert "28x8" in pdn and "2-0" in pdn
    finally:
        board.service.close()


SCAN_LIKE = Path(__file__).with_name("scan_like_engine.py")


def hub(mode: str) -> str:
    return f"hub:{shlex.quote(sys.executable)} {shlex.quote(str(SCAN_LIKE))} {mode}"


def test_a_hub_engine_s_info_lines_are_read_as_scan_writes_them(tmp_path: Path) -> None:
    board = Analysis(tmp_path, engine=hub("scan"))
    try:
        start = board.session.position
        first = start.legal_moves()[0]
        lines = [board.analysis(0, depth=d) for d in (1, 2, 3)]
        assert lines[0]["score"] == 12 and lines[0]["best"] == [move_text(start, first)]
        assert lines[1]["score"] == -25 and len(lines[1]["best"]) == 2  # men to hundredths
        assert lines[2]["score"] == 9997 and lines[2]["win"] == 2  # Scan's win in 3 plies
        status = board.ask(cmd="status")["analysis"]
        assert status["line"] == {k: v for k, v in lines[2].items()
                                  if k not in ("type", "seq", "game", "crc")}
        assert status["id"]["name"] == "scanlike" and status["error"] is None
        assert not [r for r in board.lines if r["type"] == "engine"]
    finally:
        board.service.close()


def test_garbage_info_lines_are_told_in_one_line_and_left(tmp_path: Path) -> None:
    board = Analysis(tmp_path, engine=hub("garbage"))
    try:
        line = board.analysis(0, depth=3)  # the lines that read are taken
        assert line["score"] == 9997
        errors = [r for r in board.lines if r["type"] == "engine"]
        assert len(errors) == 1  # the first garbled line told, once a search
        error = errors[0]["error"]
        assert "info line that does not read" in error and "score 'abc'" in error
        assert "\n" not in error and len(error) <= 300
        assert board.ask(cmd="status")["analysis"]["error"] is None  # it answers again
        scores = [r["score"] for r in board.lines if r["type"] == "analysis"]
        assert set(scores) == {12, -25, 9997}  # nothing of the garbage taken
    finally:
        board.service.close()


def test_a_hint_s_alternatives_come_over_the_hub_from_the_builtin_engine() -> None:
    from boardctl.engine.client import EngineClient, ThinkRequest, parse_engine
    from firmware.rules.game import Game

    client = EngineClient(parse_engine("builtin", "international"))
    try:
        client.think(ThinkRequest(Game("international"), move_time=0.5, analyse=True,
                                  lines=3))  # as the engine's hint asks (set-param multipv=3)
        reply = client.replies.get(timeout=REPLY_S)
        assert reply.error is None and [info.line for info in reply.lines] == [1, 2, 3]
        scores = [info.score for info in reply.lines]
        assert reply.score == scores[0] and scores == sorted(scores, reverse=True)  # type: ignore[type-var]
        assert reply.move is not None and reply.move.key == reply.lines[0].pv[0].key
        client.think(ThinkRequest(Game("international"), move_time=0.2))  # one line again
        again = client.replies.get(timeout=REPLY_S)
        assert [info.line for info in again.lines] == [1]
    finally:
        client.close()


BOARDCTL = [sys.executable, "-m", "boardctl"]


def test_run_analyse_as_a_process_with_the_feed_file(tmp_path: Path) -> None:
    """``boardctl run --sim --analyse``: the feed file gets the start position's analysis, a
    move by the simulated hand (no press: the board at rest commits it) gets its own."""
    import subprocess

    from support.processes import stop_by_pid
    from support.service_helpers import wait_for

    from boardctl.service.control import request

    state, feed = tmp_path / "state", tmp_path / "feed.jsonl"
    proc = subprocess.Popen([*BOARDCTL, "run", "--sim", "--analyse", "--rules", "russian",
                             "--state-dir", str(state), "--feed", str(feed)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    sock = state / "control.sock"
    try:
        first = wait_for(lambda: request(sock, "status")["analysis"]["line"], REPLY_S)
        assert first["ply"] == 0 and first["best"]
        assert request(sock, "status")["time_control"] is None
        request(sock, "sim", type="lift", square="c3")
        request(sock, "sim", type="place", square="d4")
        line = wait_for(lambda: (a := request(sock, "status")["analysis"]["line"]) and
                        a["ply"] == 1 and a, REPLY_S)
        assert request(sock, "status")["moves"] == ["c3-d4"]
        assert line["best"][0] in ("f6-g5", "f6-e5", "b6-a5", "b6-c5", "d6-c5", "d6-e5",
                                   "h6-g5")
        said = [json.loads(x) for x in feed.read_text().splitlines()]
        assert {r["ply"] for r in said if r.get("type") == "analysis"} == {0, 1}
    finally:
        assert stop_by_pid(proc) == 0


@pytest.mark.parametrize("extra", [["--time-control", "300+5"], ["--engine-side", "white"],
                                   ["--engine", "stockfish"]])
def test_what_an_analysis_cannot_have_is_refused_in_one_line(tmp_path: Path,
                                                             extra: list[str]) -> None:
    import subprocess

    done = subprocess.run([*BOARDCTL, "run", "--sim", "--analyse", "--state-dir",
                           str(tmp_path), *extra], capture_output=True, text=True, timeout=60,
                          stdin=subprocess.DEVNULL)
    assert done.returncode == 2 and done.stderr.startswith("boardctl: error: ")
    assert done.stderr.count("\n") == 1, done.stderr


def test_an_engine_flooding_its_lines_is_read_to_its_last_and_the_feed_stays_calm(
        tmp_path: Path) -> None:
    board = Analysis(tmp_path, engine=hub("flood"))
    try:
        line = board.analysis(0, depth=999)  # its last line, however many came before it
        assert line["score"] == 42
        analysed = [r for r in board.lines if r["type"] == "analysis"]
        assert len(analysed) < 100  # the latest of each turn, ten a second at most
    finally:
        board.service.close()
