"""A real ``boardctl run --sim --opponent lidraughts`` process against the stand-in server
(tests/support/lidraughts_standin.py), driven through its control socket as a person plays:
his moves carried out with ``sim`` and his clock pressed, the opponent's read from ``status``
(``online.game.move``, as the LEDs show it) and carried out the same way."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from boardctl.online.moves import li_route
from boardctl.service.control import ControlError, request
from firmware.pdn import read_games
from firmware.rules.notation import move_text
from firmware.rules.position import Move, Position
from firmware.rules.sets import RuleSet, Side, find_rules
from support.lidraughts_standin import LidraughtsStandin, StandinGame
from support.processes import stop_by_pid
from support.service_helpers import wait_for

GAMES = Path(__file__).resolve().parents[1] / "data" / "pdn"
#: Real seconds a process may take to answer (a wait, never a timing assertion).
WAIT_S = 30.0


class OnlineBoard:
    """One board service playing on the stand-in."""

    def __init__(self, tmp: Path, standin: LidraughtsStandin | None,
                 rules: str = "international", extra: tuple[str, ...] = (),
                 token: str | None = None, feed: bool = True,
                 opponent: tuple[str, ...] | None = None) -> None:
        """``opponent``: the opponent's options (default: lidraughts on ``standin``)."""
        self.tmp = tmp
        tmp.mkdir(parents=True, exist_ok=True)
        self.standin = standin
        self.rules: RuleSet = find_rules(rules)
        self.state = tmp / "state"
        self.sock = tmp / "control.sock"
        self.feed = tmp / "feed.jsonl"
        if opponent is None:
            assert standin is not None
            token_file = tmp / "token"
            token_file.write_text((token or standin.token) + "\n")
            opponent = ("--opponent", "lidraughts", "--online-token-file", str(token_file),
                        "--online-url", standin.url)
        self.argv = [sys.executable, "-m", "boardctl", "run", "--sim", "--rules", rules,
                     "--state-dir", str(self.state), "--socket", str(self.sock), *opponent,
                     *extra]
        if feed:
            self.argv += ["--feed", str(self.feed)]
        self.proc: subprocess.Popen[str] | None = None
        self.start()

    def start(self) -> None:
        """The service started (again, on the same state directory)."""
        self.log = (self.tmp / "stderr.log").open("a")
        self.proc = subprocess.Popen(self.argv, stdout=subprocess.DEVNULL, stderr=self.log,
                                     text=True, env=dict(os.environ))
        self.until(lambda: self.status())

    def stop(self) -> int | None:
        code = stop_by_pid(self.proc)
        self.proc = None
        self.log.close()
        return code

    def kill(self) -> None:
        """A power cut: SIGKILL, reaped."""
        assert self.proc is not None
        self.proc.kill()
        self.proc.wait(10)
        self.proc = None
        self.log.close()

    def stderr(self) -> str:
        return (self.tmp / "stderr.log").read_text()

    # -- talking to it ---------------------------------------------------------------------

    def ask(self, cmd: str, **args: Any) -> dict[str, Any]:
        return request(self.sock, cmd, **args)

    def status(self) -> dict[str, Any] | None:
        try:
            return self.ask("status")
        except ControlError:
            return None

    def until(self, predicate: Any, what: str = "the board") -> Any:
        return wait_for(predicate, WAIT_S, what)

    def online(self) -> dict[str, Any]:
        status = self.ask("status")
        return dict(status["online"])

    def game(self) -> dict[str, Any] | None:
        game = self.online()["game"]
        return dict(game) if game is not None else None

    def feed_lines(self) -> list[dict[str, Any]]:
        if not self.feed.exists():
            return []
        out = []
        for line in self.feed.read_text().splitlines():
            try:
                out.append(json.loads(line))
            except ValueError:
                continue
        return out

    # -- the person's hand -----------------------------------------------------------------

    def sim(self, kind: str, where: str) -> None:
        if kind == "press":
            self.ask("sim", type=kind, side=where)
        else:
            self.ask("sim", type=kind, square=where)

    def hand(self, start: str, end: str, captured: list[str] | tuple[str, ...]) -> None:
        self.sim("lift", start)
        self.sim("place", end)
        for sq in captured:
            self.sim("lift", sq)

    def adopted(self, game_id: str) -> dict[str, Any]:
        """Wait until the board plays the server's game ``game_id``."""
        def on() -> dict[str, Any] | None:
            status = self.ask("status")
            game = status["online"]["game"]
            return status if game is not None and status["tags"].get("GameId") == game_id \
                else None
        return dict(self.until(on, f"game {game_id} on the board"))

    def play(self, move: Move) -> None:
        """The person's move: carried out, his clock pressed, committed."""
        alg = self.rules.geometry.algebraic
        plies = len(self.ask("status")["moves"])
        side = "white" if plies % 2 == 0 else "black"
        self.hand(alg(move.start), alg(move.end), [alg(sq) for sq in move.captured])
        self.sim("press", side)
        self.until(lambda: len(self.ask("status")["moves"]) > plies, "the person's move")

    def shown_move(self) -> dict[str, Any] | None:
        """The opponent's move ``status`` shows (lidraughts' or another board's)."""
        status = self.ask("status")
        if "opponent" in status:
            return status["opponent"]["move"]  # type: ignore[no-any-return]
        game = status["online"]["game"]
        return game.get("move") if game is not None else None

    def opponents_move(self) -> dict[str, Any]:
        """The opponent's move as ``status`` (the LEDs) shows it, carried out; its line."""
        move = self.until(self.shown_move, "the opponent's move")
        leds = self.ask("status")["leds"]
        assert leds[move["route"][0]] == "must-move", leds
        self.hand(move["route"][0], move["route"][-1], move["captured"])
        ply = move["ply"]
        self.until(lambda: len(self.ask("status")["moves"]) >= ply, "its commit")
        assert self.ask("status")["moves"][ply - 1] == move["move"]
        return dict(move)

    def result(self) -> dict[str, Any]:
        status = self.until(lambda: (s := self.ask("status")).get("result") and s, "the result")
        return {"result": status["result"], "reason": status["reason"]}


