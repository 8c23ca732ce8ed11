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
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from boardctl.durable import write_atomically
from boardctl.relay.delayed import MAX_MARKS, _mark, delayed_views
from boardctl.relay.games import PDN_FORM, RelayGame, _clean, kept
from boardctl.relay.http import GameText, PdnServer, Timeline, View
from boardctl.relay.serial import SerialFeed
from boardctl.relay.state import RelayState, restore_games
from boardctl.relay.store import GameStore
from firmware.formats.reader import Refusal, read_line
from firmware.formats.records import StatusRecord

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
        self._saved: dict[str, tuple[Any, ...]] = {}
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
        self._published: str | None = None
        self._changed: dict[str, tuple[str, float]] = {}

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
                read = read_line(payload)
                if isinstance(read, Refusal):  # not a feed line: it opens no source (nor a slot)
                    if bytes(payload).strip():
                        self.state.dropped += 1
                        self.hall.damaged(board)
                    continue
                self.state.source(board, topic=True)
                changed |= self.state.feed_record(board, read)
            for board, up in self.hall.drain_status():
                self.state.notify(board, StatusRecord("online" if up else "offline"))
        if changed or self._published is None:
            self.publish()
        return changed

    @property
    def text(self) -> str:
        """Every game as PDN, as last published (live, never delayed; safe from any thread)."""
        return self._published or ""

    def restore(self) -> int:
        """Take back what the store kept (once, before anything is served or pushed: a
        restarted relay never serves fewer games or moves than it had); the games taken."""
        if self._restored:
            return 0
        self._restored = True
        assert self.store is not None
        kept = self.store.load()
        taken = restore_games(self.state, kept)
        self._saved = self._signatures()  # as they are on disk already
        for item in kept:
            ident = _clean(str(item["game"].get("game")))[:80]
            key = f"{item['source']}/{ident}" if item["topic"] else ident
            marks = item["game"].get("marks")
            if key in self.state.games and isinstance(marks, list):
                self._marks[key] = [(m[0], m[1], m[2]) for m in marks if _mark(m)][-MAX_MARKS:]
        if self.timeline.delay > 0:
            for view in delayed_views(self.state, self._marks, self.wall(),
                                      self.timeline.delay):
                self.timeline.push(view)
        if kept and self.log is not None:
            self.log(f"relay: {taken} games restored from {self.store.folder}")
        self.publish()
        return taken

    def _signatures(self) -> dict[str, tuple[Any, ...]]:
        """Each feed's games as the store would write them (their keys and versions)."""
        out: dict[str, list[Any]] = {}
        for key, game in self.state.games.items():
            out.setdefault(game.source, []).append((key, game.version, game.board))
        return {source: tuple(items) for source, items in out.items()}

    def _save(self, texts: Mapping[str, str]) -> None:
        """The store's files of the feeds that changed (each game with its PDN ``texts``),
        before the PDN goes out."""
        if self.store is None:
            return
        signatures = self._signatures()
        changed = [s for s, sig in signatures.items() if self._saved.get(s) != sig]
        if not changed:
            return
        games: dict[str, list[RelayGame]] = {s: [] for s in changed}
        for game in self.state.games.values():
            if game.source in games:
                games[game.source].append(game)
        for source in changed:
            topic = self.state.source(source).topic
            try:
                self.store.save(source, topic, [
                    {**kept(g), "marks": self._marks.get(g.key or g.game, []),
                     "pdn": texts.get(g.key or g.game), "pdn_form": PDN_FORM}
                    for g in games[source]])
            except OSError as exc:
                message = (f"relay: games of {source[:100]!r} cannot be kept in "
                           f"{self.store.folder}: {exc.strerror or exc} (served all the same; "
                           "a restart now would serve them only from the boards' snapshots)")
                if message != self._store_error and self.log is not None:
                    self.log(message)
                self._store_error = message
                continue
            self._saved[source] = signatures[source]
        if self._store_error is not None and len(self._saved) >= len(signatures) and all(
                self._saved.get(s) == sig for s, sig in signatures.items()):
            if self.log is not None:
                self.log(f"relay: games kept in {self.store.folder} again")
            self._store_error = None

    def publish(self) -> None:
        texts = self.state.texts()  # every game is kept; the games played are served
        served = [(game, body) for game, body in texts if game.shown]
        text = "".join(t for _, t in served)
        now = self.wall()
        for game, body in texts:  # when each game changed: its marks (the store keeps them)
            key = game.key or game.game
            seen = self._changed.get(key)
            if seen is None or seen[0] != body:
                self._changed[key] = (body, now)
                marks = self._marks.setdefault(key, [])
                marks.append((len(game.moves), game.result, now))
                del marks[:-MAX_MARKS]
        self._save({game.key or game.game: body for game, body in texts})
        if text == self._published:
            return
        self._published = text
        if self.out is not None:  # the file first: what HTTP serves is on disk already
            write_atomically(self.out, text)
            self.writes += 1
        games = [GameText(game.key or game.game, game.round_tag(),
                          game.tags.get("Board") or game.board, body,
                          self._changed[game.key or game.game][1]) for game, body in served]
        self.timeline.push(View(tuple(games), now))
        if self.on_publish is not None:
            self.on_publish()

    def wait(self, timeout: float) -> None:
        """Block until a port has something to read, a hall board sent something, or
        ``timeout`` seconds have passed."""
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
        for feed in self.feeds:
            feed.close()
        if self.store is not None:
            self.store.close()
