"""The relay on the broadcast PC: board feeds in, live multi-game PDNs out.

Each board's feed (``firmware.formats.feed`` lines) arrives on a serial port (a USB gadget port, a
UART adapter, a pty, or any pySerial URL: boardctl.relay.serial) or, for a hall, from the MQTT
broker (boardctl.relay.follower, where a board is known by its topic's name). :class:`RelayState`
(pure: records in, PDN out) keeps every game it has heard of, with ``[%clock]`` comments and a
``Round "r.b"`` tag (round, then board); :class:`Relay` (the one state thread) reads the
sources and, for the games that changed (boardctl.relay.changes), keeps them in its store
(boardctl.relay.keeper: appended and fsync'd in groups, at most one fsync a group window,
what changed meanwhile held), then writes the PDN to a file atomically and hands a new view
to the HTTP servers (boardctl.relay.http: the hall, each round, 304s, a broadcast delay) and
the pusher: nothing is served before it is on disk.

The state (records in, PDN out) is boardctl.relay.state; a game and the checks of its records
are boardctl.relay.games.
"""

from __future__ import annotations

import select
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from boardctl.durable import write_atomically
from boardctl.relay.changes import Changes
from boardctl.relay.delayed import delayed_views
from boardctl.relay.http import PdnServer, Timeline
from boardctl.relay.keeper import Keeper
from boardctl.relay.serial import SerialFeed
from boardctl.relay.state import RelayState
from boardctl.relay.store import GameStore
from firmware.formats.reader import Refusal, read_line
from firmware.formats.records import StatusRecord

if TYPE_CHECKING:
    from boardctl.relay.follower import HallFollower

__all__ = ["Relay"]


class Relay:
    """Reads the feeds (serial ports, and a hall's boards through ``hall``, a
    :class:`boardctl.relay.follower.HallFollower`), keeps the state, writes the file, hands each
    new :class:`View` to the HTTP servers' :class:`Timeline` and wakes the pusher."""

    def __init__(self, urls: Sequence[str], out: Path | None = None,
                 server: PdnServer | None = None,
                 now: Callable[[], float] = time.monotonic, *,
                 hall: HallFollower | None = None, timeline: Timeline | None = None,
                 wall: Callable[[], float] = time.time,
                 on_publish: Callable[[], None] | None = None,
                 log: Callable[[str], None] | None = None,
                 store: GameStore | None = None) -> None:
        self.feeds = [SerialFeed(url, now=now) for url in urls]
        self.state = RelayState(log=log)
        self.log = log
        #: Where the games are kept across restarts (None: nowhere, a test's relay).
        self.store = store
        self.keeper = Keeper(store, log) if store is not None else None
        self._restored = store is None
        #: Something changed that is not served yet (with a store: until its group's fsync).
        self.pending = False
        #: What changed since the last publish, and the view served.
        self.changes = Changes()
        #: The feeds that sent anything since the last publish.
        self._touched: set[str] = set()
        self.out = out
        self.server = server
        self.hall = hall
        self.timeline = timeline or (server.timeline if server is not None else Timeline())
        self.wall = wall
        self.on_publish = on_publish
        self.writes = 0

    def poll(self) -> bool:
        """Read every port once (and what the hall's boards sent); publish when the PDN
        changed. True when it did."""
        if not self._restored:
            self.restore()
        changed = False
        touched = self._touched
        for feed in self.feeds:
            for line in feed.read_lines():
                changed |= self.state.feed_line(feed.name, line)
                touched.add(feed.name)
        if self.hall is not None:
            for board, payload in self.hall.drain():
                read = read_line(payload)
                if isinstance(read, Refusal):  # not a feed line: it opens no source (nor a slot)
                    if bytes(payload).strip():
                        self.state.dropped += 1
                        self.hall.damaged(board)
                    continue
                self.state.source(board, topic=True)
                changed |= self.state.feed_record(board, read)
                touched.add(board)
            for board, up in self.hall.drain_status():
                self.state.notify(board, StatusRecord("online" if up else "offline"))
        self.pending |= changed
        if self.changes.view is None or (self.pending and self._due()):
            self.publish(touched)
        return changed

    def _due(self) -> bool:
        """True when what changed may be kept and served now: the store's fsyncs keep to one a
        group window (boardctl.relay.store), so the changes of a window go out together."""
        return self.store is None or self.store.due()

    @property
    def text(self) -> str:
        """Every game as PDN, as last published (live, never delayed; safe from any thread)."""
        view = self.changes.view
        return "".join(game.text for game in view.games) if view is not None else ""

    def restore(self) -> int:
        """Take back what the store kept (once, before anything is served or pushed: a
        restarted relay never serves fewer games or moves than it had); the games taken."""
        if self._restored:
            return 0
        self._restored = True
        assert self.keeper is not None
        taken = self.keeper.restore(self.state, self.changes)
        if self.timeline.delay > 0:
            for view in delayed_views(self.state, self.changes.marks, self.wall(),
                                      self.timeline.delay):
                self.timeline.push(view)
        self.publish()
        return taken

    def publish(self, sources: set[str] | None = None) -> None:
        """Keep what changed (the store: appended and fsync'd), then serve it: the HTTP
        servers' view, ``--out`` and the pusher. ``sources``: the feeds that sent anything
        since the last publish (only their games are looked at), None: every game."""
        self.pending = False
        now = self.wall()
        changed = self.changes.since(self.state, now, sources)
        self._touched = set()
        if self.keeper is not None:
            self.keeper.keep(self.state, self.changes, changed)
        view = self.changes.serve(self.state, changed, now)
        if view is None:
            return
        if self.out is not None:  # the file first: what HTTP serves is on disk already
            write_atomically(self.out, "".join(g.text for g in view.games), sync=False)
            self.writes += 1
        self.timeline.push(view)
        if self.on_publish is not None:
            self.on_publish()

    def wait(self, timeout: float) -> None:
        """Block until a port has something to read, a hall board sent something, or
        ``timeout`` seconds have passed."""
        if self.pending and self.store is not None:  # a held change is served in time
            timeout = min(timeout, self.store.wait_s())
        fds = [fd for fd in (feed.fileno() for feed in self.feeds) if fd is not None]
        if self.hall is not None:
            if self.feeds:
                timeout = min(timeout, 0.05)
            else:
                self.hall.wait(timeout)
                return
        if len(fds) == len(self.feeds) and fds:
            select.select(fds, [], [], timeout)
        else:
            time.sleep(timeout)

    def close(self) -> None:
        """Close the feeds; what changed is kept, and the store written anew (compacted) for a
        fast start the next time."""
        for feed in self.feeds:
            feed.close()
        if self.keeper is None:
            return
        if self._restored:
            if self.pending:
                self.publish()
            self.keeper.close(self.state, self.changes)
        else:
            self.keeper.store.close()
