"""One board game: the referee, the clock and the game record, composed once.

The service (``boardctl run``) and ``boardctl replay`` both feed a :class:`BoardSession` the
same events (``firmware.formats.events``) and get the same typed feed records back
(``firmware.formats.records``; the lines below are their CONTRACT.md shapes, without the
framing that ``firmware.formats.feed`` adds, on the thread that writes them):

- ``{"type": "move", "ply", "side", "move", "fen", "clock"}`` (``clock`` with a time control);
- ``{"type": "irregularity", "kind", "side", "squares", "leds"}``;
- ``{"type": "result", "result", "reason"}`` (a flag fall: ``"reason": "time forfeit"``, with
  ``"at"``, the second the flag fell);
- ``{"type": "position", "fen", "reason": "accepted"}`` when an irregular board is accepted;
- ``{"type": "cleared"}``: the board is back to a legal picture after an irregularity;
- ``{"type": "clock", "event", "clock", "running"}``: pause, resume, arbiter corrections;
- ``{"type": "adjourned", "side", "clock"}``: the sealed move stays secret (004 §34-35) until
  ``resume-adjourned`` plays it as an ordinary ``move`` record.

Results the clock decides (RULES.md, Clocks; docs/ARBITER.md):

- a flag loses (004 §32: "loetakse partii talle kaotatuks"); the clock freezes on it;
- a player who has not come to the board (no move, no touch, no press of his own) when the
  round's clock has run ``late_ns`` (30 minutes, 004 §32: "kes hilines 30 või rohkem minutit")
  loses by default;
- the arbiter overrides either with a ``result`` event (the record says ``"override": true``);
- a game started in an ending that 000 7.2.9 draws at once without Fischer increments is drawn
  at its start.

The events alone rebuild everything: a journal replayed through a fresh session gives the same
game, clock and LED picture.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from firmware.clock.gameclock import GameClock
from firmware.clock.timecontrol import TimeControl
from firmware.errors import BoardError
from firmware.formats.events import (
    NS,
    Accept,
    Adjourn,
    ClockSet,
    Event,
    Lift,
    MovesSet,
    Pause,
    Place,
    Press,
    Recovered,
    Result,
    Resume,
    ResumeAdjourned,
    Start,
    TakeBack,
)
from firmware.formats.journal import StartMode
from firmware.formats.records import (
    AdjournedRecord,
    ClearedRecord,
    IrregularityRecord,
    MoveRecord,
    PositionRecord,
    Record,
    ResultRecord,
    SnapshotRecord,
    TakeBackRecord,
)
from firmware.formats.scoresheet import Scoresheet
from firmware.referee import (
    SETTLE_NS,
    Accepted,
    Cleared,
    Decision,
    Irregularity,
    MoveCommitted,
    Referee,
)
from firmware.rules.game import Game, result_text
from firmware.rules.notation import move_text, parse_move
from firmware.rules.position import Move, Position
from firmware.rules.sets import RuleSet, Side, find_rules
from firmware.session import views as session_views
from firmware.session.clock import LATE_NS, SessionClock

__all__ = ["AUTOMATIC", "LATE_NS", "BoardSession"]

#: Result reasons the clock gives, which the arbiter may override.
AUTOMATIC = ("time forfeit", "default")

Records = list[Record]


class BoardSession:
    """Referee + clock + record of one game (DESIGN.md). ``started`` False: the game waits
    for a ``start`` event (set-up checked, 000 5.2); True: play from the first event (a log
    without a ``start``; with a time control White's clock then starts at the first event).
    ``clocked``: moves are committed by presses (default: when there is a time control).
    ``start_mode``: how a game waiting for its start starts (:meth:`starts_game`)."""

    def __init__(
        self,
        rules: RuleSet | str,
        time_control: TimeControl | str | None = None,
        fen: str | None = None,
        settle_ns: int = SETTLE_NS,
        *,
        clocked: bool | None = None,
        started: bool = False,
        tags: dict[str, str] | None = None,
        late_ns: int | None = LATE_NS,
        touch_ns: int | None = None,
        start_mode: StartMode = StartMode.PRESS,
    ) -> None:
        self.rules = find_rules(rules)
        self.start = Position.from_fen(self.rules, fen) if fen else Position.start(self.rules)
        self.start_fen = fen.strip() if fen else None
        if isinstance(time_control, str):
            time_control = TimeControl.parse(time_control)
        self.control = time_control
        self.clock = GameClock(time_control) if time_control is not None else None
        self.fischer = bool(self.clock.fischer) if self.clock is not None else True
        self.referee = Referee(
            self.rules, self.start, settle_ns=settle_ns, started=started, touch_ns=touch_ns,
            clocked=self.clock is not None if clocked is None else clocked,
        )
        self._auto_clock = started
        self.start_mode = start_mode
        #: The rules' record (draw counters, repetitions, the end of the game).
        self.record = Game(self.rules, self.start, fischer=self.fischer)
        #: The game as written down: PDN, snapshot and the move list come from it.
        self.sheet = Scoresheet(self.start.fen())
        self.tags = dict(tags or {})
        self.outcome: ResultRecord | None = None
        self.sealed: Move | None = None
        self.last_at = 0
        #: The clock's readings, stops and corrections on the feed; the late default.
        self.timing = SessionClock(self.clock, late_ns)
        self._opened = False

    @property
    def position(self) -> Position:
        return self.referee.position

    @property
    def moves(self) -> list[dict[str, Any]]:
        """The move records so far (feed shape)."""
        return self.sheet.moves

    @property
    def result(self) -> dict[str, Any] | None:
        """The result record (feed shape), or None while the game goes on."""
        return self.outcome.to_json() if self.outcome is not None else None

    # -- events ------------------------------------------------------------------------------

    def handle(self, event: Event) -> Records:
        """Feed one event; the feed records it produced. Arbiter events with bad arguments
        (a sealed move that is not legal) raise BoardError and change nothing."""
        at = max(event.at, self.last_at)
        if isinstance(event, Adjourn):
            return _adjourn(self, event, at)
        out = self._tick(at)
        self.last_at = at
        if isinstance(event, Lift | Place | Press):
            out += self._at_the_board(event, at)
        on_event = _ON_EVENT.get(type(event))
        return out + on_event(self, event, at) if on_event is not None else out

    def _at_the_board(self, event: Lift | Place | Press, at: int) -> Records:
        """A hand at the board: the clock starts on a log without ``start``; the side to move
        is present (004 §32)."""
        out: Records = []
        if self._auto_clock:
            self._start_clock(at)
            out += self._open(at)
        self.timing.seen(event)
        return out

    def starts_game(self, event: Event) -> bool:
        """Does ``event`` start the game (issue 36)? In ``move`` mode, before the start, the
        first lift of a piece of the side to move from the start position as set up does, at
        its time, as the arbiter's ``start`` would: the service journals that ``start`` just
        before the lift (``boardctl replay`` of a log does the same)."""
        if (self.start_mode is not StartMode.MOVE or not isinstance(event, Lift)
                or self.referee.started or self.outcome is not None):
            return False
        referee, position, geometry = self.referee, self.position, self.rules.geometry
        if referee.board() != position.occupied() or referee.light:
            return False
        if not geometry.is_dark(event.square):
            return False
        piece = position.piece_at(geometry.number(event.square))
        return piece is not None and piece.side is position.turn

    def tick(self, at: int) -> Records:
        """Let time pass to ``at``: a board at rest (no clock: the move is made) and the flags
        (004 §32: the exact instant of the first flag)."""
        return self._tick(at)

    def _tick(self, at: int) -> Records:
        at = max(at, self.last_at)
        if self.clock is not None and self.outcome is None and self.clock.started:
            flag = self.clock.flag(at)
            late = self.timing.late_at()
            if late is not None and late[1] <= at and (flag is None or late[1] < flag.at):
                side, when = late
                out = self._decide(self.referee.tick(when))
                reason = self.timing.late_reason()
                return out + self._end(result_text(self.rules, side.other), reason, when)
            if flag is not None:
                return self._decide(self.referee.tick(flag.at)) + self._flag_fall(flag.side,
                                                                                  flag.at)
        return self._decide(self.referee.tick(at))

    def _open(self, at: int) -> Records:
        """The game's start: a position that is already over ends it at once (000 7.2.9: the
        endings of 7.2.7-7.2.8 without Fischer increments are drawn at once; no piece or no
        move loses)."""
        if self._opened:
            return []
        self._opened = True
        outcome = self.record.outcome()
        if outcome is None:
            return []
        return self._end(outcome.result, outcome.reason, at)

    def wake_at(self) -> int | None:
        """When :meth:`tick` next has something to decide (a board coming to rest, a flag
        falling), in monotonic ns; None when nothing is pending. For the service's loop."""
        rest = self.referee.rests_at()
        times = [] if rest is None else [rest]
        if self.clock is not None and self.outcome is None:
            flag_at = self.clock.next_flag_at()
            if flag_at is not None:
                times.append(flag_at)
            late = self.timing.late_at()
            if late is not None:
                times.append(late[1])
        return min(times) if times else None

    def finish(self, at: int | None = None) -> Records:
        """The end of a log: a board left resting on a legal result is the last move."""
        at = self.last_at if at is None else max(at, self.last_at)
        return self._decide(self.referee.finish(at))

    def _start_clock(self, at: int) -> None:
        self._auto_clock = False
        self.timing.start(at, self.position.turn)

    # -- decisions -> records ----------------------------------------------------------------

    def _decide(self, decisions: list[Decision]) -> Records:
        out: Records = []
        for d in decisions:
            on_decision = _ON_DECISION.get(type(d))  # a refused press writes nothing
            if on_decision is not None:
                out += on_decision(self, d)
        return out

    def _move(self, d: Decision) -> Records:
        assert isinstance(d, MoveCommitted)
        text = move_text(d.before, d.move)
        switch = d.pressed or not self.referee.clocked  # no presses: the clock follows the board
        if self.clock is not None and self.clock.started and switch:
            press = self.clock.press(d.side, d.at)
            if press.overstep or press.flag is not None:
                return self._flag_fall(d.side, press.flag.at if press.flag is not None else d.at)
        # The referee played the move from the record's own position object (adopt): its
        # ``after`` is the record's next position, not worked out twice.
        self.record.push(d.move, d.after if d.before is self.record.position else None)
        outcome = self.record.outcome()
        self.referee.adopt(self.record.position)
        rec = MoveRecord(len(self.sheet.moves) + 1, d.side.value, text, d.after.fen(),
                         self.timing.values(d.at))
        self.sheet.add(rec)
        if outcome is not None:
            return [rec, *self._end(outcome.result, outcome.reason, d.at)]
        return [rec]

    def _accepted(self, d: Decision) -> Records:
        assert isinstance(d, Accepted)
        if d.passes_turn and self.clock is not None and self.clock.started:
            self.clock.press(d.side, d.at)
        rec = PositionRecord(d.position.fen())
        self.sheet.add(rec)
        self.record.setup(d.position)
        outcome = self.record.outcome()
        if outcome is not None:
            return [rec, *self._end(outcome.result, outcome.reason, d.at)]
        return [rec]

    def _flag_fall(self, side: Side, at: int) -> Records:
        return self._end(result_text(self.rules, side.other), "time forfeit", at, flag_at=at)

    def _end(self, result: str, reason: str, at: int, flag_at: int | None = None) -> Records:
        if self.outcome is not None:
            return []
        if flag_at is None:
            self.outcome = ResultRecord(result, reason)
        else:
            flag = self.clock.flag(flag_at) if self.clock is not None else None
            self.outcome = ResultRecord(result, reason, round(flag_at / NS, 3),
                                        flag.side.value if flag is not None else None)
        self.referee.over = True
        if self.clock is not None and self.clock.running is not None:
            self.clock.pause(max(at, self.last_at))
        return [self.outcome]

    # -- what to show ------------------------------------------------------------------------

    def leds(self) -> dict[str, str]:
        """The LED picture: algebraic square -> meaning (restore, remove, must-move, wrong)."""
        return self.referee.leds()

    def pdn(self) -> str:
        """The game so far as PDN: only the moves made, ``[%clock]`` after each with a time
        control, accepted positions as ``/FEN "..."/`` setups."""
        return self.sheet.pdn(self.rules, self.tags, self.control,
                              self.start.fen() if self.start_fen else None,
                              self.outcome.result if self.outcome is not None else "*")

    def snapshot_start(self) -> tuple[str, tuple[MoveRecord, ...]]:
        """Where a snapshot starts: the start FEN, or the last accepted position (000 5.7),
        and the move records since, so that replaying them gives the current position."""
        return self.sheet.snapshot_start()

    def snapshot(self, game: str, at: int | None = None) -> SnapshotRecord:
        """A full-state ``snapshot`` feed record. After an accepted position (000 5.7) it
        starts there: ``start_fen`` + ``moves`` give ``fen``."""
        return session_views.snapshot(self, game, self.last_at if at is None else at)

    def status(self, at: int | None = None) -> dict[str, Any]:
        """What a display shows: position, turn, move count, clocks, LED picture, result."""
        return session_views.status(self, self.last_at if at is None else at)



