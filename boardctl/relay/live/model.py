"""The live page's view model: feed records in, each board's view out. Pure: no I/O, no clock.

Every record is taken with ``now``, the (wall-clock) second it reached the relay, and every
change is kept with that time, so that :meth:`LiveHall.view` can show a board as it stood at any
instant: the arbiter sees ``now``, the public page ``now - delay`` (the anti-cheating broadcast
delay of issue 13 ``--delay``), from the same state and with bounded memory (the moves of the
game, and the last :data:`KEEP_MARKS` badge changes and clock readings of each board).

Records are the broadcast feed's (CONTRACT.md "Broadcast feed", ``firmware.session.session``):
``header``, ``game``, ``move``, ``snapshot``, ``irregularity``, ``cleared``, ``position``,
``clock``, ``result``, ``adjourned``; plus ``{"type": "status", "status": "online"|"offline"}``
for a board's MQTT status (or the relay's own silence watch, :meth:`LiveHall.silent`).
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from boardctl.relay.live.diagram import move_view, pieces, replay, rule_set
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
_MOVE = re.compile(r"[a-j0-9]{1,3}(?:[-x:][a-j0-9]{1,3}){1,25}")


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
class Reading:
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
    readings: deque[Reading] = field(default_factory=lambda: deque(maxlen=KEEP_MARKS))
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


def _clock(value: Any) -> tuple[float, float] | None:
    if not isinstance(value, Mapping):
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

    def board_name(self, source: str, record: Mapping[str, Any]) -> str:
        """The board a source speaks for: an MQTT source is the topic's BOARD already; a serial
        port (a path or URL) is named by its feed's ``header``."""
        if BOARD_NAME.fullmatch(source):
            return source
        if record.get("type") == "header" and isinstance(record.get("board"), str):
            name = re.sub(r"[^A-Za-z0-9_-]", "-", record["board"])[:64]
            if name:
                self._names[source] = name
        return self._names.get(source) or re.sub(r"[^A-Za-z0-9_-]", "-", source)[-64:] or "-"

    def feed(self, source: str, record: Mapping[str, Any], now: float) -> str | None:
        """Take one record heard at second ``now``; the board's name when its view changed."""
        name = self.board_name(source, record)
        kind = record.get("type")
        board = self.boards.get(name)
        if board is None:
            if kind not in ("game", "snapshot", "move") or len(self.boards) >= MAX_BOARDS:
                return None
            board = self.boards[name] = LiveBoard(name)
        board.last_heard = now
        if kind == "status":  # the board's MQTT status (retained, and its last will)
            status = record.get("status")
            return name if status in ("online", "offline") and self.status(
                name, status == "online", now) else None
        if board.marks and board.marks[-1].kind == "offline":
            self._mark(board, Mark(now, "online", "back online"))
        game = record.get("game")
        if isinstance(game, str | int) and not isinstance(game, bool) and str(game) != board.game:
            if kind not in ("game", "snapshot") and not (kind == "move" and record.get("ply") == 1):
                return name if kind == "header" else None  # an old game's line, or a stray one
            self._new_game(board, str(game), now)
        handler = _HANDLERS.get(str(kind))
        if handler is None:
            return None
        handler(self, board, record, now)
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
        board.readings.append(Reading(now, values[0], values[1], run))

    def _setup(self, board: LiveBoard, record: Mapping[str, Any]) -> None:
        if isinstance(record.get("rules"), str) and rule_set(record["rules"]) is not None:
            board.rules = record["rules"]
        fen = record.get("start_fen", record.get("fen") if record.get("type") == "game" else None)
        if isinstance(fen, str) and fen.strip():
            board.start_fen = _text(fen, 400)
        if isinstance(record.get("time_control"), str):
            board.time_control = _text(record["time_control"], 60)
        tags = record.get("tags")
        if isinstance(tags, Mapping):  # a PDN's tags, as the relay keeps them
            board.tags = fit_tags(tags)

    def _on_game(self, board: LiveBoard, record: Mapping[str, Any], now: float) -> None:
        self._setup(board, record)

    def _on_move(self, board: LiveBoard, record: Mapping[str, Any], now: float) -> None:
        ply, side, move = record.get("ply"), record.get("side"), record.get("move")
        if (not isinstance(ply, int) or isinstance(ply, bool) or not 1 <= ply <= MAX_PLY
                or side not in ("white", "black")
                or not isinstance(move, str) or not _MOVE.fullmatch(move)):
            return
        last = board.moves[-1].ply if board.moves else 0
        if ply != last + 1 and board.moves:
            return  # a gap or a repeat: the next snapshot puts it right
        fen: str | None = _text(record.get("fen"), 400)
        if not pieces(board.rules, fen):  # no FEN, or one that does not read: play the move
            fen = replay(board.rules, fen_at(board, len(board.moves)), [move])[0]
        clock = _clock(record.get("clock"))
        board.moves.append(SeenMove(now, ply, side, move, fen, clock))
        board.position = None
        if clock is not None:
            running = "black" if side == "white" else "white"
            board.readings.append(Reading(now, clock[0], clock[1], running))
        if board.marks and board.marks[-1].kind == "irregularity":
            self._mark(board, Mark(now, "cleared", "a legal move was made"))

    def _on_snapshot(self, board: LiveBoard, record: Mapping[str, Any], now: float) -> None:
        self._setup(board, record)
        moves = record.get("moves")
        if isinstance(moves, list) and all(isinstance(m, Mapping) for m in moves):
            self._merge(board, moves, record.get("start_fen"), now)
        if isinstance(record.get("fen"), str) and not moves:
            board.position = (now, _text(record["fen"], 400))
        self._read(board, now, record.get("clock"), record.get("running"), tolerance=0.5)
        result = record.get("result")
        if isinstance(result, str) and result in RESULTS and board.result is None:
            self._on_result(board, record, now)

    def _merge(self, board: LiveBoard, moves: list[Any], start: Any, now: float) -> None:
        """A snapshot's moves (the whole game): those already known keep the second they were
        first seen. None at all: the game has no move yet (a game a former run of the relay
        kept, shown ahead of the board, is taken back to it)."""
        if not moves:
            board.moves = []
            return
        good = [m for m in moves[:MAX_PLY]
                if isinstance(m.get("ply"), int) and isinstance(m.get("move"), str)
                and _MOVE.fullmatch(m["move"]) and m.get("side") in ("white", "black")]
        run = next((i for i in range(1, len(good)) if good[i]["ply"] != good[i - 1]["ply"] + 1),
                   len(good))
        good = good[:run]  # plies one after another, or the rest waits for a better snapshot
        if not good:
            return
        known = {m.ply: m for m in board.moves}
        first = good[0]["ply"]
        keep = [m for m in board.moves if m.ply < first]
        same = all(known.get(m["ply"]) is not None and known[m["ply"]].move == m["move"]
                   for m in good)
        if same:
            board.moves = keep + [known[m["ply"]] for m in good]
            return
        base = start if isinstance(start, str) else fen_at(board, len(keep))
        fens = replay(board.rules, base, [m["move"] for m in good])
        changed = False  # from the first move that differs on, the moves are new (seen now)
        for m, fen in zip(good, fens, strict=True):
            old = known.get(m["ply"])
            changed = changed or old is None or old.move != m["move"]
            if not changed and old is not None:
                keep.append(old)
            else:
                clock = _clock(m.get("clock"))
                keep.append(SeenMove(now, m["ply"], m["side"], m["move"], fen, clock))
        board.moves = keep

    def _on_irregularity(self, board: LiveBoard, record: Mapping[str, Any], now: float) -> None:
        kind = _text(record.get("kind") or "irregularity", 40)
        squares = record.get("squares")
        where = (" " + " ".join(_text(s, 4) for s in squares[:12])
                 if isinstance(squares, list) else "")
        side = record.get("side") if record.get("side") in ("white", "black") else None
        self._mark(board, Mark(now, "irregularity", f"{kind}{where}".strip(), side))

    def _on_cleared(self, board: LiveBoard, record: Mapping[str, Any], now: float) -> None:
        self._mark(board, Mark(now, "cleared", "board back to a legal position"))

    def _on_position(self, board: LiveBoard, record: Mapping[str, Any], now: float) -> None:
        if isinstance(record.get("fen"), str):
            board.position = (now, _text(record["fen"], 400))
        self._mark(board, Mark(now, "position", "arbiter accepted the position on the board"))

    def _on_clock(self, board: LiveBoard, record: Mapping[str, Any], now: float) -> None:
        self._read(board, now, record.get("clock"), record.get("running"))
        event = _text(record.get("event") or "", 20)
        if event in ("pause", "resume", "start"):
            kind, text = {"pause": ("paused", "clocks paused"), "resume": ("resumed", "clocks run"),
                          "start": ("started", "the game started: clocks run")}[event]
            self._mark(board, Mark(now, kind, text))

    def _on_result(self, board: LiveBoard, record: Mapping[str, Any], now: float) -> None:
        result = record.get("result")
        if not isinstance(result, str) or result not in RESULTS:
            return
        reason = _text(record.get("reason") or "", 80)
        board.result = (now, result, reason)
        last = board.readings[-1] if board.readings else None
        if last is not None and last.running is not None:
            board.readings.append(Reading(now, last.white, last.black, None))
        if reason.lower() in FLAG_REASONS:
            side = flag_side(result, record.get("side"))
            at = _num(record.get("at"))
            when = f" at {at:.1f} s of game time" if at is not None else ""
            self._mark(board, Mark(now, "flag", f"flag fell: {side or 'a side'}{when}", side))
        self._mark(board, Mark(now, "result", f"{result} {reason}".strip()))

    def _on_adjourned(self, board: LiveBoard, record: Mapping[str, Any], now: float) -> None:
        self._read(board, now, record.get("clock"), None)
        self._mark(board, Mark(now, "adjourned", "game adjourned (sealed move)"))

    def _on_takeback(self, board: LiveBoard, record: Mapping[str, Any], now: float) -> None:
        """Plies taken back (the arbiter's correction): the moves after ply N go at once."""
        left = record.get("ply")
        if isinstance(left, int) and not isinstance(left, bool) and 0 <= left < len(board.moves):
            board.moves = [m for m in board.moves if m.ply <= left]
            board.position = None
            board.result = None  # a result goes with the plies taken back
            self._mark(board, Mark(now, "takeback", f"taken back to ply {left}"))


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

    def board_name(self, source: str, record: Mapping[str, Any]) -> str:
        """The board a source speaks for (:meth:`HallRecords.board_name`)."""
        return self.records.board_name(source, record)

    def feed(self, source: str, record: Mapping[str, Any], now: float) -> str | None:
        """Take one record heard at second ``now``; the board's name when its view changed."""
        return self.records.feed(source, record, now)

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


def _seen(item: SeenMove | Reading | Mark) -> float:
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


_HANDLERS = {
    "game": HallRecords._on_game,
    "move": HallRecords._on_move,
    "snapshot": HallRecords._on_snapshot,
    "irregularity": HallRecords._on_irregularity,
    "cleared": HallRecords._on_cleared,
    "position": HallRecords._on_position,
    "clock": HallRecords._on_clock,
    "result": HallRecords._on_result,
    "adjourned": HallRecords._on_adjourned,
    "takeback": HallRecords._on_takeback,
}
