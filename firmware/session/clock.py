"""The game clock as a board session uses it: its readings on the feed, the arbiter's stops
and corrections as ``clock`` records, and who is defaulted for coming late (004 §32).

The clock itself (``firmware.clock.gameclock.GameClock``) charges time; this is what the
session says about it. A game without a time control has no clock: every method then says nothing.
"""

from __future__ import annotations

from typing import Any

from firmware.clock.gameclock import ClockError, GameClock
from firmware.formats.events import NS, Lift, Place, Press
from firmware.formats.records import ClockRecord, ClockValues
from firmware.rules.sets import Side

#: 004 §32: a player 30 or more minutes late loses the game.
LATE_NS = 30 * 60 * NS


class SessionClock:
    """The session's side of ``clock`` (None: a game without a time control)."""

    def __init__(self, clock: GameClock | None, late_ns: int | None = LATE_NS) -> None:
        self.clock = clock
        self.late_ns = late_ns
        #: Sides seen at the board (a lift, set-down or press on their own turn, 004 §32).
        self.present: set[Side] = set()

    def values(self, at: int) -> ClockValues | None:
        """Both clocks in seconds at ``at`` (``[%clock]``: after the move's own bonus, both
        Fischer conventions), or None without a time control."""
        if self.clock is None:
            return None
        return {s.value: round(self.clock.reading(s, at) / NS, 3)
                for s in (Side.WHITE, Side.BLACK)}

    def values_json(self, at: int) -> dict[str, float] | None:
        values = self.values(at)
        return dict(values) if values is not None else None

    def running(self) -> str | None:
        """The side whose clock runs, or None."""
        running = self.clock.running if self.clock is not None else None
        return running.value if running is not None else None

    def record(self, what: str, at: int) -> ClockRecord:
        """``{"type": "clock", "event": what, ...}``: both clocks and which one runs."""
        return ClockRecord(what, self.values(at), self.running())

    def start(self, at: int, turn: Side) -> None:
        if self.clock is not None and not self.clock.started:
            self.clock.start(at, turn)

    def seen(self, event: Lift | Place | Press) -> None:
        """A hand at the board: the side to move is present (a press counts only on his own
        turn's button, 004 §32)."""
        turn = self.clock.turn if self.clock is not None else None
        if turn is not None and (not isinstance(event, Press) or event.side == turn.value):
            self.present.add(turn)

    def late_at(self) -> tuple[Side, int] | None:
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

    def late_reason(self) -> str:
        return ("default: 30 minutes late (004 §32)" if self.late_ns == LATE_NS
                else "default: late (004 §32)")

    # -- the arbiter's stops and corrections (004 §32) --------------------------------------

    def pause(self, at: int) -> list[ClockRecord]:
        if self.clock is not None and self.clock.pause(at):
            return [self.record("pause", at)]
        return []

    def take_back(self, gone: list[dict[str, Any]], turn: Side, at: int,
                  stop: bool = True) -> list[ClockRecord]:
        """Plies taken back (``gone``, their move records): the clocks stop (with ``stop``;
        else ``turn``'s clock runs on if a clock ran), each side's move count goes back by its
        plies (a control passed again takes its period's time back, as a ``moves-set``
        does), and ``turn`` moves next; the faces keep what they show."""
        clock = self.clock
        if clock is None or not clock.started or clock.adjournment is not None:
            return []
        ran = clock.pause(at)
        for side in (Side.WHITE, Side.BLACK):
            plies = sum(1 for m in gone if m.get("side") == side.value)
            if plies:
                count = max(0, clock.moves_made(side) - plies)
                try:
                    clock.correct_moves(side, count, at)
                except ClockError:  # would leave under 15 minutes: the count alone
                    clock.set_moves(side, count)
        clock.hand_turn(turn, at)
        if ran and not stop:
            clock.resume(at)
        return [self.record("takeback", at)]

    def recovered(self, moves: list[Any], turn: Side, at: int) -> None:
        """Plies rebuilt after a power cut (no press, no time known): each side's move count
        goes on by its plies and ``turn`` moves next; the faces keep what they show."""
        clock = self.clock
        if clock is None or not clock.started or clock.adjournment is not None:
            return
        ran = clock.pause(at)
        first = turn if len(moves) % 2 == 0 else turn.other
        for i, side in enumerate((first, first.other)):
            clock.set_moves(side, clock.moves_made(side) + len(moves[i::2]))
        clock.hand_turn(turn, at)
        if ran:
            clock.resume(at)

    def resume(self, at: int) -> list[ClockRecord]:
        if self.clock is not None and self.clock.adjournment is None and self.clock.resume(at):
            return [self.record("resume", at)]
        return []

    def set_remaining(self, side: Side, seconds: float, at: int) -> list[ClockRecord]:
        if self.clock is None:
            return []
        self.clock.set_remaining(side, round(seconds * NS), at)
        return [self.record("clock-set", at)]

    def correct_moves(self, side: Side, moves: int, at: int) -> list[ClockRecord]:
        if self.clock is None:
            return []
        self.clock.correct_moves(side, moves, at)
        return [self.record("moves-set", at)]
