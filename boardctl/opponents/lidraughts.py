"""A lidraughts game on the board (``boardctl run --opponent lidraughts``, issue 41): the
player of the door (:mod:`boardctl.service.door`) that joins :class:`LidraughtsLink` to the
board. docs/ONLINE.md is the user's side.

- A game starts on the server (a challenge accepted, the board's own accepted): the board
  sets it up as a new game (``new``, forced: the server says a game is on) with the server's
  rule set, clock and colours, the server's game id in the ``GameId`` tag and its address in
  ``Site``; a game already in the journal with that id is taken up where it stands (the
  service restarted).
- The person's move, committed on the board, is posted at once; the opponent's is shown as
  the engine's (LEDs, faces, the feed's ``remote-move`` with ``"source": "lidraughts"``) and
  committed when the board shows its result. A move the server refuses is a ``move-refused``
  irregularity: taken back, the LEDs show the way back, the board waits for another.
- Clocks: the server's are authoritative. The board's clock runs on its own between the
  server's reports (the faces tick); at each report (a move, a reconnection) a side the board
  counts more than :data:`SYNC_MS` off is set to the server's time (a ``clock-set`` event of
  the journal). A flag, a resignation, a draw, an abort from the server ends the game on the
  board (a ``result`` event with the reason); the board's own flag is overridden by it.
- Resign (control ``resign``), draw (``offer-draw``: offers one with the person's next move,
  or takes up the opponent's standing offer; the pause button does the same in an online
  game: the server's clock cannot be paused; ``decline-draw`` declines the opponent's). An
  offer standing shows on the offering side's clock face in turn with its time.
- The link down (faces ``--.--``, the LEDs' ``link-down`` corners, ``status``), up again,
  failed (one line; the board plays on offline).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Mapping
from typing import Any

from boardctl.online.events import (
    ClocksChanged,
    DrawDeclined,
    DrawOffered,
    Event,
    GameEnded,
    GameStarted,
    LinkDown,
    LinkFailed,
    LinkUp,
    MoveConfirmed,
    MoveRefused,
    OpponentMoved,
    PliesWithdrawn,
    RequestRefused,
)
from boardctl.online.link import LidraughtsLink
from boardctl.online.settings import OnlineSettings
from boardctl.opponents.online_game import BoardsGame, Request
from boardctl.opponents.shown import link_down_picture
from boardctl.service.control.schema import ControlError
from boardctl.service.door import Seat
from boardctl.service.games import GameSetup
from firmware.clock.face import MoveOnFaces
from firmware.rules.sets import Side

logger = logging.getLogger(__name__)

#: The link's events that are the game's, handled by :class:`BoardsGame`.
GAME_EVENTS = (OpponentMoved, MoveConfirmed, MoveRefused, ClocksChanged, PliesWithdrawn,
               GameEnded, DrawOffered, DrawDeclined, RequestRefused)


class LidraughtsPlayer:
    """The lidraughts opponent (module docstring): the link, the game on the board
    (:class:`BoardsGame`), what is shown (:class:`RemoteShown`). Everything but ``close`` and
    the new game's request runs on the referee's thread."""

    def __init__(self, settings: OnlineSettings, seat: Seat, request: Request | None,
                 link: Callable[..., LidraughtsLink] = LidraughtsLink) -> None:
        self.settings = settings
        self.seat = seat
        self.request = request
        self.link = link(settings, wake=seat.wake)
        self.state = "connecting"
        self.reason = ""
        self.game: BoardsGame | None = None
        #: A game the server started, waiting for the board's ``new`` (its setup's tags).
        self.starting: GameStarted | None = None
        self._closed = False
        #: The streams down (None: the event stream's, else a game's id).
        self._down: set[str | None] = set()
        self.link.start()

    # -- the door -------------------------------------------------------------------------

    def on_turn(self, at: int) -> None:
        for event in self.link.poll():
            self._take(event, at)
        if self.state == "connecting" and self.link.account is not None:
            self.state = "up"
        game = self.game
        if game is not None:
            game.turn(at)

    def on_press(self, side: str, at: int) -> bool:
        game = self.game
        if game is None or not game.adopted():
            return False
        if side == "pause":
            game.draw()
            return True
        return side == game.shown.side.value and self.seat.session.referee.started

    def owns_pause(self) -> bool:
        game = self.game
        return game is not None and game.adopted() and game.ended is None

    def leds(self, now: int) -> Mapping[str, str]:
        """The game's (its move, its marks, the link down under them); with no game on the
        board, the link down alone."""
        game = self.game
        if game is not None and game.adopted():
            return game.shown.leds(now)
        if self.state != "down":
            return {}
        return link_down_picture(self.seat.session.rules.geometry, now)

    def face_move(self) -> MoveOnFaces | None:
        game = self.game
        if game is None or not game.adopted():
            return None
        return game.shown.face_move() or game.offer_face()

    def answer(self, cmd: str, args: Mapping[str, Any]) -> dict[str, Any] | None:
        if cmd not in ("resign", "offer-draw", "decline-draw"):
            return None
        game = self.game
        if game is None or not game.adopted() or game.ended is not None:
            raise ControlError(f"{cmd}: no lidraughts game in play on the board")
        if cmd == "resign":
            game.resign()
            return {"online": "resignation sent"}
        if cmd == "decline-draw":
            return {"draw": game.decline(), "online": "the offer lapses"}
        return {"draw": game.draw(), "online": "sent with your next move"}

    def amend_setup(self, setup: GameSetup) -> None:
        """The server's game, when the board sets it up: its tags; moves committed by presses
        (the opponent's by the board) with or without a clock."""
        started = self.starting
        if started is None:
            return
        mine = self.link.account or "board"
        names = {started.side: mine, started.side.other: str(started.opponent)}
        setup.tags.update({"White": names[Side.WHITE], "Black": names[Side.BLACK],
                           "Site": f"{self.settings.server}/{started.game_id}",
                           "GameId": started.game_id, "Event": "lidraughts"})
        setup.clocked = True
        setup.started = True

    def sides(self) -> frozenset[Side]:
        game = self.game
        if game is None or not game.adopted() or game.ended is not None:
            return frozenset()
        return frozenset((game.shown.side,))

    def status(self) -> dict[str, Any]:
        said: dict[str, Any] = {"server": str(self.settings.server), "account": self.link.account,
                                "link": self.state, "reason": self.reason or None,
                                "game": None}
        game = self.game
        if game is not None:
            said["game"] = game.status()
        return {"online": said}

    def close(self) -> None:
        self._closed = True
        self.link.close()

    # -- the link's events ------------------------------------------------------------------

    def _take(self, event: Event, at: int) -> None:
        if isinstance(event, LinkDown | LinkUp | LinkFailed):
            self._link_state(event, at)
        elif isinstance(event, GameStarted):
            self._started(event, at)
        elif isinstance(event, GAME_EVENTS):
            game = self.game
            if game is not None and game.game_id == event.game_id:
                game.take(event, at)
        else:
            self.seat.note("online", at, said=type(event).__name__)
            logger.info("lidraughts: %s", event)

    def _link_state(self, event: LinkDown | LinkUp | LinkFailed, at: int) -> None:
        """The link's state: down while any of its streams is (the event stream's, the
        game's), told in the journal as it changes."""
        before = self.state
        if isinstance(event, LinkFailed):
            self.state, self.reason = "failed", event.reason
        elif isinstance(event, LinkDown):
            self._down.add(event.game_id)
            self.state, self.reason = "down", event.reason
        else:
            self._down.discard(event.game_id)
            if not self._down:
                self.state, self.reason = "up", ""
        if self.game is not None:
            self.game.shown.link_down = self.state == "down"
        if self.state != before:
            self.seat.note("online-link", at, link=self.state, reason=self.reason[:200])

    def _started(self, event: GameStarted, at: int) -> None:
        """A game on the server: taken up if the board has it (the service restarted), else
        set up as a new game (``new`` on a thread of its own: it goes through the referee)."""
        if self.state == "connecting":
            self.state = "up"
        self.game = BoardsGame(event, self.seat, self.link)
        self.seat.note("online-game", at, game=event.game_id, side=event.side.value,
                       opponent=str(event.opponent))
        if self.game.adopted():
            return
        self.starting = event
        if self.request is not None:
            threading.Thread(target=self._new_game, args=(event, self.game), name="online-new",
                             daemon=True).start()

    def _new_game(self, event: GameStarted, game: BoardsGame) -> None:
        """The board's ``new`` for the server's game (its own thread: the request goes
        through the referee's turn)."""
        request: dict[str, Any] = {"cmd": "new", "rules": event.rules.name,
                                   "time_control": str(event.time_control), "force": True}
        if event.plies:  # a game under way, new to the board: from where it stands
            request["fen"] = game.start_position().fen()
        elif event.initial_fen:
            request["fen"] = event.initial_fen
        assert self.request is not None
        answer = self.request(request)
        if not answer.get("ok"):
            logger.warning("lidraughts game %s: the board could not set it up: %s",
                           event.game_id, str(answer.get("error"))[:200])
