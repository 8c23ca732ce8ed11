"""The referee: from timestamped lift/place/press events to moves and irregularities.

It keeps two things: the game position (the last committed move) and the board as sensed
(which dark squares are occupied, plus any piece on a light square, which is inactive,
003 5.3). At any moment the sensed board reads as the position, a legal move's result, a move
under way, or an irregularity (``analysis.MoveTable``). Contact bounce and a piece brushing the
squares it slides over only flicker the sensed board for milliseconds, so nothing is decided
on a flicker:

- with a clock, a move is committed by its player's press (released hand, 000 3.9, 3.11;
  004 §32): the board at the press must show a legal result; a press without one is refused;
- without a clock, when the board has rested on one legal result for ``settle_ns`` or the
  opponent starts to move (lifts one of his own pieces, or takes off the man he captures,
  003 4.16, or the board goes on to a picture only his reply explains).

A reply that came before the move was committed (a forgotten press, a quick opponent) is
caught up: a board showing a legal move and a legal reply gives both moves.

Irregularities (000 5.4) are reported with the LED picture and never end the game: the board
returning to the position, or showing a legal result, lets play go on; ``accept`` (the
opponent lets it stand, 000 5.4, 5.7) continues from the board as sensed, with the kings found
by following every piece through the lifts and places. Nobody has to call it: when the board
shows a legal move of the side not at fault from the irregular position as it stood, "the
opponent's next move accepts the position" (000 5.7) and the accept is applied by itself.
A reading of two plies at once must agree with the colours the hand carried (a knock within
the settle time is no move). A piece on a light square is out of play (003 5.3): reported as
a board mismatch until taken off.
"""

from __future__ import annotations

from firmware.referee.decisions import (
    WRONG,
    Accepted,
    Decision,
    Irregularity,
    LedMark,
    MoveCommitted,
)
from firmware.referee.release import Release
from firmware.referee.sensed import BOUNCE_NS, SETTLE_NS, TOUCH_NS
from firmware.rules.position import Move, Position

__all__ = ["BOUNCE_NS", "SETTLE_NS", "TOUCH_MAX_NS", "TOUCH_NS", "Referee", "check_touch_min"]

#: The longest shortest-touch accepted (longer would let real touches go unreported).
TOUCH_MAX_NS = 2_000_000_000


def check_touch_min(seconds: float) -> int:
    """``--touch-min`` / ``touch_min`` in seconds as ns; BoardError (one line) when out of
    range: below the bounce window a flicker would count, above 2 s real touches would not."""
    import math

    from firmware.errors import BoardError

    if isinstance(seconds, bool) or not isinstance(seconds, int | float) or not math.isfinite(
        seconds
    ):
        raise BoardError(f"touch-min must be a number of seconds, not {seconds!r}")
    ns = round(seconds * 1_000_000_000)
    if not BOUNCE_NS <= ns <= TOUCH_MAX_NS:
        raise BoardError(
            f"touch-min must be between {BOUNCE_NS / 1e9:g} s (contact bounce is never a touch) "
            f"and {TOUCH_MAX_NS / 1e9:g} s, not {seconds:g}"
        )
    return ns


