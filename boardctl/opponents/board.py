"""Two boards playing one game over the hall's broker (``boardctl run --broker URL --hall H
--board B --opponent board:B2 --opponent-side white|black``, issue 41; docs/ONLINE.md "Two
boards").

No topic of its own: each board already publishes its feed to ``kabelaud/HALL/BOARD/feed``
(QoS 1, in order) and keeps a retained ``online``/``offline`` on ``kabelaud/HALL/BOARD/status``
(docs/CONTRACT.md). :class:`BoardOpponent` follows the other board's two topics: a ``move``
line of the other board's person's side is that side's move here, shown and committed as the
engine's is (the feed's ``remote-move``, ``"source": "board:B2"``); a snapshot (sent on every
reconnection and every few seconds) fills any move missed; a ``result`` line ends the game
here too; a ``takeback`` takes the plies back here too. The person's own moves reach the other
board the same way, on this board's feed.

One clock: each board's clock runs as usual, and the side to move's board keeps it: when the
other side's move is committed here, that side's time is set to what the other board's clock
said at its commit (a ``clock-set`` event when they differ by more than :data:`SYNC_S`). While
the other board is away (its status ``offline``, or this board's broker connection lost) the
clock is paused here (a ``pause`` event) and resumed when it is back, as a broker outage is.
Lines are read through ``firmware.formats.reader``; anything refused is skipped and counted.
"""

from __future__ import annotations

import logging
import threading
import uuid
from collections import deque
from collections.abc import Callable, Mapping
from typing import Any

from boardctl.hall.mqtt import BrokerConfig, make_client, topic
from boardctl.opponents.offers import DrawOffers
from boardctl.opponents.shown import RemoteShown
from boardctl.service.control.schema import ControlError
from boardctl.service.door import Seat
from boardctl.service.games import GameSetup
from firmware.errors import BoardError
from firmware.formats.events import ClockSet, Event, Pause, Result, Resume, TakeBack
from firmware.formats.reader import FeedLine, read_line
from firmware.formats.records import (
    DrawOfferRecord,
    MoveRecord,
    ResultRecord,
    SnapshotRecord,
    TakeBackRecord,
)
from firmware.rules.game import result_text
from firmware.rules.notation import parse_move
from firmware.rules.sets import Side
from firmware.session.session import BoardSession

logger = logging.getLogger(__name__)

#: The other board's clock and this one's this far apart (seconds) are set to the other's.
SYNC_S = 0.5
#: Lines held from the other board at most (a snapshot makes up for any dropped).
MAX_HELD = 2000


class PeerFeed:
    """The other board's feed and status, followed on a paho client of its own (its network
    thread); what arrived waits in :attr:`held` for the referee's thread."""

    def __init__(self, broker: BrokerConfig, hall: str, me: str, other: str,
                 wake: Callable[[], None]) -> None:
        self.topics = {"feed": topic(hall, other, "feed"),
                       "status": topic(hall, other, "status")}
        self.wake = wake
        self.held: deque[FeedLine | str] = deque(maxlen=MAX_HELD)
        self.lock = threading.Lock()
        self.connected = False
        self.peer = "unknown"
        self.refused = 0
        self.client = make_client(broker, f"kabelaud-{hall}-{me}-opponent-{uuid.uuid4().hex[:8]}")
        self.client.on_connect = self._on_connect
        self.client.on_disconnect = self._on_disconnect
        self.client.on_message = self._on_message
        self.client.reconnect_delay_set(0.2, 5)
        self.client.connect_async(broker.host, broker.port, keepalive=broker.keepalive)
        self.client.loop_start()

    @property
    def here(self) -> bool:
        """The other board can be heard: this board's subscriber connected and the other's
        status ``online``."""
        return self.connected and self.peer == "online"

    def _on_connect(self, client: Any, userdata: Any, flags: Any, reason: Any,
                    properties: Any = None) -> None:
        if getattr(reason, "is_failure", False):
            logger.warning(f"opponent board: broker refused the connection: {reason}")
            return
        client.subscribe([(self.topics["feed"], 1), (self.topics["status"], 1)])
        with self.lock:
            self.connected = True
            self.held.append("connected")
        self.wake()

    def _on_disconnect(self, client: Any, userdata: Any, flags: Any, reason: Any,
                       properties: Any = None) -> None:
        with self.lock:
            self.connected = False
            self.held.append("disconnected")
        self.wake()

    def _on_message(self, client: Any, userdata: Any, message: Any) -> None:
        payload = bytes(message.payload)[:64 * 1024]
        if message.topic == self.topics["status"]:
            with self.lock:
                self.peer = "online" if payload == b"online" else "offline"
                self.held.append(self.peer)
        else:
            line = read_line(payload)
            with self.lock:
                if isinstance(line, FeedLine):
                    self.held.append(line)
                else:
                    self.refused += 1
        self.wake()

    def drain(self) -> list[FeedLine | str]:
        with self.lock:
            out = list(self.held)
            self.held.clear()
        return out

    def close(self) -> None:
        self.client.loop_stop()
        try:
            self.client.disconnect()
        except Exception:  # paho on a socket already gone
            pass


