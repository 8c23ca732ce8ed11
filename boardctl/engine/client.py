"""A Hub-protocol client: one engine process, driven from its own thread.

``EngineClient`` never blocks its caller: ``think()`` queues a request and returns its number;
the answer comes as an ``EngineReply`` through the ``on_reply`` callback (called on the
client's thread) or, without one, on ``replies`` (a queue). A reply carries the move (a
firmware Move, checked legal in the position asked about) or a one-line error, and the
``done_at`` clock reading when the engine's ``done`` line was read.

The engine process is started at a lower priority (``nice``), handshaken (``hub`` ... ``wait``,
``init`` ... ``ready``) within ``handshake_timeout`` seconds, and restarted at the next request
after it died or was killed. A request gets a deadline (the move time, or the clock's remaining
time, plus ``grace``); past it the client sends ``stop``, and if no ``done`` follows within
``grace`` it kills the process. An engine that is missing, exits, hangs, prints garbage or
sends an illegal move gives an error reply, never an exception in the caller.
"""

from __future__ import annotations

import contextlib
import os
import queue
import shlex
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import IO, Any

from firmware.engine.hub import MAX_LINE, HubError, format_line, parse_line, parse_move, pos_line
from firmware.errors import BoardError
from firmware.rules.game import Game
from firmware.rules.position import Move, Position

#: Lines an engine may print during one request before it counts as flooding (then killed).
MAX_LINES_PER_REQUEST = 100_000
#: A depth-limited search (no clock) gets this long.
DEPTH_DEADLINE = 120.0


class EngineError(BoardError):
    """An engine specification that cannot be used."""


@dataclass(frozen=True, slots=True)
class EngineSpec:
    """How to start an engine: the argv, and a name for messages."""

    argv: tuple[str, ...]
    name: str
    builtin: bool = False


def parse_engine(text: str, rules: str, level: str = "10") -> EngineSpec:
    """``builtin`` or ``hub:COMMAND`` (COMMAND split as a shell would); EngineError."""
    t = text.strip()
    if t == "builtin":
        argv: tuple[str, ...] = (sys.executable, "-m", "boardctl", "engine", "--rules", rules,
                                 "--level", level)
        return EngineSpec(argv, "builtin", builtin=True)
    if t.startswith("hub:"):
        try:
            argv = tuple(shlex.split(t[4:]))
        except ValueError as exc:
            raise EngineError(f"engine command {t[4:][:80]!r}: {exc}") from None
        if not argv:
            raise EngineError("hub: needs a command (hub:COMMAND, e.g. hub:dame hub)")
        return EngineSpec(argv, os.path.basename(argv[0]))
    raise EngineError(f"unknown engine {t[:80]!r} (builtin or hub:COMMAND)")


@dataclass(frozen=True, slots=True)
class ThinkRequest:
    """Think in ``game``'s position (its history gives the repetitions) with a time limit:
    ``move_time`` seconds, or the engine's clock (``remaining`` seconds, ``increment``,
    ``moves_to_go`` to the next control), or a ``depth``."""

    game: Game
    remaining: float | None = None
    increment: float = 0.0
    moves_to_go: int | None = None
    move_time: float | None = None
    depth: int | None = None

    def level_line(self) -> str:
        if self.move_time is not None:
            return format_line("level", move_time=float(self.move_time))
        if self.remaining is not None:
            return format_line("level", moves=self.moves_to_go, time=float(self.remaining),
                               inc=float(self.increment) if self.increment else None)
        if self.depth is not None:
            return format_line("level", depth=self.depth)
        raise EngineError("a think request needs a move time, the clock or a depth")

    def seconds(self) -> float:
        if self.move_time is not None:
            return float(self.move_time)
        if self.remaining is not None:
            return float(self.remaining)
        return DEPTH_DEADLINE


@dataclass(frozen=True, slots=True)
class EngineReply:
    """The answer to request ``request``: ``move`` or ``error`` (one line)."""

    request: int
    move: Move | None
    error: str | None
    done_at: float
    info: dict[str, str] = field(default_factory=dict)


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


