"""``boardctl play``: the whole service on the simulated board, played from the terminal.

The service runs as a child process (``boardctl run --sim`` on a state directory of its own),
and the person's hand acts on its simulated board only through the control socket's ``sim``
command (``lift``, ``place``, ``press``): exactly what sensors and buttons would tell it, so
the referee, the clock, the LEDs and the journal are the real ones, with no second way in.
The screen is ``boardctl watch``'s, on the same socket.

At the prompt (:meth:`Hand.line`): a whole move in the rule set's notation (``c3-d4``,
``32-28``, ``d2xh6``) becomes the hand's acts (lift, place, the captured pieces taken off,
the press); a square alone lifts the piece standing there or places one there (so that an
irregularity can be made on purpose); ``press`` presses the clock of the side to move;
``quit`` ends. A click on a square is the square typed.
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from boardctl.service.control import ControlError
from boardctl.terminal.sources import SocketClient, SocketSource
from boardctl.terminal.view import BoardView, square_names
from firmware.errors import BoardError

#: Seconds the service has to come up.
START_S = 30.0
#: Seconds a whole move or a press may take to reach the referee's sheet (a loaded machine
#: takes far longer than the few milliseconds it usually does).
SETTLE_S = 5.0

HELP = ("a move (c3-d4, 32-28, d2xh6), a square alone (lift or place one piece), press, "
        "new (a new game), quit")
#: What else the prompt takes in a game against the engine (docs/ENGINE.md).
ENGINE_HELP = ("against the engine also: hint, undo (take your last move back), draw (offer "
               "one), resign")


class Hand:
    """The person's hand on the simulated board, over the control socket."""

    def __init__(self, client: SocketClient) -> None:
        self.client = client
        #: The squares a piece stands on, as the hand left them (None: read at first use).
        self.on_board: set[str] | None = None

    def _status(self) -> dict[str, Any]:
        return self.client.ask("status")

    def _board(self, status: dict[str, Any]) -> set[str]:
        if self.on_board is None:
            view = BoardView()
            view.set_position(status.get("rules"), status.get("fen"))
            self.on_board = set(view.pieces)
        return self.on_board

    def act(self, kind: str, square: str | None = None, side: str | None = None) -> None:
        args = {"square": square} if square is not None else {"side": side}
        self.client.ask("sim", type=kind, **args)
        if square is not None and self.on_board is not None:
            (self.on_board.discard if kind == "lift" else self.on_board.add)(square)

    def line(self, text: str) -> str:
        """One typed line (or a clicked square) carried out; the answer to show."""
        word = text.strip()
        if not word:
            return HELP
        try:
            return self._line(word)
        except BoardError as exc:
            return str(exc)

    def _line(self, word: str) -> str:
        status = self._status()
        board = self._board(status)
        if word.lower() in ("help", "?"):
            return HELP + (f"; {ENGINE_HELP}" if status.get("engine") else "")
        if word.lower() in ENGINE_WORDS:
            return ENGINE_WORDS[word.lower()](self, status)
        if status.get("result") is not None:  # the game, the screen and the board agree
            raise BoardError(f"{word[:40]} not made: the game is over ({status['result']}); "
                             "type new for a new game")
        if word.lower() == "press":
            side = str(status.get("turn"))
            self.act("press", side=side)
            self.settle(int(status.get("ply") or 0))
            return f"{side} pressed"
        square = _square(status, word)
        if square is not None:
            kind = "lift" if square in board else "place"
            self.act(kind, square)
            return f"{kind} {square_names(str(status.get('rules')), [square])[0]}"
        return self.move(status, word)

    def move(self, status: dict[str, Any], text: str) -> str:
        """A whole move: lift, place, the captured pieces off, the press (with a clock)."""
        from firmware.rules.notation import parse_move
        from firmware.rules.position import Position

        position = Position.from_fen(str(status.get("rules")), str(status.get("fen")))
        move = parse_move(position, text)
        name = position.rules.geometry.algebraic
        engine = status.get("engine") or {}
        if (engine.get("side") == position.turn.value and not engine.get("handed_back")
                and not engine.get("move") and status.get("result") is None):
            return (f"{text} not made: the engine is still thinking; wait for its move "
                    "(or type undo to take yours back)")
        self.act("lift", name(move.start))
        self.act("place", name(move.end))
        for captured in move.captured:
            self.act("lift", name(captured))
        engines = engine.get("side") == position.turn.value and not engine.get("handed_back")
        if (status.get("time_control") or engine) and not engines:  # nobody presses for the
            self.act("press", side=position.turn.value)  # engine; against it a press ends a move
        after = self.settle(int(status.get("ply") or 0))
        if int(after.get("ply") or 0) > int(status.get("ply") or 0):
            return f"{text} made"
        wrong = after.get("irregularity") or ((after.get("engine") or {}).get("irregularity")
                                              or {}).get("kind")
        if wrong:
            return f"{text} is on the board but not taken: {wrong} (the LEDs show what to fix)"
        return f"{text} is on the board but not taken yet"

    def settle(self, ply: int, back: bool = False) -> dict[str, Any]:
        """Wait (up to :data:`SETTLE_S`) for the referee to have taken the acts: the move on
        its sheet (``back``: the plies after ``ply`` taken back) or an irregularity, so that
        the next line reads the position after it. The last status read."""
        deadline = time.monotonic() + SETTLE_S
        while True:
            status = self._status()
            engine = status.get("engine") or {}
            now = int(status.get("ply") or 0)
            if (now <= ply if back else now > ply) or status.get("irregularity") \
                    or engine.get("irregularity") or time.monotonic() >= deadline:
                return status
            time.sleep(0.01)

    def settle_result(self) -> None:
        """Wait (up to :data:`SETTLE_S`) for a result the service has given to be in its
        ``status`` (cached for a moment), so that the next line sees the game over."""
        deadline = time.monotonic() + SETTLE_S
        while self._status().get("result") is None and time.monotonic() < deadline:
            time.sleep(0.01)

    def restore(self, status: dict[str, Any], target: set[str]) -> None:
        """The board made to show ``target`` (occupied squares): pieces off, then on."""
        board = self._board(status)
        for square in sorted(board - target):
            self.act("lift", square)
        for square in sorted(target - board):
            self.act("place", square)


