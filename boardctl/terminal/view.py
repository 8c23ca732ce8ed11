"""What a terminal shows of a board: :class:`BoardView`, built from feed records (the serial
line's, MQTT's, ``boardctl replay --format feed``'s) or from the control socket's ``status``
answers, the same either way.

Pure: no terminal, no I/O. Each change returns the plain sentences it is worth (``--plain``
prints them, one a line, for screen readers and logs); the clocks are kept as the last reading
and the monotonic second it was taken, so a face ticks down between readings
(:meth:`BoardView.faces`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from firmware.errors import BoardError

SIDES = ("white", "black")
#: What each LED meaning asks of the player (docs/DESIGN.md: the LED pictures), in the order
#: they are told (the engine's move as it is carried out: lift, land, take off).
LED_WORDS = {"must-move": "must move", "land": "land here", "remove": "take off",
             "restore": "put back", "wrong": "wrong", "last-move": "last move"}
#: A move lost on the way, until a snapshot tells it.
LOST = "?"
#: The longest clock reading taken (a hostile feed's 1e300 is not one).
MAX_SECONDS = 1e7
#: The most lit squares told in words.
MAX_LEDS = 24
#: The most squares named in the rule set's notation at once (a hostile feed sends more).
MAX_NAMED = 100
#: The most moves a view keeps (a game is far shorter; a hostile feed is not).
MAX_MOVES = 10_000


def square_names(rules: str | None, squares: Any) -> list[str]:
    """Algebraic squares (the LEDs' and the sensors' names) as ``rules`` writes them: numbers on
    10x10 (``b4`` is 31), algebraic on 8x8; a name that is no dark square stays as it is
    (cut short). Not a list: none."""
    from firmware.rules.sets import find_rules

    if not isinstance(squares, list | tuple):
        return []
    try:
        ruleset = find_rules(rules) if rules else None
    except BoardError:
        ruleset = None
    out = []
    for square in squares[:MAX_NAMED]:
        name = str(square)[:4]
        if ruleset is not None:
            try:
                name = ruleset.square_name(ruleset.geometry.number(name))
            except BoardError:
                pass
        out.append(name)
    return out


def led_words(rules: str | None, leds: Mapping[str, str]) -> str:
    """``32 must move, 28 land here, 23 take off``: an LED picture (algebraic square ->
    meaning) in words, squares as ``rules`` writes them, in the order of :data:`LED_WORDS`
    and then of the squares (numbers as numbers)."""
    order = {meaning: i for i, meaning in enumerate(LED_WORDS)}
    items = list(leds.items())[:MAX_NAMED]
    names = square_names(rules, [square for square, _ in items])
    lit = sorted(zip(names, (m for _, m in items), strict=True), key=lambda item: (
        order.get(item[1], len(order)), (len(item[0]), item[0])))
    text = ", ".join(f"{sq} {LED_WORDS.get(m, str(m)[:20])}" for sq, m in lit[:MAX_LEDS])
    return text + (f" and {len(leds) - MAX_LEDS} more" if len(leds) > MAX_LEDS else "")


def face_text(seconds: float | None) -> str:
    """A clock face: ``1:23:45``, ``12:34``, ``0:19.9`` under 20 s, ``-`` with no clock."""
    from firmware.clock.face import format_time

    if seconds is None:
        return "-"
    return format_time(round(max(0.0, seconds) * 1e9))


@dataclass
class Piece:
    side: str
    king: bool

    @property
    def letter(self) -> str:
        """``w``/``b`` for men, ``W``/``B`` for kings."""
        return self.side[0].upper() if self.king else self.side[0]


@dataclass
class BoardView:
    """The board as the terminal shows it."""

    rules: str | None = None
    size: int = 10
    fen: str | None = None
    pieces: dict[str, Piece] = field(default_factory=dict)
    turn: str | None = None
    #: The moves in the rule set's notation, and the side that made the first one.
    moves: list[str] = field(default_factory=list)
    first_side: str = "white"
    clock: dict[str, float] | None = None
    running: str | None = None
    #: Monotonic seconds when :attr:`clock` was read.
    read_at: float = 0.0
    counts_up: bool = False
    time_control: str | None = None
    leds: dict[str, str] = field(default_factory=dict)
    irregularity: str | None = None
    result: str | None = None
    alarm: str | None = None
    #: Plies a power cut lost, as the feed's ``gap`` line tells them (until a new game).
    gap: str | None = None
    warnings: list[str] = field(default_factory=list)
    #: The board's name, its link (``online``, ``offline``, ``lost lines``...) and tags.
    board: str | None = None
    game: str | None = None
    link: str | None = None
    tags: dict[str, str] = field(default_factory=dict)
    adjourned: bool = False
    #: The engine's move for the person to carry out (``status``'s ``engine``), in words.
    engine_move: str | None = None
    #: The engine's last error (its side handed back to the person after three in a row),
    #: and the hint it gave the person, in words.
    engine_error: str | None = None
    engine_hint: str | None = None
    #: Bumped on every change a screen draws (the clocks' ticking aside).
    version: int = 0

    # -- the clocks -----------------------------------------------------------------------

    def faces(self, now: float) -> dict[str, str]:
        """Both faces at monotonic second ``now``: the running side's counts from the reading."""
        if self.clock is None:
            return {side: "-" for side in SIDES}
        out = {}
        for side in SIDES:
            value = self.clock.get(side)
            if value is not None and side == self.running:
                elapsed = max(0.0, now - self.read_at)
                value = value + elapsed if self.counts_up else value - elapsed
            out[side] = face_text(value)
        return out

    def _read_clock(self, clock: Any, running: Any, now: float) -> None:
        if isinstance(clock, Mapping):
            values = {s: float(clock[s]) for s in SIDES
                      if isinstance(clock.get(s), int | float) and not isinstance(clock[s], bool)
                      and math.isfinite(clock[s]) and abs(clock[s]) < MAX_SECONDS}
            self.clock = values or None
            self.read_at = now
        if running is None or running in SIDES:
            self.running = running

    def _set_time_control(self, text: Any) -> None:
        from firmware.clock.timecontrol import TimeControl

        self.time_control = text if isinstance(text, str) else None
        try:
            self.counts_up = self.time_control is not None and TimeControl.parse(
                self.time_control).counts_up
        except BoardError:
            self.counts_up = False

    # -- the position ---------------------------------------------------------------------

    def set_position(self, rules: Any, fen: Any) -> str | None:
        """Rule set and FEN in; a sentence when they do not read (the view keeps what it had)."""
        from firmware.rules.position import Position
        from firmware.rules.sets import find_rules

        name = rules if isinstance(rules, str) else self.rules
        if not isinstance(fen, str) or name is None:
            return None
        try:
            ruleset = find_rules(name)
            position = Position.from_fen(ruleset, fen)
        except BoardError as exc:
            return f"unreadable position: {str(exc)[:120]}"
        geometry = ruleset.geometry
        self.rules, self.size, self.fen = ruleset.name, geometry.size, fen
        self.turn = position.turn.value
        self.pieces = {geometry.algebraic(sq): Piece(p.side.value, p.king)
                       for sq, p in position.pieces().items()}
        return None

    def move_number(self, index: int) -> str:
        """``12.`` or ``12...``: how the move at ``index`` of :attr:`moves` is numbered."""
        shift = 0 if self.first_side == "white" else 1
        number, black = divmod(index + shift, 2)
        return f"{number + 1}{'...' if black else '.'}"

    def last_move(self) -> str | None:
        if not self.moves:
            return None
        return f"{self.move_number(len(self.moves) - 1)} {self.moves[-1]}"

    def led_text(self) -> str:
        """``32 must move, 28 land here``: the lit squares in words (led_words)."""
        return led_words(self.rules, self.leds)

    def square_names(self, squares: Any) -> list[str]:
        """Algebraic squares (the LEDs', the sensors') as the rule set writes them."""
        return square_names(self.rules, squares)

    def times_text(self, now: float) -> str:
        faces = self.faces(now)
        return f"white {faces['white']}, black {faces['black']}"

    # -- feed records -----------------------------------------------------------------------

    def apply(self, record: Mapping[str, Any], now: float) -> list[str]:
        """One feed record in; the sentences it is worth (none for a record that shows nothing
        new). A record missing what it should carry changes nothing."""
        kind = record.get("type")
        handler = _RECORDS.get(kind) if isinstance(kind, str) else None
        if handler is None:
            return []
        said = handler(self, record, now)
        self.version += 1
        return said


