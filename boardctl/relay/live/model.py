"""The live page's view model: feed records in, each board's view out. Pure: no I/O, no clock.

Every record is taken with ``now``, the (wall-clock) second it reached the relay, and every
change is kept with that time, so that :meth:`LiveHall.view` can show a board as it stood at any
instant: the arbiter sees ``now``, the public page ``now - delay`` (the anti-cheating broadcast
delay of issue 13 ``--delay``), from the same state and with bounded memory (the moves of the
game, and the last :data:`KEEP_MARKS` badge changes and clock readings of each board).

Records are the broadcast feed's, typed (``firmware.formats.records``: header, game, move,
snapshot, irregularity, cleared, position, clock, result, adjourned, takeback), as the relay
took them: a move's ``fen`` and a snapshot's moves' are the positions the relay's rules core
found when it played them (boardctl.relay.checks), so the page draws them without playing the
moves again (only a snapshot of a game a former run of the relay kept, whose moves were not
played since, is played here, :func:`boardctl.relay.live.diagram.replay`); plus a
``StatusRecord`` for a board's MQTT status (or the relay's own silence watch,
:meth:`LiveHall.silent`). Each class has its step (``_HANDLERS``); a record no step names is
skipped.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from boardctl.relay.live.diagram import move_view, pieces, replay, rule_set
from firmware.formats.reader import dispatch
from firmware.formats.records import (
    AdjournedRecord,
    ClearedRecord,
    ClockRecord,
    FeedRecord,
    GameRecord,
    HeaderRecord,
    IrregularityRecord,
    MoveRecord,
    PositionRecord,
    ResultRecord,
    SnapshotRecord,
    StatusRecord,
    TakeBackRecord,
)
from firmware.pdn.tags import fit_tags
from firmware.rules.game import RESULTS
from firmware.rules.position import Position

#: Badge changes and clock readings kept per board (enough for an hour's delay of a busy game).
KEEP_MARKS = 1024
#: Boards shown at most (a hall has up to a few hundred; more is someone flooding topics).
MAX_BOARDS = 1000
#: Plies a game may have (as the relay's PDN keeps them).
MAX_PLY = 10_000
#: Entries of the arbiter's event log, all boards together.
KEEP_LOG = 2000
#: A board name as a page (and an MQTT topic) carries it.
BOARD_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")


@dataclass
class SeenMove:
    """One move of a game, with the second it reached the relay and the position after it."""

    t: float
    ply: int
    side: str
    move: str
    fen: str | None
    clock: tuple[float, float] | None


@dataclass(frozen=True)
class ClockReading:
    """The clocks as a record gave them at second ``t``; ``running`` counts down from there."""

    t: float
    white: float
    black: float
    running: str | None


@dataclass(frozen=True)
class Mark:
    """A badge change (and an arbiter log entry): irregularity, cleared, position, flag,
    result, offline, online, paused, resumed, started, adjourned."""

    t: float
    kind: str
    text: str
    side: str | None = None


@dataclass
class LiveBoard:
    """One board of the hall and the game on it."""

    name: str
    game: str | None = None
    rules: str | None = None
    start_fen: str | None = None
    time_control: str | None = None
    tags: dict[str, str] = field(default_factory=dict)
    moves: list[SeenMove] = field(default_factory=list)
    readings: deque[ClockReading] = field(default_factory=lambda: deque(maxlen=KEEP_MARKS))
    marks: deque[Mark] = field(default_factory=lambda: deque(maxlen=KEEP_MARKS))
    result: tuple[float, str, str] | None = None
    position: tuple[float, str] | None = None
    last_heard: float = 0.0

    def size(self) -> int:
        rules = rule_set(self.rules)
        return rules.size if rules is not None else 10


def _num(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value) if 0 <= value < 1e7 else None


def _clock(value: Mapping[str, float] | None) -> tuple[float, float] | None:
    if value is None:
        return None
    white, black = _num(value.get("white")), _num(value.get("black"))
    return (white, black) if white is not None and black is not None else None


def _text(value: Any, limit: int = 120) -> str:
    return "".join(ch for ch in str(value) if ch >= " " and ch != "\x7f")[:limit]


class HallRecords:
    """The hall as the feed records tell it: each board's game, moves with the times they were
    seen, clocks, marks, results; status and silence of the boards (the records in: the part
    :class:`LiveHall` holds)."""

    def __init__(self) -> None:
        self.boards: dict[str, LiveBoard] = {}
        self.log: deque[tuple[float, str, Mark]] = deque(maxlen=KEEP_LOG)
        #: Entries ever logged (the log keeps the last KEEP_LOG).
        self.logged = 0
        self._names: dict[str, str] = {}

    def board_name(self, source: str, record: FeedRecord) -> str:
        """The board a source speaks for: an MQTT source is the topic's BOARD already; a serial
        port (a path or URL) is named by its feed's ``header``."""
        if BOARD_NAME.fullmatch(source):
            return source
        if isinstance(record, HeaderRecord):
            name = re.sub(r"[^A-Za-z0-9_-]", "-", record.board)[:64]
            if name:
                self._names[source] = name
        return self._names.get(source) or re.sub(r"[^A-Za-z0-9_-]", "-", source)[-64:] or "-"

    def feed(self, source: str, record: FeedRecord, now: float,
             game: str | None = None) -> str | None:
        """Take one record heard at second ``now`` (``game``: the id its line names); the
        board's name when its view changed."""
        name = self.board_name(source, record)
        board = self.boards.get(name)
        if board is None:
            if not isinstance(record, _OPENS) or len(self.boards) >= MAX_BOARDS:
                return None
            board = self.boards[name] = LiveBoard(name)
        board.last_heard = now
        if isinstance(record, StatusRecord):  # the board's MQTT status (retained, last will)
            status = record.status
            return name if status in ("online", "offline") and self.status(
                name, status == "online", now) else None
        if board.marks and board.marks[-1].kind == "offline":
            self._mark(board, Mark(now, "online", "back online"))
        if game is not None and game != board.game:
            if not isinstance(record, GameRecord | SnapshotRecord) and not (
                    isinstance(record, MoveRecord) and record.ply == 1):
                # an old game's line, or a stray one
                return name if isinstance(record, HeaderRecord) else None
            self._new_game(board, game, now)
        if dispatch(record, _HANDLERS, self, board, now) is None:
            return None
        return name

    def status(self, name: str, online: bool, now: float) -> bool:
        """A board's online/offline status (MQTT retained status, or silence); True when new."""
        board = self.boards.get(name)
        if board is None:
            return False
        offline = bool(board.marks) and board.marks[-1].kind == "offline"
        if offline == (not online):
            return False
        self._mark(board, Mark(now, "online" if online else "offline",
                               "back online" if online else "offline: no line heard"))
        return True

    def silent(self, now: float, after: float) -> list[str]:
        """Boards not heard of for ``after`` seconds (snapshots come every 10 s at least), now
        marked offline; their names."""
        return [name for name, b in self.boards.items()
                if now - b.last_heard > after and self.status(name, False, now)]

    def _new_game(self, board: LiveBoard, game: str, now: float) -> None:
        board.game = game
        board.moves = []
        board.result = None
        board.position = None
        board.readings.clear()
        board.start_fen = None
        self._mark(board, Mark(now, "cleared", "new game"))

    def _mark(self, board: LiveBoard, mark: Mark) -> None:
        board.marks.append(mark)
        if mark.text != "new game":
            self.log.append((mark.t, board.name, mark))
            self.logged += 1

    def _read(self, board: LiveBoard, now: float, clock: Any, running: Any,
              tolerance: float = 0.0) -> None:
        """A clock reading; one within ``tolerance`` seconds of what the last reading gives
        by now (a snapshot's routine one) changes nothing and is not kept."""
        values = _clock(clock)
        if values is None:
            return
        run = running if running in ("white", "black") else None
        last = board.readings[-1] if board.readings else None
        if last is not None and last.running == run and tolerance > 0:
            spent = now - last.t
            white = last.white - (spent if run == "white" else 0)
            black = last.black - (spent if run == "black" else 0)
            if abs(white - values[0]) <= tolerance and abs(black - values[1]) <= tolerance:
                return
        board.readings.append(ClockReading(now, values[0], values[1], run))

    def _setup(self, board: LiveBoard, rules: str | None, start_fen: str | None,
               time_control: Any, tags: Mapping[str, str] | None) -> None:
        if rules is not None and rule_set(rules) is not None:
            board.rules = rules
        if start_fen is not None and start_fen.strip():
            board.start_fen = _text(start_fen, 400)
        if isinstance(time_control, str):
            board.time_control = _text(time_control, 60)
        if tags is not None:  # a PDN's tags, as the relay keeps them
            board.tags = fit_tags(tags)

    def _on_game(self, record: GameRecord, board: LiveBoard, now: float) -> bool:
        self._setup(board, record.rules, record.fen, record.time_control, record.tags)
        return True

    def _on_move(self, record: MoveRecord, board: LiveBoard, now: float) -> bool:
        ply, side, move = record.ply, record.side, record.move
        last = board.moves[-1].ply if board.moves else 0
        if ply != last + 1 and board.moves:
            return True  # a gap or a repeat: the next snapshot puts it right
        # the position the relay's rules core found (a move whose FEN does not read is
        # played here: a record the relay did not play)
        fen: str | None = _text(record.fen, 400) if record.fen is not None else None
        if not pieces(board.rules, fen):
            fen = replay(board.rules, fen_at(board, len(board.moves)), [move])[0]
        clock = _clock(record.clock)
        board.moves.append(SeenMove(now, ply, side, move, fen, clock))
        board.position = None
        if clock is not None:
            running = "black" if side == "white" else "white"
            board.readings.append(ClockReading(now, clock[0], clock[1], running))
        if board.marks and board.marks[-1].kind == "irregularity":
            self._mark(board, Mark(now, "cleared", "a legal move was made"))
        return True

    def _on_snapshot(self, record: SnapshotRecord, board: LiveBoard, now: float) -> bool:
        self._setup(board, record.rules, record.start_fen, record.time_control, record.tags)
        moves = record.moves
        if moves is not None:
            self._merge(board, list(moves), record.start_fen, now)
        if record.fen is not None and not moves:
            board.position = (now, _text(record.fen, 400))
        self._read(board, now, record.clock, record.running, tolerance=0.5)
        result = record.result
        if result is not None and result in RESULTS and board.result is None:
            self._result(board, result, record.reason or "", None, None, now)
        return True

    def _merge(self, board: LiveBoard, moves: list[MoveRecord], start: str | None,
               now: float) -> None:
        """A snapshot's moves (the whole game): those already known keep the second they were
        first seen. None at all: the game has no move yet (a game a former run of the relay
        kept, shown ahead of the board, is taken back to it). Moves the relay played carry
        their FEN; others (a kept game's) are played here."""
        if not moves:
            board.moves = []
            return
        good = moves[:MAX_PLY]
        run = next((i for i in range(1, len(good)) if good[i].ply != good[i - 1].ply + 1),
                   len(good))
        good = good[:run]  # plies one after another, or the rest waits for a better snapshot
        known = {m.ply: m for m in board.moves}
        first = good[0].ply
        keep = [m for m in board.moves if m.ply < first]
        same = all(known.get(m.ply) is not None and known[m.ply].move == m.move for m in good)
        if same:
            board.moves = keep + [known[m.ply] for m in good]
            return
        fens: list[str | None] = [m.fen for m in good]
        if any(fen is None for fen in fens):
            base = start if start is not None else fen_at(board, len(keep))
            fens = replay(board.rules, base, [m.move for m in good])
        changed = False  # from the first move that differs on, the moves are new (seen now)
        for m, fen in zip(good, fens, strict=True):
            old = known.get(m.ply)
            changed = changed or old is None or old.move != m.move
            if not changed and old is not None:
                keep.append(old)
            else:
                keep.append(SeenMove(now, m.ply, m.side, m.move, fen, _clock(m.clock)))
        board.moves = keep

    def _on_irregularity(self, record: IrregularityRecord, board: LiveBoard,
                         now: float) -> bool:
        kind = _text(record.kind or "irregularity", 40)
        squares = record.squares
        where = (" " + " ".join(_text(s, 4) for s in squares[:12])
                 if isinstance(squares, list | tuple) else "")
        self._mark(board, Mark(now, "irregularity", f"{kind}{where}".strip(), record.side))
        return True

    def _on_cleared(self, record: ClearedRecord, board: LiveBoard, now: float) -> bool:
        self._mark(board, Mark(now, "cleared", "board back to a legal position"))
        return True

    def _on_position(self, record: PositionRecord, board: LiveBoard, now: float) -> bool:
        board.position = (now, _text(record.fen, 400))
        self._mark(board, Mark(now, "position", "arbiter accepted the position on the board"))
        return True

    def _on_clock(self, record: ClockRecord, board: LiveBoard, now: float) -> bool:
        self._read(board, now, record.clock, record.running)
        event = _text(record.event, 20)
        if event in ("pause", "resume", "start"):
            kind, text = {"pause": ("paused", "clocks paused"), "resume": ("resumed", "clocks run"),
                          "start": ("started", "the game started: clocks run")}[event]
            self._mark(board, Mark(now, kind, text))
        return True

    def _on_result(self, record: ResultRecord, board: LiveBoard, now: float) -> bool:
        if record.result in RESULTS:
            self._result(board, record.result, record.reason, record.flag_side,
                         record.flag_at, now)
        return True

    def _result(self, board: LiveBoard, result: str, reason: str, side: str | None,
                at: float | None, now: float) -> None:
        reason = _text(reason, 80)
        board.result = (now, result, reason)
        last = board.readings[-1] if board.readings else None
        if last is not None and last.running is not None:
            board.readings.append(ClockReading(now, last.white, last.black, None))
        if reason.lower() in FLAG_REASONS:
            flagged = flag_side(result, side)
            at = _num(at)
            when = f" at {at:.1f} s of game time" if at is not None else ""
            self._mark(board, Mark(now, "flag", f"flag fell: {flagged or 'a side'}{when}",
                                   flagged))
        self._mark(board, Mark(now, "result", f"{result} {reason}".strip()))

    def _on_adjourned(self, record: AdjournedRecord, board: LiveBoard, now: float) -> bool:
        self._read(board, now, record.clock, None)
        self._mark(board, Mark(now, "adjourned", "game adjourned (sealed move)"))
        return True

    def _on_takeback(self, record: TakeBackRecord, board: LiveBoard, now: float) -> bool:
        """Plies taken back (the arbiter's correction): the moves after ply N go at once."""
        left = record.ply
        if 0 <= left < len(board.moves):
            board.moves = [m for m in board.moves if m.ply <= left]
            board.position = None
            board.result = None  # a result goes with the plies taken back
            self._mark(board, Mark(now, "takeback", f"taken back to ply {left}"))
        return True