def real_moves(n: int, index: int = 0,
               name: str = "international-world-championship-2003.pdn") -> list[Move]:
    """The first ``n`` plies of a real game of tests/data/pdn."""
    games = read_games((GAMES / name).read_text(encoding="utf-8"), name)
    game = [g for i, g in zip(range(index + 1), games, strict=False)][index]
    return list(game.replay().moves[:n])


def texts(moves: list[Move], rules: str = "international") -> list[str]:
    position, out = Position.start(find_rules(rules)), []
    for move in moves:
        out.append(move_text(position, move))
        position = position.play(move)
    return out


def play_plies(board: OnlineBoard, standin: LidraughtsStandin, gid: str, side: Side,
               moves: list[Move], first: int = 1) -> None:
    """The person plays ``side``'s moves of ``moves`` (from ply ``first``) on the board, the
    stand-in's script the other side's (carried out by the person as the board shows them)."""
    theirs = [li_route(m) for i, m in enumerate(moves, 1)
              if i >= first and (i % 2 == 1) != (side is Side.WHITE)]
    standin.script(gid, theirs)
    for ply, move in enumerate(moves, 1):
        if ply < first:
            continue
        if (ply % 2 == 1) == (side is Side.WHITE):
            board.play(move)
            standin.wait_for(lambda p=ply: len(standin.games[gid].plies) >= p)
        else:
            line = board.opponents_move()
            assert line["ply"] == ply and line["source"] == "lidraughts"


def opened(board: OnlineBoard, standin: LidraughtsStandin, plies: list[Move],
           side: Side = Side.WHITE, limit_s: int | None = 300,
           increment_s: int = 3) -> StandinGame:
    """A game started on the stand-in, the bot (the person at the board) playing ``side``,
    taken up by the board and its first moves, ``plies``, played (the person's on the board,
    the opponent's scripted on the stand-in and carried out as the board shows them)."""
    game = standin.create_game(bot_side=side, limit_s=limit_s, increment_s=increment_s)
    board.adopted(game.id)
    play_plies(board, standin, game.id, side, plies)
    return game


@pytest.fixture
def standin() -> Iterator[LidraughtsStandin]:
    with LidraughtsStandin() as server:
        yield server


@pytest.fixture
def board(tmp_path: Path, standin: LidraughtsStandin) -> Iterator[OnlineBoard]:
    b = OnlineBoard(tmp_path, standin)
    try:
        yield b
    finally:
        b.stop()