def _header(view: BoardView, rec: Mapping[str, Any], now: float) -> list[str]:
    if isinstance(rec.get("board"), str):
        view.board = rec["board"]
    if isinstance(rec.get("rules"), str):
        view.rules = rec["rules"]
    return [f"board {view.board or '?'} started (run {str(rec.get('run'))[:40]})"]


def _game(view: BoardView, rec: Mapping[str, Any], now: float) -> list[str]:
    view.moves, view.result, view.irregularity, view.leds = [], None, None, {}
    view.adjourned, view.gap = False, None
    view.engine_move = view.engine_error = view.engine_hint = None
    view.tags = {str(k): str(v) for k, v in rec.get("tags", {}).items()} if isinstance(
        rec.get("tags"), Mapping) else {}
    view._set_time_control(rec.get("time_control"))
    rules = rec.get("rules") if isinstance(rec.get("rules"), str) else view.rules
    fen = rec.get("fen")
    if not isinstance(fen, str) and isinstance(rules, str):
        from firmware.rules.position import Position
        from firmware.rules.sets import find_rules

        try:
            fen = Position.start(find_rules(rules)).fen()
        except BoardError:
            fen = None
    problem = view.set_position(rules, fen)
    view.first_side = view.turn or "white"
    said = f"new game: {rules}, time control {view.time_control or 'none'}"
    return [said] + ([problem] if problem else [])


