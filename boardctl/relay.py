"""The relay on the broadcast PC: board feeds in, live multi-game PDNs out.

Each board's feed (``firmware.feed`` lines) arrives on a serial port (a USB gadget port, a
UART adapter, a pty, or any pySerial URL: boardctl.relay_serial) or, for a hall, from the MQTT
broker (boardctl.hall_relay, where a board is known by its topic's name). :class:`RelayState`
(pure: records in, PDN out) keeps every game it has heard of, with ``[%clock]`` comments and a
``Round "r.b"`` tag (round, then board); :class:`Relay` (the one state thread) reads the
sources, writes the PDN to a file atomically when it changes and hands a new view to the HTTP
servers (boardctl.relay_http: the hall, each round, 304s, a broadcast delay) and the pusher.

Nothing is lost when a board is unplugged and plugged back in, or when lines are damaged:
damaged lines are dropped (their checksum fails); moves carry their ply, so a move that does
not follow the last one known is held back as a gap, which the next ``snapshot`` (sent by the
board on every (re)connection and every few seconds) fills; a ``header`` with a new ``run``
tells that the board restarted and its ``seq`` starts again.
"""

from __future__ import annotations

import os
import re
import select
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from boardctl.relay_http import GameText, PdnServer, Timeline, View
from boardctl.relay_serial import MAX_LINE, LineSplitter, SerialFeed
from firmware.feed import decode_line
from firmware.game import RESULTS
from firmware.pdn import ClockReading, write_game
from firmware.position import Position

__all__ = ["MAX_LINE", "LineSplitter", "PdnServer", "Relay", "RelayGame", "RelayState",
           "SerialFeed", "Timeline", "View", "write_atomically"]

GameKey = str
#: Games one source may open (a hostile publisher inventing game ids is stopped there).
GAMES_PER_SOURCE = 100


@dataclass
class RelayGame:
    """One game as the relay knows it."""

    board: str
    game: str
    key: str = ""
    rules: str | None = None
    start_fen: str | None = None
    tags: dict[str, str] = field(default_factory=dict)
    time_control: str | None = None
    moves: list[dict[str, Any]] = field(default_factory=list)
    result: str | None = None
    reason: str | None = None
    running: str | None = None
    #: A move arrived that does not follow the last one: waiting for a snapshot.
    gap: bool = False
    #: Counts the changes to what the PDN is made of (the text cache's key).
    version: int = 0

    def round_tag(self) -> str:
        """``r.b``: the game's round and its board number (PDN ``Round`` for broadcasts)."""
        rnd = self.tags.get("Round", "").strip() or "?"
        if "." in rnd:
            return rnd
        board = self.tags.get("Board", "").strip() or self.board
        return f"{rnd}.{board}"

    def pdn(self) -> str:
        from firmware.rules import find_rules

        tags = dict(self.tags)
        tags.pop("Board", None)
        tags["Round"] = self.round_tag()
        if "/" in self.key:  # a hall board's game: its topic's name (docs/CONTRACT.md)
            tags["Board"] = self.board
        if self.time_control:
            tags.setdefault("TimeControl", self.time_control)
        game_type = None
        start_fen = self.start_fen
        if self.rules:
            try:
                rules = find_rules(self.rules)
            except Exception:  # an unknown rule set on the wire: keep the game, drop the type
                rules = None
            if rules is not None:
                game_type = rules.game_type
                if start_fen is not None and start_fen == Position.start(rules).fen():
                    start_fen = None
        clocks: list[ClockReading | None] = []
        for m in self.moves:
            c = m.get("clock")
            if isinstance(c, dict):
                mover = m.get("side")
                running = "black" if mover == "white" else "white"
                clocks.append(ClockReading(_num(c.get("white")), _num(c.get("black")), running))
            else:
                clocks.append(None)
        return write_game(
            tags,
            [str(m.get("move")) for m in self.moves],
            start_fen=start_fen,
            clocks=clocks if any(clocks) else None,
            result=self.result or "*",
            game_type=game_type,
        )