class Referee(Release):
    """Pure move inference for one game. Feed ``lift``/``place``/``press`` and ``tick``.

    ``position`` is the game's position; ``clocked`` commits moves by presses; ``started``
    False means the game is in set-up (000 5.2): board changes are checked against the start
    position, no move is made until :meth:`start`.

    Its layers, each a module of ``firmware.referee``: ``sensed`` (the board, the hand, the
    touches, the commit), ``reader`` (what the board shows), ``acceptance`` (000 5.7),
    ``judge`` (a board at rest), ``release`` (presses, the opponent starting); here the
    events in, the start, the sealed move and the LED picture.
    """

    def lift(self, square: str, at: int) -> list[Decision]:
        self._check(square)
        out = self.tick(at)
        sq = self._dark(square)
        if sq is None:
            piece = self.light.pop(square, None)
            if piece is not None:
                self.hand.append(piece)
                self._changed(at)
            return out
        self._setup_seen = self._setup_seen or not self.started
        if sq not in self.sensed:
            return out  # a sensor cannot open twice: a glitch, nothing changed
        if not self.clocked and self.started and not self.over and not self._restore:
            out += self._opponent_starts(sq, at)
        if self._base is None and sq in self.table.opp and self.started and not self.over:
            self._note_unreported()
        self.sensed.discard(sq)
        self._mixed.discard(sq)
        piece = self.pieces.pop(sq, None)
        if piece is not None:
            self.hand.append(piece)
        if self._instant[0] != at:
            self._instant = (at, [])
        self._instant[1].append((sq, piece))
        placed = self._place_at.pop(sq, None)
        if placed is not None and self._landings and self._landings[-1][0] == sq:
            self._landings[-1] = (sq, at - placed)
        if sq in self.table.own and sq not in self._open_lifts:
            drop = self._drops.get(sq)
            bounce = drop is not None and at - drop[1] < BOUNCE_NS
            self._open_lifts[sq] = drop[0] if bounce and drop is not None else at
            self._lifted_at.setdefault(sq, at)
        self._changed(at)
        out += self._follow(at)
        return out + self._accepted_by_reply(at)

    def place(self, square: str, at: int) -> list[Decision]:
        self._check(square)
        out = self.tick(at)
        sq = self._dark(square)
        if sq is None:
            if square not in self.light:
                self.light[square] = self._from_hand()
                self._changed(at)
            return out
        if sq in self.sensed:
            if self.started or self._setup_seen:
                return out
            # The first set-down before the start closes a sensor thought closed: the board
            # was empty, set up from the box (000 5.2 is checked at the start).
            self.sensed.clear()
            self.pieces.clear()
        self._setup_seen = self._setup_seen or not self.started
        self.sensed.add(sq)
        if len({p.side for p in self.hand}) > 1:
            self._mixed.add(sq)  # which piece the hand set down is not known
        else:
            self._mixed.discard(sq)
        self.pieces[sq] = self._from_hand()
        lifted = self._open_lifts.pop(sq, None)
        if lifted is not None:
            self._drops[sq] = (lifted, at)
        if lifted is not None and at - lifted >= self.touch_ns and sq in self.table.starts:
            self._touch(sq, at - lifted)
        self._landings.append((sq, 0))
        self._place_at[sq] = at
        self._quick_lift = None
        self._changed(at)
        out += self._follow(at)
        return out + self._accepted_by_reply(at)

    def start(self, at: int) -> list[Decision]:
        """The arbiter starts the game: check the set-up (000 5.2)."""
        out = self.tick(at)
        self.started = True
        self.judged = True
        for sq, piece in self.position.pieces().items():
            if sq in self.sensed:  # the men set up from the box are the position's
                self.pieces[sq] = piece
        marks = self.table.marks_towards(self.board(), self.table.occupied)
        marks += [LedMark(sq, WRONG) for sq in sorted(self.light)]
        if marks:
            irr = Irregularity(at, "setup", None, tuple(marks))
            self.notice = irr
            key = ("setup", self.board(), frozenset(self.light))
            if self._reported != key:  # said once: the board at rest before the start
                out.append(irr)
            self._reported = key
        return out

    def accept(self, at: int) -> list[Decision]:
        """The opponent lets the board stand (000 5.4, 5.7): continue from the board as sensed,
        each piece keeping its crown (followed through lifts and places); a man left on its
        far row is crowned (000 3.6)."""
        out = self.tick(at)
        sensed = self.board()
        reading = self._read(sensed)
        if reading.kind == "result":
            return out + self._commit(reading.moves, at, pressed=True)
        if reading.kind == "same" or not self.started:
            self.notice = None
            self._reported = None
            return out
        passes = self._passes_turn(reading, sensed)
        before = self.position
        side = before.turn
        position = self._position_from(sensed, self.pieces, side.other if passes else side)
        self._advance(position, None)
        self.ply -= 1
        return out + [Accepted(at, before, position, passes, side)]

    def force(self, move: Move, at: int) -> list[Decision]:
        """Play ``move`` without the board (a sealed move on resumption, 004 §35): the board
        must then be made to follow; the LEDs show how."""
        before = self.position
        after = before.play(move)
        old = self.table
        out: list[Decision] = [MoveCommitted(at, move, before.turn, before, after, True)]
        self._advance(after, before.occupied())
        self._sync = (old, move)
        self._changed(at)
        self.judged = True
        return out

    def take_back(self, position: Position, plies: int, at: int) -> list[Decision]:
        """The arbiter takes back ``plies`` plies (a misread, or an engine game's take-back):
        play goes on from ``position``, the position before them, once the board shows it;
        until then the LEDs show how to restore it (a ``restore`` irregularity) and nothing
        the board shows is read as a move."""
        out = self.tick(at)
        self.position = position
        self.previous = None
        self.ply = max(0, self.ply - plies)
        self.over = False
        self._sync = None
        self._new_turn()
        self._restore = True
        reading = self._read(self.board())
        if reading.kind == "irregular":
            irr = Irregularity(at, "restore", None, reading.marks)
            self.notice = irr
            self._reported = ("restore", self.board(), frozenset(self.light))
            out.append(irr)
        return out

    def prepare(self) -> None:
        """Work out now what the turn's first lift needs (the position's move table, built
        once per position), so that the event finds it ready: the service calls this when no
        event is waiting. Decisions are the same with or without it."""
        _ = self.table

    def leds(self) -> dict[str, str]:
        """The LED picture: algebraic square -> meaning."""
        picture: dict[str, str] = {}
        if self._sync is not None:
            reading = self._read(self.board())
            for mark in reading.marks:
                picture[mark.square] = mark.meaning
        if self.notice is not None:
            for mark in self.notice.marks:
                picture[mark.square] = mark.meaning
        for square in self.light:
            picture[square] = WRONG
        return picture
