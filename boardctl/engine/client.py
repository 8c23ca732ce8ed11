"""A Hub-protocol client: one engine process, driven from its own thread.

``EngineClient`` never blocks its caller: ``think()`` queues a request and returns its number;
the answer comes as an ``EngineReply`` through the ``on_reply`` callback (called on the
client's thread) or, without one, on ``replies`` (a queue). A reply carries the move (a
firmware Move, checked legal in the position asked about) or a one-line error, and the
``done_at`` clock reading when the engine's ``done`` line was read. Its ``info`` lines are read
as they come (``firmware.engine.hub.read_info``): with ``on_info`` each is handed on at once
(an :class:`EngineInfo`, on the client's thread: an analysis shows them), and the reply carries
the last of each line (``lines``: the best first, then the alternatives a ``multipv`` request
asked for). An ``info`` line that does not read is told once a request (its first), never
taken.

The engine process is started at a lower priority (``nice``), handshaken (``hub`` ... ``wait``,
``init`` ... ``ready``) within ``handshake_timeout`` seconds, and restarted at the next request
after it died or was killed. A request gets a deadline (the move time, or the clock's remaining
time, plus ``grace``); past it the client sends ``stop``, and if no ``done`` follows within
``grace`` it kills the process. An engine that is missing, exits, hangs, prints garbage or
sends an illegal move gives an error reply, never an exception in the caller.
"""

from __future__ import annotations

import itertools
import os
import queue
import shlex
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from boardctl.engine.process import MAX_LINES, EngineProcess, read
from firmware.engine.hub import HubError, HubInfo, format_line, parse_move, pos_line, read_info
from firmware.errors import BoardError
from firmware.rules.game import Game
from firmware.rules.position import Move, Position

#: A depth-limited search (no clock) gets this long.
DEPTH_DEADLINE = 120.0
#: The most lines (``multipv``) of one request kept.
MAX_INFO_LINES = 8


class EngineSpecError(BoardError):
    """An engine specification that cannot be used."""


@dataclass(frozen=True, slots=True)
class EngineSpec:
    """How to start an engine: the argv, and a name for messages."""

    argv: tuple[str, ...]
    name: str
    builtin: bool = False


def parse_engine(text: str, rules: str, level: str = "10") -> EngineSpec:
    """``builtin`` or ``hub:COMMAND`` (COMMAND split as a shell would); EngineSpecError."""
    t = text.strip()
    if t == "builtin":
        argv: tuple[str, ...] = (sys.executable, "-m", "boardctl", "engine", "--rules", rules,
                                 "--level", level)
        return EngineSpec(argv, "builtin", builtin=True)
    if t.startswith("hub:"):
        try:
            argv = tuple(shlex.split(t[4:]))
        except ValueError as exc:
            raise EngineSpecError(f"engine command {t[4:][:80]!r}: {exc}") from None
        if not argv:
            raise EngineSpecError("hub: needs a command (hub:COMMAND, e.g. hub:dame hub)")
        return EngineSpec(argv, os.path.basename(argv[0]))
    raise EngineSpecError(f"unknown engine {t[:80]!r} (builtin or hub:COMMAND)")


