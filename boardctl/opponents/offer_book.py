"""The draw offers of a game between two boards, kept as bookkeeping (no I/O, time passed
in): the offer standing, the offers closed, and the 1953 rules' bar on offering again
(:class:`OfferBook`). :mod:`boardctl.opponents.offers` acts on it: the feed, the journal,
the person's answers.

- **One offer is one.** Each offer has an id of its own (the feed's ``draw-offer`` line's
  ``id``): the offering board says its offer standing again when the other board is seen
  coming back and every :data:`SAY_AGAIN_NS` meanwhile (the other board away when it was
  made, or a line lost), and the other board takes it once; an offer it has seen declined or
  lapsed (:attr:`OfferBook.closed`) it never takes again.
- **The bar** (rule sets with ``draw_offer_bar``, the 1953 rules, seed 004 §16: "Võistleja,
  kes on käigul, omab õiguse pakkuda viiki ... Kui viigipakkumist ei võeta vastu (vastase
  järjekordne käik on võrdne viigist äraütlemisega), siis see võistleja võib teistkordselt
  taotleda viiki alles pärast seda, kui teine võistleja kasutas oma õigust
  viigipakkumiseks."): only the player on move offers a draw; one whose offer was not
  accepted, declined or lapsed by the other's next move, offers again only after the other
  player has offered one. The other seeds set no bar (000 7.2.1 and 003 7.3.1: a draw by
  agreement, no more; 001 §6 names none): there an offer may follow any other.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

from firmware.rules.sets import Side

#: The offering board says its standing offer again this often (ns) while it stands.
SAY_AGAIN_NS = 5_000_000_000
#: Offers closed remembered at most (more than a game's worth of refusals in practice).
MAX_CLOSED = 64

#: The refusals of the bar (004 §16), the control socket's words after ``offer-draw: ``.
NOT_ON_MOVE = ("refused by the 1953 rules (004 §16): only the player on move may offer a "
               "draw")
NOT_AGAIN = ("refused by the 1953 rules (004 §16): your draw offer was not accepted; you may "
             "offer a draw again only after the other player has offered one")


@dataclass(frozen=True, slots=True)
class Offer:
    """``side``'s offer, made when ``ply`` plies had been played; ``offer_id`` tells it from
    any other (None: a board that sent none, told apart by side and ply alone)."""

    side: Side
    ply: int
    offer_id: str | None = None


class OfferBook:
    """The offers between the person here (``person``) and the other board's, under a rule
    set with the 1953 bar (``barred_by_rules``) or without."""

    def __init__(self, person: Side, barred_by_rules: bool = False) -> None:
        self.person = person
        self.barred_by_rules = barred_by_rules
        self.standing: Offer | None = None
        #: Offers declined, lapsed or taken up, with how they closed: never taken again.
        self.closed: deque[tuple[Offer, str]] = deque(maxlen=MAX_CLOSED)
        #: The side barred from offering again (004 §16), until the other side offers.
        self.barred: Side | None = None
        #: When this board last said its standing offer on the feed (None: due now).
        self.said_at: int | None = None

    # -- the person here ------------------------------------------------------------------

    def refusal(self, to_move: Side) -> str | None:
        """Why the person here may not make an offer now (``to_move``: the side on move), or
        None: he may."""
        if not self.barred_by_rules:
            return None
        if to_move is not self.person:
            return NOT_ON_MOVE
        if self.barred is self.person:
            return NOT_AGAIN
        return None

    def make(self, offer: Offer, at: int) -> None:
        """The person here offers (his :meth:`refusal` checked): it stands, said at ``at``."""
        self.standing = offer
        self._used_right(offer.side)
        self.said_at = at

    def due(self, at: int) -> bool:
        """This board's own offer standing is to be said again at ``at`` (the other board
        seen back, or :data:`SAY_AGAIN_NS` gone by); it is then counted as said."""
        standing = self.standing
        if standing is None or standing.side is not self.person:
            return False
        if self.said_at is not None and at - self.said_at < SAY_AGAIN_NS:
            return False
        self.said_at = at
        return True

    def seen_back(self) -> None:
        """The other board seen again (its status ``online``, the link back): an offer of
        this board's standing is due at once."""
        self.said_at = None

    # -- the other board ------------------------------------------------------------------

    def heard(self, offer: Offer, receiver_moved: bool) -> bool:
        """The other board's offer line (``receiver_moved``: the person here has moved since
        its ply, so it has lapsed already): True when it stands now, a new offer; False when
        it stands already, closed, or lapsed."""
        if offer.side is self.person or offer == self.standing or self.closing(offer):
            return False
        if receiver_moved:
            self.closed.append((offer, "lapsed"))
            return False
        self.standing = offer
        self._used_right(offer.side)
        return True

    def closing(self, offer: Offer) -> str | None:
        """How ``offer`` closed (``declined``, ``lapsed``, ``accepted``), or None: it did not."""
        for old, state in self.closed:
            if old == offer:
                return state
        return None

    # -- either side ----------------------------------------------------------------------

    def close(self, state: str) -> Offer | None:
        """The offer standing ``declined``, ``lapsed``, ``accepted`` or ``ended`` (the game
        over): closed for good; one declined or lapsed bars its side from offering again
        (004 §16) where the rules say so."""
        offer = self.standing
        if offer is None:
            return None
        self.standing = None
        self.closed.append((offer, state))
        if state in ("declined", "lapsed") and self.barred_by_rules:
            self.barred = offer.side
        return offer

    def lapses(self, movers: list[str]) -> bool:
        """The offer standing lapses: the receiver moved since its ply (``movers``: the sides
        of the plies played, in order)."""
        offer = self.standing
        return offer is not None and offer.side.other.value in movers[offer.ply:]

    def _used_right(self, side: Side) -> None:
        """``side`` offered: the other side, barred, may offer again (004 §16)."""
        if self.barred is side.other:
            self.barred = None
