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

from firmware.referee import judge, release
from firmware.referee.acceptance import accepted_by_reply, note_unreported, passes_turn
from firmware.referee.analysis import Board, MoveTable
from firmware.referee.decisions import (
    WRONG,
    Accepted,
    Decision,
    Irregularity,
    LedMark,
    MoveCommitted,
)
from firmware.referee.kinds import IrregularityKind
from firmware.referee.pending import Pending
from firmware.referee.play import Play, position_from
from firmware.referee.reader import read
from firmware.referee.release import follow, opponent_starts
from firmware.referee.sensed import BOUNCE_NS, SETTLE_NS, TOUCH_NS, SensedBoard
from firmware.referee.touches import Touches
from firmware.referee.turns import advance, commit, new_turn
from firmware.rules.position import Move, Piece, Position
from firmware.rules.sets import RuleSet, Side

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


class Referee:
    """Pure move inference for one game. Feed ``lift``/``place``/``press`` and ``tick``.

    ``position`` is the game's position; ``clocked`` commits moves by presses; ``started``
    False means the game is in set-up (000 5.2): board changes are checked against the start
    position, no move is made until :meth:`start`.

    Its state is in named parts (``firmware.referee.parts``): ``sensors`` (what the sensors
    show and the hand holds), ``touches`` (this turn's touches and lifts), ``pending`` (the
    irregularity pending, the irregular position kept), ``play`` (the position and its move
    table). Its steps are functions over them: ``reader`` (what the board shows), ``turns``
    (a move committed), ``acceptance`` (000 5.7), ``judge`` (a board at rest), ``release``
    (presses, the opponent starting, the end of a log); here the events in, the arbiter's
    acts and the LED picture.
    """

    def __init__(
        self,
        rules: RuleSet,
        position: Position | None = None,
        *,
        clocked: bool = False,
        settle_ns: int = SETTLE_NS,
        touch_ns: int | None = None,
        started: bool = True,
    ) -> None:
        self.rules = rules
        self.geometry = rules.geometry
        position = position if position is not None else Position.start(rules)
        self.clocked = clocked
        self.settle_ns = settle_ns
        self.touch_ns = max(BOUNCE_NS, TOUCH_NS if touch_ns is None else touch_ns)
        self.started = started
        self.over = False
        #: Sides whose moves a machine decides and a person carries out (an engine's): the
        #: touch-move rule (000 3.10) binds a player deciding his move, not the hand carrying
        #: out the engine's, so a piece of theirs touched first is no irregularity.
        self.machine_sides: frozenset[Side] = frozenset()
        self.play = Play(position)
        self.sensors = SensedBoard(self.geometry, position.occupied())
        self.sensors.new_turn(position)
        self.touches = Touches()
        self.pending = Pending()

    # -- what the rest of the board reads --------------------------------------------------

    @property
    def position(self) -> Position:
        return self.play.position

    @property
    def table(self) -> MoveTable:
        """The position's legal moves indexed by result (built once per position)."""
        return self.play.table

    @property
    def sensed(self) -> set[int]:
        """The dark squares the sensors show occupied."""
        return self.sensors.squares

    @property
    def light(self) -> dict[str, Piece]:
        """The pieces on light squares (out of play, 003 5.3)."""
        return self.sensors.light

    @property
    def notice(self) -> Irregularity | None:
        """The irregularity the LEDs show (one still on the board, or a touch-move)."""
        return self.pending.notice

    def board(self) -> Board:
        return self.sensors.board()

    def rests_at(self) -> int | None:
        """When the board's rest is next judged (:meth:`tick`), or None: nothing changed."""
        sensors = self.sensors
        if sensors.judged or sensors.changed_at is None:
            return None
        return sensors.changed_at + self.settle_ns

    def adopt(self, position: Position) -> None:
        """Use ``position``, equal to the current one, from now on (the game record's object,
        whose legal moves are already worked out: nothing is computed twice)."""
        self.play.adopt(position)

    def prepare(self) -> None:
        """Work out now what the turn's first lift needs (the position's move table, built
        once per position), so that the event finds it ready: the service calls this when no
        event is waiting. Decisions are the same with or without it."""
        _ = self.play.table

    # -- events at the board ---------------------------------------------------------------

    #: Judge a board that has rested for the settle time (``judge.tick``); ``press``: a
    #: clock pressed (``release.press``); ``finish``: the end of a log (``release.finish``).
    #: The functions themselves, bound as methods: no call in between on the event's path.
    tick = judge.tick
    press = release.press
    finish = release.finish

    def lift(self, square: str, at: int) -> list[Decision]:
        sensors, play = self.sensors, self.play
        sensors.check(square)
        out = judge.tick(self, at)
        sq = sensors.dark(square)
        if sq is None:
            if sensors.lift_light(square):
                sensors.changed(at)
            return out
        sensors.setup_seen = sensors.setup_seen or not self.started
        if sq not in sensors.squares:
            return out  # a sensor cannot open twice: a glitch, nothing changed
        if not self.clocked and self.started and not self.over and not play.restore:
            out += opponent_starts(self, sq, at)
        if self.pending.base is None and sq in play.table.opp and self.started and not self.over:
            note_unreported(self)
        sensors.lift(sq, at)
        self.touches.lifted(sq, at, sq in play.table.own)
        sensors.changed(at)
        out += follow(self, at)
        return out + accepted_by_reply(self, at)

    def place(self, square: str, at: int) -> list[Decision]:
        sensors = self.sensors
        sensors.check(square)
        out = judge.tick(self, at)
        sq = sensors.dark(square)
        turn = self.play.position.turn
        if sq is None:
            if sensors.place_light(square, turn):
                sensors.changed(at)
            return out
        if sq in sensors.squares:
            if self.started or sensors.setup_seen:
                return out
            sensors.emptied()  # the first set-down before the start: set up from the box
        sensors.setup_seen = sensors.setup_seen or not self.started
        sensors.place(sq, turn)
        held = self.touches.placed(sq, at)
        if held is not None and held >= self.touch_ns and sq in self.play.table.starts:
            self.touches.touch(sq, held)
        self.pending.quick_lift = None
        sensors.changed(at)
        out += follow(self, at)
        return out + accepted_by_reply(self, at)

    # -- the arbiter's acts ----------------------------------------------------------------

    def start(self, at: int) -> list[Decision]:
        """The arbiter starts the game: check the set-up (000 5.2)."""
        out = judge.tick(self, at)
        self.started = True
        sensors = self.sensors
        sensors.judged = True
        sensors.set_up(self.play.position)
        table = self.play.table
        board = sensors.board()
        marks = table.marks_towards(board, table.occupied)
        marks += [LedMark(sq, WRONG) for sq in sorted(sensors.light)]
        if marks:
            irr = Irregularity(at, IrregularityKind.SETUP, None, tuple(marks))
            # said once: the board at rest before the start
            if self.pending.report(irr, (IrregularityKind.SETUP, board, frozenset(sensors.light))):
                out.append(irr)
        return out

    def accept(self, at: int) -> list[Decision]:
        """The opponent lets the board stand (000 5.4, 5.7): continue from the board as sensed,
        each piece keeping its crown (followed through lifts and places); a man left on its
        far row is crowned (000 3.6)."""
        out = judge.tick(self, at)
        sensed = self.sensors.board()
        reading = read(self.play, self.sensors, sensed)
        if reading.kind == "result":
            return out + commit(self, reading.moves, at, pressed=True)
        if reading.kind == "same" or not self.started:
            self.pending.dismiss()
            return out
        passes = passes_turn(self, reading, sensed)
        before = self.play.position
        side = before.turn
        turn = side.other if passes else side
        position = position_from(before, sensed, self.sensors.pieces, turn)
        self.play.advance(position, None, counts=False)
        new_turn(self)
        return out + [Accepted(at, before, position, passes, side)]

    def force(self, move: Move, at: int) -> list[Decision]:
        """Play ``move`` without the board (a sealed move on resumption, 004 §35): the board
        must then be made to follow; the LEDs show how."""
        play = self.play
        before = play.position
        after = before.play(move)
        old = play.table
        out: list[Decision] = [MoveCommitted(at, move, before.turn, before, after, True)]
        advance(self, after, before.occupied())
        play.sync = (old, move)
        self.sensors.changed(at)
        self.sensors.judged = True
        return out

    def take_back(self, position: Position, plies: int, at: int) -> list[Decision]:
        """The arbiter takes back ``plies`` plies (a misread, or an engine game's take-back):
        play goes on from ``position``, the position before them, once the board shows it;
        until then the LEDs show how to restore it (a ``restore`` irregularity) and nothing
        the board shows is read as a move."""
        out = judge.tick(self, at)
        self.over = False
        self.play.take_back(position, plies)
        new_turn(self)
        board = self.sensors.board()
        reading = read(self.play, self.sensors, board)
        if reading.kind == "irregular":
            irr = Irregularity(at, IrregularityKind.RESTORE, None, reading.marks)
            self.pending.show(irr, (IrregularityKind.RESTORE, board, frozenset(self.sensors.light)))
            out.append(irr)
        return out

    def leds(self) -> dict[str, str]:
        """The LED picture: algebraic square -> meaning."""
        picture: dict[str, str] = {}
        if self.play.sync is not None:
            for mark in read(self.play, self.sensors, self.sensors.board()).marks:
                picture[mark.square] = mark.meaning
        notice = self.pending.notice
        if notice is not None:
            for mark in notice.marks:
                picture[mark.square] = mark.meaning
        for square in self.sensors.light:
            picture[square] = WRONG
        return picture