@dataclass(frozen=True, slots=True)
class ThinkRequest:
    """Think in ``game``'s position (its history gives the repetitions) with a time limit:
    ``move_time`` seconds, or the engine's clock (``remaining`` seconds, ``increment``,
    ``moves_to_go`` to the next control), or a ``depth``, or ``infinite`` (``level infinite``,
    stopped after that many seconds). ``analyse``: ``go analyze`` (the position studied, not
    played); ``lines``: the lines scored (``multipv``, sent to an engine that declares it)."""

    game: Game
    remaining: float | None = None
    increment: float = 0.0
    moves_to_go: int | None = None
    move_time: float | None = None
    depth: int | None = None
    infinite: float | None = None
    analyse: bool = False
    lines: int = 1

    def level_line(self) -> str:
        if self.infinite is not None:
            return "level infinite"
        if self.move_time is not None:
            return format_line("level", move_time=float(self.move_time))
        if self.remaining is not None:
            return format_line("level", moves=self.moves_to_go, time=float(self.remaining),
                               inc=float(self.increment) if self.increment else None)
        if self.depth is not None:
            return format_line("level", depth=self.depth)
        raise EngineSpecError("a think request needs a move time, the clock or a depth")

    def commands(self, pos: str, new_game: bool, multipv: int | None) -> list[str]:
        """The lines that start this search: ``new-game`` (the search unrelated to the last),
        ``multipv`` when the engine declares it (``multipv``: what it is set to, None: not
        declared) and is set to another, the position, the level, ``go``."""
        lines = ["new-game"] if new_game else []
        if multipv is not None and multipv != self.lines:
            lines.append(format_line("set-param", name="multipv", value=self.lines))
        return lines + [pos, self.level_line(), "go analyze" if self.analyse else "go think"]

    def seconds(self) -> float:
        if self.infinite is not None:
            return float(self.infinite)
        if self.move_time is not None:
            return float(self.move_time)
        if self.remaining is not None:
            return float(self.remaining)
        return DEPTH_DEADLINE


@dataclass(frozen=True, slots=True)
class EngineReply:
    """The answer to request ``request``: ``move`` or ``error`` (one line); ``info`` the last
    ``info`` line's arguments as sent, ``lines`` the last of each line read (the best first)."""

    request: int
    move: Move | None
    error: str | None
    done_at: float
    info: dict[str, str] = field(default_factory=dict)
    lines: tuple[HubInfo, ...] = ()

    @property
    def score(self) -> int | None:
        """The best line's score (hundredths of a man, its side), when the engine said it."""
        return self.lines[0].score if self.lines else None


@dataclass(frozen=True, slots=True)
class EngineInfo:
    """An ``info`` line of request ``request`` as read (``info``), or why it was not
    (``error``, one line)."""

    request: int
    info: HubInfo | None
    error: str | None = None


@dataclass
class _Think:
    number: int
    request: ThinkRequest
    position: Position
    pos: str = ""
    deadline: float = 0.0
    stop_sent: bool = False
    cancelled: bool = False
    lines: int = 0
    info: dict[str, str] = field(default_factory=dict)
    engine_error: str | None = None
    #: The last ``info`` read of each line (``multipv`` number -> info), and whether one that
    #: does not read was told.
    read: dict[int, HubInfo] = field(default_factory=dict)
    garbled: bool = False


def _info_of(cur: _Think, args: dict[str, str], name: str) -> EngineInfo | None:
    """An ``info`` line of request ``cur`` read into its :class:`HubInfo` (kept per line):
    what to hand on, if anything (nothing for a cancelled request, a line without a score,
    a second line that does not read: the first is told, in one line)."""
    try:
        info = read_info(cur.position, args)
    except HubError as exc:
        told = cur.garbled
        cur.garbled = True
        if told or cur.cancelled:
            return None
        return EngineInfo(cur.number, None,
                          f"engine {name} sent an info line that does not read: {exc}"[:300])
    if info.score is None:
        return None  # not a line of the search (any subset may be sent: protocol.txt)
    if info.line in cur.read or len(cur.read) < MAX_INFO_LINES:
        cur.read[info.line] = info
    return None if cur.cancelled else EngineInfo(cur.number, info)


def _safely(call: Callable[[Any], None], item: object) -> None:
    """The caller's callback: its bug must not kill the client."""
    try:
        call(item)
    except Exception:  # noqa: BLE001
        pass


