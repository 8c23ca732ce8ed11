"""The player door (docs/DESIGN.md "The player door"; STYLE.md lessons 17 and 20): how a player
who is not at the board plugs into the running service. The engine is one; an online
opponent, another board, guess-the-move training, puzzles and an analysis mode are each one
more class going through the same door, never a change to the service.

Two small protocols, one each way:

- :class:`Player`, the player's side: what the service calls, on the referee's thread, at its
  fixed points. Each turn after the events (:meth:`~Player.on_turn`); a clock press before
  the referee sees it (:meth:`~Player.on_press`), and whether the pause button is its own
  (:meth:`~Player.owns_pause`); its LED picture under the referee's
  (:meth:`~Player.leds`) and a move on the clock faces (:meth:`~Player.face_move`); a control
  request the arbiter's tables hand on (:meth:`~Player.answer`: ``hint``, ``resign``,
  ``offer-draw``); a new game's setup (:meth:`~Player.amend_setup`); the sides whose moves the
  person carries out for it (:meth:`~Player.sides`); its part of ``status``
  (:meth:`~Player.status`); :meth:`~Player.close`. A player defines the methods it needs; the
  others take their defaults from :func:`player_calls` (a helper, not a base class: no class
  of the project derives from another of its classes).
- :class:`Seat`, the service's side: what a player may do to the service, handed to it when it
  is made. Read the game in play (:attr:`~Seat.session`, never changed through it) and the game
  time (:meth:`~Seat.now`); wake the referee from the player's own thread
  (:meth:`~Seat.wake`); commit an event of its own along the one data path (a press of its
  clock, a take-back, a result: :meth:`~Seat.commit`, which answers with the feed records it
  made); a feed record (:meth:`~Seat.emit`: ``engine-move``, ``remote-move``, an evaluation);
  a note in the journal (:meth:`~Seat.note`).

:class:`PlayerDoor` is the service's end: it holds at most one player and calls it through the
door, it is the players' :class:`Seat`, and it swaps the player between games: a
:class:`Lineup` (the engine's: ``boardctl.engine.lineup``) chooses each new game's player from
the ``new`` request's keys; the player it replaces is closed off the referee's thread.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields, replace
from typing import Any, Protocol

from boardctl.service.control.schema import ControlError
from boardctl.service.datapath import DataPath
from boardctl.service.games import CurrentGame, GameSetup
from boardctl.service.outputs import Outbox
from firmware.clock.face import MoveOnFaces
from firmware.errors import BoardError
from firmware.formats.events import NS, Event
from firmware.formats.journal import note_record
from firmware.formats.records import FeedRecord, Record
from firmware.rules.sets import Side
from firmware.session.session import BoardSession

logger = logging.getLogger(__name__)

#: How long the service's stop waits for a replaced player to close (its process to quit).
CLOSE_S = 15.0


class Player(Protocol):
    """The player's side of the door: what the service calls, all on the referee's thread but
    :meth:`close`. A player defines the methods it needs (:func:`player_calls`)."""

    def on_turn(self, at: int) -> None:
        """Each referee's turn, after the events it released, at game time ``at``: take what
        came in on the player's own thread, act on what the board shows (:meth:`Seat.commit`).
        Default: nothing."""
        ...

    def on_press(self, side: str, at: int) -> bool:
        """A clock button (``white``, ``black``, ``pause``) pressed at game time ``at``, before
        the referee sees it: True takes it for the player (the referee never sees it).
        Default: False."""
        ...

    def owns_pause(self) -> bool:
        """Whether the pause button is the player's now (an online game's draw offer: the
        clock cannot be paused): the menus then hold a press back until its release, so that
        a hold of it opens them and never reaches the player. Default: False."""
        ...

    def leds(self, now: int) -> Mapping[str, str]:
        """Its LED picture (algebraic square -> meaning) at monotonic ``now`` (ns), laid under
        the referee's: the referee's marks win a square both light. Default: none."""
        ...

    def face_move(self) -> MoveOnFaces | None:
        """A move the clock faces show with the times (one to be carried out). Default: None."""
        ...

    def answer(self, cmd: str, args: Mapping[str, Any]) -> dict[str, Any] | None:
        """A control request the arbiter's tables hand on (``hint``, ``resign``,
        ``offer-draw``): its answer, or None when it is not the player's (then refused in one
        line); ControlError refuses it in one line. Default: None."""
        ...

    def amend_setup(self, setup: GameSetup) -> None:
        """A new game's setup before it is set up: its PDN tags, how moves are committed.
        Default: nothing."""
        ...

    def sides(self) -> frozenset[Side]:
        """The sides whose moves it makes, carried out on the board by the person: touch-move
        (000 3.10) binds a player choosing his move, not the hand carrying out another's.
        Default: none."""
        ...

    def status(self) -> dict[str, Any]:
        """Its members of the ``status`` answer (the engine's ``engine``). Default: none."""
        ...

    def close(self) -> None:
        """Stop what it runs (a process, a connection, a thread): once, on any thread, after
        its last call. Default: nothing."""
        ...


class Seat(Protocol):
    """The service's side of the door: what a player may do to the service (its seat at the
    board), on the referee's thread unless said."""

    @property
    def session(self) -> BoardSession:
        """The game in play, to read and never to change (a new game is a new session)."""
        ...

    def now(self) -> int:
        """Game time past every event the referee has taken: the stamp of an act of its own
        made outside :meth:`Player.on_turn` (a request's answer)."""
        ...

    def wake(self) -> None:
        """From any thread: a referee's turn soon (what the player's thread got waits for
        :meth:`Player.on_turn`)."""
        ...

    def commit(self, event: Event) -> list[Record]:
        """An event of its own (a press of its clock, a take-back, a result) along the one
        data path: journaled and on the feed as the board's are, replayed as they are. The
        feed records it made (typed, ``firmware.formats.records``); BoardError: refused,
        nothing changed."""
        ...

    def emit(self, record: FeedRecord) -> None:
        """A typed record on the feed (``engine-move``, ``remote-move``, an evaluation: a
        ``firmware.formats.records`` class), numbered like the rest."""
        ...

    def note(self, kind: str, at: int, **fields: Any) -> None:
        """A note in the journal at game time ``at`` (what the feed told, kept with the game;
        a replay skips it)."""
        ...

    def next_game(self) -> None:
        """A new game now, as a forced ``new`` sets it up (the board's settings, the player
        seated kept, its :meth:`Player.amend_setup` giving it its own: the next puzzle), and
        announced; BoardError: refused, nothing changed. Not from :meth:`Player.on_press`
        (the turn's events are still being taken): from :meth:`Player.on_turn`."""
        ...


def _nothing(*args: Any) -> None:
    return None


@dataclass(frozen=True, slots=True)
class PlayerCalls:
    """The door's calls on one player: its own methods, the defaults for the others."""

    on_turn: Callable[[int], None] = _nothing
    on_press: Callable[[str, int], bool] = lambda side, at: False
    owns_pause: Callable[[], bool] = lambda: False
    leds: Callable[[int], Mapping[str, str]] = lambda now: {}
    face_move: Callable[[], MoveOnFaces | None] = _nothing
    answer: Callable[[str, Mapping[str, Any]], dict[str, Any] | None] = _nothing
    amend_setup: Callable[[GameSetup], None] = _nothing
    sides: Callable[[], frozenset[Side]] = frozenset
    status: Callable[[], dict[str, Any]] = dict
    close: Callable[[], None] = _nothing


#: The names of the door's calls (a player's methods of these names are its side of it).
CALLS = tuple(f.name for f in fields(PlayerCalls))


def player_calls(player: object) -> PlayerCalls:
    """How the door calls ``player``: a :class:`Player`, or an object with some of its methods,
    the others taking their defaults (it takes no press, lights nothing, answers nothing, ...).
    TypeError for an object with none of them (not a player)."""
    own = {name: method for name in CALLS
           if callable(method := getattr(player, name, None))}
    if not own:
        raise TypeError(f"{type(player).__name__} is not a player: it has none of "
                        f"{', '.join(CALLS)}")
    return replace(PlayerCalls(), **own)


@dataclass(frozen=True, slots=True)
class Pick:
    """A lineup's choice for a new game: its player (None: nobody but the persons at the
    board), and what the lineup keeps as its choice once the game is set up with it."""

    player: object | None
    taken: Callable[[], None] = _nothing


class Lineup(Protocol):
    """Who plays besides the persons at the board, chosen per game from the ``new`` request's
    keys beyond the game's own (the engine's: ``engine``, ``engine_side``, ``engine_level``).
    Its players are :class:`Player`-like objects made with the :class:`Seat` given."""

    def first(self, rules: str, seat: Seat) -> object | None:
        """The player of the game the service starts with (``rules``: its rule set), or None."""
        ...

    def ready(self, args: Mapping[str, Any], rules: str) -> None:
        """On the requesting thread, before the referee sees a ``new`` request: whatever is
        slow about its choice (an engine's name read from it once). Never raises."""
        ...

    def choose(self, args: Mapping[str, Any], rules: str, seat: Seat) -> Pick | None:
        """The player of a new game of ``rules`` from the request's ``args``; None keeps the
        one seated. ControlError refuses the request in one line, nothing changed."""
        ...


class PlayerDoor:
    """The service's end of the door (module docstring): the player seated, at most one,
    called through :class:`PlayerCalls`; the :class:`Seat` its players are handed; the
    :class:`Lineup` choosing each game's player. All on the referee's thread but :meth:`wake`
    and :meth:`ready`."""

    def __init__(self, game: CurrentGame, path: DataPath, outbox: Outbox,
                 wake: Callable[[], None], clock: Callable[[], int], *,
                 now: Callable[[], int], lineup: Lineup | None = None) -> None:
        """``wake`` rouses the referee (any thread); ``clock`` is the monotonic clock (ns);
        ``now`` the game time past every event taken."""
        self.game = game
        self.path = path
        self.outbox = outbox
        self._wake = wake
        self._now = now
        self.clock = clock
        self.lineup = lineup
        #: The player seated, and the door's calls on it (None: nobody).
        self.player: object | None = None
        self.calls: PlayerCalls | None = None
        #: Replaced players closing on threads of their own (joined at the service's stop).
        self._closing: list[threading.Thread] = []
        #: How a player's new game is set up (the service's desk: a forced ``new``).
        self.renew: Callable[[], None] | None = None

    # -- the Seat: what a player may do --------------------------------------------------------

    @property
    def session(self) -> BoardSession:
        return self.game.the_session

    def now(self) -> int:
        return self._now()

    def wake(self) -> None:
        self._wake()

    def commit(self, event: Event) -> list[Record]:
        return self.path.handle(event)

    def emit(self, record: FeedRecord) -> None:
        self.path.feed.emit(record)

    def note(self, kind: str, at: int, **fields: Any) -> None:
        self.outbox.record(note_record(kind, t=at / NS, **fields))

    def next_game(self) -> None:
        if self.renew is None:
            raise BoardError("this board sets up no new game for a player")
        self.renew()

    # -- seating -------------------------------------------------------------------------------

    def seat(self, player: object | None) -> None:
        """``player`` plays from now on (None: nobody); the one it replaces is closed on a
        thread of its own (an engine may take a second to quit)."""
        calls = player_calls(player) if player is not None else None
        old, old_calls = self.player, self.calls
        self.player, self.calls = player, calls
        if old_calls is not None and old is not player:
            self._close_later(old_calls)

    def open(self, rules: str) -> None:
        """The lineup's player for the game the service starts with (a game of ``rules``, new
        or resumed); without a lineup, whoever was seated plays on."""
        if self.lineup is not None:
            self.seat(self.lineup.first(rules, self))

    def ready(self, args: Mapping[str, Any], rules: str) -> None:
        """On the requesting thread: the lineup's slow part of a ``new`` request's choice."""
        if self.lineup is not None and args:
            self.lineup.ready(args, rules)

    def new_game(self, setup: GameSetup, args: Mapping[str, Any],
                 set_up: Callable[[GameSetup], None]) -> None:
        """A new game with the player the lineup chooses from ``args`` (the ``new`` request's
        keys beyond the game's; the one seated when it chooses none): that player amends
        ``setup``, then ``set_up`` sets the game up. A refusal of either (ControlError,
        BoardError) changes nothing: the new player is closed, the one seated stays."""
        pick = self._choose(args, setup.rules)
        calls = self.calls if pick is None else (
            player_calls(pick.player) if pick.player is not None else None)
        try:
            if calls is not None:
                calls.amend_setup(setup)
            set_up(setup)
        except BaseException:
            if pick is not None and calls is not None:
                calls.close()
            raise
        if pick is not None:
            self.seat(pick.player)
            pick.taken()

    def _choose(self, args: Mapping[str, Any], rules: str) -> Pick | None:
        if self.lineup is not None:
            return self.lineup.choose(args, rules, self)
        if args:
            raise ControlError(f"new: {sorted(args)[0]!r}: this board chooses no player per "
                               "game")
        return None

    def _close_later(self, calls: PlayerCalls) -> None:
        thread = threading.Thread(target=self._close, args=(calls,), name="player-close",
                                  daemon=True)
        self._closing = [t for t in self._closing if t.is_alive()] + [thread]
        thread.start()

    @staticmethod
    def _close(calls: PlayerCalls) -> None:
        try:
            calls.close()
        except Exception as exc:  # a player's bug must not stop the board
            logger.warning(f"closing a player: {type(exc).__name__}: {exc}")

    def close(self) -> None:
        """The service's stop: the player seated closed, and those closing waited for."""
        calls, self.player, self.calls = self.calls, None, None
        if calls is not None:
            self._close(calls)
        for thread in self._closing:
            thread.join(CLOSE_S)
        self._closing = []

    # -- the service's calls on the player -------------------------------------------------

    def turn(self, at: int) -> None:
        """A referee's turn at game time ``at``: the sides the person carries out moves for,
        then the player's turn."""
        calls = self.calls
        if calls is None:
            return
        self.game.the_session.referee.machine_sides = calls.sides()
        calls.on_turn(at)

    def on_press(self, side: str, at: int) -> bool:
        calls = self.calls
        return calls is not None and calls.on_press(side, at)

    def owns_pause(self) -> bool:
        """:meth:`Player.owns_pause` of the player seated (False: none)."""
        calls = self.calls
        return calls is not None and calls.owns_pause()

    def leds(self, now: int) -> Mapping[str, str]:
        calls = self.calls
        return calls.leds(now) if calls is not None else {}

    def face_move(self) -> MoveOnFaces | None:
        calls = self.calls
        return calls.face_move() if calls is not None else None

    def answer(self, cmd: str, args: Mapping[str, Any]) -> dict[str, Any] | None:
        calls = self.calls
        return calls.answer(cmd, args) if calls is not None else None

    def amend_setup(self, setup: GameSetup) -> None:
        if self.calls is not None:
            self.calls.amend_setup(setup)

    def status(self, status: dict[str, Any]) -> None:
        """The player's members added to a ``status`` answer, and ``leds`` as the strip shows
        them (the player's picture under the referee's)."""
        calls = self.calls
        if calls is None:
            return
        status.update(calls.status())
        status["leds"] = {**calls.leds(self.clock()), **status.get("leds", {})}