class LiveHall:
    """Every board heard of, keyed by board name, in the order first heard: the records in
    (:attr:`records`, a :class:`HallRecords`), the views out (here)."""

    def __init__(self) -> None:
        self.records = HallRecords()

    @property
    def boards(self) -> dict[str, LiveBoard]:
        return self.records.boards

    @property
    def log(self) -> deque[tuple[float, str, Mark]]:
        """The arbiter's event log (the last :data:`KEEP_LOG` entries)."""
        return self.records.log

    @property
    def logged(self) -> int:
        """Entries ever logged (the log keeps the last :data:`KEEP_LOG`)."""
        return self.records.logged

    def board_name(self, source: str, record: FeedRecord) -> str:
        """The board a source speaks for (:meth:`HallRecords.board_name`)."""
        return self.records.board_name(source, record)

    def feed(self, source: str, record: FeedRecord, now: float,
             game: str | None = None) -> str | None:
        """Take one record heard at second ``now`` (``game``: the id its line names); the
        board's name when its view changed."""
        return self.records.feed(source, record, now, game)

    def status(self, name: str, online: bool, now: float) -> bool:
        """A board's online/offline status (MQTT retained status, or silence); True when new."""
        return self.records.status(name, online, now)

    def silent(self, now: float, after: float) -> list[str]:
        """Boards not heard of for ``after`` seconds, now marked offline; their names."""
        return self.records.silent(now, after)

    def visible(self, board: LiveBoard, at: float) -> int:
        """How many of the board's moves had reached the relay by second ``at``."""
        return bisect_right(board.moves, at, key=_seen)

    def signature(self, name: str, at: float) -> tuple[Any, ...]:
        """What changes the board's view at ``at`` (cheap: for the delayed page's pump)."""
        b = self.boards[name]
        marks = _count(b.marks, at)
        readings = _count(b.readings, at)
        shown = b.result is not None and b.result[0] <= at
        return (b.game, self.visible(b, at), marks, readings, shown, b.position, b.tags)

    def view(self, name: str, at: float) -> dict[str, Any]:
        """The board as it stood at second ``at``, as the page shows it (JSON-ready)."""
        b = self.boards[name]
        count = self.visible(b, at)
        last = b.moves[count - 1] if count else None
        fen = fen_at(b, count)
        setup = b.position
        if setup is not None and setup[0] <= at and (last is None or last.t <= setup[0]):
            fen = setup[1]
        reading = next((r for r in reversed(b.readings) if r.t <= at), None)
        badges: dict[str, Any] = {"irregular": None, "offline": False, "paused": False,
                                  "flag": None, "adjourned": False}
        for mark in b.marks:
            if mark.t > at:
                break
            _badge(badges, mark)
        result = b.result if b.result is not None and b.result[0] <= at else None
        size = b.size()
        return {
            "board": b.name,
            "game": b.game,
            "rules": b.rules,
            "size": size,
            "white": b.tags.get("White", ""),
            "black": b.tags.get("Black", ""),
            "round": b.tags.get("Round", ""),
            "fen": fen or "",
            "sq": pieces(b.rules, fen),
            "ply": last.ply if last else 0,
            "last": move_view(b.rules, last),
            "clock": None if reading is None else {
                "white": reading.white, "black": reading.black, "running": reading.running,
                "age": round(max(0.0, at - reading.t), 3)},
            "result": result[1] if result else None,
            "reason": result[2] if result else None,
            "badges": badges,
        }

    def moves(self, name: str, at: float) -> list[dict[str, Any]]:
        """The board's moves seen by ``at``, each with its clock times and the position after."""
        b = self.boards[name]
        return [{"ply": m.ply, "side": m.side, "move": m.move, "fen": m.fen or "",
                 "sq": pieces(b.rules, m.fen), "hl": move_view(b.rules, m)["hl"],  # type: ignore[index]
                 "clock": list(m.clock) if m.clock else None}
                for m in b.moves[: self.visible(b, at)]]

    def start(self, name: str) -> dict[str, str]:
        """Where the board's game started (the page's first step)."""
        b = self.boards[name]
        fen = fen_at(b, 0) or ""
        return {"fen": fen, "sq": pieces(b.rules, fen)}

    def events(self, at: float) -> list[dict[str, Any]]:
        """The arbiter's log up to ``at``: every irregularity, flag, result and board outage."""
        return [log_entry(t, name, mark) for t, name, mark in self.log if t <= at]