class BoardOpponent:
    """The other board's person's side (module docstring): a player of the door."""

    def __init__(self, feed: PeerFeed, other: str, side: Side, seat: Seat) -> None:
        self.feed = feed
        self.other = other
        self.side = side
        self.seat = seat
        self.shown = RemoteShown(seat, side, f"board:{other}")
        self.offers = DrawOffers(seat, side.other)
        #: The other board's moves of its side, by ply, and the clocks they were made with.
        self.moves: dict[int, MoveRecord] = {}
        self.result: ResultRecord | None = None
        self.game_id: str | None = None
        self.paused = False
        self.session: BoardSession | None = None

    # -- the door ------------------------------------------------------------------------

    def on_turn(self, at: int) -> None:
        self._turn(at)
        self.offers.lapse(self.seat.session, at)  # after a move or a result of this turn
        self.offers.say_again(at, self.feed.here)

    def _turn(self, at: int) -> None:
        session = self.seat.session
        if session is not self.session:
            self.session = session
            self.shown.forget()
            self.offers.forget(session)
            self.paused = False
        for item in self.feed.drain():
            self._take(item, session, at)
        self._away(session, at)
        if session.result is not None:
            return
        rec = self.moves.get(len(session.moves) + 1)
        if self.result is not None and rec is None:  # its last move first, then its result
            self._commit(Result(at, self.result.result, self.result.reason))
            return
        if rec is None or session.position.turn is not self.side or self.paused:
            return
        try:
            move = parse_move(session.position, rec.move)
        except (ValueError, BoardError) as exc:
            self.seat.note("opponent-board", at, refused=f"{rec.move}: {exc}"[:200])
            del self.moves[rec.ply]
            return
        self.shown.show(session, move, at)
        if self.shown.follow(session, at):
            self._clock_of(session, rec, at)

    def on_press(self, side: str, at: int) -> bool:
        session = self.seat.session
        if side == "pause" and session.referee.started and session.result is None:
            try:  # the pause button offers a draw, or takes one up
                self.offers.offer(at)
            except ControlError as exc:
                logger.warning(f"opponent board {self.other}: {exc}")
            return True
        return side == self.side.value and session.referee.started

    def owns_pause(self) -> bool:
        session = self.seat.session
        return session.referee.started and session.result is None

    def leds(self, now: int) -> Mapping[str, str]:
        return self.shown.leds(now)

    def face_move(self) -> Any:
        return self.shown.face_move() or self.offers.face()

    def answer(self, cmd: str, args: Mapping[str, Any]) -> dict[str, Any] | None:
        """A draw offered, taken up, declined (:mod:`boardctl.opponents.offers`); ``resign``
        the board's own result (the other board's side wins), which the other board follows."""
        if cmd == "offer-draw":
            return self.offers.offer(self.seat.now())
        if cmd == "decline-draw":
            return self.offers.decline(self.seat.now())
        if cmd == "resign":
            return self._resign(self.seat.now())
        return None

    def _resign(self, at: int) -> dict[str, Any]:
        session = self.seat.session
        if not session.referee.started or session.result is not None:
            raise ControlError("resign: no game in play against the other board")
        try:
            self.seat.commit(Result(at, result_text(session.rules, self.side), "resignation"))
        except BoardError as exc:
            raise ControlError(f"resign: the result could not be recorded: {exc}") from None
        return {"resigned": self.side.other.value}

    def amend_setup(self, setup: GameSetup) -> None:
        setup.tags.setdefault(self.side.value.capitalize(), self.other)
        setup.clocked = True

    def sides(self) -> frozenset[Side]:
        return frozenset((self.side,))

    def status(self) -> dict[str, Any]:
        return {"opponent": {"board": self.other, "side": self.side.value,
                             "peer": self.feed.peer, "connected": self.feed.connected,
                             "paused": self.paused, "refused": self.feed.refused,
                             "draw_offer": self.offers.status(),
                             **self.shown.status()}}

    def close(self) -> None:
        self.feed.close()

    # -- what came from the other board ----------------------------------------------------

    def _take(self, item: FeedLine | str, session: BoardSession, at: int) -> None:
        if isinstance(item, str):
            self.shown.link_down = not self.feed.here
            self.seat.note("opponent-board", at, said=item)
            if item in ("online", "connected"):  # back: an offer made meanwhile said again
                self.offers.seen_back()
            return
        if item.game is not None and item.game != self.game_id:
            self.game_id = item.game  # the other board's game: what was held is of another
            self.moves, self.result = {}, None
            self.offers.forget(session)
        record = item.record
        if isinstance(record, MoveRecord):
            self._move(record)
        elif isinstance(record, SnapshotRecord):
            for move in record.moves or ():
                self._move(move)
            if record.result is not None and record.result != "*":
                self.result = ResultRecord(record.result, record.reason or "arbiter")
        elif isinstance(record, ResultRecord):
            self.result = record if record.result != "*" else None
        elif isinstance(record, TakeBackRecord):
            self._taken_back(record.ply, session, at)
        elif isinstance(record, DrawOfferRecord):
            self.offers.heard(record, session, at)

    def _move(self, record: MoveRecord) -> None:
        if record.side == self.side.value:
            self.moves.setdefault(record.ply, record)

    def _taken_back(self, ply: int, session: BoardSession, at: int) -> None:
        self.moves = {p: m for p, m in self.moves.items() if p <= ply}
        self.result = None
        if len(session.moves) > ply:
            self._commit(TakeBack(at, len(session.moves) - ply, stop=False))

    def _away(self, session: BoardSession, at: int) -> None:
        """The other board away: the clock paused here; back: resumed."""
        clock = session.clock
        here = self.feed.here
        self.shown.link_down = not here
        if clock is None or not clock.started or session.result is not None:
            return
        if not here and not self.paused and clock.running is not None:
            self._commit(Pause(at))
            self.paused = True
        elif here and self.paused:
            self._commit(Resume(at))
            self.paused = False

    def _clock_of(self, session: BoardSession, rec: MoveRecord, at: int) -> None:
        """The other board kept its side's clock: its time at its commit is the time here."""
        clock, said = session.clock, rec.clock
        if clock is None or said is None or self.side.value not in said:
            return
        theirs = float(said[self.side.value])
        if abs(clock.remaining(self.side, at) / 1e9 - theirs) > SYNC_S:
            self._commit(ClockSet(at, self.side.value, max(0.0, theirs)))

    def _commit(self, event: Event) -> None:
        try:
            self.seat.commit(event)
        except BoardError as exc:
            logger.warning(f"opponent board {self.other}: {event.type} refused: {exc}")
