"""The relay's state: records in, PDN out (pure: no I/O). :class:`RelayState` keeps every
game it has heard of, with ``[%clock]`` comments and a ``Round "r.b"`` tag (round, then board),
each feed's runs and ``seq`` (boardctl.relay.relay reads the feeds and publishes).

Nothing is lost when a board is unplugged and plugged back in, or when lines are damaged:
damaged lines are dropped (their checksum fails); moves carry their ply, so a move that does
not follow the last one known is held back as a gap, which the next ``snapshot`` (sent by the
board on every (re)connection and every few seconds) fills; a ``header`` with a new ``run``
tells that the board restarted and its ``seq`` starts again. A line whose ``seq`` is not past
the last of its run is a repeat (MQTT's QoS 1 delivers again; a reconnecting board sends again
what the broker may have missed), not taken twice: an old snapshot would wind its game back.

Nothing wrong is published either: each record is read once at the edge
(``firmware.formats.reader``: a line that does not read is dropped and counted, a record of
the wrong kind refused and told) and applied to its game checked on the rules core
(boardctl.relay.checks). A board's PDN holds only moves that play, and the observers (the live
page) are told only the moves the PDN holds, each with the position the rules core found.
Memory is bounded: :data:`MAX_SOURCES` feeds, :data:`GAMES_PER_SOURCE` games each,
``checks.MAX_MOVES`` moves in all; beyond, records are left out and told. The delayed views
after a restart are boardctl.relay.delayed.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from boardctl.relay.checks import RecordChecks
from boardctl.relay.games import (
    RelayGame,
    _clean,
)
from firmware.formats.reader import FeedLine, Refusal, read_line
from firmware.formats.records import (
    FeedRecord,
    GameRecord,
    HeaderRecord,
    MoveRecord,
    SnapshotRecord,
)

__all__ = ["GAMES_PER_SOURCE", "MAX_SOURCES", "RelayState"]

GameKey = str
#: Games one source may open (a hostile publisher inventing game ids is stopped there).
GAMES_PER_SOURCE = 100
#: Sources (ports, hall boards) followed at most: a hall's 200 boards five times over (a
#: hostile publisher inventing board names is stopped there).
MAX_SOURCES = 1000

@dataclass
class _Source:
    name: str
    board: str
    run: str | None = None
    #: Runs this feed has left (a board restarted): their late lines are repeats.
    retired: list[str] = field(default_factory=list)
    seq: int | None = None
    game: str | None = None
    lost: int = 0
    #: A hall board: its name is its MQTT topic's, and its games are keyed by it.
    topic: bool = False
    games: int = 0
    #: Not followed: :data:`MAX_SOURCES` were followed already.
    ignored: bool = False
    #: The rule set its header names, and the key of its newest game.
    rules: str | None = None
    last: str | None = None

    def header(self, record: HeaderRecord, seq: int) -> None:
        """A ``header`` line: the board's name (a serial feed's), its run, its rule set and
        the game it is on."""
        if _clean(record.board) and not self.topic:
            self.board = _clean(record.board)
        self.seq = seq
        self.rules = record.rules
        if record.game is not None:
            self.game = _clean(record.game)[:80]

    def follow(self, run: str | None) -> bool:
        """A line's ``run`` id: a new run of the board (it restarted) is known by it even when
        its header was lost (published while the relay was away); False for a late line of a
        run the board has left."""
        if run is None or run == self.run:
            return True
        if run in self.retired:
            return False
        if self.run is not None:
            self.retired = [*self.retired[-7:], self.run]
        self.run, self.seq = run, None
        return True

    def repeat(self, seq: int, record: object, grows: Callable[[], bool]) -> bool:
        """True for a line of this run taken already (``seq`` not past the last); else the
        line's ``seq`` is counted (a gap: lines lost, the next snapshot puts things right).

        MQTT delivers a QoS 1 message again after a lost acknowledgement, and a board that
        reconnects sends again what the broker may have missed. Taken twice, an old snapshot
        would wind its game back. A board that restarts says so: a header, a new run, and the
        run's id on every line it publishes to the broker; one whose lines carry no run id and
        whose header was lost starts with its game line, taken as a restart, and its snapshots
        are taken as long as they hold more than the relay has (``grows``)."""
        if (self.run is not None and self.seq is not None and seq <= self.seq
                and not isinstance(record, GameRecord)
                and not (isinstance(record, SnapshotRecord) and grows())):
            return True
        if self.seq is not None and seq != self.seq + 1:
            self.lost += 1
        self.seq = seq
        return False


class RelayState:
    """Every game heard of, built from decoded feed records: the feeds and their games here,
    each record applied and checked by :attr:`checks` (:class:`RecordChecks`). Pure: no I/O,
    no clock; ``log`` is told what it refuses (module docstring)."""

    def __init__(self, log: Callable[[str], None] | None = None) -> None:
        self.games: dict[GameKey, RelayGame] = {}
        self._sources: dict[str, _Source] = {}
        self._texts: dict[str, tuple[Any, str]] = {}
        self.dropped = 0
        #: Records from sources beyond :data:`MAX_SOURCES`, not followed.
        self.ignored = 0
        #: Records of games beyond :data:`GAMES_PER_SOURCE` on their feed, not followed.
        self.beyond = 0
        #: Lines of a board's run taken already (their ``seq`` is not past the last one).
        self.repeats = 0
        self.checks = RecordChecks(log)
        self._beyond = _Source(name="", board="", ignored=True)
        self._order = 0
        #: Called after every accepted record with (board name, record as taken: a move's and
        #: a snapshot's moves' positions found by the rules core, the game's id its line
        #: names), on this state's thread (docs/HALL.md; the live page's view model
        #: subscribes here).
        self.observers: list[Callable[[str, FeedRecord, str | None], None]] = []

    @property
    def refused(self) -> int:
        """Records (or parts of them) refused as wrong (:attr:`RecordChecks.refused`)."""
        return self.checks.refused

    @property
    def held(self) -> int:
        """Moves held in all games (:attr:`RecordChecks.held`)."""
        return self.checks.held

    @property
    def log(self) -> Callable[[str], None] | None:
        """Where refusals and records left out are told (the relay's log)."""
        return self.checks.log

    @log.setter
    def log(self, log: Callable[[str], None] | None) -> None:
        self.checks.log = log

    def source(self, name: str, topic: bool = False) -> _Source:
        """A feed's source; ``topic``: a hall board named by its MQTT topic (its games are
        told apart by that name, whatever ids its lines carry)."""
        src = self._sources.get(name)
        if src is None:
            if len(self._sources) >= MAX_SOURCES:
                return self._beyond
            # A hall board followed among several halls is named HALL/BOARD: its PDN says BOARD.
            board = name.rpartition("/")[2] if topic else name
            src = self._sources[name] = _Source(name=name, board=board, topic=topic)
        return src

    def feed_line(self, source: str, line: str | bytes) -> bool:
        """Take one raw line from ``source``; True when the PDN changed."""
        read = read_line(line)
        if isinstance(read, Refusal):
            if line.strip() if isinstance(line, str) else bytes(line).strip():
                self.dropped += 1
            return False
        return self.feed_record(source, read)

    def feed_record(self, source: str, line: FeedLine) -> bool:
        """Take one line read (``firmware.formats.reader``) from ``source``; True when the PDN
        changed."""
        src = self.source(source)
        if src.ignored:
            self.ignored += 1
            self.checks.tell(self.ignored, f"relay: {_clean(source)[:100]!r} not followed: "
                                           f"{MAX_SOURCES} feeds are followed already "
                                           f"({self.ignored} records ignored so far)")
            return False
        checks = self.checks
        checks.positions = bool(self.observers)
        refused, beyond, repeats = checks.refused, self.beyond, self.repeats
        changed, taken = self._record(src, line)
        if (taken is None or (isinstance(taken, MoveRecord) and not changed)
                or (isinstance(taken, SnapshotRecord) and checks.refused != refused)
                or self.beyond != beyond or self.repeats != repeats):
            return changed  # the live page shows no move (nor game) the PDN does not hold
        for observer in self.observers:
            observer(src.name if src.topic else src.board, taken, line.game)
        return changed

    def notify(self, board: str, record: FeedRecord) -> None:
        """Tell the observers a record that is not part of any game (a board's status)."""
        for observer in self.observers:
            observer(board, record, None)

    def _record(self, src: _Source, line: FeedLine) -> tuple[bool, FeedRecord | None]:
        """A line of ``src`` applied: whether the PDN changed, and the record as taken (None:
        refused, nothing to tell)."""
        record = line.record
        if not src.follow(line.run):  # a late line of a run the board has left
            self.repeats += 1
            return False, None
        if isinstance(record, HeaderRecord):
            src.header(record, line.seq)
            return False, record
        if src.repeat(line.seq, record, lambda: _grows(self.games, src, line)):
            self.repeats += 1
            return False, None
        if isinstance(record, Refusal):
            self._refuse(src, line.seq, record)
            return False, None
        if line.game is not None:
            src.game = _clean(line.game)[:80]
        if src.game is None and isinstance(record, MoveRecord) and src.rules is not None:
            src.game = _clean(src.run or "1")[:80]  # a feed without game ids: its run's game
        if src.game is None:
            return False, record  # nothing to attach it to until a game or snapshot line
        # Games are known by their id alone (unique per board and game): a board that comes
        # back on another port, or names itself only after its first lines, is the same game.
        # A hall board's games are known by its topic's name and the id.
        key = f"{src.name}/{src.game}" if src.topic else src.game
        game = self.games.get(key) or self._open(src, key, record)
        if game is None:
            return False, record
        if src.board != src.name:
            game.board = src.board
        changed, taken = self.checks.apply(game, record)
        if changed:
            game.version += 1
            if not game.shown and (game.moves or game.result):
                _show(self, game)
        return changed, taken

    def _refuse(self, src: _Source, seq: int, refusal: Refusal) -> None:
        """A line whose framing reads but whose record does not: counted and told."""
        checks = self.checks
        checks.refused += 1
        n = checks.refused
        checks.tell(n, f"relay: board {src.board}: line {seq}: {refusal.reason} "
                       f"({refusal.kind.value}; {n} refused so far)")

    def _open(self, src: _Source, key: str, record: object) -> RelayGame | None:
        """A new game of ``src`` (a game, snapshot or first move line), within the bounds. The
        board's game before it, if it never had a move nor a result (announced before the
        round's setup came), is dropped: one game a game played. A feed that named its rules
        in its header but sends no game line (``boardctl replay --format feed``) starts from
        that rule set's standard position."""
        if not isinstance(record, GameRecord | SnapshotRecord | MoveRecord):
            return None
        last = self.games.get(src.last) if src.last else None
        if last is not None and not last.moves and last.result is None:
            del self.games[last.key]
            self._texts.pop(last.key, None)
            src.games -= 1
        if src.games >= GAMES_PER_SOURCE:
            self.beyond += 1
            self.checks.tell(self.beyond, f"relay: {_clean(src.name)[:100]!r}: game "
                                          f"{src.game!r} not followed: {GAMES_PER_SOURCE} games "
                                          f"from this feed are followed already ({self.beyond} "
                                          "records left out so far)")
            return None
        src.games += 1
        src.last = key
        game = self.games[key] = RelayGame(board=src.board, game=str(src.game), key=key,
                                           source=src.name, order=self._order)
        self._order += 1
        if isinstance(record, MoveRecord):
            game.gap = record.ply != 1
            if src.rules is not None:
                self.checks.setup(game, src.rules, None)
        return game

    def pdn(self) -> str:
        """The games played (a move or a result), in the order each was first, as one PDN."""
        return "".join(text for game, text in self.texts() if game.shown)

    def texts(self) -> list[tuple[RelayGame, str]]:
        """Each game with its PDN text, in the order first heard of (each text is kept until
        that game changes: a tournament's relay rewrites only what moved)."""
        return [(game, self.text(game)) for game in self.games.values()]

    def text(self, game: RelayGame) -> str:
        """One game's PDN text, kept until the game changes (the relay asks only for the games
        that changed: boardctl.relay.changes)."""
        looks = (game.version, game.board)
        cached = self._texts.get(game.key)
        if cached is None or cached[0] != looks:
            cached = self._texts[game.key] = (looks, game.pdn())
        return cached[1]

    def adopt(self, src: _Source, game: RelayGame, text: str | None) -> None:
        """A game a former run kept (boardctl.relay.restore), taken in as the newest of
        ``src``'s and of all (its ``order`` kept when it is past every game's: the store's
        records say it), with its PDN ``text`` as kept (None: written anew when served)."""
        game.order = max(game.order, self._order)
        self._order = game.order + 1
        self.games[game.key] = game
        src.games, src.game, src.last = src.games + 1, game.game, game.key
        if text is not None:
            self._texts[game.key] = ((game.version, game.board), text)


def _show(state: RelayState, game: RelayGame) -> None:
    """A game's first move (or its result): from now on it is served, in the place it takes
    now, after every game served before it, and keeps that place (a broadcast site matches
    games to its chapters by their place in the file)."""
    game.shown = True
    game.order = state._order
    state._order += 1
    state.games[game.key] = state.games.pop(game.key)


def _grows(games: Mapping[str, RelayGame], src: _Source, line: FeedLine) -> bool:
    """A snapshot that cannot wind its game back: of a game not held, or one waiting for a
    snapshot, or holding more moves than the relay has."""
    ident = _clean(line.game)[:80] if line.game is not None else src.game
    game = games.get(f"{src.name}/{ident}" if src.topic else str(ident))
    moves = line.record.moves if isinstance(line.record, SnapshotRecord) else None
    return game is None or game.gap or (moves is not None and len(moves) > len(game.moves))
