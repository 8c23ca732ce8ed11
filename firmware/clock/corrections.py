"""The arbiter's corrections of the game clock (004 §32-33), functions over its books: a face
set to a time, a move count set or corrected (the clock following the controls passed), with
004 §32's limit on shortening a player's time; the turn handed back after a take-back."""

from __future__ import annotations

from firmware.clock import arithmetic as rules
from firmware.clock.ledger import SIDES, ClockLedger, changes
from firmware.clock.records import ClockError
from firmware.clock.timecontrol import Kind
from firmware.rules.sets import Side

#: 004 §32: the arbiter may shorten a player's time only if 15 minutes then remain.
MIN_AFTER_CORRECTION_NS = 15 * 60 * 1_000_000_000
#: The most moves a side's count may be set to (a game of draughts has a few hundred at most;
#: the controls passed on the way are counted one by one).
MAX_MOVE_COUNT = 10_000


def _check_count(moves: object) -> None:
    if not isinstance(moves, int) or isinstance(moves, bool) or not 0 <= moves <= MAX_MOVE_COUNT:
        shown = repr(moves)[:20] if not isinstance(moves, int) or moves.bit_length() < 64 \
            else "a number too large"
        raise ClockError(f"a move count must be a whole number from 0 to {MAX_MOVE_COUNT}: "
                         f"{shown}")


@changes
def set_remaining(books: ClockLedger, side: Side, ns: int, at: int) -> None:
    """Set what ``side``'s face shows at ``at`` (004 §32: the arbiter corrects clock errors).
    A fallen flag is lifted when the new time is above 0."""
    books.check_time(at)
    if not isinstance(ns, int) or ns < 0:
        raise ClockError(f"a clock time cannot be negative or fractional ns: {ns!r}")
    books.unfreeze(at)
    if ns > 0:
        books.fell[side] = None
    pre = books.pre(side)
    turn = books.turn
    if books.control.kind is Kind.HOURGLASS and turn is side.other:
        gained = min(books.turn_elapsed(at), max(0, books.base[turn]))
        books.base[side] = ns - gained
    elif side is turn:
        elapsed = books.turn_elapsed(at)
        if books.control.counts_up:
            books.base[side] = ns - elapsed
        else:
            books.base[side] = ns + books.charged(side, elapsed) - pre
    else:
        books.base[side] = ns - pre
    if ns > 0 or books.control.counts_up:
        books.fell[side] = None
    elif books.fell[side] is None:
        books.fell[side] = at


@changes
def hand_turn(books: ClockLedger, side: Side, at: int) -> None:
    """Moves taken back, the clocks stopped: ``side`` moves next (its clock runs when
    the arbiter resumes); each face keeps what it shows. ClockError while running."""
    books.check_time(at)
    if books.turn is None or books.turn is side:
        return
    if books.runs:
        raise ClockError("stop the clocks before the turn changes hands")
    faces = {s: books.face(s, at) for s in SIDES}
    books.turn = side
    books.turn_done = 0
    books.since = at
    for s, face in faces.items():
        set_remaining(books, s, face, at)


@changes
def set_moves(books: ClockLedger, side: Side, moves: int) -> None:
    """Set how many moves ``side`` has made (the arbiter's count from the scoresheets,
    004 §33). Only the count changes: the time stays; the next control follows the count."""
    _check_count(moves)
    books.moves[side] = moves


@changes
def correct_moves(books: ClockLedger, side: Side, moves: int, at: int) -> int:
    """The arbiter corrects ``side``'s move count (004 §32-33) and the clock follows: each
    control passed on the way up adds its period's time, each passed on the way back
    removes it. A correction that shortens the time and leaves less than 15 minutes is
    refused (:class:`ClockError` with the reason; 004 §32). Returns the ns added (< 0:
    removed)."""
    books.check_time(at, update=False)
    _check_count(moves)
    delta = rules.period_time_between(books.control, books.moves[side], moves)
    face = books.face(side, at)
    if delta < 0 and not books.control.counts_up:
        after = face + delta
        if after < MIN_AFTER_CORRECTION_NS:
            raise ClockError(
                f"correction refused: {side.value} would have "
                f"{max(0, after) // 1_000_000_000} s, less than 15 minutes to the control "
                f"(004 §32: the arbiter may shorten a player's time only if 15 minutes remain)"
            )
    books.check_time(at)
    books.unfreeze(at)
    books.moves[side] = moves
    if delta and not books.control.counts_up:
        set_remaining(books, side, max(0, books.face(side, at) + delta), at)
    return delta
