"""The relay on the broadcast PC: board feeds in, live multi-game PDNs out.

Each board's feed (``firmware.formats.feed`` lines) arrives on a serial port (a USB gadget port, a
UART adapter, a pty, or any pySerial URL: boardctl.relay.serial) or, for a hall, from the MQTT
broker (boardctl.relay.follower, where a board is known by its topic's name). :class:`RelayState`
(pure: records in, PDN out) keeps every game it has heard of, with ``[%clock]`` comments and a
``Round "r.b"`` tag (round, then board); :class:`Relay` (the one state thread) reads the
sources, writes the PDN to a file atomically when it changes and hands a new view to the HTTP
servers (boardctl.relay.http: the hall, each round, 304s, a broadcast delay) and the pusher.

The state (records in, PDN out) is boardctl.relay.state; a game and the checks of its records
are boardctl.relay.games.
"""

from __future__ import annotations

import select
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from boardctl.durable import write_atomically
from boardctl.relay.games import RelayGame, _clean
from boardctl.relay.http import GameText, PdnServer, Timeline, View
from boardctl.relay.ledger import Ledger
from boardctl.relay.restore import restore_games
from boardctl.relay.serial import SerialFeed
from boardctl.relay.state import MAX_MARKS, RelayState, _mark, delayed_views
from boardctl.relay.store import GameStore
from firmware.formats.feed import decode_line

__all__ = ["Relay"]


