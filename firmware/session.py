"""One board game: the referee, the clock and the game record, composed once.

The service (``boardctl run``) and ``boardctl replay`` both feed a :class:`BoardSession` the
same events (``firmware.events``) and get the same feed records back (CONTRACT.md shapes,
without the integrity fields that ``firmware.feed`` adds):

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

from typing import Any

from firmware.clock import GameClock
from firmware.events import (
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
    Result,
    Resume,
    ResumeAdjourned,
    Start,
)
from firmware.game import Game, result_text
from firmware.notation import move_text, parse_move
from firmware.pdn import ClockReading, Setup, rules_tags, write_game
from firmware.position import Move, Position
from firmware.referee import (
    SETTLE_NS,
    Accepted,
    Cleared,
    Decision,
    Irregularity,
    MoveCommitted,
    Referee,
)
from firmware.rules import RuleSet, Side, find_rules
from firmware.timecontrol import TimeControl

#: 004 §32: a player 30 or more minutes late loses the game.
LATE_NS = 30 * 60 * NS
#: Result reasons the clock gives, which the arbiter may override.
AUTOMATIC = ("time forfeit", "default")


class BoardSession:
    """Referee + clock + record of one game (DESIGN.md). ``started`` False: the game waits
    for a ``start`` event (set-up checked, 000 5.2); True: play from the first event (a log
    without a ``start``; with a time control White's clock then starts at the first event).
    ``clocked``: moves are committed by presses (default: when there is a time control)."""

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
    ) -> None:
        self.rules = find_rules(rules)
        self.start = Position.from_fen(self.rules, fen) if fen else Position.start(self.rules)
        self.start_fen = fen.strip() if fen else None
        if isinstance(time_control, str):
            time_control = TimeControl.parse(time_control)
        self.control = time_control
        self.clock = GameClock(time_control) if time_control is not None else None
        fischer = bool(self.clock.fischer) if self.clock is not None else True
        self.referee = Referee(
            self.rules,
            self.start,
            clocked=self.clock is not None if clocked is None else clocked,
            settle_ns=settle_ns,
            started=started,
            touch_ns=touch_ns,
        )
        self._auto_clock = started
        self.record = Game(self.rules, self.start, fischer=fischer)
        self.fischer = fischer
        self.tags = dict(tags or {})
        self.items: list[str | Setup] = []
        self.clocks: list[ClockReading | None] = []
        self.moves: list[dict[str, Any]] = []
        self.result: dict[str, Any] | None = None
        self.sealed: Move | None = None
        self.last_at = 0
        self.late_ns = late_ns
        #: Sides seen at the board (a lift, set-down or press on their own turn, 004 §32).
        self.present: set[Side] = set()
        self._opened = False
        #: The last accepted position (000 5.7) and how many moves came before it: a snapshot
        #: starts there, so that its start FEN and moves give its FEN.
        self._setup: tuple[str, int] | None = None

    # -- events ------------------------------------------------------------------------------

    @property
    def position(self) -> Position:
        return self.referee.position

    def handle(self, event: Event) -> list[dict[str, Any]]:
        """Feed one event; the feed records it produced. Arbiter events with bad arguments
        (a sealed move that is not legal) raise BoardError and change nothing."""
        at = max(event.at, self.last_at)
        if isinstance(event, Adjourn):
            return self._adjourn(event, at)
        out = self.tick(at)
        self.last_at = at
        if isinstance(event, Start):
            if self.clock is not None and not self.clock.started:
                self.clock.start(at, self.position.turn)
            return out + self._decide(self.referee.start(at)) + self._open(at)
        if isinstance(event, Lift | Place | Press) and self._auto_clock:
            self._start_clock(at)
            out += self._open(at)
        if isinstance(event, Lift | Place | Press) and self.clock is not None:
            if self.clock.turn is not None and (
                not isinstance(event, Press) or event.side == self.clock.turn.value
            ):
                self.present.add(self.clock.turn)
        if isinstance(event, Lift):
            return out + self._decide(self.referee.lift(event.square, at))
        if isinstance(event, Place):
            return out + self._decide(self.referee.place(event.square, at))
        if isinstance(event, Press):
            if self._auto_clock:
                self._start_clock(at)
            if self.clock is not None and (self.clock.paused or self.clock.adjournment):
                return out
            side = Side(event.side)
            return out + self._decide(self.referee.press(side, at))
        if isinstance(event, Pause):
            if self.clock is not None and self.result is None and self.clock.pause(at):
                out.append(self._clock_record("pause", at))
            return out
        if isinstance(event, Resume):
            if self.clock is not None and self.result is None and self.clock.adjournment is None:
                if self.clock.resume(at):
                    out.append(self._clock_record("resume", at))
            return out
        if isinstance(event, Accept):
            return out + self._decide(self.referee.accept(at))
        if isinstance(event, ClockSet):
            if self.clock is not None:
                self.clock.set_remaining(Side(event.side), round(event.seconds * NS), at)
                out.append(self._clock_record("clock-set", at))
            return out
        if isinstance(event, MovesSet):
            if self.clock is not None:
                self.clock.correct_moves(Side(event.side), event.moves, at)
                out.append(self._clock_record("moves-set", at))
            return out
        if isinstance(event, ResumeAdjourned):
            return out + self._resume_adjourned(at)
        if isinstance(event, Result):
            return out + self._arbiter_result(event, at)
        return out

    def tick(self, at: int) -> list[dict[str, Any]]:
        """Let time pass to ``at``: a board at rest (no clock: the move is made) and the flags
        (004 §32: the exact instant of the first flag)."""
        at = max(at, self.last_at)
        out: list[dict[str, Any]] = []
        if self.clock is not None and self.result is None and self.clock.started:
            flag = self.clock.flag(at)
            late = self._late_at()
            if late is not None and late[1] <= at and (flag is None or late[1] < flag.at):
                out += self._decide(self.referee.tick(late[1]))
                if self.result is None:
                    out += self._end(
                        result_text(self.rules, late[0].other),
                        "default: 30 minutes late (004 §32)" if self.late_ns == LATE_NS
                        else "default: late (004 §32)",
                        late[1],
                    )
                return out
            if flag is not None:
                out += self._decide(self.referee.tick(flag.at))
                if self.result is None:
                    out += self._flag_fall(flag.side, flag.at)
                return out
        out += self._decide(self.referee.tick(at))
        return out

    def _late_at(self) -> tuple[Side, int] | None:
        """Who will be defaulted for lateness and when (004 §32), if nobody comes: the side to
        move, not yet seen at the board and without a move, once his own clock has run
        ``late_ns`` (004 §32: the absent player's clock starts when his turn comes and the time
        until he comes is his; a player who sits thinking without touching a piece for that
        long on his first move is the arbiter's to excuse)."""
        clock = self.clock
        if self.late_ns is None or clock is None or clock.running is None:
            return None
        side = clock.running
        if side in self.present or clock.moves_made(side) > 0:
            return None
        at = clock.last_at or 0
        return side, at + max(0, self.late_ns - clock.used(side, at))

    def _open(self, at: int) -> list[dict[str, Any]]:
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

    def _arbiter_result(self, event: Result, at: int) -> list[dict[str, Any]]:
        """The arbiter's result; it overrides a result the clock gave (a flag, a default)."""
        current = self.result
        if current is not None and str(current.get("reason", "")).startswith(AUTOMATIC):
            self.result = None
            out = self._end(event.result, event.reason, at)
            out[0]["override"] = True
            out[0]["overridden"] = current["result"]
            return out
        return self._end(event.result, event.reason, at)

    def wake_at(self) -> int | None:
        """When :meth:`tick` next has something to decide (a board coming to rest, a flag
        falling), in monotonic ns; None when nothing is pending. For the service's loop."""
        times = []
        ref = self.referee
        if not ref.judged and ref.changed_at is not None:
            times.append(ref.changed_at + ref.settle_ns)
        if self.clock is not None and self.result is None:
            flag_at = self.clock.next_flag_at()
            if flag_at is not None:
                times.append(flag_at)
            late = self._late_at()
            if late is not None:
                times.append(late[1])
        return min(times) if times else None

    def finish(self, at: int | None = None) -> list[dict[str, Any]]:
        """The end of a log: a board left resting on a legal result is the last move."""
        at = self.last_at if at is None else max(at, self.last_at)
        return self._decide(self.referee.finish(at))

    def _start_clock(self, at: int) -> None:
        self._auto_clock = False
        if self.clock is not None and not self.clock.started:
            self.clock.start(at, self.position.turn)

    # -- decisions -> records ----------------------------------------------------------------

    def _decide(self, decisions: list[Decision]) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        for d in decisions:
            if isinstance(d, MoveCommitted):
                out += self._move(d)
            elif isinstance(d, Irregularity):
                out.append(self._irregularity(d))
            elif isinstance(d, Accepted):
                out += self._accepted(d)
            elif isinstance(d, Cleared):
                out.append({"type": "cleared"})
        return out

    def _clock_values(self, at: int) -> dict[str, float] | None:
        if self.clock is None:
            return None
        return {  # [%clock]: the time after the move's own bonus (both Fischer conventions)
            s.value: round(self.clock.reading(s, at) / NS, 3) for s in (Side.WHITE, Side.BLACK)
        }

    def _clock_record(self, what: str, at: int) -> dict[str, Any]:
        """``{"type": "clock", "event", "clock", "running"}``: pause, resume, corrections."""
        assert self.clock is not None
        running = self.clock.running
        return {
            "type": "clock",
            "event": what,
            "clock": self._clock_values(at),
            "running": running.value if running is not None else None,
        }

    def _move(self, d: MoveCommitted) -> list[dict[str, Any]]:
        text = move_text(d.before, d.move)
        out: list[dict[str, Any]] = []
        switch = d.pressed or not self.referee.clocked  # no presses: the clock follows the board
        if self.clock is not None and self.clock.started and switch:
            press = self.clock.press(d.side, d.at)
            if press.overstep or press.flag is not None:
                flag_at = press.flag.at if press.flag is not None else d.at
                return self._flag_fall(d.side, flag_at)
        self.record.push(d.move)
        outcome = self.record.outcome()
        self.referee.adopt(self.record.position)
        ply = len(self.moves) + 1
        rec: dict[str, Any] = {
            "type": "move",
            "ply": ply,
            "side": d.side.value,
            "move": text,
            "fen": d.after.fen(),
        }
        clock = self._clock_values(d.at)
        if clock is not None:
            rec["clock"] = clock
        self.moves.append(rec)
        self.items.append(text)
        self.clocks.append(
            ClockReading(clock["white"], clock["black"], d.after.turn.value) if clock else None
        )
        out.append(rec)
        if outcome is not None:
            out += self._end(outcome.result, outcome.reason, d.at)
        return out

    def _irregularity(self, d: Irregularity) -> dict[str, Any]:
        rec: dict[str, Any] = {
            "type": "irregularity",
            "kind": d.kind,
            "side": d.side.value if d.side is not None else None,
            "squares": d.squares,
            "leds": {m.square: m.meaning for m in d.marks},
        }
        if d.held_ns is not None:  # touch-move: how long the piece was held (000 3.9-3.11)
            rec["held"] = round(d.held_ns / NS, 3)
        return rec

    def _accepted(self, d: Accepted) -> list[dict[str, Any]]:
        if d.passes_turn and self.clock is not None and self.clock.started:
            self.clock.press(d.side, d.at)
        fen = d.position.fen()
        self._setup = (fen, len(self.moves))
        self.items.append(Setup(fen))
        self.record.setup(d.position)
        out: list[dict[str, Any]] = [{"type": "position", "fen": fen, "reason": "accepted"}]
        outcome = self.record.outcome()
        if outcome is not None:
            out += self._end(outcome.result, outcome.reason, d.at)
        return out

    def _flag_fall(self, side: Side, at: int) -> list[dict[str, Any]]:
        return self._end(result_text(self.rules, side.other), "time forfeit", at, flag_at=at)

    def _end(
        self, result: str, reason: str, at: int, flag_at: int | None = None
    ) -> list[dict[str, Any]]:
        if self.result is not None:
            return []
        rec: dict[str, Any] = {"type": "result", "result": result, "reason": reason}
        if flag_at is not None:
            rec["at"] = round(flag_at / NS, 3)
            rec["side"] = (
                self.clock.flag(flag_at).side.value  # type: ignore[union-attr]
                if self.clock is not None and self.clock.flag(flag_at) is not None
                else None
            )
        self.result = rec
        self.referee.over = True
        if self.clock is not None and self.clock.running is not None:
            self.clock.pause(max(at, self.last_at))
        return [rec]

    # -- adjournment (004 §34-35) ------------------------------------------------------------

    def _adjourn(self, event: Adjourn, at: int) -> list[dict[str, Any]]:
        move = parse_move(self.position, event.sealed)  # IllegalMoveError: nothing changed
        out = self.tick(at)
        self.last_at = at
        if self.result is not None:
            return out
        self.sealed = move
        side = self.position.turn
        if self.clock is not None and self.clock.started and self.clock.adjournment is None:
            self.clock.adjourn(at)
        rec: dict[str, Any] = {"type": "adjourned", "side": side.value}
        clock = self._clock_values(at)
        if clock is not None:
            rec["clock"] = clock
        return out + [rec]

    def _resume_adjourned(self, at: int) -> list[dict[str, Any]]:
        move = self.sealed
        if move is None:
            return []
        self.sealed = None
        decisions = self.referee.force(move, at)
        if self.clock is not None and self.clock.adjournment is not None:
            self.clock.resume_adjourned(at)
        out: list[dict[str, Any]] = []
        for d in decisions:
            if isinstance(d, MoveCommitted):
                out += self._move(
                    MoveCommitted(d.at, d.move, d.side, d.before, d.after, pressed=False)
                )
        return out

    # -- what to show ------------------------------------------------------------------------

    def leds(self) -> dict[str, str]:
        """The LED picture: algebraic square -> meaning (restore, remove, must-move, wrong)."""
        return self.referee.leds()

    def pdn(self) -> str:
        """The game so far as PDN: only the moves made, ``[%clock]`` after each with a time
        control, accepted positions as ``/FEN "..."/`` setups."""
        tags = {**rules_tags(self.rules), **self.tags}
        if self.control is not None:
            tags.setdefault("TimeControl", str(self.control))
        result = self.result["result"] if self.result is not None else "*"
        return write_game(
            tags,
            self.items,
            start_fen=self.start.fen() if self.start_fen else None,
            clocks=self.clocks if self.clock is not None else None,
            result=result,
        )

    def snapshot_start(self) -> tuple[str, list[dict[str, Any]]]:
        """Where a snapshot starts: the start FEN, or the last accepted position (000 5.7),
        and the move records since, so that replaying them gives the current position."""
        if self._setup is None:
            return self.start.fen(), self.moves
        fen, first = self._setup
        return fen, self.moves[first:]

    def snapshot(self, game: str, at: int | None = None) -> dict[str, Any]:
        """A full-state ``snapshot`` feed record (``firmware.feed.snapshot_record``). After an
        accepted position (000 5.7) it starts there: ``start_fen`` + ``moves`` give ``fen``."""
        from firmware.feed import snapshot_record

        at = self.last_at if at is None else at
        running = self.clock.running if self.clock is not None else None
        start_fen, moves = self.snapshot_start()
        return snapshot_record(
            game=game,
            rules=self.rules.name,
            start_fen=start_fen,
            fen=self.position.fen(),
            moves=moves,
            tags=self.tags,
            clock=self._clock_values(at),
            running=running.value if running is not None else None,
            result=self.result["result"] if self.result else None,
            reason=self.result["reason"] if self.result else None,
            time_control=str(self.control) if self.control is not None else None,
            leds=self.leds(),
        )

    def status(self, at: int | None = None) -> dict[str, Any]:
        """What a display shows: position, turn, move count, clocks, LED picture, result."""
        at = self.last_at if at is None else at
        notice = self.referee.notice
        return {
            "rules": self.rules.name,
            "fen": self.position.fen(),
            "turn": self.position.turn.value,
            "ply": len(self.moves),
            "started": self.referee.started,
            "clock": self._clock_values(at),
            "running": (
                self.clock.running.value
                if self.clock is not None and self.clock.running is not None
                else None
            ),
            "adjourned": self.sealed is not None,
            "irregularity": notice.kind if notice is not None else None,
            "leds": self.leds(),
            "result": self.result["result"] if self.result else None,
            "reason": self.result["reason"] if self.result else None,
        }