def _engine_of(status: dict[str, Any], word: str) -> dict[str, Any]:
    engine = status.get("engine")
    if not isinstance(engine, dict):
        raise BoardError(f"{word}: there is no engine in this game (boardctl play --engine "
                         "builtin)")
    return engine


def _hint(hand: Hand, status: dict[str, Any]) -> str:
    _engine_of(status, "hint")
    hand.client.ask("hint")
    return "hint asked: the engine looks a second for you, then the LEDs show it"


def _resign(hand: Hand, status: dict[str, Any]) -> str:
    _engine_of(status, "resign")
    hand.client.ask("resign")
    hand.settle_result()
    return "you resigned"


def _draw(hand: Hand, status: dict[str, Any]) -> str:
    _engine_of(status, "draw")
    answer = hand.client.ask("offer-draw")
    if answer.get("draw") == "accepted":
        hand.settle_result()
        return "the engine accepts: a draw"
    score = answer.get("score")
    return "the engine declines the draw" + (f" (it sees {score / 100:+.2f} men for itself)"
                                             if isinstance(score, int) else "")


def _new(hand: Hand, status: dict[str, Any]) -> str:
    """A new game with the same settings; the hand sets the pieces up and starts it."""
    from firmware.rules.position import Position

    answer = hand.client.ask("new", force=True)
    start = Position.from_fen(str(answer.get("rules")), str(answer.get("fen")))
    name = start.rules.geometry.algebraic
    # the simulated board is set up for the new game: read it again, and make it good
    hand.on_board = {str(sq) for sq in hand.client.ask("sensors").get("closed") or []}
    hand.restore(answer, {name(sq) for sq in start.pieces()})
    hand.client.ask("start")
    return "a new game: set up and started"


def _undo(hand: Hand, status: dict[str, Any]) -> str:
    """The person's last move taken back by restoring the board, as he would by hand: in his
    turn with the engine's reply, in the engine's turn alone (docs/ENGINE.md)."""
    from firmware.rules.notation import parse_move
    from firmware.rules.position import Position
    from firmware.rules.sets import find_rules

    engine = _engine_of(status, "undo")
    moves = [str(m) for m in status.get("moves") or []]
    plies = 1 if status.get("turn") == engine.get("side") else 2
    if engine.get("handed_back") or status.get("result") is not None:
        raise BoardError("undo: only in a game going on against the engine")
    if len(moves) < plies:
        raise BoardError("undo: no move of yours to take back")
    position = Position.start(find_rules(str(status.get("rules"))))
    history = [position]
    for text in moves:
        position = position.play(parse_move(position, text))
        history.append(position)
    if position.fen() != status.get("fen"):
        raise BoardError("undo: this game did not start from the start position; restore "
                         "the board square by square")
    name = position.rules.geometry.algebraic
    hand.restore(status, {name(sq) for sq in history[-1 - plies].pieces()})
    after = hand.settle(len(moves) - plies, back=True)
    if int(after.get("ply") or 0) == len(moves) - plies:
        return "taken back: your move" + (" and the engine's reply" if plies == 2 else "")
    return "undo: the board is restored but the take-back was not seen yet"