# -- events -> records (the handlers of _ON_EVENT) -------------------------------------


def _on_start(session: BoardSession, event: Event, at: int) -> Records:
    session.timing.start(at, session.position.turn)
    return session._decide(session.referee.start(at)) + session._open(at)


def _on_lift(session: BoardSession, event: Event, at: int) -> Records:
    assert isinstance(event, Lift)
    return session._decide(session.referee.lift(event.square, at))


def _on_place(session: BoardSession, event: Event, at: int) -> Records:
    assert isinstance(event, Place)
    return session._decide(session.referee.place(event.square, at))


def _on_press(session: BoardSession, event: Event, at: int) -> Records:
    assert isinstance(event, Press)
    if session.clock is not None and (session.clock.paused or session.clock.adjournment):
        return []
    return session._decide(session.referee.press(Side(event.side), at))


def _on_pause(session: BoardSession, event: Event, at: int) -> Records:
    return [*session.timing.pause(at)] if session.outcome is None else []


def _on_resume(session: BoardSession, event: Event, at: int) -> Records:
    return [*session.timing.resume(at)] if session.outcome is None else []


def _on_accept(session: BoardSession, event: Event, at: int) -> Records:
    return session._decide(session.referee.accept(at))


def _on_clock_set(session: BoardSession, event: Event, at: int) -> Records:
    assert isinstance(event, ClockSet)
    return [*session.timing.set_remaining(Side(event.side), event.seconds, at)]


