"""What a terminal shows of a board: :class:`BoardView`, built from typed feed records (the
serial line's, MQTT's, ``boardctl replay --format feed``'s, read by
``firmware.formats.reader``; one step per record class, ``_RECORDS``) or from the control
socket's ``status`` answers, the same either way.

Pure: no terminal, no I/O. Each change returns the plain sentences it is worth (``--plain``
prints them, one a line, for screen readers and logs); the clocks are kept as the last reading
and the monotonic second it was taken, so a face ticks down between readings
(:meth:`BoardView.faces`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from firmware.errors import BoardError
from firmware.formats.reader import Refusal, dispatch
from firmware.formats.records import (
    UNSAID,
    AdjournedRecord,
    AlarmRecord,
    AnalysisRecord,
    ClearedRecord,
    ClockRecord,
    EngineMoveRecord,
    EngineRecord,
    FeedRecord,
    GameRecord,
    GapRecord,
    HardwareRecord,
    HeaderRecord,
    IrregularityRecord,
    MoveRecord,
    PositionRecord,
    ResultRecord,
    SetupRecord,
    SnapshotRecord,
    StatusRecord,
    TakeBackRecord,
)

SIDES = ("white", "black")
#: What each LED meaning asks of the player (docs/DESIGN.md: the LED pictures), in the order
#: they are told (the engine's move as it is carried out: lift, land, take off).
LED_WORDS = {"must-move": "must move", "land": "land here", "remove": "take off",
             "restore": "put back", "wrong": "wrong", "last-move": "last move",
             "link-down": "link down"}
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
    #: What the clock's faces show while the menus at the board are open (``status``'s
    #: ``faces`` and ``menu``: White's face, Black's), instead of the times; None: closed.
    menu_faces: tuple[str, str] | None = None
    #: The engine's analysis of the position on the board (``run --analyse``), in words.
    analysis: str | None = None
    #: Bumped on every change a screen draws (the clocks' ticking aside).
    version: int = 0

    # -- the clocks -----------------------------------------------------------------------

    def faces(self, now: float) -> dict[str, str]:
        """Both faces at monotonic second ``now``: the running side's counts from the reading;
        the menus' faces while they are open."""
        if self.menu_faces is not None:
            return dict(zip(SIDES, self.menu_faces, strict=True))
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

    def apply(self, record: FeedRecord | Refusal, now: float) -> list[str]:
        """One feed record in; the sentences it is worth (none for a record that shows nothing
        new: a refusal, a record of a type this board does not know)."""
        said = dispatch(record, _RECORDS, self, now)
        if said is None:
            return []
        self.version += 1
        return said


def _header(view: BoardView, rec: HeaderRecord, now: float) -> list[str]:
    view.board = rec.board
    if rec.rules is not None:
        view.rules = rec.rules
    return [f"board {view.board or '?'} started (run {rec.run[:40]})"]


def _game(view: BoardView, rec: GameRecord, now: float) -> list[str]:
    view.moves, view.result, view.irregularity, view.leds = [], None, None, {}
    view.adjourned, view.gap = False, None
    view.engine_move = view.engine_error = view.engine_hint = view.analysis = None
    view.tags = dict(rec.tags or {})
    view._set_time_control(rec.time_control)
    rules = rec.rules if rec.rules is not None else view.rules
    fen = rec.fen
    if fen is None and rules is not None:
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


def _move(view: BoardView, rec: MoveRecord, now: float) -> list[str]:
    move, side, ply = rec.move, rec.side, rec.ply
    if not view.moves:
        view.first_side = side if ply % 2 else ("black" if side == "white" else "white")
    if len(view.moves) < ply <= MAX_MOVES:
        # plies lost on the way (a gap in seq) are shown as "?" until a snapshot tells them
        view.moves += [LOST] * (ply - 1 - len(view.moves))
    if len(view.moves) < MAX_MOVES:
        view.moves.append(move)
    problem = view.set_position(None, rec.fen)
    running = "black" if side == "white" else "white"
    view._read_clock(rec.clock, running, now)
    if view.clock is not None and rec.clock is not None:
        view.running = running
    view.leds, view.irregularity, view.engine_move, view.engine_hint = {}, None, None, None
    view.analysis = None
    said = f"{view.last_move()} by {side}"
    if rec.clock is not None:
        said += f"; {view.times_text(now)}"
    return [said] + ([problem] if problem else [])


