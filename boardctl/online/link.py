"""The board's BOT account on lidraughts: ``LidraughtsLink``.

``start`` checks the account (``GET /api/account``: the token works, the account is a BOT),
then follows the event stream (``/api/stream/event``: ``challenge`` and ``gameStart`` lines;
on every connection lidraughts first sends the challenges waiting and the games under way,
so a restarted board finds its game again). Challenges are answered as the policy says; a
game that starts becomes ``game`` (an :class:`OnlineGame`), one at a time. With a challenge
configured, it is sent once the account is checked.

Everything the player learns comes through ``inbox`` (``poll`` drains it); the ``wake``
callback is called after each event. A wrong or revoked token (401), a token without the
scope or an account that is not a BOT ends the link for good with one log line and a
``LinkFailed`` event: the board plays on offline.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any

from boardctl.online import fields
from boardctl.online.challenges import Challenges
from boardctl.online.errors import LinkError, OnlineError
from boardctl.online.events import Event, Inbox, LinkDown, LinkFailed, LinkUp
from boardctl.online.game import OnlineGame
from boardctl.online.policy import is_username
from boardctl.online.settings import OnlineSettings
from boardctl.online.streams import (
    BACKOFF,
    IDLE_TIMEOUT,
    RATE_LIMIT_WAIT,
    Backoff,
    StreamLoop,
    fatal_reason,
    passing,
)
from boardctl.online.transport import Reply, Transport
from boardctl.online.variants import ClockSetting, variant_key
from boardctl.online.worker import Worker
from firmware.rules.sets import RuleSet

log = logging.getLogger(__name__)


class LidraughtsLink:
    """The link to one server for one account."""

    def __init__(self, settings: OnlineSettings, wake: Callable[[], None] | None = None,
                 backoff: Backoff = BACKOFF, idle_timeout: float = IDLE_TIMEOUT,
                 clock: Callable[[], int] = time.monotonic_ns,
                 transport: Transport | None = None) -> None:
        self.settings = settings
        self.inbox = Inbox(wake)
        self.account: str | None = None
        self._transport = transport or Transport(settings.server, settings.token)
        self._backoff = backoff
        self._idle = idle_timeout
        self._clock = clock
        self._lock = threading.Lock()
        self._game: OnlineGame | None = None
        self._old: list[OnlineGame] = []
        self._next: list[str] = []
        self._down = False
        self._failed = threading.Event()
        self._worker = Worker("lidraughts-link")
        self._events = StreamLoop("events", self._transport, "/api/stream/event", self,
                                  self._fatal, backoff, idle_timeout)
        self._challenges = Challenges(self._transport, settings.policy, self.inbox.put,
                                      self._fatal, self._busy, backoff, self._worker.stopping)

    def __repr__(self) -> str:
        return f"LidraughtsLink({self.settings.server}, account={self.account})"

    # -- what the player calls -------------------------------------------------------------

    def start(self) -> None:
        """Check the account and follow the event stream (on the link's threads)."""
        self._worker.start()
        self._worker.submit(self._begin)

    def poll(self) -> list[Event]:
        """Every event waiting; never blocks."""
        return self.inbox.drain()

    @property
    def game(self) -> OnlineGame | None:
        """The game being played (or the last one played), None before the first."""
        with self._lock:
            return self._game

    @property
    def failed(self) -> bool:
        return self._failed.is_set()

    def challenge(self, user: str, clock: ClockSetting, rules: RuleSet | str,
                  rated: bool = False, colour: str = "random") -> None:
        """Challenge ``user``; ChallengeSent follows, GameStarted when the user accepts.
        OnlineError for a name that is no lidraughts user name or a rule set it has not."""
        if not is_username(user):
            raise OnlineError(f"{user[:40]!r} is not a lidraughts user name")
        form = {"rated": "true" if rated else "false", "clock.limit": str(clock.limit_s),
                "clock.increment": str(clock.increment_s), "color": colour,
                "variant": variant_key(rules)}
        self._worker.submit(lambda: self._challenges.send(user, form))

    def close(self) -> None:
        """Stop every thread of the link (the games' too)."""
        self._worker.stop()
        self._events.stop()
        with self._lock:
            games = [g for g in (self._game, *self._old) if g is not None]
        for game in games:
            game.close()
        self._events.join()
        self._worker.join()

    # -- the account, the challenge ---------------------------------------------------------

    def _begin(self) -> None:
        for delay in self._backoff.delays():
            try:
                reply = self._transport.request("GET", "/api/account")
            except LinkError as exc:
                reply = None
                self.on_lost(str(exc))
            if reply is not None and not passing(reply):
                if not self._check_account(reply):
                    return
                break
            if reply is not None:
                self.on_lost(f"the account: HTTP {reply.status} ({reply.error})")
            wait = RATE_LIMIT_WAIT if reply is not None and reply.status == 429 else delay
            if self._worker.stopping.wait(wait):
                return
        self._events.start()
        s = self.settings
        if s.challenge_user and s.clock:
            self.challenge(s.challenge_user, s.clock, s.rules or "international")

    def _check_account(self, reply: Reply) -> bool:
        reason = fatal_reason(reply)
        if reason is None and reply.status != 200:
            reason = f"lidraughts answered HTTP {reply.status} for the account ({reply.error})"
        body = reply.body if isinstance(reply.body, dict) else {}
        name = str(body.get("username") or body.get("id") or "")
        if reason is None and (not name or body.get("title") != "BOT"):
            reason = (f"the lidraughts account {name or '?'} is not a BOT account (upgrade it "
                      "as docs/ONLINE.md says)")
        if reason is not None:
            self._fatal(reason)
            return False
        self.account = str(body.get("id") or name).lower()
        log.info("lidraughts: connected to %s as %s", self.settings.server, name)
        return True

    # -- the event stream's handler (on its thread) ------------------------------------------

    def on_open(self) -> None:
        if self._down:
            self._down = False
            log.info("lidraughts: event stream back")
            self.inbox.put(LinkUp())

    def on_line(self, obj: dict[str, Any]) -> None:
        kind = obj["type"]
        if kind == "challenge":
            self._challenges.answer(obj)
        elif kind == "gameStart":
            game = fields.section(obj, "game", "gameStart")
            self._start_game(fields.ident(game, "id", "gameStart"))
        else:
            log.debug("lidraughts: event %s ignored", kind[:40])

    def _start_game(self, game_id: str) -> None:
        """Play ``game_id`` now, or once the game being played ends (a game starts on
        lidraughts as another ends: a rematch accepted before the board read the end)."""
        with self._lock:
            current = self._game
            if current is not None and current.game_id == game_id:
                return
            if current is not None and not current.over:
                if game_id not in self._next:
                    self._next.append(game_id)
                    log.info("lidraughts: game %s waits for the end of %s", game_id,
                             current.game_id)
                return
            assert self.account is not None
            game = OnlineGame(game_id, self.account, self._transport, self.inbox.put,
                              self._fatal, self._backoff, self._idle, self._clock,
                              on_over=self._game_over, numbering=self.settings.numbering)
            if current is not None:
                self._old.append(current)
            self._game = game
        log.info("lidraughts: game %s", game_id)
        game.start()

    def _busy(self) -> bool:
        with self._lock:
            return bool(self._next) or (self._game is not None and not self._game.over)

    def _game_over(self, game_id: str) -> None:
        """Called on the game's thread once its end is told: the next game waiting starts."""
        with self._lock:
            waiting = self._next.pop(0) if self._next else None
        if waiting is not None and not self._failed.is_set():
            self._worker.submit(lambda: self._start_game(waiting))

    def on_end(self) -> bool:
        self.on_lost("the server ended the event stream")
        return False

    def on_lost(self, reason: str) -> None:
        if not self._down and not self._failed.is_set():
            self._down = True
            log.info("lidraughts: link lost (%s); reconnecting", reason)
            self.inbox.put(LinkDown(reason))

    def on_refused(self, reply: Reply) -> bool:
        return False

    def _fatal(self, reason: str) -> None:
        """Stop for good: one log line, one LinkFailed (whichever thread says it first)."""
        with self._lock:
            if self._failed.is_set():
                return
            self._failed.set()
            games = [g for g in (self._game, *self._old) if g is not None]
        log.error("%s: the board plays on offline", reason)
        self._worker.stop()
        self._events.stop()
        for game in games:
            game.stop_soon()
        self.inbox.put(LinkFailed(reason))