def _move(view: BoardView, rec: Mapping[str, Any], now: float) -> list[str]:
    move, side = rec.get("move"), rec.get("side")
    if not isinstance(move, str) or side not in SIDES:
        return []
    ply = rec.get("ply")
    if not view.moves:
        view.first_side = side if not isinstance(ply, int) or ply % 2 else (
            "black" if side == "white" else "white")
    if isinstance(ply, int) and not isinstance(ply, bool) and len(view.moves) < ply <= MAX_MOVES:
        # plies lost on the way (a gap in seq) are shown as "?" until a snapshot tells them
        view.moves += [LOST] * (ply - 1 - len(view.moves))
    if len(view.moves) < MAX_MOVES:
        view.moves.append(move)
    problem = view.set_position(None, rec.get("fen"))
    view._read_clock(rec.get("clock"), "black" if side == "white" else "white", now)
    if view.clock is not None and "clock" in rec:
        view.running = "black" if side == "white" else "white"
    view.leds, view.irregularity, view.engine_move, view.engine_hint = {}, None, None, None
    said = f"{view.last_move()} by {side}"
    if rec.get("clock") is not None:
        said += f"; {view.times_text(now)}"
    return [said] + ([problem] if problem else [])


def irregularity_text(kind: str, side: Any, squares: Any, held: Any = None) -> str:
    """``touch-move (white): c3 (held 1.2 s)``."""
    text = kind + (f" ({side})" if side in SIDES else "")
    if isinstance(squares, list) and squares:
        text += ": " + ", ".join(str(s) for s in squares[:20])
    if isinstance(held, int | float) and not isinstance(held, bool):
        text += f" (held {held:.1f} s)"
    return text


def _irregularity(view: BoardView, rec: Mapping[str, Any], now: float) -> list[str]:
    kind = rec.get("kind")
    if not isinstance(kind, str):
        return []
    view.irregularity = irregularity_text(kind, rec.get("side"),
                                          view.square_names(rec.get("squares")), rec.get("held"))
    leds = rec.get("leds")
    if isinstance(leds, Mapping):
        view.leds = {str(k): str(v) for k, v in leds.items()}
    return [f"irregularity: {view.irregularity}"]