def irregularity_text(kind: str, side: Any, squares: Any, held: Any = None) -> str:
    """``touch-move (white): c3 (held 1.2 s)``."""
    text = kind + (f" ({side})" if side in SIDES else "")
    if isinstance(squares, list | tuple) and squares:
        text += ": " + ", ".join(str(s) for s in squares[:20])
    if isinstance(held, int | float) and not isinstance(held, bool):
        text += f" (held {held:.1f} s)"
    return text


def _irregularity(view: BoardView, rec: IrregularityRecord, now: float) -> list[str]:
    view.irregularity = irregularity_text(rec.kind, rec.side, view.square_names(rec.squares),
                                          rec.held)
    if rec.leds is not None:
        view.leds = dict(rec.leds)
    return [f"irregularity: {view.irregularity}"]


def _cleared(view: BoardView, rec: ClearedRecord, now: float) -> list[str]:
    view.leds = {}
    return ["the board is right again"]


def _result(view: BoardView, rec: ResultRecord, now: float) -> list[str]:
    view.result = f"{rec.result} ({rec.reason or 'no reason given'})"
    view.running = None
    return [f"result {view.result}"]


def _snapshot(view: BoardView, rec: SnapshotRecord, now: float) -> list[str]:
    problem = view.set_position(rec.rules, rec.fen)
    if rec.moves is not None:
        moves = rec.moves[:MAX_MOVES]
        first = moves[0].side if moves else None
        view.moves = [m.move for m in moves]
        view.first_side = first if first in SIDES else view.turn or "white"
    view.tags = dict(rec.tags)
    if rec.time_control is not UNSAID:
        view._set_time_control(rec.time_control)
    if rec.clock is not None:
        view._read_clock(rec.clock, rec.running, now)
    view.result = (f"{rec.result} ({rec.reason or 'no reason given'})"
                   if rec.result is not None else None)
    view.leds = dict(rec.leds) if rec.leds is not None else {}
    if view.link == "lost lines":
        view.link = "online"
    return [problem] if problem else []


def _alarm(view: BoardView, rec: AlarmRecord, now: float) -> list[str]:
    view.alarm = rec.alarm[:300] if rec.alarm is not None else None
    return [f"ALARM: {view.alarm}" if view.alarm else "alarm over: the journal is written again"]


def _hardware(view: BoardView, rec: HardwareRecord, now: float) -> list[str]:
    view.warnings = [f"missing: {m[:60]}" for m in rec.missing[:8]]
    return [f"hardware: {', '.join(view.warnings)}"] if view.warnings else []


def _clock(view: BoardView, rec: ClockRecord, now: float) -> list[str]:
    view._read_clock(rec.clock, rec.running, now)
    return [f"clock {rec.event[:20]}; {view.times_text(now)}"]


def _position(view: BoardView, rec: PositionRecord, now: float) -> list[str]:
    problem = view.set_position(None, rec.fen)
    view.leds = {}
    return [problem or f"position accepted: {rec.fen[:200]}"]


def _adjourned(view: BoardView, rec: AdjournedRecord, now: float) -> list[str]:
    view.adjourned, view.running = True, None
    return [f"adjourned: {rec.side} sealed a move"]


def _takeback(view: BoardView, rec: TakeBackRecord, now: float) -> list[str]:
    """Plies taken back: the moves after ply N dropped (the position comes with the next
    snapshot, or the control socket's next status)."""
    del view.moves[rec.ply:]
    view.result = view.engine_move = view.analysis = None
    return [f"taken back: {rec.ply} plies left"]


#: Candidates a ``gap`` line is told with at most, and the longest sentence.
GAP_SHOWN = 8
GAP_TEXT = 600


def _pdn_list(value: Sequence[str]) -> list[str]:
    """A list of PDN moves as a sentence tells it."""
    return [m[:40] for m in value[:20]]


def gap_text(rec: GapRecord) -> str:
    """The feed's ``gap`` line in words: the plies rebuilt from the board as sensed, or the
    candidates the arbiter chooses from."""
    ply = rec.ply
    if rec.recovered:
        n = len(rec.recovered)
        return (f"rebuilt {n} {'ply' if n == 1 else 'plies'} after ply {ply} from the board "
                f"(lost to a power cut): {' '.join(_pdn_list(rec.recovered))}")[:GAP_TEXT]
    candidates = [c for c in map(_pdn_list, rec.candidates[:GAP_SHOWN]) if c]
    count = rec.count
    if count is None or count < len(candidates):
        count = len(candidates)
    head = f"plies missing after ply {ply} (a power cut?): "
    if not candidates:
        return head + "no legal sequence found that leads to the board; the arbiter decides"
    shown = "; ".join(f"{i}) {' '.join(c)}" for i, c in enumerate(candidates, 1))
    more = f" (and {count - len(candidates)} more)" if count > len(candidates) else ""
    word = "candidate" if count == 1 else "candidates"
    return (head + f"{count} {word}: {shown}{more}; the arbiter decides")[:GAP_TEXT]