class EngineClient:
    """One engine, restarted as needed (module docstring)."""

    def __init__(self, spec: EngineSpec, *, on_reply: Callable[[EngineReply], None] | None
                 = None, clock: Callable[[], float] = time.monotonic,
                 handshake_timeout: float = 10.0, grace: float = 2.0, nice: int = 10,
                 params: dict[str, str] | None = None) -> None:
        self.spec = spec
        self.on_reply = on_reply
        self.replies: queue.Queue[EngineReply] = queue.Queue()
        self.clock = clock
        self.handshake_timeout = handshake_timeout
        self.grace = grace
        self.nice = nice
        self.params = dict(params or {})
        self.engine_id: dict[str, str] = {}
        self.last_error: str | None = None
        self._inbox: queue.Queue[tuple[Any, ...]] = queue.Queue()
        self._proc: subprocess.Popen[bytes] | None = None
        self._generation = 0
        self._next = 0
        self._lock = threading.Lock()
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
        request.level_line()  # EngineError now for a request with no limit
        with self._lock:
            self._next += 1
            number = self._next
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
        proc = self._proc
        return proc.pid if proc is not None and proc.poll() is None else None

    # -- the client's thread -----------------------------------------------------------------

    def _run(self) -> None:
        try:
            while not self._closed:
                self._step()
        finally:
            self._stop_process()

    def _timeout(self) -> float | None:
        cur = self._current
        if cur is None:
            return None
        return max(0.0, cur.deadline - self.clock())

    def _step(self) -> None:
        try:
            item = self._inbox.get(timeout=self._timeout())
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
        elif kind == "line" and item[1] == self._generation:
            self._on_line(item[2])
        elif kind == "eof" and item[1] == self._generation:
            self._on_death()
        if self._current is not None and self.clock() > self._current.deadline:
            self._deadline_passed()

    def _reply(self, think: _Think, move: Move | None, error: str | None) -> None:
        if think.cancelled:
            return
        if error is not None:
            self.last_error = error
        reply = EngineReply(think.number, move, error, self.clock(), dict(think.info))
        if self.on_reply is not None:
            try:
                self.on_reply(reply)
            except Exception:  # noqa: BLE001 - the caller's bug must not kill the client
                pass
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
        req = think.request
        lines = []
        if self._new_game:
            lines.append("new-game")
            self._new_game = False
        lines += [think.pos, req.level_line(), "go think"]
        if not self._send(*lines):
            self._kill()
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
            if not self._send("stop"):
                self._kill()
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
            if self._send("stop"):
                return
        self._kill()
        extra = f" (it said: {cur.engine_error})" if cur.engine_error else ""
        self._reply(cur, None, f"engine {self.spec.name} did not answer in time: "
                    f"killed{extra}")
        self._finish()

    def _on_line(self, text: str) -> None:
        cur = self._current
        try:
            line = parse_line(text)
        except HubError:
            line = None
        if cur is None:
            return
        cur.lines += 1
        if cur.lines > MAX_LINES_PER_REQUEST:
            self._kill()
            self._reply(cur, None, f"engine {self.spec.name} floods its output: killed")
            self._finish()
            return
        if line is None:
            return
        if line.command == "info":
            cur.info = dict(line.args)
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
        code = self._proc.poll() if self._proc is not None else None
        self._kill()
        cur = self._current
        if cur is not None:
            how = f"exited (code {code})" if code is not None else "closed its output"
            self._reply(cur, None, f"engine {self.spec.name} {how} while thinking")
            self._finish()

    # -- the process -------------------------------------------------------------------------

    def _ensure_process(self) -> str | None:
        """Start and handshake the engine if it is not running; an error line, or None."""
        if self._proc is not None and self._proc.poll() is None:
            return None
        self._kill()
        try:
            proc = subprocess.Popen(self.spec.argv, stdin=subprocess.PIPE,
                                    stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        except OSError as exc:
            return f"engine {self.spec.name} cannot start: {exc.strerror or exc}"
        with contextlib.suppress(OSError):
            os.setpriority(os.PRIO_PROCESS, proc.pid, self.nice)
        self._generation += 1
        self._proc = proc
        assert proc.stdout is not None
        threading.Thread(target=self._reader, args=(proc.stdout, self._generation),
                         name="engine-reader", daemon=True).start()
        error = self._handshake()
        if error is not None:
            self._kill()
        return error

    def _reader(self, stream: IO[bytes], generation: int) -> None:
        try:
            while True:
                raw = stream.readline(MAX_LINE + 1)
                if not raw:
                    break
                if len(raw) > MAX_LINE:
                    continue
                self._inbox.put(("line", generation, raw.decode("utf-8", errors="replace")))
        except (OSError, ValueError):
            pass
        self._inbox.put(("eof", generation))

    def _handshake(self) -> str | None:
        name = self.spec.name
        if not self._send("hub"):
            return f"engine {name} closed its input at once"
        error = self._await("wait", self._on_id)
        if error is None:
            sets = [format_line("set-param", name=k, value=v) for k, v in self.params.items()]
            if not self._send(*sets, "init"):
                return f"engine {name} died during its start"
            error = self._await("ready", None)
        return error

    def _on_id(self, line: Any) -> None:
        if line.command == "id":
            self.engine_id = {k: v[:80] for k, v in line.args.items()}

    def _await(self, word: str, seen: Callable[[Any], None] | None) -> str | None:
        deadline = self.clock() + self.handshake_timeout
        lines = 0
        while True:
            left = deadline - self.clock()
            if left <= 0:
                return f"engine {self.spec.name} did not answer '{word}' in time"
            try:
                item = self._inbox.get(timeout=left)
            except queue.Empty:
                continue
            kind = item[0]
            if kind in ("think", "cancel", "new-game", "close"):
                self._defer(item)
                continue
            if item[1] != self._generation:
                continue
            if kind == "eof":
                code = self._proc.poll() if self._proc is not None else None
                return f"engine {self.spec.name} exited during its start (code {code})"
            lines += 1
            if lines > MAX_LINES_PER_REQUEST:
                return f"engine {self.spec.name} floods its output during its start"
            try:
                line = parse_line(item[2])
            except HubError:
                continue
            if seen is not None:
                seen(line)
            if line.command == word:
                return None

    def _defer(self, item: tuple[Any, ...]) -> None:
        """A request that came during the handshake: handled after it."""
        if item[0] == "close":
            self._closed = True
        elif item[0] == "new-game":
            self._new_game = True
        elif item[0] == "think":
            for old in (self._pending, self._launching):
                if old is not None:
                    old.cancelled = True
            self._pending = item[1]
        elif item[0] == "cancel":
            for old in (self._pending, self._launching):
                if old is not None:
                    old.cancelled = True
            self._pending = None

    def _send(self, *lines: str) -> bool:
        proc = self._proc
        if proc is None or proc.stdin is None:
            return False
        try:
            proc.stdin.write("".join(line + "\n" for line in lines).encode())
            proc.stdin.flush()
        except (OSError, ValueError):
            return False
        return True

    def _kill(self) -> None:
        proc, self._proc = self._proc, None
        if proc is None:
            return
        self._generation += 1
        if proc.poll() is None:
            with contextlib.suppress(OSError):
                proc.kill()
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=2.0)
        for stream in (proc.stdin, proc.stdout):
            with contextlib.suppress(OSError, ValueError):
                if stream is not None:
                    stream.close()

    def _stop_process(self) -> None:
        proc = self._proc
        if proc is not None and proc.poll() is None:
            self._send("quit")
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=1.0)
        self._kill()
        cur = self._current
        if cur is not None:
            self._reply(cur, None, f"engine {self.spec.name}: the client closed")
            self._current = None
