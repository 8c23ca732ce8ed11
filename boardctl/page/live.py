"""The page's live state: a feed sink and the thread that turns feed lines into ``state``
events on the page's Server-Sent Events channel.

The service's journal writer calls :meth:`FeedLines.send` with each feed line (after the
journal, in feed order): it only appends to a bounded queue and rings, never waits. The page's
own thread (``board-page``) takes the lines, remembers a ``remote-move`` until it is carried
out, and, while someone watches, asks the service for its ``status`` (``Service.command``: the
referee answers between two turns, and the service hands the same answer to everyone asking
within 50 ms) until the answer has seen the last line (its ``feed_lines``), makes the page's
state (boardctl.page.view) and publishes it when it changed. With nobody watching nothing is
asked: the board pays for viewers only. Every viewer's stream is written by the relay's one
stream loop (boardctl.relay.live.viewers): a bounded queue each, a stalled viewer dropped.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping
from typing import Any, Protocol

from boardctl.page.view import page_state
from boardctl.relay.live.stream import Channel
from boardctl.relay.live.viewers import StreamLoop
from firmware.formats.reader import Refusal, dispatch, read_line
from firmware.formats.records import GameRecord, MoveRecord, RemoteMoveRecord, TakeBackRecord

log = logging.getLogger(__name__)

#: Feed lines waiting for the page's thread at most (older ones dropped: a state is whole).
MAX_LINES = 512
#: State events kept for a viewer that reconnects (each is a whole state).
KEEP_EVENTS = 32
#: Viewers streaming at once at most (a board's page, not a hall's).
MAX_VIEWERS = 100
#: While someone watches, the state is looked at this often besides every feed line (the LEDs
#: and a lifted piece change with no line), and sent again at least every RESYNC_S.
POLL_S = 1.0
RESYNC_S = 10.0
#: A status that has not seen the last feed line is asked again this often, this many times.
RETRY_S = 0.02
RETRIES = 10


class Commands(Protocol):
    """What the page needs of the service (boardctl.service.service.Service): a control
    request answered, from any thread, as the control socket answers it."""

    def command(self, request: Mapping[str, Any]) -> dict[str, Any]: ...


class FeedLines:
    """The page's feed sink (``Service(..., sinks=[...])``): lines queued for the page's
    thread, bounded (the oldest dropped: a state is whole), and a bell rung."""

    def __init__(self) -> None:
        self.queue: deque[str] = deque(maxlen=MAX_LINES)
        self.bell = threading.Event()

    def send(self, line: str) -> None:
        """A feed line, on the journal writer's thread; never blocks."""
        self.queue.append(line)
        self.bell.set()