def _gap(view: BoardView, rec: GapRecord, now: float) -> list[str]:
    view.gap = gap_text(rec)
    return [view.gap]


def _engine_move(view: BoardView, rec: EngineMoveRecord, now: float) -> list[str]:
    """The engine's move for the person to carry out (``boardctl run --engine``)."""
    view.engine_move = f"{view.move_number(rec.ply - 1)} {rec.move[:40]}"
    view.engine_error = None  # it answers again
    route = rec.route
    if route:
        # the LED picture as it ends: the start square, the landing squares, the pieces off
        view.leds = {sq[:4]: "land" for sq in route[1:MAX_LEDS]}
        view.leds[route[0][:4]] = "must-move"
        view.leds.update({sq[:4]: "remove" for sq in rec.captured[:MAX_LEDS]})
    return [f"the engine plays {view.engine_move}: carry it out"
            + (f" (LEDs: {view.led_text()})" if view.leds else "")]


def _engine(view: BoardView, rec: EngineRecord, now: float) -> list[str]:
    """The engine's error line (and its side handed back to the person)."""
    view.engine_error = rec.error[:200] + ("; it is out until a new game: make its moves "
                                           "yourself and press its clock"
                                           if rec.handed_back else "")
    return [f"engine: {view.engine_error}"]


def score_words(score: int, win: int | None = None) -> str:
    """A score for the side to move in words: ``+0.35``, ``-1.20``, ``wins in 3``, ``loses in
    2`` (firmware.engine.scores)."""
    if win is not None:
        return f"wins in {win}" if win > 0 else f"loses in {-win}"
    return f"{score / 100:+.2f}"


def analysis_text(view: BoardView, ply: int, score: int, best: Sequence[str], depth: int,
                  win: int | None = None) -> str:
    """``after 12. 32-28: +0.35 for black, depth 9: 18-23 29x18 ...``: an analysis line."""
    where = f"after {view.move_number(ply - 1)} {view.moves[ply - 1]}" if 0 < ply <= len(
        view.moves) else ("at the start" if ply == 0 else f"after ply {ply}")
    side = view.turn if view.turn in SIDES and ply == len(view.moves) else "the side to move"
    line = " ".join(m[:12] for m in best[:12])
    return (f"{where}: {score_words(score, win)} for {side}, depth {depth}"
            + (f": {line}" if line else ""))


def _analysis(view: BoardView, rec: AnalysisRecord, now: float) -> list[str]:
    """The engine's analysis of the position after ``rec.ply`` plies (``run --analyse``)."""
    view.analysis = analysis_text(view, rec.ply, rec.score, rec.best, rec.depth, rec.win)
    return [f"analysis {view.analysis}"]


def _status(view: BoardView, rec: StatusRecord, now: float) -> list[str]:
    view.link = rec.status[:20]
    return [f"board {view.link}"]


def _setup(view: BoardView, rec: SetupRecord, now: float) -> list[str]:
    if rec.fill is not None:  # a position set up by the LEDs (issue 42)
        if not rec.fill and not rec.empty:
            return ["set up: the board shows the position"]
        fill = ", ".join(f"{sq} {rec.pieces.get(sq, '')}".strip() for sq in rec.fill[:MAX_LEDS])
        return [f"set up: fill {fill or '-'}; empty {', '.join(rec.empty[:MAX_LEDS]) or '-'}"]
    text = f"setup {rec.id[:40]}: {rec.status[:20]}"
    if rec.reason:
        text += f" ({rec.reason[:120]})"
    return [text]


#: Each record class's step.
_RECORDS: dict[type[Any], Callable[..., list[str]]] = {
    HeaderRecord: _header, GameRecord: _game, MoveRecord: _move,
    IrregularityRecord: _irregularity, ClearedRecord: _cleared, ResultRecord: _result,
    SnapshotRecord: _snapshot, AlarmRecord: _alarm, HardwareRecord: _hardware,
    ClockRecord: _clock, PositionRecord: _position, AdjournedRecord: _adjourned,
    StatusRecord: _status, SetupRecord: _setup, TakeBackRecord: _takeback, GapRecord: _gap,
    EngineMoveRecord: _engine_move, EngineRecord: _engine,
    AnalysisRecord: _analysis,
}
