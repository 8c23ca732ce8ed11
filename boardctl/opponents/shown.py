"""What the board shows of a remote opponent's side (lidraughts, another board): its move on
the LEDs as the engine's is (:func:`boardctl.engine.player.move_picture`), on the clock faces,
a ``remote-move`` on the feed and in the journal, its commit when the board shows its result
(a press of its clock, an event of the journal), and the board's two irregularities of an
opponent not at the board (firmware/referee/kinds.py): ``not-remote-move`` (the board shows
another legal move than the opponent's) and ``move-refused`` (the server did not take the
person's move: it is taken back, the LEDs show the way back). While the link to the opponent
is down, the board's two dark corners blink ``link-down`` (:func:`link_down_picture`), under
whatever else the LEDs show there. All on the referee's thread.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from boardctl.engine.player import move_picture
from boardctl.service.door import Seat
from firmware.clock.face import MoveOnFaces, segment_squares
from firmware.formats.events import NS, Press
from firmware.formats.records import ClearedRecord, IrregularityRecord, RemoteMoveRecord
from firmware.referee.decisions import MUST_MOVE
from firmware.referee.kinds import IrregularityKind
from firmware.rules.geometry import Geometry
from firmware.rules.notation import move_text
from firmware.rules.position import Move, Position
from firmware.rules.sets import Side
from firmware.session.session import BoardSession

#: The faces' text while the link to the opponent is down (the opponent's face).
LINK_DOWN_FACE = segment_squares("--", "--").text
#: The LED meaning of the link to the opponent down (docs/DESIGN.md, LED meanings).
LINK_DOWN = "link-down"
#: The link-down squares are lit this long, then dark as long: a slow blink.
LINK_BLINK_NS = NS


def link_down_picture(geometry: Geometry, now: int, blink_ns: int = LINK_BLINK_NS
                      ) -> dict[str, str]:
    """The link down on the LEDs: the board's two dark corners (a1 and the far corner, h8 or
    j10: dark squares, so a strip under the dark squares only has them too) lit
    ``link-down`` in the first ``blink_ns`` of every two, dark in the second."""
    if (now // blink_ns) % 2:
        return {}
    far = f"{chr(ord('a') + geometry.size - 1)}{geometry.size}"
    return {"a1": LINK_DOWN, far: LINK_DOWN}


def remote_line(position: Position, move: Move, ply: int, source: str) -> RemoteMoveRecord:
    """The feed's ``remote-move`` record of ``move`` in ``position``."""
    alg = position.rules.geometry.algebraic
    return RemoteMoveRecord(ply, position.turn.value, move_text(position, move),
                            tuple(alg(sq) for sq in move.route),
                            tuple(alg(sq) for sq in move.captured), source)


