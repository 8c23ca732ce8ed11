"""The computer chosen per game (issue 39): the engine's lineup for the player door
(:class:`boardctl.service.door.Lineup`). A ``new`` request (the control socket's, ``boardctl
new``, the board's page) may carry ``engine`` (``"builtin"``, ``"hub:COMMAND"``, or null for
none), ``engine_side`` and ``engine_level``; the service then starts, changes or stops the
engine between games, without a restart.

- A key left out keeps its value: the choice persists from game to game (the next ``new``
  without engine keys keeps the engine, its side and level; a new rule set restarts the
  built-in engine for it).
- ``hub:COMMAND`` only for a COMMAND the configuration allows (``[engine] allowed``; the one
  the service was started with, on the command line or in ``[engine] engine``, implicitly):
  any other is refused in one line, as is an unknown engine or level, and nothing changes.
- The engine's name for the PDN tags is read from it once (``probe``): on the thread the
  request came on (``ready``), never on the referee's, and kept per engine.
"""

from __future__ import annotations

import logging
import shlex
import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from boardctl.engine.client import EngineSpec, parse_engine
from boardctl.engine.player import EnginePlayer, engine_tags, probe
from boardctl.service.control.schema import ControlError
from boardctl.service.door import Pick, Player, Seat
from firmware.engine.levels import find_level
from firmware.errors import BoardError
from firmware.rules.sets import Side, find_rules

logger = logging.getLogger(__name__)

#: The ``new`` request's keys this lineup reads.
KEYS = ("engine", "engine_side", "engine_level")


@dataclass(frozen=True, slots=True)
class EngineChoice:
    """Who plays the computer's side: ``engine`` (``builtin``, ``hub:COMMAND``; None: nobody),
    its side, its level, its time a move (None: from its clock)."""

    engine: str | None = None
    side: Side = Side.BLACK
    level: str = "10"
    move_time: float | None = None


def hub_command(text: str) -> tuple[str, ...]:
    """A Hub engine's COMMAND as the shell splits it (what the allowed list compares);
    BoardError for one that does not split."""
    try:
        return tuple(shlex.split(text))
    except ValueError as exc:
        raise BoardError(f"engine command {text[:80]!r}: {exc}") from None


class EngineLineup:
    """The engine's lineup (module docstring): the choice in force, the Hub commands a new game
    may start, each engine's name once read (``read_id``: :func:`~boardctl.engine.player.probe`,
    which starts it once)."""

    def __init__(self, choice: EngineChoice, *, allowed: Iterable[str] = (),
                 read_id: Callable[[EngineSpec], dict[str, str]] = probe) -> None:
        self.choice = choice
        commands = {hub_command(c) for c in allowed}
        if choice.engine is not None and choice.engine.startswith("hub:"):
            commands.add(hub_command(choice.engine[4:]))  # the one it starts with
        self.allowed = frozenset(commands)
        self.read_id = read_id
        #: The rule set of the game the player seated was made for (None: none seated yet).
        self.rules: str | None = None
        #: Each engine's name and version, read once (keyed by its command, the built-in's
        #: whatever its level and rules).
        self._ids: dict[tuple[str, ...], dict[str, str]] = {}
        self._lock = threading.Lock()

    def first(self, rules: str, seat: Seat) -> Player | None:
        """The engine the service starts with, for its game of ``rules`` (its name read now:
        the service is starting)."""
        self.rules = rules
        if self.choice.engine is not None:
            self._read_id(self._spec(self.choice, rules))
        return self._player(self.choice, rules, seat)

    def ready(self, args: Mapping[str, Any], rules: str) -> None:
        """On the requesting thread: the chosen engine's name read (started once), unless
        known; a choice that will be refused reads nothing."""
        try:
            choice = self.wanted(args)
            find_rules(rules)
            if choice.engine is not None:
                self._read_id(self._spec(choice, rules))
        except BoardError:
            pass  # the referee's choose() says why

    def choose(self, args: Mapping[str, Any], rules: str, seat: Seat) -> Pick | None:
        """The engine of a new game of ``rules``: None when it is the one playing (same
        choice, same rules: it starts afresh for the new game), else a new player or none;
        ControlError for a choice refused."""
        wanted = self.wanted(args)
        if wanted == self.choice and rules == self.rules:
            return None  # the same engine plays on (it starts afresh for the new game)

        def taken() -> None:
            self.choice, self.rules = wanted, rules

        return Pick(self._player(wanted, rules, seat), taken)

    def wanted(self, args: Mapping[str, Any]) -> EngineChoice:
        """The choice in force with the request's keys (ControlError: one refused, in one
        line)."""
        unknown = sorted(set(args) - set(KEYS))
        if unknown:
            raise ControlError(f"new: {unknown[0]!r}: not a choice of the engine's")
        choice = self.choice
        side = args.get("engine_side", choice.side.value)
        if side not in ("white", "black"):
            raise ControlError(f"new: 'engine_side' must be white or black, not "
                               f"{str(side)[:20]!r}")
        choice = replace(choice, side=Side(side))
        try:
            if "engine" in args:
                choice = replace(choice, engine=self._checked(args["engine"]))
            if "engine_level" in args:
                level = str(args["engine_level"]).strip()
                find_level(level)
                choice = replace(choice, level=level)
        except BoardError as exc:
            raise ControlError(f"new: {exc}") from None
        return choice

    def _checked(self, text: str | None) -> str | None:
        """An engine a new game may start: ``builtin``, or ``hub:COMMAND`` for a COMMAND
        allowed; None (no engine)."""
        if text is None:
            return None
        engine = text.strip()
        spec = parse_engine(engine, "international")  # EngineSpecError: not builtin or hub:...
        if not spec.builtin and hub_command(engine[4:]) not in self.allowed:
            raise BoardError(f"engine {engine[:80]!r} is not allowed on this board (the "
                             "config's [engine] allowed lists the Hub commands a new game "
                             "may start)")
        return engine

    def _spec(self, choice: EngineChoice, rules: str) -> EngineSpec:
        assert choice.engine is not None
        return parse_engine(choice.engine, rules, choice.level)

    @staticmethod
    def _key(spec: EngineSpec) -> tuple[str, ...]:
        return ("builtin",) if spec.builtin else spec.argv

    def _read_id(self, spec: EngineSpec) -> None:
        """The engine's name and version read from it, unless known (an engine that did not
        start is asked again next time)."""
        with self._lock:
            if self._key(spec) in self._ids:
                return
        engine_id = self.read_id(spec)
        if engine_id:
            with self._lock:
                self._ids[self._key(spec)] = engine_id

    def _player(self, choice: EngineChoice, rules: str, seat: Seat) -> Player | None:
        """The engine's player for ``choice`` (mypy holds it to the whole door)."""
        if choice.engine is None:
            return None
        spec = self._spec(choice, rules)
        with self._lock:  # never read here: on the referee's thread (its name if unknown)
            engine_id = self._ids.get(self._key(spec), {})
        tags = engine_tags(spec, engine_id, choice.side, choice.level)
        return EnginePlayer(spec, choice.side, seat, level=choice.level,
                            move_time=choice.move_time, tags=tags)