def _cleared(view: BoardView, rec: Mapping[str, Any], now: float) -> list[str]:
    view.leds = {}
    return ["the board is right again"]


def _result(view: BoardView, rec: Mapping[str, Any], now: float) -> list[str]:
    if not isinstance(rec.get("result"), str):
        return []
    view.result = f"{rec['result']} ({rec.get('reason') or 'no reason given'})"
    view.running = None
    return [f"result {view.result}"]


def _snapshot(view: BoardView, rec: Mapping[str, Any], now: float) -> list[str]:
    problem = view.set_position(rec.get("rules"), rec.get("fen"))
    moves = rec.get("moves")
    if isinstance(moves, list):
        names = [m["move"] for m in moves if isinstance(m, Mapping)
                 and isinstance(m.get("move"), str)][:MAX_MOVES]
        first = moves[0].get("side") if moves and isinstance(moves[0], Mapping) else None
        view.moves, view.first_side = names, first if first in SIDES else view.turn or "white"
    if isinstance(rec.get("tags"), Mapping):
        view.tags = {str(k): str(v) for k, v in rec["tags"].items()}
    if "time_control" in rec:
        view._set_time_control(rec.get("time_control"))
    if "clock" in rec:
        view._read_clock(rec.get("clock"), rec.get("running"), now)
    view.result = (f"{rec['result']} ({rec.get('reason') or 'no reason given'})"
                   if isinstance(rec.get("result"), str) else None)
    leds = rec.get("leds")
    view.leds = {str(k): str(v) for k, v in leds.items()} if isinstance(leds, Mapping) else {}
    if view.link == "lost lines":
        view.link = "online"
    return [problem] if problem else []


def _alarm(view: BoardView, rec: Mapping[str, Any], now: float) -> list[str]:
    alarm = rec.get("alarm")
    view.alarm = str(alarm)[:300] if alarm is not None else None
    return [f"ALARM: {view.alarm}" if view.alarm else "alarm over: the journal is written again"]


def _hardware(view: BoardView, rec: Mapping[str, Any], now: float) -> list[str]:
    missing = rec.get("missing")
    if not isinstance(missing, list):
        return []
    view.warnings = [f"missing: {str(m)[:60]}" for m in missing[:8]]
    return [f"hardware: {', '.join(view.warnings)}"] if view.warnings else []


def _clock(view: BoardView, rec: Mapping[str, Any], now: float) -> list[str]:
    view._read_clock(rec.get("clock"), rec.get("running"), now)
    return [f"clock {str(rec.get('event'))[:20]}; {view.times_text(now)}"]


def _position(view: BoardView, rec: Mapping[str, Any], now: float) -> list[str]:
    problem = view.set_position(None, rec.get("fen"))
    view.leds = {}
    return [problem or f"position accepted: {str(rec.get('fen'))[:200]}"]


def _adjourned(view: BoardView, rec: Mapping[str, Any], now: float) -> list[str]:
    view.adjourned, view.running = True, None
    return [f"adjourned: {rec.get('side')} sealed a move"]


def _takeback(view: BoardView, rec: Mapping[str, Any], now: float) -> list[str]:
    """Plies taken back: the moves after ply N dropped (the position comes with the next
    snapshot, or the control socket's next status)."""
    ply = rec.get("ply")
    if not isinstance(ply, int) or isinstance(ply, bool) or ply < 0:
        return []
    del view.moves[ply:]
    view.result = view.engine_move = None
    return [f"taken back: {ply} plies left"]


#: Candidates a ``gap`` line is told with at most, and the longest sentence.
GAP_SHOWN = 8
GAP_TEXT = 600


def _pdn_list(value: Any) -> list[str] | None:
    """A list of PDN moves as a feed line carries it, or None when it is not one."""
    if not isinstance(value, list) or not all(isinstance(m, str) for m in value):
        return None
    return [m[:40] for m in value[:20]]