def _on_moves_set(session: BoardSession, event: Event, at: int) -> Records:
    assert isinstance(event, MovesSet)
    return [*session.timing.correct_moves(Side(event.side), event.moves, at)]


def _on_result(session: BoardSession, event: Event, at: int) -> Records:
    """The arbiter's result; it overrides a result the clock gave (a flag, a default)."""
    assert isinstance(event, Result)
    current = session.outcome
    if current is not None and current.reason.startswith(AUTOMATIC):
        session.outcome = None
        session._end(event.result, event.reason, at)  # the clocks stop as for any result
        session.outcome = ResultRecord(event.result, event.reason, overridden=current.result)
        return [session.outcome]
    return session._end(event.result, event.reason, at)


def _on_takeback(session: BoardSession, event: Event, at: int) -> Records:
    """The arbiter takes plies back (a misread; an engine game's take-back): the record, the
    referee (the LEDs show the position to restore) and the clock's turn go back, a result
    is withdrawn; the clocks stop when they ran (the arbiter resumes them once the board is
    restored). BoardError, nothing changed, for more plies than can be taken back."""
    assert isinstance(event, TakeBack)
    if session.sealed is not None:
        raise BoardError("takeback: the game is adjourned (resume it first)")
    gone = session.sheet.moves[len(session.sheet.moves) - event.plies:]
    try:
        left = session.sheet.take_back(event.plies)
    except ValueError as exc:
        raise BoardError(f"takeback: {exc}") from None
    for _ in gone:
        session.record.pop()
    session.record.declare(None, "")
    session.outcome = None
    out: Records = list(session.timing.take_back(gone, session.record.position.turn, at,
                                                 event.stop))
    out.append(TakeBackRecord(left))
    return out + session._decide(session.referee.take_back(session.record.position,
                                                           event.plies, at))