def _num(value: Any) -> float | None:
    """A clock reading in seconds, or None for anything that is not one."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value) if 0 <= value < 1e7 else None


@dataclass
class _Source:
    name: str
    board: str
    run: str | None = None
    seq: int | None = None
    game: str | None = None
    lost: int = 0
    #: A hall board: its name is its MQTT topic's, and its games are keyed by it.
    topic: bool = False
    games: int = 0


class RelayState:
    """Every game heard of, built from decoded feed records. Pure: no I/O, no clock."""

    def __init__(self) -> None:
        self.games: dict[GameKey, RelayGame] = {}
        self._sources: dict[str, _Source] = {}
        self._texts: dict[str, tuple[Any, str]] = {}
        self.dropped = 0
        #: Called after every accepted record with (board name, record), on this state's
        #: thread (docs/HALL.md; the live page's view model subscribes here).
        self.observers: list[Callable[[str, Mapping[str, Any]], None]] = []

    def source(self, name: str, topic: bool = False) -> _Source:
        """A feed's source; ``topic``: a hall board named by its MQTT topic (its games are
        told apart by that name, whatever ids its lines carry)."""
        src = self._sources.get(name)
        if src is None:
            src = self._sources[name] = _Source(name=name, board=name, topic=topic)
        return src

    def feed_line(self, source: str, line: str | bytes) -> bool:
        """Take one raw line from ``source``; True when the PDN changed."""
        record = decode_line(line)
        if record is None:
            if line.strip() if isinstance(line, str) else bytes(line).strip():
                self.dropped += 1
            return False
        return self.feed_record(source, record)

    def feed_record(self, source: str, record: Mapping[str, Any]) -> bool:
        """Take one decoded record from ``source``; True when the PDN changed."""
        src = self.source(source)
        changed = self._record(src, record)
        for observer in self.observers:
            observer(src.board, record)
        return changed

    def notify(self, board: str, record: Mapping[str, Any]) -> None:
        """Tell the observers a record that is not part of any game (a board's status)."""
        for observer in self.observers:
            observer(board, record)

    def _record(self, src: _Source, record: Mapping[str, Any]) -> bool:
        kind = record.get("type")
        seq = record.get("seq")
        if kind == "header":
            board, run = record.get("board"), record.get("run")
            if isinstance(board, str) and _clean(board) and not src.topic:
                src.board = _clean(board)
            src.run = run if isinstance(run, str) else None
            src.seq = seq if isinstance(seq, int) else None
            return False
        if isinstance(seq, int):
            if src.seq is not None and seq != src.seq + 1:
                src.lost += 1  # lines lost: the next snapshot puts things right
            src.seq = seq
        game_id = record.get("game")
        if isinstance(game_id, str | int) and not isinstance(game_id, bool):
            src.game = _clean(str(game_id))[:80]
        if src.game is None:
            return False  # nothing to attach the record to until a game or snapshot line
        # Games are known by their id alone (unique per board and game): a board that comes
        # back on another port, or names itself only after its first lines, is the same game.
        # A hall board's games are known by its topic's name and the id.
        key = f"{src.name}/{src.game}" if src.topic else src.game
        game = self.games.get(key)
        if game is None:
            if kind not in ("game", "snapshot", "move") or (kind == "move"
                                                             and not _good_move(record)):
                return False
            if src.games >= GAMES_PER_SOURCE:
                self.dropped += 1
                return False
            src.games += 1
            game = self.games[key] = RelayGame(board=src.board, game=src.game, key=key)
            if kind == "move":
                game.gap = record.get("ply") != 1
        if src.board != src.name:
            game.board = src.board
        changed = self._apply(game, kind, record)
        if changed:
            game.version += 1
        return changed

    def _apply(self, game: RelayGame, kind: Any, record: Mapping[str, Any]) -> bool:
        if kind == "game":
            return self._game(game, record)
        if kind == "snapshot":
            return self._snapshot(game, record)
        if kind == "move":
            return self._move(game, record)
        if kind == "result":
            result = record.get("result")
            if isinstance(result, str) and result in RESULTS and result != game.result:
                game.result = result
                game.reason = str(record.get("reason") or "")
                return True
        return False

    @staticmethod
    def _game(game: RelayGame, record: Mapping[str, Any]) -> bool:
        before = _looks(game)
        _setup(game, record)
        return _looks(game) != before

    @staticmethod
    def _snapshot(game: RelayGame, record: Mapping[str, Any]) -> bool:
        before = _looks(game)
        _setup(game, record)
        moves = record.get("moves")
        if isinstance(moves, list) and all(_good_move(m) for m in moves):
            game.moves = [dict(m) for m in moves]
            game.gap = False
        result = record.get("result")
        game.result = result if isinstance(result, str) and result in RESULTS else None
        game.reason = str(record.get("reason") or "") if game.result else None
        return _looks(game) != before

    @staticmethod
    def _move(game: RelayGame, record: Mapping[str, Any]) -> bool:
        if not _good_move(record):
            return False
        ply = record["ply"]
        if ply == len(game.moves) + 1 and not game.gap:
            keep = ("ply", "side", "move", "clock")
            game.moves.append({k: record[k] for k in keep if k in record})
            return True
        if ply > len(game.moves) + 1:
            game.gap = True  # lines were lost: wait for the next snapshot
        return False

    def pdn(self) -> str:
        """All the games, in the order first heard of, as one PDN text."""
        return "".join(text for _, text in self.texts())

    def texts(self) -> list[tuple[RelayGame, str]]:
        """Each game with its PDN text, in the order first heard of (each text is kept until
        that game changes: a tournament's relay rewrites only what moved)."""
        out = []
        for key, game in self.games.items():
            looks = (game.version, game.board)
            cached = self._texts.get(key)
            if cached is None or cached[0] != looks:
                cached = self._texts[key] = (looks, game.pdn())
            out.append((game, cached[1]))
        return out


def _looks(game: RelayGame) -> tuple[Any, ...]:
    """Everything the game's PDN is made of (cheaper to compare than the PDN itself)."""
    return (game.rules, game.start_fen, dict(game.tags), game.time_control,
            [dict(m) for m in game.moves], game.result)


def _setup(game: RelayGame, record: Mapping[str, Any]) -> None:
    rules = record.get("rules")
    if isinstance(rules, str):
        game.rules = rules
    fen = record.get("start_fen", record.get("fen") if record.get("type") == "game" else None)
    if isinstance(fen, str) and _clean(fen):
        game.start_fen = _clean(fen)
    tc = record.get("time_control")
    if isinstance(tc, str) and _clean(tc):
        game.time_control = _clean(tc)
    tags = record.get("tags")
    if isinstance(tags, dict) and not game.moves:  # a started game keeps its tags
        game.tags = {k: _clean(str(v)) for k, v in tags.items()
                     if isinstance(k, str) and _TAG.fullmatch(k) and isinstance(v, str | int)}


def _clean(text: str) -> str:
    """Text fit for a PDN tag value: no control characters, at most 200 characters."""
    return "".join(ch for ch in text if ch >= " " and ch != "\x7f")[:200]


_TAG = re.compile(r"[A-Za-z][A-Za-z0-9_]{0,39}")
_MOVE = re.compile(r"[a-j0-9]{1,3}(?:[-x:][a-j0-9]{1,3}){1,25}")


def _good_move(m: Any) -> bool:
    """A move record a PDN can carry: its ply, its side and a move in PDN notation."""
    return (
        isinstance(m, dict)
        and isinstance(m.get("ply"), int)
        and not isinstance(m.get("ply"), bool)
        and 1 <= m["ply"] <= 10_000
        and isinstance(m.get("move"), str)
        and _MOVE.fullmatch(m["move"]) is not None
        and m.get("side") in ("white", "black")
    )


def write_atomically(path: Path, text: str) -> None:
    """Replace ``path`` by ``text`` so that a reader sees the old file or the new, never half."""
    path = Path(path)
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent or Path("."))
    except OSError as exc:  # name the file the user gave, not the temporary one
        raise OSError(exc.errno, f"cannot write: {exc.strerror}", str(path)) from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