class Relay:
    """Reads the feeds (serial ports, and a hall's boards through ``hall``, a
    :class:`boardctl.relay.follower.HallFollower`), keeps the state, writes the file, hands each
    new :class:`View` to the HTTP servers' :class:`Timeline` and wakes the pusher."""

    def __init__(self, urls: Sequence[str], out: Path | None = None,
                 server: PdnServer | None = None,
                 now: Callable[[], float] = time.monotonic, *,
                 hall: Any = None, timeline: Timeline | None = None,
                 wall: Callable[[], float] = time.time,
                 on_publish: Callable[[], None] | None = None,
                 log: Callable[[str], None] | None = None,
                 store: GameStore | None = None) -> None:
        self.feeds = [SerialFeed(url, now=now) for url in urls]
        self.state = RelayState(log=log)
        self.log = log
        #: Where the games are kept across restarts (None: nowhere, a test's relay).
        self.store = store
        self._restored = store is None
        #: What the store holds of each game (the records a change needs).
        self.ledger = Ledger()
        #: Something changed that is not served yet (with a store: until its group's fsync).
        self.pending = False
        #: Each game's changes: (moves, result, wall time), for a delayed view after a restart.
        self._marks: dict[str, list[tuple[int, str | None, float]]] = {}
        self._store_error: str | None = None
        self.out = out
        self.server = server
        self.hall = hall
        self.timeline = timeline or (server.timeline if server is not None else Timeline())
        self.wall = wall
        self.on_publish = on_publish
        self.writes = 0
        self._published: View | None = None
        #: Each game's PDN text and when it last changed (the first is the store's text too).
        self._changed: dict[str, tuple[str, float]] = {}
        #: Each game served, as last served.
        self._served: dict[str, GameText] = {}

    def poll(self) -> bool:
        """Read every port once (and what the hall's boards sent); publish when the PDN
        changed. True when it did."""
        if not self._restored:
            self.restore()
        changed = False
        for feed in self.feeds:
            for line in feed.read_lines():
                changed |= self.state.feed_line(feed.name, line)
        if self.hall is not None:
            for board, payload in self.hall.drain():
                record = decode_line(payload)
                if record is None:  # not a feed line: it opens no source (nor takes a slot)
                    if bytes(payload).strip():
                        self.state.dropped += 1
                        self.hall.damaged(board)
                    continue
                self.state.source(board, topic=True)
                changed |= self.state.feed_record(board, record)
            for board, up in self.hall.drain_status():
                status = "online" if up else "offline"
                self.state.notify(board, {"type": "status", "status": status})
        self.pending |= changed
        if self._published is None or (self.pending and self._due()):
            self.publish()
        return changed

    def _due(self) -> bool:
        """True when what changed may be kept and served now: the store's fsyncs keep to one a
        group window (boardctl.relay.store), so the changes of a window go out together."""
        return self.store is None or self.store.due()

    @property
    def text(self) -> str:
        """Every game as PDN, as last published (live, never delayed; safe from any thread)."""
        view = self._published
        return "".join(game.text for game in view.games) if view is not None else ""

    def restore(self) -> int:
        """Take back what the store kept (once, before anything is served or pushed: a
        restarted relay never serves fewer games or moves than it had); the games taken."""
        if self._restored:
            return 0
        self._restored = True
        assert self.store is not None
        kept = self.store.load()
        taken = restore_games(self.state, kept)
        for item in kept:
            ident = _clean(str(item["game"].get("game")))[:80]
            key = f"{item['source']}/{ident}" if item["topic"] else ident
            marks = item["game"].get("marks")
            if key in self.state.games and isinstance(marks, list):
                self._marks[key] = [(m[0], m[1], m[2]) for m in marks if _mark(m)][-MAX_MARKS:]
        self.ledger.prime(self.state.games.values(), self._marks)  # as they are on disk
        if self.timeline.delay > 0:
            for view in delayed_views(self.state, self._marks, self.wall(),
                                      self.timeline.delay):
                self.timeline.push(view)
        if kept and self.log is not None:
            self.log(f"relay: {taken} games restored from {self.store.folder}")
        self.publish()
        return taken

    def _keep(self) -> None:
        """The store's records of what changed (boardctl.relay.ledger), appended and made
        durable before anything is served; a store that cannot be written is told, and the
        games are served all the same."""
        if self.store is None:
            return
        games, texts, marks = self.state.games, self._changed, self._marks

        def topic(source: str) -> bool:
            return self.state.source(source).topic

        try:
            kept = self.store.keep(lambda: self.ledger.records(games, texts, marks, topic),
                                   lambda: self.ledger.whole(games.values(), texts, marks, topic))
            self.store.sync()
        except OSError as exc:
            message = (f"relay: games cannot be kept in {self.store.folder}: "
                       f"{exc.strerror or exc} (served all the same; a restart now would serve "
                       "them only from the boards' snapshots)")
            if message != self._store_error and self.log is not None:
                self.log(message)
            self._store_error = message
            return
        if kept and self._store_error is not None:
            if self.log is not None:
                self.log(f"relay: games kept in {self.store.folder} again")
            self._store_error = None

    def publish(self) -> None:
        """Keep what changed (the store), then serve it: the HTTP servers' view, ``--out`` and
        the pusher."""
        self.pending = False
        now = self.wall()
        changed = []
        for game, body in self.state.texts():  # every game is kept; the games played are served
            key = game.key or game.game
            seen = self._changed.get(key)
            if seen is None or seen[0] != body:  # when each game changed: its marks, kept
                self._changed[key] = (body, now)
                marks = self._marks.setdefault(key, [])
                marks.append((len(game.moves), game.result, now))
                del marks[:-MAX_MARKS]
                changed.append(game)
        self._keep()
        if self._published is None or any(game.shown for game in changed) or (
                changed and not self._served.keys() <= self.state.games.keys()):
            self._serve(changed, now)  # a game played changed, or one served is gone

    def _serve(self, changed: list[RelayGame], now: float) -> None:
        served = self._served
        for game in changed:
            served[game.key or game.game] = self._game_text(game)
        games = []
        for key, game in self.state.games.items():
            if game.shown:
                text = served.get(key)
                games.append(text if text is not None else served.setdefault(
                    key, self._game_text(game)))
        if len(served) > len(games):  # games no longer held (or not played yet)
            for key in [k for k in served if k not in self.state.games]:
                del served[key]
        view = View(tuple(games), now)
        self._published = view
        if self.out is not None:  # the file first: what HTTP serves is on disk already
            write_atomically(self.out, "".join(g.text for g in view.games), sync=False)
            self.writes += 1
        self.timeline.push(view)
        if self.on_publish is not None:
            self.on_publish()

    def _game_text(self, game: RelayGame) -> GameText:
        key = game.key or game.game
        text, changed = self._changed[key]
        return GameText(key, game.round_tag(), game.tags.get("Board") or game.board, text,
                        changed)

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
        if self.store is None:
            return
        if self._restored:
            if self.pending:
                self.publish()
            self._compact()
        self.store.close()

    def _compact(self) -> None:
        assert self.store is not None
        games, texts, marks = self.state.games, self._changed, self._marks
        try:
            self.store.compact(self.ledger.whole(
                games.values(), texts, marks, lambda s: self.state.source(s).topic))
        except OSError as exc:
            if self.log is not None:
                self.log(f"relay: {self.store.folder}: not written anew at the stop: "
                         f"{exc.strerror or exc} (read back as it is)")