def gap_text(rec: Mapping[str, Any]) -> str | None:
    """The feed's ``gap`` line in words: the plies rebuilt from the board as sensed, or the
    candidates the arbiter chooses from (None: a line without its ply)."""
    ply = rec.get("ply")
    if not isinstance(ply, int) or isinstance(ply, bool) or ply < 0:
        return None
    recovered = _pdn_list(rec.get("recovered"))
    if recovered:
        n = len(rec["recovered"])
        return (f"rebuilt {n} {'ply' if n == 1 else 'plies'} after ply {ply} from the board "
                f"(lost to a power cut): {' '.join(recovered)}")[:GAP_TEXT]
    raw = rec.get("candidates")
    candidates = [c for c in map(_pdn_list, raw[:GAP_SHOWN]) if c] if isinstance(raw, list) else []
    count = rec.get("count")
    if not isinstance(count, int) or isinstance(count, bool) or count < len(candidates):
        count = len(candidates)
    head = f"plies missing after ply {ply} (a power cut?): "
    if not candidates:
        return head + "no legal sequence found that leads to the board; the arbiter decides"
    shown = "; ".join(f"{i}) {' '.join(c)}" for i, c in enumerate(candidates, 1))
    more = f" (and {count - len(candidates)} more)" if count > len(candidates) else ""
    word = "candidate" if count == 1 else "candidates"
    return (head + f"{count} {word}: {shown}{more}; the arbiter decides")[:GAP_TEXT]


def _gap(view: BoardView, rec: Mapping[str, Any], now: float) -> list[str]:
    text = gap_text(rec)
    if text is None:
        return []
    view.gap = text
    return [text]


def _engine_move(view: BoardView, rec: Mapping[str, Any], now: float) -> list[str]:
    """The engine's move for the person to carry out (``boardctl run --engine``)."""
    move, ply = rec.get("move"), rec.get("ply")
    if not isinstance(move, str) or not isinstance(ply, int) or isinstance(ply, bool) \
            or not 1 <= ply <= MAX_MOVES:
        return []
    view.engine_move = f"{view.move_number(ply - 1)} {move[:40]}"
    view.engine_error = None  # it answers again
    route = rec.get("route")
    if isinstance(route, list) and route and all(isinstance(sq, str) for sq in route):
        # the LED picture as it ends: the start square, the landing squares, the pieces off
        view.leds = {sq[:4]: "land" for sq in route[1:MAX_LEDS]}
        view.leds[route[0][:4]] = "must-move"
        captured = rec.get("captured")
        if isinstance(captured, list):
            view.leds.update({str(sq)[:4]: "remove" for sq in captured[:MAX_LEDS]})
    return [f"the engine plays {view.engine_move}: carry it out"
            + (f" (LEDs: {view.led_text()})" if view.leds else "")]


def _engine(view: BoardView, rec: Mapping[str, Any], now: float) -> list[str]:
    """The engine's error line (and its side handed back to the person)."""
    error = rec.get("error")
    if not isinstance(error, str):
        return []
    view.engine_error = error[:200] + ("; it is out until a new game: make its moves "
                                       "yourself and press its clock"
                                       if rec.get("handed_back") is True else "")
    return [f"engine: {view.engine_error}"]


def _status(view: BoardView, rec: Mapping[str, Any], now: float) -> list[str]:
    view.link = str(rec.get("status"))[:20]
    return [f"board {view.link}"]


def _setup(view: BoardView, rec: Mapping[str, Any], now: float) -> list[str]:
    text = f"setup {str(rec.get('id'))[:40]}: {str(rec.get('status'))[:20]}"
    if rec.get("reason"):
        text += f" ({str(rec['reason'])[:120]})"
    return [text]


_RECORDS = {
    "header": _header, "game": _game, "move": _move, "irregularity": _irregularity,
    "cleared": _cleared, "result": _result, "snapshot": _snapshot, "alarm": _alarm,
    "hardware": _hardware, "clock": _clock, "position": _position, "adjourned": _adjourned,
    "status": _status, "setup": _setup, "takeback": _takeback,
    "gap": _gap, "engine-move": _engine_move, "engine": _engine,
}