def _on_recovered(session: BoardSession, event: Event, at: int) -> Records:
    """Plies a power cut lost, rebuilt from the board as sensed (issue 30): played as if the
    arbiter forced them (the referee then follows the board as the sensors report it), with
    no press: each clock keeps its reading, the turn passes, each side's move count goes on.
    BoardError, nothing changed, for a move that is not legal or a game adjourned or over."""
    assert isinstance(event, Recovered)
    if session.sealed is not None or session.outcome is not None:
        raise BoardError("recovered: the game is adjourned or over")
    position = session.record.position
    moves = []
    for text in event.moves:
        move = parse_move(position, text)  # IllegalMoveError is a BoardError
        moves.append(move)
        position = position.play(move)
    out: Records = []
    for move in moves:
        for d in session.referee.force(move, at):
            if isinstance(d, MoveCommitted):
                out += session._move(
                    MoveCommitted(d.at, d.move, d.side, d.before, d.after, pressed=False))
    session.timing.recovered(moves, session.record.position.turn, at)
    return out


def _adjourn(session: BoardSession, event: Adjourn, at: int) -> Records:
    """The side to move seals his move (004 §34-35): the clocks stop; the move stays secret."""
    move = parse_move(session.position, event.sealed)  # IllegalMoveError: nothing changed
    out = session._tick(at)
    session.last_at = at
    if session.outcome is not None:
        return out
    session.sealed = move
    side = session.position.turn
    clock = session.clock
    if clock is not None and clock.started and clock.adjournment is None:
        clock.adjourn(at)
    return out + [AdjournedRecord(side.value, session.timing.values(at))]