#: The prompt's words for a game against the engine.
ENGINE_WORDS = {"hint": _hint, "resign": _resign, "draw": _draw, "new": _new, "undo": _undo}


def _square(status: dict[str, Any], word: str) -> str | None:
    """``word`` as a square of the board (algebraic, or a number on the rule set's board)."""
    from firmware.rules.sets import find_rules

    return _square_of(find_rules(str(status.get("rules"))).geometry, word)


def _square_of(geometry: Any, word: str) -> str | None:
    cells = set(geometry.all_cells())
    if word.lower() in cells:
        return word.lower()
    if word.isascii() and word.isdigit() and 1 <= int(word) <= geometry.count:
        return str(geometry.algebraic(int(word)))
    return None


class Service:
    """``boardctl run --sim`` as a child process on ``state``; stopped by its pid."""

    def __init__(self, args: argparse.Namespace, state: Path) -> None:
        self.state = state
        self.log = state / "play-service.log"
        command = [sys.executable, "-m", "boardctl", "run", "--sim", "--rules", args.rules,
                   "--state-dir", str(state)]
        if args.time_control:
            command += ["--time-control", args.time_control]
        if getattr(args, "start", None):
            command += ["--start", args.start]
        if args.engine:  # the service plays the engine's side and lights its moves
            command += ["--engine", args.engine, "--engine-side", args.engine_side]
            if getattr(args, "engine_level", None):
                command += ["--engine-level", args.engine_level]
            if getattr(args, "engine_move_time", None) is not None:
                command += ["--engine-move-time", str(args.engine_move_time)]
        state.mkdir(parents=True, exist_ok=True)
        with open(self.log, "ab") as log:
            self.proc = subprocess.Popen(command, stdin=subprocess.DEVNULL,
                                         stdout=subprocess.DEVNULL, stderr=log)
        self.socket = state / "control.sock"

    def wait_ready(self, timeout: float = START_S) -> SocketClient:
        client = SocketClient(self.socket)
        deadline = time.monotonic() + timeout
        while True:
            if self.proc.poll() is not None:
                raise BoardError(f"the simulated board did not start: {self._last_error()}")
            try:
                client.ask("status")
                return client
            except ControlError:
                if time.monotonic() > deadline:
                    raise BoardError(f"the simulated board did not start in {timeout:g} s"
                                     ) from None
                time.sleep(0.05)

    def _last_error(self) -> str:
        try:
            lines = self.log.read_text(errors="replace").strip().splitlines()
        except OSError:
            lines = []
        return (lines[-1].removeprefix("boardctl: error: ")[:300] if lines
                else f"exit status {self.proc.returncode}")

    def stop(self) -> None:
        if self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.kill(self.proc.pid, signal.SIGKILL)
                self.proc.wait()


def play(args: argparse.Namespace) -> int:
    """The service started, the screen (or plain lines) until ``quit``; the game starts with
    the first move (``--start move``) or the first press (``--start press``)."""
    from firmware.rules.sets import find_rules

    find_rules(args.rules)  # an unknown rule set is told before anything starts
    temporary = args.state_dir is None
    state = Path(tempfile.mkdtemp(prefix="boardctl-play-")) if temporary else args.state_dir
    service = Service(args, state)
    try:
        hand = Hand(service.wait_ready())
        source = SocketSource(service.socket)
        if args.plain:
            return _plain(hand, source)
        from boardctl.terminal.app import BoardApp

        return int(BoardApp(BoardView(), source, prompt=hand.line).run() or 0)
    finally:
        service.stop()
        if temporary:
            shutil.rmtree(state, ignore_errors=True)


def _plain(hand: Hand, source: SocketSource) -> int:
    """``--plain``: sentences as ``watch --plain`` says them, and a prompt read line by line."""
    from boardctl.terminal.plain import PlainPrinter

    stop = threading.Event()
    printer = PlainPrinter(BoardView(), sys.stdout)
    print(f"type {HELP}", flush=True)
    thread = threading.Thread(target=source.run, args=(printer.deliver, stop), daemon=True)
    thread.start()
    try:
        for line in sys.stdin:
            if line.strip().lower() in ("quit", "q", "exit"):
                break
            printer.say(hand.line(line))
    finally:
        stop.set()
        thread.join(timeout=2.0)
    return 0
