"""The board's requests in a game, on the game's worker thread: moves (a capture a step at a
time), resignation, abort and draws, each reconciled with the server's state when an answer
is lost so that nothing is sent twice.

A request that got no answer may or may not have acted. The poster then has the game stream
read again (its first line is the whole game), waits for that ``gameFull``, and reads from
the server's moves how many of the move's steps landed: it sends only the rest. A request that
never left (no connection) is sent again the same way, once the server shows the game.

lidraughts' Bot API takes a draw offer only with a move (``offeringDraw=true`` on the move
request, ``BotPlayer.apply``), on the board's turn; it handles the offer before the move. So
``offer_draw`` rides on the board's next move, and accepting the opponent's offer is a request
with ``offeringDraw=true`` for a step no rule allows (an empty square to itself): the server
agrees the draw, then refuses the step, and nothing is played. Declining needs no request:
lidraughts drops the opponent's offer when the board moves.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from boardctl.online.errors import LinkError
from boardctl.online.events import Event, MoveRefused, RequestRefused
from boardctl.online.moves import Numbering, describe, li_steps
from boardctl.online.streams import RATE_LIMIT_WAIT, fatal_reason, passing
from boardctl.online.tracker import ServerView
from boardctl.online.transport import Reply, Transport
from firmware.rules.position import Move

log = logging.getLogger(__name__)


class Synced(Protocol):
    """What the poster needs of its game."""

    game_id: str

    @property
    def view(self) -> ServerView | None: ...

    def resync(self) -> int:
        """Have the stream read again; the number of ``gameFull`` lines read so far."""

    def await_view(self, after_fulls: int) -> ServerView | None:
        """The view once more than ``after_fulls`` gameFull lines were read (None: stopped)."""

    @property
    def numbering(self) -> Numbering | None:
        """How the server numbers the squares (None before the game is read)."""


@dataclass(frozen=True, slots=True)
class _Outcome:
    """A request's fate: answered (its Reply) or not (``sent``: it may have acted)."""

    reply: Reply | None
    sent: bool = False


class Poster:
    """Sends one game's requests; each method runs on the worker's thread."""

    def __init__(self, game: Synced, transport: Transport, put: Callable[[Event], None],
                 on_fatal: Callable[[str], None], stopping: threading.Event) -> None:
        self._game = game
        self._transport = transport
        self._put = put
        self._on_fatal = on_fatal
        self._stopping = stopping
        self.offer_pending = False

    def post_move(self, move: Move, ply: int | None) -> None:
        """Play the board's move as ply ``ply`` (None: the next one), step by step."""
        view = self._game.await_view(0)
        while view is not None:
            ply = ply or len(view.plies) + 1
            steps = self._steps_to_send(view, move, ply)
            if steps is None:
                return
            for i, step in enumerate(steps):
                offer = self.offer_pending and i == 0
                outcome = self._send(f"/api/bot/game/{self._game.game_id}/move/{step}"
                                     + ("?offeringDraw=true" if offer else ""))
                if outcome.reply is None:
                    break  # lost: read the game again and send what did not land
                if outcome.reply.status != 200:
                    self._refuse(view, ply, move, outcome.reply)
                    return
                self.offer_pending = self.offer_pending and not offer
            else:
                return
            view = self._game.await_view(self._game.resync())

    def _steps_to_send(self, view: ServerView, move: Move, ply: int) -> tuple[str, ...] | None:
        """The steps of ``move`` the server has not got, or None when there is nothing to
        send (already there, or refused: told)."""
        gid, n = self._game.game_id, len(view.plies)
        if view.over:
            self._put(MoveRefused(gid, ply, move, "the game is over"))
            return None
        if n >= ply:
            if view.plies[ply - 1].key != move.key:
                other = view.plies[ply - 1]
                self._put(MoveRefused(gid, ply, move, f"the server has {other} as ply {ply}"))
            return None  # it landed: the tracker told MoveConfirmed
        if n < ply - 1 or view.position.turn is not view.side:
            self._put(MoveRefused(gid, ply, move, f"not the board's turn: the server has "
                                  f"{n} plies and waits for {view.position.turn.value}"))
            return None
        steps = li_steps(move, self._game.numbering)
        landed = max(0, len(view.pending) - 1)
        if view.pending and move.route[:len(view.pending)] != view.pending:
            self._put(MoveRefused(gid, ply, move, "the server has another capture under way"))
            return None
        return steps[landed:]

    def _refuse(self, view: ServerView, ply: int, move: Move, reply: Reply) -> None:
        text = describe(view.position, move)
        log.warning("lidraughts game %s: the move %s was refused: %s", self._game.game_id,
                    text, reply.error)
        self._put(MoveRefused(self._game.game_id, ply, move, reply.error))

    def resign(self) -> None:
        self._simple("resign", f"/api/bot/game/{self._game.game_id}/resign")

    def abort(self) -> None:
        self._simple("abort", f"/api/bot/game/{self._game.game_id}/abort")

    def accept_draw(self) -> None:
        view = self._game.await_view(0)
        if view is None:
            return
        why = _cannot_accept(view)
        if why:
            self._put(RequestRefused(self._game.game_id, "accept-draw", why))
            return
        empty = next(sq for sq in view.position.rules.geometry.squares
                     if view.position.piece_at(sq) is None)
        self._simple("accept-draw", f"/api/bot/game/{self._game.game_id}/move/"
                     f"{empty:02d}{empty:02d}?offeringDraw=true", expect_refusal=True)

    def _simple(self, name: str, path: str, expect_refusal: bool = False) -> None:
        """A request that is harmless to repeat: sent again until answered."""
        while not self._stopping.is_set():
            outcome = self._send(path)
            if outcome.reply is not None:
                ok = outcome.reply.status == 200 or (expect_refusal
                                                     and outcome.reply.status == 400)
                if not ok:
                    self._put(RequestRefused(self._game.game_id, name, outcome.reply.error))
                return
            if self._game.await_view(self._game.resync()) is None:
                return
            view = self._game.view
            if view is None or view.over:
                return

    def _send(self, path: str) -> _Outcome:
        """POST ``path``; a 401/403 ends the link, a 429 waits and tries again, a passing
        trouble (5xx, lidraughts' "OAuth server is offline") or no answer comes back as a
        lost request."""
        while not self._stopping.is_set():
            try:
                reply = self._transport.request("POST", path)
            except LinkError as exc:
                log.info("lidraughts game %s: %s", self._game.game_id, exc)
                return _Outcome(None, exc.sent)
            reason = fatal_reason(reply)
            if reason is not None:
                self._on_fatal(reason)
                return _Outcome(None)
            if reply.status == 429:
                log.warning("lidraughts: rate limited (429): waiting a minute")
                self._stopping.wait(RATE_LIMIT_WAIT)
                continue
            if passing(reply):
                log.info("lidraughts game %s: HTTP %d on %s (%s)", self._game.game_id,
                         reply.status, path, reply.error)
                return _Outcome(None, True)
            return _Outcome(reply)
        return _Outcome(None)


def _cannot_accept(view: ServerView) -> str:
    if view.over:
        return "the game is over"
    if view.side.other not in view.offers:
        return "no draw offer of the opponent stands"
    if view.position.turn is not view.side:
        return "lidraughts takes a draw answer on the board's turn only"
    return ""