def _on_resume_adjourned(session: BoardSession, event: Event, at: int) -> Records:
    move = session.sealed
    if move is None:
        return []
    session.sealed = None
    decisions = session.referee.force(move, at)
    if session.clock is not None and session.clock.adjournment is not None:
        session.clock.resume_adjourned(at)
    out: Records = []
    for d in decisions:
        if isinstance(d, MoveCommitted):
            out += session._move(
                MoveCommitted(d.at, d.move, d.side, d.before, d.after, pressed=False)
            )
    return out


def _irregularity(session: BoardSession, d: Decision) -> Records:
    assert isinstance(d, Irregularity)
    # touch-move: how long the piece was held (000 3.9-3.11)
    held = round(d.held_ns / NS, 3) if d.held_ns is not None else None
    return [IrregularityRecord(d.kind, d.side.value if d.side is not None else None,
                               d.squares, {m.square: m.meaning for m in d.marks}, held)]


def _cleared(session: BoardSession, d: Decision) -> Records:
    return [ClearedRecord()]


#: What each event does, after the time up to it has passed (``Adjourn`` comes before that:
#: a sealed move that is not legal changes nothing).
_ON_EVENT: dict[type[Event], Callable[[BoardSession, Event, int], Records]] = {
    Start: _on_start,
    Lift: _on_lift,
    Place: _on_place,
    Press: _on_press,
    Pause: _on_pause,
    Resume: _on_resume,
    Accept: _on_accept,
    ClockSet: _on_clock_set,
    MovesSet: _on_moves_set,
    ResumeAdjourned: _on_resume_adjourned,
    Result: _on_result,
    TakeBack: _on_takeback,
    Recovered: _on_recovered,
}
#: The records each referee decision gives.
_ON_DECISION: dict[type[Decision], Callable[[BoardSession, Decision], Records]] = {
    MoveCommitted: BoardSession._move,
    Irregularity: _irregularity,
    Accepted: BoardSession._accepted,
    Cleared: _cleared,
}
