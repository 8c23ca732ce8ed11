"""The draw offers' bookkeeping between two boards (boardctl/opponents/offer_book.py), on
an injected clock: an offer said again is one offer, one declined or lapsed never comes
back, and the 1953 rules' bar (004 §16: only the player on move offers; one whose offer was
not accepted offers again only after the other has offered) holds where the rule set has it
and nowhere else (000 7.2.1, 001 §6, 003 7.3.1 set none)."""

from __future__ import annotations

import pytest

from boardctl.opponents.offer_book import NOT_AGAIN, NOT_ON_MOVE, SAY_AGAIN_NS, Offer, OfferBook
from firmware.rules.sets import RULESETS, Side

W, B = Side.WHITE, Side.BLACK
S = 1_000_000_000


def test_only_the_1953_rule_sets_bar_offers() -> None:
    barred = {name for name, rules in RULESETS.items() if rules.draw_offer_bar}
    assert barred == {"russian1953", "international1953"}


def test_an_offer_said_again_is_taken_once_and_a_closed_one_never() -> None:
    book = OfferBook(B)  # the person here plays black; white's board offers
    offer = Offer(W, 4, "a1")
    assert book.heard(offer, receiver_moved=False)
    assert not book.heard(offer, receiver_moved=False)  # said again: the same offer
    assert book.standing == offer
    assert book.close("declined") == offer
    assert not book.heard(offer, receiver_moved=False)  # said again after the decline
    assert book.standing is None and book.closing(offer) == "declined"
    again = Offer(W, 4, "b2")  # a new offer at the same ply (no bar here): taken
    assert book.heard(again, receiver_moved=False) and book.standing == again


def test_an_offer_heard_after_the_receiver_moved_has_lapsed_already() -> None:
    book = OfferBook(B)
    offer = Offer(W, 4, "a1")
    assert not book.heard(offer, receiver_moved=True)
    assert book.standing is None and book.closing(offer) == "lapsed"
    assert book.lapses(["white", "black"]) is False  # nothing stands
    assert book.heard(Offer(W, 6, "c3"), receiver_moved=False)
    assert not book.lapses(["white", "black"] * 3 + ["white"])  # white's own move: stands
    assert book.lapses(["white", "black"] * 3 + ["white", "black"])


def test_the_own_offer_is_said_again_when_due_or_the_other_board_is_back() -> None:
    book = OfferBook(W)
    t0 = 100 * S
    assert not book.due(t0)  # nothing stands
    book.make(Offer(W, 2, "a1"), t0)
    assert not book.due(t0 + SAY_AGAIN_NS - 1)
    assert book.due(t0 + SAY_AGAIN_NS)
    assert not book.due(t0 + SAY_AGAIN_NS + S)  # counted as said
    book.seen_back()
    assert book.due(t0 + SAY_AGAIN_NS + S)  # the other board back: at once
    book.close("lapsed")
    book.seen_back()
    assert not book.due(t0 + 60 * S)  # closed: never said again


def test_the_bar_only_the_player_on_move_offers() -> None:
    book = OfferBook(W, barred_by_rules=True)
    assert book.refusal(B) == NOT_ON_MOVE
    assert book.refusal(W) is None
    assert OfferBook(W).refusal(B) is None  # the other rule sets: any time


@pytest.mark.parametrize("how", ["declined", "lapsed"])
def test_the_bar_an_offer_not_accepted_waits_for_the_others(how: str) -> None:
    book = OfferBook(W, barred_by_rules=True)
    book.make(Offer(W, 2, "a1"), 0)
    book.close(how)
    assert book.refusal(W) == NOT_AGAIN and book.barred is W
    assert book.heard(Offer(B, 5, "b1"), receiver_moved=False)  # black uses his right
    assert book.barred is None and book.refusal(W) is None
    book.close("declined")  # white declines it: black is barred now, white free
    assert book.barred is B and book.refusal(W) is None


def test_the_bar_the_other_sides_offer_after_a_refusal_frees_it_even_unanswered() -> None:
    book = OfferBook(B, barred_by_rules=True)  # the person here plays black
    book.make(Offer(B, 3, "a1"), 0)
    book.close("lapsed")
    assert book.refusal(B) == NOT_AGAIN
    assert book.heard(Offer(W, 4, "w1"), receiver_moved=False)
    book.close("ended")  # the game over: no bar from that
    assert book.barred is None and book.refusal(B) is None


def test_no_bar_without_the_1953_rules() -> None:
    book = OfferBook(W)
    book.make(Offer(W, 2, "a1"), 0)
    book.close("declined")
    assert book.barred is None and book.refusal(W) is None and book.refusal(B) is None


def test_closed_offers_are_bounded() -> None:
    book = OfferBook(B)
    for k in range(1000):
        book.heard(Offer(W, k, str(k)), receiver_moved=False)
        book.close("declined")
    assert len(book.closed) <= 64
    assert book.closing(Offer(W, 999, "999")) == "declined"
