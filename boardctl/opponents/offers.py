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

An offer made while the other board is away reaches it when it is back: the offering board
says its standing offer again (same ``id``) when it sees the other board come back and every
few seconds while it stands; the other board takes an offer once, and never one it has seen
declined or lapsed (:mod:`boardctl.opponents.offer_book`). Under the 1953 rules (004 §16)
the bar on offering is kept there too: an offer the rules bar is refused in one line
(``offer-draw``), noted in the journal (``draw-offer``, ``"state": "refused"``) and shown in
``status`` (``draw_offer.barred``).
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable
from typing import Any

from boardctl.opponents.offer_book import Offer, OfferBook
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


def new_offer_id() -> str:
    """An offer's id: eight hex digits, random (unique across restarts of either board)."""
    return uuid.uuid4().hex[:8]


class DrawOffers:
    """The offer standing between the person here (``person``) and the other board's."""

    def __init__(self, seat: Seat, person: Side,
                 new_id: Callable[[], str] = new_offer_id) -> None:
        self.seat = seat
        self.person = person
        self.new_id = new_id
        self.book = OfferBook(person)

    @property
    def standing(self) -> Offer | None:
        return self.book.standing

    def forget(self, session: BoardSession) -> None:
        """A new game (of ``session``'s rule set): no offer stands, none closed, none barred."""
        self.book = OfferBook(self.person, session.rules.draw_offer_bar)

    # -- the person here --------------------------------------------------------------------

    def offer(self, at: int) -> dict[str, Any]:
        """``offer-draw``: take up the other's offer standing, else make one (ControlError:
        the rules bar it, 004 §16)."""
        session = self._in_play("offer-draw")
        standing = self.book.standing
        if standing is not None and standing.side is not self.person:
            self.book.close("accepted")
            self._note("accepted", standing, at)
            try:
                self.seat.commit(Result(at, result_text(session.rules, None), "agreement"))
            except BoardError as exc:
                raise ControlError(f"offer-draw: the draw could not be recorded: {exc}") \
                    from None
            return {"draw": "accepted"}
        if standing is None:
            refusal = self.book.refusal(session.position.turn)
            if refusal is not None:
                self._note("refused", Offer(self.person, len(session.moves)), at,
                           reason=refusal)
                raise ControlError(f"offer-draw: {refusal}")
            offer = Offer(self.person, len(session.moves), self.new_id())
            self.book.make(offer, at)
            self.seat.emit(_record(offer, "offered"))
            self._note("offered", offer, at)
        return {"draw": "offered"}

    def decline(self, at: int) -> dict[str, Any]:
        """``decline-draw``: the other's offer standing declined (on the feed, for it)."""
        self._in_play("decline-draw")
        standing = self.book.standing
        if standing is None or standing.side is self.person:
            raise ControlError("decline-draw: no draw offer of the other board stands")
        self.book.close("declined")
        self.seat.emit(_record(standing, "declined"))
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

    def heard(self, record: DrawOfferRecord, session: BoardSession, at: int) -> None:
        """The other board's ``draw-offer`` line: its person's offer (new, said again, or one
        closed here already), or his answer to the person's here."""
        offer = Offer(Side(record.side), record.ply, record.offer_id)
        if session.result is not None:  # an offer said again after the game's end
            return
        if record.state == "offered" and offer.side is not self.person:
            if self.book.closing(offer) == "declined":  # our decline lost on the way: again
                self.seat.emit(_record(offer, "declined"))
                return
            movers = [m["side"] for m in session.moves]
            if self.book.heard(offer, self.person.value in movers[offer.ply:]):
                self._note("offered", offer, at)
        elif record.state == "declined" and offer.side is self.person:
            standing = self.book.standing
            if standing is not None and _same(offer, standing):
                self.book.close("declined")
                self._note("declined", standing, at)

    def lapse(self, session: BoardSession, at: int) -> None:
        """An offer lapses with the other side's next move, or the game's end."""
        standing = self.book.standing
        if standing is None:
            return
        if session.result is not None:
            self.book.close("ended")
        elif self.book.lapses([m["side"] for m in session.moves]):
            self.book.close("lapsed")
            self._note("lapsed", standing, at)

    def say_again(self, at: int, here: bool) -> None:
        """The person's offer standing said again on the feed when due (the other board
        ``here``: its status online, this board's link up)."""
        standing = self.book.standing
        if here and standing is not None and self.book.due(at):
            self.seat.emit(_record(standing, "offered"))

    def seen_back(self) -> None:
        """The other board seen again: the person's offer standing is due at once."""
        self.book.seen_back()

    def face(self) -> MoveOnFaces | None:
        standing = self.book.standing
        return MoveOnFaces(standing.side, OFFER_FACE, alone=True) if standing is not None else None

    def status(self) -> dict[str, Any]:
        standing = self.book.standing
        return {"mine": standing is not None and standing.side is self.person,
                "theirs": standing is not None and standing.side is not self.person,
                "ply": standing.ply if standing is not None else None,
                "barred": self.book.barred is self.person}

    def _note(self, state: str, offer: Offer, at: int, **more: Any) -> None:
        if offer.offer_id is not None:
            more["id"] = offer.offer_id
        self.seat.note("draw-offer", at, side=offer.side.value, ply=offer.ply, state=state,
                       **more)


def _record(offer: Offer, state: str) -> DrawOfferRecord:
    return DrawOfferRecord(offer.side.value, offer.ply, state, offer.offer_id)


def _same(said: Offer, standing: Offer) -> bool:
    """``said`` (a decline's line) names the offer ``standing`` (a line without an id, from a
    board that sends none, by its side and ply)."""
    return (said.side, said.ply) == (standing.side, standing.ply) \
        and said.offer_id in (None, standing.offer_id)