class EngineClient:
    """One engine, restarted as needed (module docstring)."""

    def __init__(self, spec: EngineSpec, *, on_reply: Callable[[EngineReply], None] | None
                 = None, clock: Callable[[], float] = time.monotonic,
                 handshake_timeout: float = 10.0, grace: float = 2.0, nice: int = 10,
                 params: dict[str, str] | None = None,
                 on_info: Callable[[EngineInfo], None] | None = None) -> None:
        self.spec = spec
        self.on_reply = on_reply
        self.on_info = on_info
        self.replies: queue.Queue[EngineReply] = queue.Queue()
        self.clock = clock
        self.handshake_timeout = handshake_timeout
        self.grace = grace
        self.params = dict(params or {})
        self.engine_id: dict[str, str] = {}
        self.last_error: str | None = None
        self._inbox: queue.Queue[tuple[Any, ...]] = queue.Queue()
        self._process = EngineProcess(spec.argv, spec.name, self._inbox, clock, nice)
        self._numbers = itertools.count(1)  # next() on a count is atomic in CPython
        self._thread: threading.Thread | None = None
        self._current: _Think | None = None
        self._pending: _Think | None = None
        self._launching: _Think | None = None
        self._new_game = True
        self._closed = False

    # -- the caller's side (any thread) ------------------------------------------------------

    def start(self) -> None:
        """Start the client's thread (the engine starts at the first request)."""
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="engine-client",
                                            daemon=True)
            self._thread.start()

    def think(self, request: ThinkRequest) -> int:
        """Queue a search; returns the request's number (its reply carries it). A request
        made while another runs cancels that one."""
        request.level_line()  # EngineSpecError now for a request with no limit
        number = next(self._numbers)
        self.start()
        # The game is read now, on the caller's thread: it may change after this returns.
        think = _Think(number, request, request.game.position, pos_line(request.game))
        self._inbox.put(("think", think))
        return number

    def cancel(self) -> None:
        """Drop the running request, if any: its reply never comes."""
        self._inbox.put(("cancel",))

    def new_game(self) -> None:
        """Cancel, and tell the engine the next search is unrelated (a take-back, a new
        game): it clears what it learnt."""
        self._inbox.put(("cancel",))
        self._inbox.put(("new-game",))

    def close(self) -> None:
        """Stop the engine (``quit``, then killed by its pid if it lingers) and the thread."""
        if self._thread is None:
            self._closed = True
            return
        self._inbox.put(("close",))
        self._thread.join(timeout=10.0)

    @property
    def pid(self) -> int | None:
        return self._process.pid

    # -- the client's thread -----------------------------------------------------------------

    def _run(self) -> None:
        try:
            while not self._closed:
                self._step()
        finally:
            self._process.quit()
            if self._current is not None:
                self._reply(self._current, None, f"engine {self.spec.name}: the client closed")

    def _step(self) -> None:
        cur = self._current
        try:
            item = self._inbox.get(timeout=None if cur is None else
                                   max(0.0, cur.deadline - self.clock()))
        except queue.Empty:
            self._deadline_passed()
            return
        kind = item[0]
        if kind == "think":
            self._on_think(item[1])
        elif kind == "cancel":
            self._on_cancel()
        elif kind == "new-game":
            self._new_game = True
        elif kind == "close":
            self._closed = True
        elif kind == "line" and item[1] == self._process.generation:
            self._on_line(item[2])
        elif kind == "eof" and item[1] == self._process.generation:
            self._on_death()
        if self._current is not None and self.clock() > self._current.deadline:
            self._deadline_passed()

    def _reply(self, think: _Think, move: Move | None, error: str | None) -> None:
        if think.cancelled:
            return
        if error is not None:
            self.last_error = error
        reply = EngineReply(think.number, move, error, self.clock(), dict(think.info),
                            tuple(think.read[k] for k in sorted(think.read)))
        if self.on_reply is not None:
            _safely(self.on_reply, reply)
        else:
            self.replies.put(reply)

    def _on_think(self, think: _Think) -> None:
        if self._current is not None:
            self._on_cancel()
        if self._current is not None:  # waiting for the cancelled search's done
            if self._pending is not None:
                self._pending.cancelled = True
            self._pending = think
            return
        self._launch(think)

    def _launch(self, think: _Think) -> None:
        self._launching = think
        error = self._ensure_process()
        self._launching = None
        if think.cancelled or self._closed:  # superseded or cancelled during the start
            if not self._closed:
                self._finish()
            return
        if error is not None:
            self._reply(think, None, error)
            return
        req, proc = think.request, self._process
        lines = req.commands(think.pos, self._new_game, proc.multipv)
        self._new_game = False
        proc.multipv = req.lines if proc.multipv is not None else None
        if not proc.send(*lines):
            self._process.kill()
            self._reply(think, None, f"engine {self.spec.name}: its input is closed (it died)")
            return
        think.deadline = self.clock() + req.seconds() + self.grace
        self._current = think

    def _on_cancel(self) -> None:
        cur = self._current
        if cur is None:
            return
        cur.cancelled = True
        if not cur.stop_sent:
            cur.stop_sent = True
            cur.deadline = self.clock() + self.grace
            if not self._process.send("stop"):
                self._process.kill()
                self._finish()

    def _finish(self) -> None:
        """The running request is over: launch the one waiting, if any."""
        self._current = None
        pending, self._pending = self._pending, None
        if pending is not None and not pending.cancelled:
            self._launch(pending)

    def _deadline_passed(self) -> None:
        cur = self._current
        if cur is None:
            return
        if not cur.stop_sent:
            cur.stop_sent = True
            cur.deadline = self.clock() + self.grace
            if self._process.send("stop"):
                return
        extra = f" (it said: {cur.engine_error})" if cur.engine_error else ""
        self._fail(cur, f"engine {self.spec.name} did not answer in time: killed{extra}")

    def _fail(self, cur: _Think, error: str) -> None:
        """The running request failed: the engine is killed (restarted at the next one)."""
        self._process.kill()
        self._reply(cur, None, error)
        self._finish()

    def _on_line(self, text: str) -> None:
        cur = self._current
        line = read(text)
        if cur is None:
            return
        cur.lines += 1
        if cur.lines > MAX_LINES:
            self._fail(cur, f"engine {self.spec.name} floods its output: killed")
        elif line is None:
            return
        elif line.command == "info":
            cur.info = dict(line.args)
            info = _info_of(cur, line.args, self.spec.name)
            if info is not None and self.on_info is not None:
                _safely(self.on_info, info)
        elif line.command == "error":
            cur.engine_error = (line.get("message") or "")[:200]
        elif line.command == "done":
            self._on_done(cur, line.get("move") or "")

    def _on_done(self, cur: _Think, text: str) -> None:
        try:
            move = parse_move(cur.position, text)
        except HubError as exc:
            self._reply(cur, None, f"engine {self.spec.name} sent a move that is not legal "
                        f"here: {exc}")
        else:
            self._reply(cur, move, None)
        self._finish()

    def _on_death(self) -> None:
        code = self._process.exit_code()
        how = f"exited (code {code})" if code is not None else "closed its output"
        if self._current is not None:
            self._fail(self._current, f"engine {self.spec.name} {how} while thinking")
        self._process.kill()

    # -- the process -------------------------------------------------------------------------

    def _ensure_process(self) -> str | None:
        """Start and handshake the engine if it is not running; an error line, or None."""
        proc = self._process
        proc.argv, proc.name = self.spec.argv, self.spec.name
        if proc.running:
            return None
        error = proc.spawn()
        if error is None:
            error = proc.handshake(self.handshake_timeout, self.params, self._defer)
            self.engine_id = proc.engine_id
        if error is not None:
            proc.kill()
        return error

    def _defer(self, item: tuple[Any, ...]) -> None:
        """A request that came during the handshake: handled after it."""
        if item[0] == "close":
            self._closed = True
        elif item[0] == "new-game":
            self._new_game = True
        elif item[0] in ("think", "cancel"):
            for old in (self._pending, self._launching):
                if old is not None:
                    old.cancelled = True
            self._pending = item[1] if item[0] == "think" else None