class PageLive:
    """The page's thread, its state and its channel (module docstring)."""

    def __init__(self, board: Commands, lines: FeedLines, *, poll: float = POLL_S,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.board = board
        self.poll = poll
        self.clock = clock
        self.channel = Channel(keep=KEEP_EVENTS)
        self.streams = StreamLoop(limit=MAX_VIEWERS)
        self._lines = lines.queue
        self._bell = lines.bell
        self._stop = threading.Event()
        self._lock = threading.RLock()  # one state made at a time (the thread, a new viewer)
        self._thread: threading.Thread | None = None
        self._seq = -1  # the last feed line's number taken
        self._remote: dict[str, Any] | None = None
        self._text = ""
        self._sig = ""
        self._made = float("-inf")  # when the last state was made (monotonic)
        self._sent = float("-inf")
        #: States published, and refreshes that found the status behind the feed (counters).
        self.published = 0
        self.behind = 0

    # -- the page's thread (and the HTTP threads': status) ------------------------------------

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="board-page", daemon=True)
        self._thread.start()

    def close(self) -> None:
        self._stop.set()
        self._bell.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self.channel.close()
        self.streams.close()

    def _run(self) -> None:
        while not self._stop.is_set():
            watched = self.channel.clients > 0
            self._bell.wait(self.poll if watched else None)
            self._bell.clear()
            if self._stop.is_set():
                return
            self.take_lines()
            if self.channel.clients > 0:
                try:
                    self.refresh()
                except Exception as exc:  # the page must never take the board down
                    log.warning("board page: state not made: %s: %s", type(exc).__name__, exc)

    def take_lines(self) -> None:
        """The lines waiting, each read once (firmware.formats.reader): their numbers and the
        remote side's move to carry out (``_RECORDS``); a damaged line is skipped."""
        with self._lock:
            while self._lines:
                line = read_line(self._lines.popleft())
                if isinstance(line, Refusal):
                    continue
                self._seq = max(self._seq, line.seq)
                dispatch(line.record, _RECORDS, self)

    def _remote_move(self, rec: RemoteMoveRecord) -> None:
        self._remote = {"ply": rec.ply, "side": rec.side, "move": rec.move,
                        "route": list(rec.route), "captured": list(rec.captured),
                        "source": rec.source}

    def _carried_out(self, rec: MoveRecord) -> None:
        if self._remote is not None and rec.ply >= (self._remote.get("ply") or 0):
            self._remote = None

    def _forget(self, rec: GameRecord | TakeBackRecord) -> None:
        self._remote = None

    def refresh(self) -> bool:
        """Make the state from a status that has seen every line taken; publish it when it
        changed (or for a resync). True when published."""
        with self._lock:
            status = self.status()
            if status is None:
                return False
            state = page_state(status, self._remote)
            now = self.clock()
            sig = json.dumps({k: v for k, v in state.items() if k != "clock"},
                             separators=(",", ":")) + str(state["clock"]["running"])
            self._made = now
            running = state["clock"]["running"] is not None
            if sig == self._sig and not (running and now - self._sent >= RESYNC_S):
                return False
            state["ts"] = round(time.time(), 3)
            self._text = json.dumps(state, separators=(",", ":"))
            self._sig = sig
            self._sent = now
            self.channel.publish("state", self._text)
            self.published += 1
            return True

    def saw(self, answer: Mapping[str, Any]) -> None:
        """A request's answer (a new game's): a status from before it is not taken."""
        lines = answer.get("feed_lines")
        if isinstance(lines, int) and not isinstance(lines, bool):
            with self._lock:
                self._seq = max(self._seq, lines - 1)

    def status(self) -> dict[str, Any] | None:
        """The service's status once it has seen every feed line the page has (and every
        change it asked for: :meth:`saw`), asked again while it has not (the service hands the
        same answer to everyone for 50 ms) up to :data:`RETRIES` times; None when the service
        does not answer."""
        self.take_lines()
        status: dict[str, Any] = {}
        for _ in range(RETRIES):
            status = self.board.command({"cmd": "status"})
            if not status.get("ok"):
                log.debug("board page: status refused: %s", status.get("error"))
                return None
            seen = status.get("feed_lines")
            if not isinstance(seen, int) or seen > self._seq:
                return status
            self.behind += 1
            if self._stop.wait(RETRY_S):
                return None
        return status

    # -- HTTP threads -------------------------------------------------------------------------

    @property
    def remote(self) -> dict[str, Any] | None:
        """The remote side's move still to be carried out (the last ``remote-move`` line)."""
        self.take_lines()
        return self._remote

    def poke(self) -> None:
        """Look at the state soon (a request changed it)."""
        self._bell.set()

    def state(self) -> tuple[int, str]:
        """(the channel's last event number, the state) for a new viewer: made afresh when
        the last one is older than the poll (nobody was watching)."""
        if self.clock() - self._made > self.poll or not self._text:
            self.refresh()
        with self._lock:
            return self.channel.last, self._text


#: What the page keeps of the feed's records (firmware.formats.reader.dispatch).
_RECORDS: dict[type[Any], Callable[..., None]] = {
    RemoteMoveRecord: PageLive._remote_move, MoveRecord: PageLive._carried_out,
    GameRecord: PageLive._forget, TakeBackRecord: PageLive._forget,
}
