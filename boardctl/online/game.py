"""One lidraughts game as the player sees it: ``OnlineGame``.

The game stream's thread reads ``/api/bot/game/stream/ID`` into a :class:`GameTracker` and
puts the events each line means into the link's inbox; the game's worker thread sends the
board's requests (:class:`Poster`). The player's calls (``post_move``, ``resign``,
``offer_draw``, ``answer_draw``, ``abort``) queue a request and return at once.

When the stream ends while the game is not over (lidraughts ends it when the game finishes,
and its states carry no ``status``), the game's record (``GET /api/game/ID``: ``status``,
``winner``) says how it ended; if it is still being played, the stream is opened again.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any

from boardctl.online import fields
from boardctl.online.errors import LinkError, ProtocolError
from boardctl.online.events import EndReason, Event, GameEnded, LinkDown, LinkUp
from boardctl.online.moves import Numbering
from boardctl.online.poster import Poster
from boardctl.online.streams import BACKOFF, IDLE_TIMEOUT, Backoff, StreamLoop
from boardctl.online.tracker import PLAYING, GameTracker, ServerView, Unplayable
from boardctl.online.transport import Reply, Transport
from boardctl.online.worker import Worker
from firmware.rules.position import Move

log = logging.getLogger(__name__)


class OnlineGame:
    """A game on the server, played by the board's side."""

    def __init__(self, game_id: str, account: str, transport: Transport,
                 put: Callable[[Event], None], on_fatal: Callable[[str], None],
                 backoff: Backoff = BACKOFF, idle_timeout: float = IDLE_TIMEOUT,
                 clock: Callable[[], int] = time.monotonic_ns,
                 on_over: Callable[[str], None] | None = None,
                 numbering: str = "auto") -> None:
        self.game_id = game_id
        self._on_over = on_over
        self._transport = transport
        self._put = put
        self._clock = clock
        self._tracker = GameTracker(game_id, account, numbering)
        self._changed = threading.Condition()
        self._down = False
        self._ended = False
        self._stream = StreamLoop(f"game {game_id}", transport,
                                  f"/api/bot/game/stream/{game_id}", self, on_fatal,
                                  backoff, idle_timeout)
        self._worker = Worker(f"lidraughts-{game_id}")
        self._poster = Poster(self, transport, put, on_fatal, self._worker.stopping)

    def __repr__(self) -> str:
        return f"OnlineGame({self.game_id})"

    def start(self) -> None:
        self._worker.start()
        self._stream.start()

    def stop_soon(self) -> None:
        """Stop the stream and the requests without waiting for their threads."""
        self._worker.stop()
        self._stream.stop()
        with self._changed:
            self._changed.notify_all()

    def close(self) -> None:
        """Stop the stream and the requests (a request under way is abandoned)."""
        self.stop_soon()
        self._stream.join()
        self._worker.join()

    # -- what the player calls: each returns at once -----------------------------------------

    def post_move(self, move: Move, ply: int | None = None) -> None:
        """Send the board's move (ply ``ply``; None: the next). MoveConfirmed or MoveRefused
        follows."""
        self._worker.submit(lambda: self._poster.post_move(move, ply))

    def resign(self) -> None:
        """Resign (lidraughts aborts a game that is still abortable instead)."""
        self._worker.submit(self._poster.resign)

    def abort(self) -> None:
        self._worker.submit(self._poster.abort)

    def offer_draw(self) -> None:
        """Offer a draw with the board's next move (the only way lidraughts' Bot API has)."""
        def offer() -> None:
            self._poster.offer_pending = True
        self._worker.submit(offer)

    def answer_draw(self, accept: bool) -> None:
        """Take up the opponent's draw offer, or let it lapse with the board's next move."""
        if accept:
            self._worker.submit(self._poster.accept_draw)
        else:
            log.info("lidraughts game %s: draw offer declined (it lapses with the board's "
                     "next move)", self.game_id)

    @property
    def view(self) -> ServerView | None:
        """The game as the server last showed it (None before its first line)."""
        with self._changed:
            return self._tracker.view

    @property
    def numbering(self) -> Numbering | None:
        """How the server numbers the squares (None before the game is read)."""
        with self._changed:
            return self._tracker.numbering

    @property
    def over(self) -> bool:
        return self._ended

    # -- what the poster needs -----------------------------------------------------------------

    def resync(self) -> int:
        with self._changed:
            fulls = self._tracker.view.fulls if self._tracker.view else 0
        self._stream.resync()
        return fulls

    def await_view(self, after_fulls: int) -> ServerView | None:
        with self._changed:
            while not self._worker.stopping.is_set():
                view = self._tracker.view
                if view is not None and (view.fulls > after_fulls or view.over):
                    return view
                if self._stream.stopped:
                    return None
                self._changed.wait(1.0)
        return None

    # -- the stream's handler (on the stream's thread) -----------------------------------------

    def on_open(self) -> None:
        """Back only once the game is read again (its gameFull)."""

    def on_line(self, obj: dict[str, Any]) -> None:
        kind = obj["type"]
        if kind not in ("gameFull", "gameState"):
            return  # chatLine and whatever lidraughts adds
        now = self._clock()
        with self._changed:
            try:
                if kind == "gameFull":
                    events = self._tracker.full(obj, now)
                else:
                    events = self._tracker.state(obj, now)
            except Unplayable as exc:
                log.error("lidraughts game %s: %s: leaving it", self.game_id, exc)
                events = [GameEnded(self.game_id, "*", None, EndReason.GONE)]
                self._stream.stop()
            back = kind == "gameFull" and self._down
            self._down = self._down and not back
            self._changed.notify_all()
        if back:
            log.info("lidraughts game %s: back", self.game_id)
            self._put(LinkUp(self.game_id))
        self._emit(events)

    def _emit(self, events: list[Event]) -> None:
        for event in events:
            if isinstance(event, GameEnded):
                self._ended = True
                log.info("lidraughts game %s: over, %s (%s)", self.game_id, event.result,
                         event.reason.value)
            self._put(event)
            if self._ended and isinstance(event, GameEnded) and self._on_over is not None:
                self._on_over(self.game_id)

    def on_end(self) -> bool:
        if self._ended:
            return True
        try:
            status, winner = self._record()
        except (LinkError, ProtocolError) as exc:
            self.on_lost(f"the stream ended; its record: {exc}")
            return False
        if status in PLAYING:
            return False
        with self._changed:
            events = self._tracker.finished(status, winner)
            self._changed.notify_all()
        self._emit(events)
        return True

    def _record(self) -> tuple[str, str | None]:
        reply = self._transport.request("GET", f"/api/game/{self.game_id}")
        if reply.status != 200 or not isinstance(reply.body, dict):
            raise ProtocolError(f"HTTP {reply.status} ({reply.error})")
        return (fields.text(reply.body, "status", "the game's record"),
                fields.maybe_text(reply.body, "winner", "the game's record"))

    def on_lost(self, reason: str) -> None:
        with self._changed:
            first, self._down = not self._down, True
        if first and not self._stream.stopped:
            log.info("lidraughts game %s: link lost (%s); reconnecting", self.game_id, reason)
            self._put(LinkDown(reason, self.game_id))

    def on_refused(self, reply: Reply) -> bool:
        if reply.status in (400, 404):
            log.error("lidraughts game %s: %s", self.game_id, reply.error)
            if not self._ended:
                self._emit([GameEnded(self.game_id, "*", None, EndReason.GONE)])
            return True
        return False
