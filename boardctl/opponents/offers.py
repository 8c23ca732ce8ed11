"""Draw offers between two boards playing one game (``--opponent board:B2``; docs/ONLINE.md
"Two boards"), on the referee's thread.

The person offers on his board (the control socket's ``offer-draw``, or the pause button):
the offer goes on this board's feed as a ``draw-offer`` line (docs/CONTRACT.md), which the
other board follows as it follows the moves. There it stands (``status``, the offering
side's clock face showing :data:`OFFER_FACE` in turn with its time) until the other person
answers: taken up (``offer-draw`` or the pause button again) the game ends in a draw by
agreement, a ``result`` event on that board which this one follows as any result; declined
(``decline-draw``) a ``draw-offer`` line with ``"state": "declined"``; or lapsed, the
rules' way, by the other side's next move (004 §16: the opponent's next move is a refusal),
which both boards see for themselves. Each change is noted in the journal (``draw-offer``).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from boardctl.service.control.schema import ControlError
from boardctl.service.door import Seat
from firmware.clock.face import FaceText, MoveOnFaces
from firmware.errors import BoardError
from firmware.formats.events import Result
from firmware.formats.records import DrawOfferRecord
from firmware.rules.game import result_text
from firmware.rules.sets import Side
from firmware.session.session import BoardSession

logger = logging.getLogger(__name__)

#: The offering side's face, in turn with its time, while its draw offer stands ("draw":
#: the driver's font has no W; two U's read as one, as a score's ``UU``).
OFFER_FACE = FaceText("drUU;").text


@dataclass(frozen=True)
class Offer:
    """``side``'s offer, made when ``ply`` plies had been played."""

    side: Side
    ply: int


class DrawOffers:
    """The offer standing between the person here (``person``) and the other board's."""

    def __init__(self, seat: Seat, person: Side) -> None:
        self.seat = seat
        self.person = person
        self.standing: Offer | None = None

    def forget(self) -> None:
        """A new game: no offer stands."""
        self.standing = None

    # -- the person here --------------------------------------------------------------------

    def offer(self, at: int) -> dict[str, Any]:
        """``offer-draw``: take up the other's offer standing, else make one."""
        session = self._in_play("offer-draw")
        standing = self.standing
        if standing is not None and standing.side is not self.person:
            self.standing = None
            self._note("accepted", standing, at)
            try:
                self.seat.commit(Result(at, result_text(session.rules, None), "agreement"))
            except BoardError as exc:
                raise ControlError(f"offer-draw: the draw could not be recorded: {exc}") \
                    from None
            return {"draw": "accepted"}
        if standing is None:
            self.standing = Offer(self.person, len(session.moves))
            self.seat.emit(DrawOfferRecord(self.person.value, self.standing.ply))
            self._note("offered", self.standing, at)
        return {"draw": "offered"}

    def decline(self, at: int) -> dict[str, Any]:
        """``decline-draw``: the other's offer standing declined (on the feed, for it)."""
        self._in_play("decline-draw")
        standing = self.standing
        if standing is None or standing.side is self.person:
            raise ControlError("decline-draw: no draw offer of the other board stands")
        self.standing = None
        self.seat.emit(DrawOfferRecord(standing.side.value, standing.ply, "declined"))
        self._note("declined", standing, at)
        return {"draw": "declined"}

    def _in_play(self, cmd: str) -> BoardSession:
        session = self.seat.session
        if session.result is not None:
            raise ControlError(f"{cmd}: the game is over already ({session.result['result']})")
        if not session.referee.started:
            raise ControlError(f"{cmd}: the game has not started")
        return session

    # -- the other board, and the game ------------------------------------------------------

    def heard(self, record: DrawOfferRecord, at: int) -> None:
        """The other board's ``draw-offer`` line: its person's offer, or his answer to the
        person's here."""
        side = Side(record.side)
        if record.state == "offered" and side is not self.person:
            if self.standing is None or self.standing.side is not side:
                self.standing = Offer(side, record.ply)
                self._note("offered", self.standing, at)
        elif record.state == "declined" and side is self.person:
            standing = self.standing
            if standing is not None and standing.side is self.person:
                self.standing = None
                self._note("declined", standing, at)

    def lapse(self, session: BoardSession, at: int) -> None:
        """An offer lapses with the other side's next move, or the game's end."""
        standing = self.standing
        if standing is None:
            return
        if session.result is not None:
            self.standing = None
            return
        receiver = standing.side.other.value
        if any(m["side"] == receiver for m in session.moves[standing.ply:]):
            self.standing = None
            self._note("lapsed", standing, at)

    def face(self) -> MoveOnFaces | None:
        standing = self.standing
        return MoveOnFaces(standing.side, OFFER_FACE, alone=True) if standing is not None else None

    def status(self) -> dict[str, Any]:
        standing = self.standing
        return {"mine": standing is not None and standing.side is self.person,
                "theirs": standing is not None and standing.side is not self.person,
                "ply": standing.ply if standing is not None else None}

    def _note(self, state: str, offer: Offer, at: int) -> None:
        self.seat.note("draw-offer", at, side=offer.side.value, ply=offer.ply, state=state)
