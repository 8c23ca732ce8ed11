"""What the link tells the player: one frozen type per event (STYLE.md lesson 13), and the
queue they wait in.

The network threads put events; the player, on the referee's thread, drains them
(``Inbox.drain``) and is woken by the ``wake`` callback the link was given, called after
each put. Nothing the player calls waits on the network.

Every game event names its ``game_id``. Plies are numbered from 1, the game's first move.
Clocks are the server's (milliseconds left, as the state said them, when it arrived).
"""

from __future__ import annotations

import enum
import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

from firmware.clock.timecontrol import TimeControl
from firmware.rules.position import Move
from firmware.rules.sets import RuleSet, Side


@dataclass(frozen=True, slots=True)
class Clocks:
    """Each side's time left in ms (None without a clock), the side whose clock runs, and
    when (monotonic ns) the state that said so arrived."""

    white_ms: int | None
    black_ms: int | None
    running: Side | None
    received_ns: int

    def left_ms(self, side: Side) -> int | None:
        return self.white_ms if side is Side.WHITE else self.black_ms


@dataclass(frozen=True, slots=True)
class Player:
    """A player as lidraughts shows one."""

    name: str
    title: str | None = None
    rating: int | None = None

    def __str__(self) -> str:
        shown = f"{self.title} {self.name}" if self.title else self.name
        return f"{shown} ({self.rating})" if self.rating is not None else shown


class EndReason(enum.Enum):
    """Why a game ended (lidraughts' ``draughts.Status`` names)."""

    NO_MOVES = "mate"              # the side to move cannot move: it lost
    RESIGNATION = "resign"
    FLAG = "outoftime"
    DRAW = "draw"                  # by agreement or by a draw rule (lidraughts says which not)
    ABORT = "aborted"
    LEFT = "timeout"               # a player left and the other claimed the game
    NO_START = "noStart"           # a player did not make the first move in time
    CHEAT = "cheat"
    VARIANT_END = "variantEnd"
    STALEMATE = "stalemate"
    UNKNOWN = "unknownFinish"
    GONE = "gone"                  # the server has no such game (anymore) for this account


@dataclass(frozen=True, slots=True)
class GameStarted:
    """A game to play (a new one, or one under way when the link (re)started: ``plies``
    holds the moves already played, ``clocks`` the times left)."""

    game_id: str
    rules: RuleSet
    time_control: TimeControl
    side: Side
    opponent: Player
    rated: bool
    initial_fen: str | None
    plies: tuple[Move, ...]
    clocks: Clocks | None


@dataclass(frozen=True, slots=True)
class OpponentMoved:
    game_id: str
    ply: int
    move: Move
    clocks: Clocks | None


@dataclass(frozen=True, slots=True)
class MoveConfirmed:
    """The board's move is on the server (posted now, or found there after a lost answer)."""

    game_id: str
    ply: int
    move: Move
    clocks: Clocks | None


@dataclass(frozen=True, slots=True)
class MoveRefused:
    """The server did not take the board's move; ``reason`` on one line."""

    game_id: str
    ply: int
    move: Move
    reason: str


@dataclass(frozen=True, slots=True)
class ClocksChanged:
    game_id: str
    clocks: Clocks


@dataclass(frozen=True, slots=True)
class DrawOffered:
    """The opponent offers a draw (``answer_draw`` takes it up)."""

    game_id: str
    by: Side


@dataclass(frozen=True, slots=True)
class DrawDeclined:
    """The board's draw offer lapsed: the opponent moved or said no."""

    game_id: str
    by: Side


@dataclass(frozen=True, slots=True)
class RequestRefused:
    """A resignation, an abort or a draw answer the server did not take."""

    game_id: str
    request: str
    reason: str


@dataclass(frozen=True, slots=True)
class PliesWithdrawn:
    """The server's game has only ``keep`` plies of those it showed before (it lost some in a
    restart): the board must take the rest back."""

    game_id: str
    keep: int


@dataclass(frozen=True, slots=True)
class GameEnded:
    """The game is over on the server: ``winner`` (None: a draw or no result), ``result`` in
    the rule set's PDN form (``*`` for an aborted game), ``reason``."""

    game_id: str
    result: str
    winner: Side | None
    reason: EndReason


@dataclass(frozen=True, slots=True)
class LinkDown:
    """A stream was lost; the link is reconnecting. ``reason`` on one line."""

    reason: str
    game_id: str | None = None


@dataclass(frozen=True, slots=True)
class LinkUp:
    """A stream is back and its state read again (``game_id`` None: the event stream)."""

    game_id: str | None = None


@dataclass(frozen=True, slots=True)
class LinkFailed:
    """The link stopped for good (a wrong or revoked token, not a BOT account): the board
    plays on offline."""

    reason: str


@dataclass(frozen=True, slots=True)
class ChallengeAnswered:
    """An incoming challenge and what the link answered."""

    challenge_id: str
    challenger: Player
    variant: str
    clock: str
    accepted: bool
    reason: str = ""


@dataclass(frozen=True, slots=True)
class ChallengeSent:
    """The board's challenge is out (the game starts when the user accepts it), or was
    refused (``refused``: the server's reason)."""

    user: str
    challenge_id: str | None
    refused: str = ""


Event = (GameStarted | OpponentMoved | MoveConfirmed | MoveRefused | ClocksChanged
         | DrawOffered | DrawDeclined | RequestRefused | PliesWithdrawn | GameEnded | LinkDown
         | LinkUp | LinkFailed | ChallengeAnswered | ChallengeSent)


class Inbox:
    """The events waiting for the player: put on any thread, drained on one."""

    def __init__(self, wake: Callable[[], None] | None = None) -> None:
        self._events: deque[Event] = deque()
        self._ready = threading.Condition()
        self._wake = wake

    def put(self, event: Event) -> None:
        with self._ready:
            self._events.append(event)
            self._ready.notify_all()
        if self._wake is not None:
            self._wake()

    def drain(self) -> list[Event]:
        """Every event waiting, oldest first; never blocks on the network."""
        with self._ready:
            out = list(self._events)
            self._events.clear()
        return out

    def get(self, timeout: float) -> Event | None:
        """The next event, waiting up to ``timeout`` seconds (tests, benchmarks, tools)."""
        with self._ready:
            if not self._events:
                self._ready.wait(timeout)
            return self._events.popleft() if self._events else None