class RemoteShown:
    """The remote side's move on the board: shown, followed, committed; its irregularities."""

    def __init__(self, seat: Seat, side: Side, source: str) -> None:
        self.seat = seat
        self.side = side
        self.source = source
        #: The move shown and the ply it is (the game's ply count + 1 when shown).
        self.move: Move | None = None
        self.ply = 0
        self.session: BoardSession | None = None
        self.wrong: frozenset[int] | None = None
        self.wrong_leds: dict[str, str] = {}
        #: A refused move's way back (its LEDs) until the board shows the position again.
        self.refused: dict[str, str] = {}
        self.link_down = False

    def show(self, session: BoardSession, move: Move, at: int) -> None:
        """The opponent's move for the next ply: on the feed, in the journal, on the LEDs."""
        ply = len(session.moves) + 1
        if self.move is not None and self.session is session and self.ply == ply:
            return
        self.session, self.move, self.ply = session, move, ply
        self.forget_wrong()
        line = remote_line(session.position, move, ply, self.source)
        self.seat.emit(line)
        self.seat.note("remote-move", at, **line.members())

    def current(self, session: BoardSession) -> Move | None:
        """The move shown, when it is for the position ``session`` shows."""
        if self.move is None or self.session is not session or \
                self.ply != len(session.moves) + 1 or session.result is not None:
            return None
        return self.move

    def follow(self, session: BoardSession, at: int) -> bool:
        """The board against the move shown: its result commits it (whether it did); another
        legal result is a ``not-remote-move``."""
        move = self.current(session)
        if move is None or session.position.turn is not self.side:
            return False
        referee = session.referee
        sensed = referee.board()
        reading = referee.table.read(sensed)
        if reading.kind != "result":
            self.clear(sensed)
            return False
        if move.key not in {m.key for m in reading.moves}:
            self._not_remote_move(sensed, referee.table, move, at)
            return False
        self.clear(sensed)
        clock = session.clock
        if clock is not None and (clock.running is None or clock.adjournment is not None):
            return False  # paused: committed when the clock runs again
        plies = len(session.moves)
        self.seat.commit(Press(at, self.side.value))
        if len(session.moves) > plies:
            self.move = None
            return True
        return False

    def _not_remote_move(self, sensed: frozenset[int], table: Any, move: Move,
                         at: int) -> None:
        if self.wrong == sensed:
            return
        self.wrong = frozenset(sensed)
        marks = table.marks_towards(sensed, table.result_of(move))
        self.wrong_leds = {m.square: m.meaning for m in marks}
        kind = IrregularityKind.NOT_REMOTE_MOVE
        self.seat.emit(IrregularityRecord(kind.value, self.side.value,
                                          [m.square for m in marks], dict(self.wrong_leds)))
        self.seat.note(kind.value, at)

    def clear(self, sensed: frozenset[int]) -> None:
        """A ``not-remote-move`` is over unless the board still shows ``sensed``."""
        if self.wrong is not None and self.wrong != sensed:
            self.forget_wrong()
            self.seat.emit(ClearedRecord())

    def forget_wrong(self) -> None:
        self.wrong, self.wrong_leds = None, {}

    def forget(self) -> None:
        self.move, self.session, self.refused = None, None, {}
        self.forget_wrong()

    def refuse(self, session: BoardSession, move: Move, reason: str, at: int) -> None:
        """The person's ``move`` (the last ply, taken back already) was refused: told on the
        feed and in the journal, the way back on the LEDs until the board shows it."""
        alg = session.rules.geometry.algebraic
        leds = {alg(move.end): MUST_MOVE, alg(move.start): "land",
                **{alg(sq): "restore" for sq in move.captured}}
        self.refused = leds
        kind = IrregularityKind.MOVE_REFUSED
        self.seat.emit(IrregularityRecord(kind.value, self.side.other.value, sorted(leds),
                                          dict(leds)))
        self.seat.note(kind.value, at, reason=reason[:200])

    def settle_refused(self, session: BoardSession) -> None:
        """The refused move's LEDs go once the board shows the position again (the
        referee's ``restore`` of the take-back says ``cleared``)."""
        if self.refused and session.referee.board() == session.position.occupied():
            self.refused = {}

    def leds(self, now: int) -> Mapping[str, str]:
        """The move to carry out, the irregularity's marks, over the link down's corners."""
        shown = self._move_leds(now)
        if not self.link_down:
            return shown
        return {**link_down_picture(self.seat.session.rules.geometry, now), **shown}

    def _move_leds(self, now: int) -> Mapping[str, str]:
        if self.refused:
            return dict(self.refused)
        session = self.session
        move = self.current(session) if session is not None else None
        if move is None or session is None:
            return {}
        if self.wrong is not None:
            return dict(self.wrong_leds)
        return move_picture(session.position, move, now)

    def face_move(self) -> MoveOnFaces | None:
        if self.link_down:
            return MoveOnFaces(self.side, LINK_DOWN_FACE, alone=True)
        session = self.session
        move = self.current(session) if session is not None else None
        if move is None or session is None:
            return None
        name = session.rules.square_name
        return MoveOnFaces(self.side, segment_squares(name(move.start), name(move.end)).text)

    def status(self) -> dict[str, Any]:
        """The move to carry out (as the feed's ``remote-move``) and the irregularity."""
        session = self.session
        move = self.current(session) if session is not None else None
        said: dict[str, Any] = {"move": None, "irregularity": None}
        if move is not None and session is not None:
            said["move"] = remote_line(session.position, move, self.ply, self.source).members()
            if self.wrong is not None:
                said["irregularity"] = {"kind": IrregularityKind.NOT_REMOTE_MOVE.value,
                                        "squares": sorted(self.wrong_leds)}
        if self.refused:
            said["irregularity"] = {"kind": IrregularityKind.MOVE_REFUSED.value,
                                    "squares": sorted(self.refused)}
        return said