def fen_at(board: LiveBoard, count: int) -> str | None:
    """The position after the board's first ``count`` moves (its start with none)."""
    if count and board.moves[count - 1].fen:
        return board.moves[count - 1].fen
    if board.start_fen:
        return board.start_fen
    rules = rule_set(board.rules)
    return Position.start(rules).fen() if rules is not None else None


#: A result's reasons that mean a flag fell: the board's own ("time forfeit") and what an
#: arbiter may type for it.
FLAG_REASONS = frozenset({"time forfeit", "flag", "flag fall", "flag fell"})
#: The side that lost a decisive result (2-0, 1-0: black; 0-2, 0-1: white).
_LOSER = {"2-0": "black", "1-0": "black", "0-2": "white", "0-1": "white"}


def flag_side(result: str, given: Any) -> str | None:
    """Whose flag fell: the side the record names, else the loser of a decisive result (an
    arbiter's ``{"cmd": "result", "result": "0-2", "reason": "time forfeit"}`` names none);
    None when neither tells (a draw: the flag fell but the other side could not win)."""
    if given in ("white", "black"):
        return str(given)
    return _LOSER.get(result)


def _seen(item: SeenMove | ClockReading | Mark) -> float:
    return item.t


def _count(items: deque[Any], at: float) -> int:
    """How many of ``items`` (in time order) are from ``at`` or before: from the newest end,
    since the pump asks about recent seconds."""
    n = len(items)
    for item in reversed(items):
        if item.t <= at:
            return n
        n -= 1
    return 0


