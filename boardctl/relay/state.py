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

Nothing wrong is published either. A record can pass its checksum and still be wrong (a
buggy or foreign sender): the relay plays every move on the rules core before it takes it.
A rule set it does not know, a start position that does not read, a move that is not legal
where it stands or comes from the side not to move, a snapshot whose moves do not play
through: each is refused, counted (``RelayState.refused``) and told in the relay's log (the
first ten, then every thousandth), and the game waits for the next snapshot, as after lost
lines. A board's PDN holds only moves that play, and the observers (the live page) are told
only the moves the PDN holds. Memory is bounded: :data:`MAX_SOURCES` feeds, :data:`GAMES_PER_SOURCE`
games each, :data:`MAX_MOVES` moves in all; beyond, records are left out and told.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from boardctl.relay.games import (
    RelayGame,
    _after,
    _clean,
    _details,
    _good_move,
    _looks,
    _num,
    _same,
)
from boardctl.relay.http import GameText, View
from firmware.errors import BoardError
from firmware.formats.feed import decode_line
from firmware.rules.game import RESULTS, parse_result, result_text
from firmware.rules.position import Position
from firmware.rules.sets import find_rules

__all__ = ["GAMES_PER_SOURCE", "MAX_MARKS", "MAX_MOVES", "MAX_SOURCES", "RelayState",
           "delayed_views"]

GameKey = str
#: Games one source may open (a hostile publisher inventing game ids is stopped there).
GAMES_PER_SOURCE = 100
#: Sources (ports, hall boards) followed at most: a hall's 200 boards five times over (a
#: hostile publisher inventing board names is stopped there).
MAX_SOURCES = 1000
#: Moves held in all: a 200-board hall's eleven rounds are about 330,000.
MAX_MOVES = 1_000_000


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

    def header(self, record: Mapping[str, Any], seq: Any) -> None:
        """A ``header`` line: the board's name (a serial feed's), its run, its rule set and
        the game it is on."""
        board, rules, game = record.get("board"), record.get("rules"), record.get("game")
        if isinstance(board, str) and _clean(board) and not self.topic:
            self.board = _clean(board)
        if not isinstance(record.get("run"), str):
            self.run = None
        self.seq = seq if isinstance(seq, int) else None
        self.rules = rules if isinstance(rules, str) else None
        if isinstance(game, str | int) and not isinstance(game, bool):
            self.game = _clean(str(game))[:80]

    def follow(self, run: Any) -> bool:
        """A line's ``run`` id: a new run of the board (it restarted) is known by it even when
        its header was lost (published while the relay was away); False for a late line of a
        run the board has left."""
        if not isinstance(run, str) or run == self.run:
            return True
        if run in self.retired:
            return False
        if self.run is not None:
            self.retired = [*self.retired[-7:], self.run]
        self.run, self.seq = run, None
        return True

    def repeat(self, seq: Any, kind: Any, grows: Callable[[], bool]) -> bool:
        """True for a line of this run taken already (``seq`` not past the last); else the
        line's ``seq`` is counted (a gap: lines lost, the next snapshot puts things right).

        MQTT delivers a QoS 1 message again after a lost acknowledgement, and a board that
        reconnects sends again what the broker may have missed. Taken twice, an old snapshot
        would wind its game back. A board that restarts says so: a header, a new run, and the
        run's id on every line it publishes to the broker; one whose lines carry no run id and
        whose header was lost starts with its game line, taken as a restart, and its snapshots
        are taken as long as they hold more than the relay has (``grows``)."""
        if not isinstance(seq, int):
            return False
        if (self.run is not None and self.seq is not None and seq <= self.seq
                and kind != "game" and not (kind == "snapshot" and grows())):
            return True
        if self.seq is not None and seq != self.seq + 1:
            self.lost += 1
        self.seq = seq
        return False


