"""The clock's books alone (issue 35): ``ClockLedger`` kept by the play's functions
(``firmware.clock.play``) and the arbiter's corrections (``firmware.clock.corrections``),
without a ``GameClock`` around them; every function that keeps them moves the generation."""

from __future__ import annotations

import pytest

from firmware.clock import corrections, play
from firmware.clock.gameclock import GameClock
from firmware.clock.ledger import ClockLedger
from firmware.clock.records import ClockError
from firmware.rules.sets import Side

S = 1_000_000_000
W, B = Side.WHITE, Side.BLACK


def test_the_play_keeps_the_books() -> None:
    books = ClockLedger("300+5")
    play.start(books, 0)
    assert (books.turn, books.runs, books.since) == (W, True, 0)
    press = play.press(books, W, 10 * S)
    assert press.accepted and press.used_ns == 10 * S and press.credited_ns == 5 * S
    assert books.base[W] == 295 * S and books.spent[W] == 10 * S and books.moves[W] == 1
    assert books.turn is B and books.remaining(B, 12 * S) == 298 * S
    assert play.pause(books, 20 * S) and books.turn_done == 10 * S and not books.runs
    assert not play.press(books, B, 21 * S).accepted  # paused: nothing changes
    assert play.resume(books, 30 * S) and books.remaining(B, 30 * S) == 290 * S


def test_a_correction_sets_the_face_of_the_side_whose_clock_runs() -> None:
    books = ClockLedger("600")
    play.start(books, 0)
    corrections.set_remaining(books, W, 100 * S, 50 * S)
    assert books.remaining(W, 50 * S) == 100 * S and books.remaining(W, 60 * S) == 90 * S
    corrections.set_remaining(books, B, 0, 60 * S)
    assert books.fell[B] == 60 * S  # a face set to 0 has flagged
    corrections.set_remaining(books, B, 5 * S, 61 * S)
    assert books.fell[B] is None


def test_every_function_that_keeps_the_books_moves_the_generation_even_refused() -> None:
    books = ClockLedger("40/5400:1800")
    play.start(books, 0)
    for keep in (
        lambda: play.press(books, W, S),
        lambda: corrections.set_remaining(books, W, -1, 2 * S),
        lambda: corrections.hand_turn(books, W, 3 * S),  # running: refused
        lambda: corrections.set_moves(books, B, 10_001),  # out of range: refused
        lambda: corrections.correct_moves(books, B, 45, 4 * S),  # past the control: +30 min
        lambda: corrections.set_remaining(books, B, 1200 * S, 5 * S),
        lambda: corrections.correct_moves(books, B, 0, 6 * S),  # back: -30 min, refused
    ):
        before = books.generation
        try:
            keep()
        except ClockError:
            pass
        assert books.generation > before
    assert books.moves[B] == 45 and books.remaining(B, 6 * S) == 1199 * S  # it runs


def test_the_turn_handed_back_keeps_both_faces() -> None:
    books = ClockLedger("300")
    play.start(books, 0)
    play.press(books, W, 10 * S)
    with pytest.raises(ClockError, match="stop the clocks"):
        corrections.hand_turn(books, W, 20 * S)
    play.pause(books, 20 * S)
    faces = {s: books.remaining(s, 20 * S) for s in (W, B)}
    corrections.hand_turn(books, W, 20 * S)
    assert books.turn is W and {s: books.remaining(s, 25 * S) for s in (W, B)} == faces
    play.resume(books, 30 * S)
    assert books.remaining(W, 31 * S) == faces[W] - S


def test_the_clock_is_its_books_and_a_copy_is_its_own() -> None:
    clock = GameClock("300")
    clock.start(0)
    copy = clock.copy()
    clock.press(W, 10 * S)
    assert copy.turn is W and copy.remaining(W, 10 * S) == 290 * S
    assert clock.turn is B and clock.books.base[W] == 290 * S
    assert copy.generation < clock.generation