def log_entry(t: float, name: str, mark: Mark) -> dict[str, Any]:
    return {"t": t, "board": name, "kind": mark.kind, "text": mark.text, "side": mark.side}


def _badge(badges: dict[str, Any], mark: Mark) -> None:
    kind = mark.kind
    if kind == "irregularity":
        badges["irregular"] = mark.text
    elif kind in ("cleared", "position"):
        badges["irregular"] = None
        if mark.text == "new game":
            badges.update(flag=None, paused=False, adjourned=False)
    elif kind in ("offline", "online"):
        badges["offline"] = kind == "offline"
    elif kind in ("paused", "resumed", "started"):
        badges["paused"] = kind == "paused"
        badges["adjourned"] = False
    elif kind == "flag":
        badges["flag"] = mark.side or "?"
    elif kind == "adjourned":
        badges["adjourned"] = True


#: The records that open a board on the page.
_OPENS = (GameRecord, SnapshotRecord, MoveRecord)
#: Each record class's step.
_HANDLERS: dict[type[Any], Any] = {
    GameRecord: HallRecords._on_game,
    MoveRecord: HallRecords._on_move,
    SnapshotRecord: HallRecords._on_snapshot,
    IrregularityRecord: HallRecords._on_irregularity,
    ClearedRecord: HallRecords._on_cleared,
    PositionRecord: HallRecords._on_position,
    ClockRecord: HallRecords._on_clock,
    ResultRecord: HallRecords._on_result,
    AdjournedRecord: HallRecords._on_adjourned,
    TakeBackRecord: HallRecords._on_takeback,
}