class Relay:
    """Reads the feeds (serial ports, and a hall's boards through ``hall``, a
    :class:`boardctl.hall_relay.HallFollower`), keeps the state, writes the file, hands each
    new :class:`View` to the HTTP servers' :class:`Timeline` and wakes the pusher."""

    def __init__(self, urls: Sequence[str], out: Path | None = None,
                 server: PdnServer | None = None,
                 now: Callable[[], float] = time.monotonic, *,
                 hall: Any = None, timeline: Timeline | None = None,
                 wall: Callable[[], float] = time.time,
                 on_publish: Callable[[], None] | None = None) -> None:
        self.feeds = [SerialFeed(url, now=now) for url in urls]
        self.state = RelayState()
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
        changed = False
        for feed in self.feeds:
            for line in feed.read_lines():
                changed |= self.state.feed_line(feed.name, line)
        if self.hall is not None:
            for board, payload in self.hall.drain():
                self.state.source(board, topic=True)
                damaged = self.state.dropped
                changed |= self.state.feed_line(board, payload)
                if self.state.dropped != damaged:
                    self.hall.damaged(board)
            for board, up in self.hall.drain_status():
                status = "online" if up else "offline"
                self.state.notify(board, {"type": "status", "status": status})
        if changed or self._published is None:
            self.publish()
        return changed

    @property
    def text(self) -> str:
        """Every game as PDN, as last published (live, never delayed; safe from any thread)."""
        return self._published or ""

    def publish(self) -> None:
        texts = self.state.texts()
        text = "".join(t for _, t in texts)
        if text == self._published:
            return
        self._published = text
        if self.out is not None:  # the file first: what HTTP serves is on disk already
            write_atomically(self.out, text)
            self.writes += 1
        now = self.wall()
        games = []
        for game, body in texts:
            key = game.key or game.game
            seen = self._changed.get(key)
            if seen is None or seen[0] != body:
                seen = self._changed[key] = (body, now)
            games.append(GameText(key, game.round_tag(), game.tags.get("Board") or game.board,
                                  body, seen[1]))
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
