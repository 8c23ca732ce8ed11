"""``boardctl engine``: the built-in engine (firmware.engine) as a Hub engine on stdin/stdout.

The main thread reads the GUI's lines; a search runs on a worker thread with a stop flag, so
``stop``, ``ping`` (answered ``pong``), ``ponder-hit`` and ``quit`` are answered while it
thinks. ``go analyze`` studies the position (no book, no random bonus) within the ``level``
given (``level infinite``: until ``stop``); the ``multipv`` parameter (1-5) scores that many
moves exactly, each iteration's alternatives written before its best (``info multipv=2 ...``,
then ``info multipv=1 ...``), so a GUI that reads the last ``info`` line reads the best. A
line that cannot be read, or a command that cannot be obeyed now, gets one
``error message="..."`` line; a command the protocol does not know is ignored (protocol.txt).
End of input is ``quit``.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import IO

from firmware.engine.common import DEFAULT_TT_MIB, MAX_LINES, Info, Limits, Line
from firmware.engine.hub import (
    MAX_LINE,
    HubError,
    format_line,
    move_text,
    parse_line,
    parse_move,
    parse_position,
    score_text,
)
from firmware.engine.levels import LEVELS, find_level
from firmware.engine.search import Engine, EngineError
from firmware.engine.timing import budget
from firmware.errors import BoardError
from firmware.rules.game import Game
from firmware.rules.sets import RULESETS, find_rules

NAME = "boardctl"
VERSION = "0.1.0"
AUTHOR = "boardctl authors"


class HubServer:
    """One engine session over a pair of text streams."""

    def __init__(self, rules: str, level: int = 10, tt_mib: float = DEFAULT_TT_MIB,
                 seed: int | None = None, out: IO[str] | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.rules = find_rules(rules)
        self.level = level
        self.tt_mib = tt_mib
        self.seed = seed
        self.out = out
        self.clock = clock
        self.engine: Engine | None = None
        self.game: Game | None = None
        self.limits = Limits(hard=1.0, soft=0.55)
        #: Lines each search scores (``multipv``).
        self.lines = 1
        self._write_lock = threading.Lock()
        self._stop = threading.Event()
        self._deadline: float | None = None
        self._thread: threading.Thread | None = None
        self._busy = False
        self.quitting = False

    # -- output ------------------------------------------------------------------------------

    def send(self, line: str, last: bool = False) -> None:
        """Write a line; ``last``: the search's final line (the engine is free once it is
        out, before the GUI can answer it)."""
        with self._write_lock:
            assert self.out is not None
            if last:
                self._busy = False
            try:
                self.out.write(line + "\n")
                self.out.flush()
            except (BrokenPipeError, ValueError, OSError):
                self.quitting = True  # the GUI went away

    def error(self, message: str) -> None:
        self.send(format_line("error", message=message[:300]))

    # -- input -------------------------------------------------------------------------------

    def serve(self, stream: IO[bytes]) -> int:
        """Read lines until ``quit`` or the end of input; 0."""
        while not self.quitting:
            raw = stream.readline(MAX_LINE + 1)
            if not raw:
                break
            if len(raw) > MAX_LINE:
                while raw and not raw.endswith(b"\n"):
                    raw = stream.readline(MAX_LINE + 1)
                self.error(f"line longer than {MAX_LINE} bytes: ignored")
                continue
            self.handle(raw.decode("utf-8", errors="replace"))
        self.shutdown()
        return 0

    def handle(self, text: str) -> None:
        if not text.strip():
            return
        try:
            line = parse_line(text)
        except HubError as exc:
            self.error(str(exc))
            return
        handler = self._HANDLERS.get(line.command)
        if handler is None:
            return  # unknown commands are ignored (protocol.txt)
        if self.searching and line.command not in ("stop", "ping", "quit", "ponder-hit"):
            self.error(f"{line.command}: the engine is searching (send stop first)")
            return
        try:
            handler(self, line.args)
        except (BoardError, ValueError) as exc:
            self.error(f"{line.command}: {exc}")

    @property
    def searching(self) -> bool:
        return self._busy

    # -- commands ----------------------------------------------------------------------------

    def _hub(self, args: dict[str, str]) -> None:
        self.send(format_line("id", name=NAME, version=VERSION, author=AUTHOR))
        self.send(format_line("param", name="variant", value=self.rules.name, type="enum",
                              values=" ".join(RULESETS)))
        self.send(format_line("param", name="level", value=self.level, type="int", min=1,
                              max=max(LEVELS)))
        self.send(format_line("param", name="hash", value=int(self.tt_mib), type="int",
                              min=1, max=4096))
        self.send(format_line("param", name="multipv", value=self.lines, type="int", min=1,
                              max=MAX_LINES))
        self.send("wait")

    def _set_param(self, args: dict[str, str]) -> None:
        name, value = args.get("name", ""), args.get("value", "")
        if name == "variant":
            self.rules = find_rules(value)
        elif name == "level":
            self.level = find_level(value).number
        elif name == "hash":
            mib = _number(value, "hash")
            if not 1 <= mib <= 4096:
                raise ValueError(f"hash {value} MiB out of 1-4096")
            self.tt_mib = mib
        elif name == "multipv":
            lines = _number(value, "multipv")
            if lines != int(lines) or not 1 <= lines <= MAX_LINES:
                raise ValueError(f"multipv {value[:20]} out of 1-{MAX_LINES}")
            self.lines = int(lines)
            return  # the engine's table stays
        else:
            return  # unknown parameters are ignored
        self.engine = None  # rebuilt with the new settings at the next init or search

    def _init(self, args: dict[str, str]) -> None:
        self._engine()
        self.send("ready")

    def _engine(self) -> Engine:
        if self.engine is None or self.engine.rules != self.rules:
            self.engine = Engine(self.rules, self.level, self.tt_mib, self.seed)
        return self.engine

    def _new_game(self, args: dict[str, str]) -> None:
        self._engine().new_game()

    def _pos(self, args: dict[str, str]) -> None:
        position = parse_position(self.rules, args.get("pos", ""))
        game = Game(self.rules, position)
        for text in args.get("moves", "").split():
            game.push(parse_move(game.position, text))
        self.game = game

    def _level(self, args: dict[str, str]) -> None:
        if "depth" in args:
            depth = int(_number(args["depth"], "depth"))
            if not 1 <= depth <= 99:
                raise ValueError(f"depth {args['depth']} out of 1-99")
            self.limits = Limits(depth=depth)
        elif "move-time" in args:
            b = budget(move_time=_time(args["move-time"], "move-time"))
            self.limits = Limits(soft=b.soft, hard=b.hard)
        elif "time" in args:
            moves = args.get("moves")
            b = budget(remaining=_time(args["time"], "time"),
                       increment=_time(args.get("inc", "0"), "inc"),
                       moves_to_go=int(_number(moves, "moves")) if moves else None)
            self.limits = b.limits()  # a plan from the clock: the engine may take less
        elif "infinite" in args:
            self.limits = Limits()
        else:
            raise ValueError("level needs depth=, move-time=, time= or infinite")

    def _go(self, args: dict[str, str]) -> None:
        if self.game is None:
            raise ValueError("no position: send pos first")
        engine = self._engine()
        game = self.game
        limits = self.limits
        if "ponder" in args:
            limits = Limits(depth=limits.depth)  # until stop (or ponder-hit's deadline)
        if game.outcome() is not None or not game.position.has_legal_move():
            raise ValueError("the game has ended in this position: no move to search")
        self._stop.clear()
        self._deadline = None
        self._busy = True
        self._thread = threading.Thread(target=self._search,
                                        args=(engine, game, limits, "analyze" in args),
                                        name="hub-search", daemon=True)
        self._thread.start()

    def _search(self, engine: Engine, game: Game, limits: Limits, analyse: bool) -> None:
        def stop() -> bool:
            return self._stop.is_set() or (
                self._deadline is not None and self.clock() > self._deadline)

        try:
            result = engine.search(game, limits, self.clock, stop, self._info,
                                   lines=self.lines, analyse=analyse)
        except (EngineError, BoardError) as exc:
            self.send(format_line("error", message=f"search: {exc}"[:300]), last=True)
            return
        ponder = move_text(result.pv[1]) if len(result.pv) > 1 else None
        self.send(format_line("done", move=move_text(result.move), ponder=ponder), last=True)

    def _info(self, i: Info) -> None:
        """An iteration's ``info`` lines: its alternatives (``multipv`` 2 and on), then the
        best line (with ``multipv=1`` when there are alternatives)."""
        nps = i.nodes / i.elapsed / 1e6 if i.elapsed > 0 else 0.0
        for number, line in list(enumerate(i.lines[1:], start=2)) + [(1, Line(i.score, i.pv))]:
            self.send(format_line("info", multipv=number if i.lines else None, depth=i.depth,
                                  score=score_text(line.score), nodes=i.nodes,
                                  time=i.elapsed, nps=nps,
                                  pv=" ".join(move_text(m) for m in line.pv)))

    def _stop_cmd(self, args: dict[str, str]) -> None:
        self._stop.set()

    def _ponder_hit(self, args: dict[str, str]) -> None:
        hard = self.limits.hard
        self._deadline = self.clock() + (hard if hard is not None else 1.0)

    def _ping(self, args: dict[str, str]) -> None:
        self.send("pong")

    def _quit(self, args: dict[str, str]) -> None:
        self.quitting = True

    def shutdown(self) -> None:
        """Stop a search and wait for it (it ends within a check interval)."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5.0)

    _HANDLERS: dict[str, Callable[[HubServer, dict[str, str]], None]] = {
        "hub": _hub,
        "set-param": _set_param,
        "init": _init,
        "new-game": _new_game,
        "pos": _pos,
        "level": _level,
        "go": _go,
        "stop": _stop_cmd,
        "ponder-hit": _ponder_hit,
        "ping": _ping,
        "quit": _quit,
    }


def _number(text: str, name: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"{name}={text[:20]!r} is not a number") from None
    if value != value or value in (float("inf"), float("-inf")):
        raise ValueError(f"{name}={text[:20]!r} is not a number")
    return value


def _time(text: str, name: str) -> float:
    value = _number(text, name)
    if not 0 <= value <= 1e6:
        raise ValueError(f"{name}={text[:20]} seconds out of range")
    return value