class RecordChecks:
    """What the rules core says of a game's rule set, start and moves, and the bound on the
    moves held: each record is applied to its game here, checked (:class:`RelayState` holds
    one and hands it the records of the games it keys). ``log`` is told what is refused."""

    def __init__(self, log: Callable[[str], None] | None) -> None:
        #: Records (or parts: a start position, a snapshot's moves) refused as wrong.
        self.refused = 0
        #: Moves held in all games (at most :data:`MAX_MOVES`).
        self.held = 0
        self.log = log

    def refuse(self, game: RelayGame, what: str) -> None:
        self.refused += 1
        n = self.refused
        self.tell(n, f"relay: board {game.board}, game {game.game}: {what} ({n} refused so "
                     "far)")

    def tell(self, n: int, message: str) -> None:
        """Log the ``n``-th message of a kind: the first ten, then every thousandth."""
        if self.log is not None and (n <= 10 or n % 1000 == 0):
            self.log(message)

    def hold(self, game: RelayGame, moves: list[dict[str, Any]]) -> bool:
        """Make ``moves`` the game's moves, within :data:`MAX_MOVES` in all."""
        more = len(moves) - len(game.moves)
        if self.held + more > MAX_MOVES:
            self.refuse(game, f"moves refused: the relay holds {self.held} moves already")
            return False
        self.held += more
        game.moves = moves
        return True

    def setup(self, game: RelayGame, record: Mapping[str, Any]) -> bool:
        """Take a record's rule set, start position, time control and tags; True when the
        rule set or the start position changed (the moves must be played again)."""
        rules, start_fen = game.rules, game.start_fen
        name = record.get("rules")
        if isinstance(name, str):
            try:
                rules = find_rules(name).name
            except BoardError:
                self.refuse(game, f"unknown rule set {_clean(name)[:40]!r} refused")
        fen = record.get("start_fen", record.get("fen") if record.get("type") == "game" else None)
        if isinstance(fen, str) and _clean(fen):
            if rules is None:
                self.refuse(game, "a start position without a rule set refused")
            else:
                try:
                    start = Position.from_fen(rules, _clean(fen))
                    start_fen = None if start == Position.start(rules) else start.fen()
                except (BoardError, ValueError) as exc:
                    self.refuse(game, f"start position refused: {exc}")
        _details(game, record)
        if rules is not None and rules != game.rules and start_fen == game.start_fen:
            start_fen = None  # a new rule set without a start position: its own start
        changed = (rules, start_fen) != (game.rules, game.start_fen)
        game.rules, game.start_fen = rules, start_fen
        return changed

    def recheck(self, game: RelayGame) -> None:
        """The moves played again after the rule set or the start position changed: those
        that no longer play are dropped until a snapshot says what they are."""
        game.position = None
        if not game.moves:
            return
        played = self.play(game, game.moves, from_start=True, what="move")
        if played is None:
            return
        position, good = played
        if good < len(game.moves):
            self.hold(game, game.moves[:good])
            game.gap = True
        game.position = position

    def play(self, game: RelayGame, moves: list[dict[str, Any]], *, from_start: bool,
             what: str) -> tuple[Position, int] | None:
        """``moves`` played on the game (from its start, or on from its own moves when
        ``moves`` begins with them): the position after the moves that play and their count,
        the first that does not refused and told; None with no rule set known."""
        position = game.start()
        if position is None:
            self.refuse(game, f"{what} refused: no rule set known yet")
            return None
        first = 0
        known = game.moves
        if (not from_start and game.position is not None and len(known) <= len(moves)
                and all(_same(a, b) for a, b in zip(known, moves[:len(known)], strict=True))):
            position, first = game.position, len(known)
        for k in range(first, len(moves)):
            after = _after(position, moves[k], k + 1)
            if isinstance(after, str):
                self.refuse(game, f"{what} refused at ply {k + 1} "
                                  f"({moves[k].get('move')!r}): {after}")
                return position, k
            position = after
        return position, len(moves)

    def fits(self, game: RelayGame, result: str) -> bool:
        """A result in its rule set's form (2-0/1-1/0-2 on 100 squares, 1-0/½-½/0-1 on 64;
        0-0 in both: firmware.rules.game); another form refused and told."""
        if result not in RESULTS or result == "0-0" or game.rules is None:
            return True
        rules = find_rules(game.rules)
        if result == result_text(rules, parse_result(result)[0]):
            return True
        self.refuse(game, f"result {result} refused: {rules.name} writes "
                          f"{result_text(rules, parse_result(result)[0])}")
        return False

    def fen_stands(self, game: RelayGame, fen: str, position: Position | None) -> bool:
        """A snapshot without moves shows its ``fen`` (the live page): True when it is the
        position the game stands in, else the snapshot is refused (False)."""
        try:
            claimed = Position.from_fen(game.rules, fen) if game.rules else None
        except (BoardError, ValueError):
            claimed = None
        if position is not None and claimed == position:
            return True
        self.refuse(game, f"snapshot refused: its fen {fen[:60]!r} is not the position of "
                          "its start and moves")
        return False

    def apply(self, game: RelayGame, kind: Any, record: Mapping[str, Any]) -> bool:
        """A record of ``kind`` applied to ``game``, checked; True when the game changed."""
        if kind == "game":
            before = _looks(game)
            if self.setup(game, record):
                self.recheck(game)
            return _looks(game) != before
        if kind == "snapshot":
            return self.snapshot(game, record)
        if kind == "move":
            return self.move(game, record)
        if kind == "clock":  # the clocks now, on the last move's [%clock] (RelayGame)
            c = record.get("clock")
            run = record.get("running")
            white, black = (_num(c.get("white")), _num(c.get("black"))) if isinstance(
                c, dict) else (None, None)
            if white is None or black is None or not game.moves:
                return False
            since = (len(game.moves), white, black, run if run in ("white", "black") else "")
            changed = since != game.clock_since
            game.clock_since = since
            return changed
        if kind == "takeback":  # plies taken back: the game is published again, tags kept
            gone = _take_back(game, record.get("ply"))
            self.held -= gone
            return gone > 0
        if kind == "result":
            result = record.get("result")
            if isinstance(result, str) and not self.fits(game, result):
                return False
            if isinstance(result, str) and result in RESULTS and result != game.result:
                game.result = result
                game.reason = str(record.get("reason") or "")
                return True
        return False

    def snapshot(self, game: RelayGame, record: Mapping[str, Any]) -> bool:
        before = _looks(game)
        reset = self.setup(game, record)
        moves = record.get("moves")
        if moves is not None and not (isinstance(moves, list)
                                      and all(_good_move(m) for m in moves)):
            self.refuse(game, "snapshot's moves refused: not a list of move records")
            moves = ()
        if isinstance(moves, list):
            taken = [dict(m) for m in moves]
            played = self.play(game, taken, from_start=reset, what="snapshot")
            if played is not None and played[1] == len(taken) and self.hold(game, taken):
                game.position = played[0]
                game.gap = False
            elif reset:
                self.recheck(game)
        elif reset:
            self.recheck(game)
        fen = record.get("fen")
        if (moves is None or moves == []) and isinstance(fen, str) and _clean(fen) \
                and not self.fen_stands(game, _clean(fen), game.start() if moves == []
                                        or not game.moves else game.position):
            return _looks(game) != before  # nor its result taken
        result = record.get("result")
        if isinstance(result, str) and not self.fits(game, result):
            result = None
        game.result = result if isinstance(result, str) and result in RESULTS else None
        game.reason = str(record.get("reason") or "") if game.result else None
        return _looks(game) != before

    def move(self, game: RelayGame, record: Mapping[str, Any]) -> bool:
        if not _good_move(record):
            return False
        ply = record["ply"]
        if ply == len(game.moves) + 1 and not game.gap:
            keep = ("ply", "side", "move", "clock")
            move = {k: record[k] for k in keep if k in record}
            position = game.position
            if position is None:  # the first move, or the first after a change of rules
                played = self.play(game, game.moves, from_start=True, what="move")
                if played is None or played[1] < len(game.moves):
                    game.gap = True  # wait for the next snapshot
                    return False
                position = played[0]
            after = _after(position, move, ply)
            if isinstance(after, str):
                self.refuse(game, f"move refused at ply {ply} ({move['move']!r}): {after}")
                game.gap = True  # wait for the next snapshot
                return False
            if self.held >= MAX_MOVES:
                self.refuse(game, f"move refused: the relay holds {self.held} moves already")
                game.gap = True
                return False
            self.held += 1
            game.moves.append(move)
            game.position = after
            return True
        if ply > len(game.moves) + 1:
            game.gap = True  # lines were lost: wait for the next snapshot
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
        #: Called after every accepted record with (board name, record), on this state's
        #: thread (docs/HALL.md; the live page's view model subscribes here).
        self.observers: list[Callable[[str, Mapping[str, Any]], None]] = []

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
        record = decode_line(line)
        if record is None:
            if line.strip() if isinstance(line, str) else bytes(line).strip():
                self.dropped += 1
            return False
        return self.feed_record(source, record)

    def feed_record(self, source: str, record: Mapping[str, Any]) -> bool:
        """Take one decoded record from ``source``; True when the PDN changed."""
        src = self.source(source)
        if src.ignored:
            self.ignored += 1
            self.checks.tell(self.ignored, f"relay: {_clean(source)[:100]!r} not followed: "
                                           f"{MAX_SOURCES} feeds are followed already "
                                           f"({self.ignored} records ignored so far)")
            return False
        refused, beyond, repeats = self.checks.refused, self.beyond, self.repeats
        changed = self._record(src, record)
        kind = record.get("type")
        if ((kind == "move" and not changed)
                or (kind == "snapshot" and self.checks.refused != refused)
                or self.beyond != beyond or self.repeats != repeats):
            return changed  # the live page shows no move (nor game) the PDN does not hold
        for observer in self.observers:
            observer(src.name if src.topic else src.board, record)
        return changed

    def notify(self, board: str, record: Mapping[str, Any]) -> None:
        """Tell the observers a record that is not part of any game (a board's status)."""
        for observer in self.observers:
            observer(board, record)

    def _record(self, src: _Source, record: Mapping[str, Any]) -> bool:
        kind = record.get("type")
        seq = record.get("seq")
        run = record.get("run")
        if not src.follow(run):  # a late line of a run the board has left
            self.repeats += 1
            return False
        if kind == "header":
            src.header(record, seq)
            return False
        if src.repeat(seq, kind, lambda: _grows(self.games, src, record)):
            self.repeats += 1
            return False
        game_id = record.get("game")
        if isinstance(game_id, str | int) and not isinstance(game_id, bool):
            src.game = _clean(str(game_id))[:80]
        if src.game is None and kind == "move" and src.rules is not None:
            src.game = _clean(src.run or "1")[:80]  # a feed without game ids: its run's game
        if src.game is None:
            return False  # nothing to attach the record to until a game or snapshot line
        # Games are known by their id alone (unique per board and game): a board that comes
        # back on another port, or names itself only after its first lines, is the same game.
        # A hall board's games are known by its topic's name and the id.
        key = f"{src.name}/{src.game}" if src.topic else src.game
        game = self.games.get(key) or self._open(src, key, kind, record)
        if game is None:
            return False
        if src.board != src.name:
            game.board = src.board
        changed = self.checks.apply(game, kind, record)
        if changed:
            game.version += 1
            if not game.shown and (game.moves or game.result):
                _show(self, game)
        return changed

    def _open(self, src: _Source, key: str, kind: Any,
              record: Mapping[str, Any]) -> RelayGame | None:
        """A new game of ``src`` (a game, snapshot or first move line), within the bounds. The
        board's game before it, if it never had a move nor a result (announced before the
        round's setup came), is dropped: one game a game played. A feed that named its rules
        in its header but sends no game line (``boardctl replay --format feed``) starts from
        that rule set's standard position."""
        if kind not in ("game", "snapshot", "move") or (kind == "move"
                                                         and not _good_move(record)):
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
        if kind == "move":
            game.gap = record.get("ply") != 1
            if src.rules is not None:
                self.checks.setup(game, {"rules": src.rules})
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
        that changed: boardctl.relay.relay)."""
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


def _take_back(game: RelayGame, left: Any) -> int:
    """A takeback line's plies taken off ``game`` (``left``: the plies it keeps); 0 for one
    the game cannot have. The board's clock line (clocks stopped, or an engine game's player's
    still running) comes before its takeback line: it is the clocks after the plies left."""
    if not isinstance(left, int) or isinstance(left, bool) or not 0 <= left < len(game.moves):
        return 0
    stood = game.clock_since
    if stood is not None and stood[0] == len(game.moves):
        game.clock_since = (left, *stood[1:])
    gone = len(game.moves) - left
    del game.moves[left:]
    game.position = None  # the next move plays the game through again
    game.result = game.reason = None
    return gone


#: Changes of one game remembered (for the delayed view after a restart; the oldest go).
MAX_MARKS = 1000


def _mark(m: Any) -> bool:
    """A stored mark: [moves, result or null, wall time]."""
    return (isinstance(m, list) and len(m) == 3 and isinstance(m[0], int)
            and (m[1] is None or m[1] in RESULTS) and isinstance(m[2], int | float)
            and not isinstance(m[0], bool))


def delayed_views(state: RelayState, marks: Mapping[str, list[tuple[int, str | None, float]]],
                  now: float, delay: float) -> list[View]:
    """After a restart with a broadcast delay: the views of the last ``delay`` seconds rebuilt
    from each game's marks (when its moves and result came), so that the public view goes on
    from where it stood, showing nothing earlier than the delay allows and never less than
    before the restart. A game without marks counts as old (public at once)."""
    from dataclasses import replace

    cut = now - delay
    texts: dict[str, GameText] = {}
    changes: list[tuple[float, str, int, str | None]] = []
    for key, game in state.games.items():
        if not game.shown:
            continue
        known = marks.get(key) or [(len(game.moves), game.result, 0.0)]
        for n, result, t in known:
            changes.append((max(t, cut), key, min(n, len(game.moves)), result))
    changes.sort(key=lambda c: c[0])
    views: list[View] = []
    for t, key, n, result in changes:
        game = state.games[key]
        whole = (n, result) == (len(game.moves), game.result)
        shown = game
        if not whole:
            shown = replace(game, moves=game.moves[:n], result=result)
            setattr(shown, "clock_since", None)  # noqa: B010 (the clocks after the last move)
        if n == 0 and result is None:  # not played yet then: not served
            texts.pop(key, None)
        else:
            texts[key] = GameText(key, game.round_tag(), game.tags.get("Board") or game.board,
                                  shown.pdn(), t)
        view = View(tuple(texts[k] for k in state.games if k in texts), t)
        if views and t - views[-1].stamp < 1.0:
            views[-1] = view  # within a second, as the timeline keeps them
        else:
            views.append(view)
    return views


#: What the relay's store keeps of a game, beside its feed and id (boardctl.relay.store).


def _grows(games: Mapping[str, RelayGame], src: _Source, record: Mapping[str, Any]) -> bool:
    """A snapshot that cannot wind its game back: of a game not held, or one waiting for a
    snapshot, or holding more moves than the relay has."""
    game_id = record.get("game")
    ident = _clean(str(game_id))[:80] if isinstance(game_id, str | int) else src.game
    game = games.get(f"{src.name}/{ident}" if src.topic else str(ident))
    moves = record.get("moves")
    return game is None or game.gap or (isinstance(moves, list) and len(moves) > len(game.moves))
