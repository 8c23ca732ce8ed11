"""One line of moves played through on the board, the person guessing one side's moves
(docs/TRAINING.md): a master game's in ``--train``, a puzzle's solution in ``--puzzles``.

:class:`Guessing` works on the referee's thread through the player door's
:class:`~boardctl.service.door.Seat` only, as the engine's player does:

- the other side's moves (and the person's, once he has missed it three times) are shown on
  the LEDs as the engine's are (:func:`boardctl.engine.player.move_picture`), told on the feed
  as ``remote-move`` lines (``source`` ``train`` or ``puzzle``) and in the journal, and
  committed by a press of their clock, an event of its own, when the board shows them;
- the person's move is committed as any move is, at his press; the next turn compares it
  with the line's: the same position after it is right, another is a wrong guess: a ``guess``
  line (``right`` false), then taken back (a ``takeback`` event, the person's clock running
  on), the referee's LEDs showing the way back. Each ply's guesses are kept for the session's
  PDN and its score (:class:`~boardctl.training.score.Score`).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass, field

from boardctl.engine.player import move_picture
from boardctl.service.door import Seat
from boardctl.training.source import Line
from firmware.errors import BoardError
from firmware.formats.events import Press, Result, TakeBack
from firmware.formats.records import GuessRecord, RemoteMoveRecord
from firmware.rules.sets import Side
from firmware.session.session import BoardSession

logger = logging.getLogger(__name__)

#: Wrong guesses at one ply before the line's move is shown.
TRIES = 3


@dataclass
class PlyGuesses:
    """The person's guesses at one ply of the line: the wrong ones in order, and how it
    ended: ``right`` at try ``len(wrong) + 1``, or ``shown`` after :data:`TRIES`."""

    wrong: list[str] = field(default_factory=list)
    right: bool = False
    shown: bool = False

    def comment(self) -> str:
        """The session PDN's comment after the ply."""
        said = f"guessed {', '.join(self.wrong)}; " if self.wrong else ""
        if self.shown:
            return said + "shown"
        return said + f"right at try {len(self.wrong) + 1}"


class Guessing:
    """The line being played through on the game in play (module docstring): how far it is
    (``done``: the line's plies on the record), the guesses per ply of the person's side, the
    move shown. Referee's thread."""

    def __init__(self, seat: Seat, line: Line, side: Side, source: str) -> None:
        self.seat = seat
        self.line = line
        #: The side whose moves the person guesses.
        self.side = side
        self.source = source
        self.session: BoardSession | None = None
        self.done = 0
        self.plies: dict[int, PlyGuesses] = {}
        #: The ply whose move was told on the feed (told once).
        self.told: int | None = None
        self.ended = False
        self.caught_up = 0

    @property
    def over(self) -> bool:
        """The line is played through."""
        return self.done >= len(self.line.moves)

    def guesses(self, ply: int) -> PlyGuesses:
        return self.plies.setdefault(ply, PlyGuesses())

    def to_show(self) -> bool:
        """Whether the line's next move is shown: the other side's, or the person's missed
        :data:`TRIES` times."""
        if self.over:
            return False
        ply = self.done
        return self.line.side_at(ply) is not self.side or len(self.guesses(ply).wrong) >= TRIES

    def follow(self, session: BoardSession, at: int) -> None:
        """One referee's turn on the game in play ``session``, which must be the line's."""
        if self.session is not session:  # a new game of the line, or one resumed
            self.session, self.told = session, None
            self.done, self.plies = 0, {}
            self.caught_up = len(session.moves)  # a resumed game's plies are not told again
        while len(session.moves) > self.done and not self.ended:
            if not self._judge(session, at):
                return
        if self.over or session.result is not None or session.sealed is not None:
            return
        if self.to_show():
            self._show(session, at)

    def _judge(self, session: BoardSession, at: int) -> bool:
        """The record's next ply against the line's: True when it is the line's (go on)."""
        ply = self.done
        rec = session.moves[ply]
        if ply < len(self.line.moves) and rec["fen"] == self.line.after[ply].fen():
            if self.line.side_at(ply) is self.side:
                guesses = self.guesses(ply)
                guesses.shown = len(guesses.wrong) >= TRIES
                guesses.right = not guesses.shown
                if guesses.right and ply >= self.caught_up:
                    self.seat.emit(GuessRecord(ply + 1, rec["move"], True))
            self.done += 1
            return True
        if ply < len(self.line.moves) and self.line.side_at(ply) is self.side \
                and not self.to_show():
            self.guesses(ply).wrong.append(rec["move"])
            self.seat.emit(GuessRecord(ply + 1, rec["move"], False))
            self.seat.note("guess", at, ply=ply + 1, move=rec["move"], right=False)
        plies = len(session.moves) - ply
        self.seat.commit(TakeBack(at, plies, stop=False))  # back to the line, on the board too
        self.told = None
        return False

    def _show(self, session: BoardSession, at: int) -> None:
        """The line's next move on the feed once, committed when the board shows it."""
        ply = self.done
        move = self.line.moves[ply]
        side = self.line.side_at(ply)
        if self.told != ply:
            self.told = ply
            alg = session.rules.geometry.algebraic
            record = RemoteMoveRecord(ply + 1, side.value, self.line.texts[ply],
                                      tuple(alg(sq) for sq in move.route),
                                      tuple(alg(sq) for sq in move.captured), self.source)
            self.seat.emit(record)
            self.seat.note("remote-move", at, **record.members())
        referee = session.referee
        if referee.started and not referee.light \
                and referee.board() == self.line.after[ply].occupied():
            self.seat.commit(Press(at, side.value))  # nobody presses for the line
            self.seat.wake()  # the next move shown at once

    def leds(self, now: int) -> Mapping[str, str]:
        """The move shown, as the engine's (its start, the pieces to take off, its landing
        squares in order)."""
        session = self.session
        if session is None or session is not self.seat.session or not self.to_show() \
                or session.result is not None or len(session.moves) != self.done:
            return {}
        return move_picture(session.position, self.line.moves[self.done], now)

    def shown_side(self) -> Side | None:
        """The side whose move is shown now (the person carries it out), or None."""
        return self.line.side_at(self.done) if self.to_show() else None

    def end(self, at: int) -> None:
        """The line played through: the game ends with the line's result, when it has one
        of the rule set's (a game's result, never a puzzle's guess)."""
        self.ended = True
        result = self.line.result
        if result is None:
            return
        try:
            self.seat.commit(Result(at, result, "training"))
        except BoardError as exc:
            logger.warning(f"training: the line's result {result}: {exc}")
