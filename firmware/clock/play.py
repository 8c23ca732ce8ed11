"""The play on the game clock, functions over its books (``firmware.clock.ledger``): the
arbiter's start, a press, a pause and its resumption, adjournment and resumption with the
sealed move (004 §32-35). ``firmware.clock.gameclock`` has the rules and the accounting."""

from __future__ import annotations

from firmware.clock import arithmetic as rules
from firmware.clock.ledger import SIDES, ClockLedger, changes
from firmware.clock.records import Adjournment, ClockError, ClockPress, Flag
from firmware.clock.timecontrol import Kind
from firmware.rules.sets import Side


@changes
def start(books: ClockLedger, at: int, side: Side = Side.WHITE) -> None:
    """The arbiter starts the game: ``side``'s clock runs (White's unless a position with
    Black to move was set up), whether or not that player is present (004 §32)."""
    books.check_time(at)
    if books.started:
        raise ClockError("the clock is already started")
    books.turn = side
    books.runs = True
    books.since = at
    books.turn_done = 0


@changes
def press(books: ClockLedger, side: Side, at: int) -> ClockPress:
    """``side`` ends its turn at ``at`` (the time of the button's first edge): the move
    counts, the turn is settled and the opponent's clock starts (004 §32)."""
    books.check_time(at)
    if books.adjournment is not None:
        return ClockPress(side, at, False, "adjourned", books.moves[side])
    if not books.started:
        return ClockPress(side, at, False, "not-started", books.moves[side])
    if not books.runs:
        return ClockPress(side, at, False, "paused", books.moves[side])
    if side is not books.turn:
        return ClockPress(side, at, False, "not-running", books.moves[side])
    pending = books.next_flag_at()
    fallen = (pending is not None and pending <= at) or any(
        t is not None for t in books.fell.values()
    )
    first = books.flag(at) if fallen else None
    if first is not None and not books.control.counts_up:
        books.record_flag_if_fallen(at)
        return ClockPress(
            side, at, False, "flag", books.moves[side], overstep=first.side is side,
            flag=first,
        )
    return settle(books, side, at)


@changes
def pause(books: ClockLedger, at: int) -> bool:
    """The arbiter stops the clocks (004 §33). False if they were not running."""
    books.check_time(at)
    if not books.runs or books.turn is None:
        return False
    books.record_flag_if_fallen(at)
    books.turn_done = books.turn_elapsed(at)
    books.since = at
    books.runs = False
    return True


@changes
def resume(books: ClockLedger, at: int) -> bool:
    """The arbiter restarts the clock of the side whose turn it is. False if it runs
    already or was never started; :class:`ClockError` while adjourned."""
    books.check_time(at)
    if books.adjournment is not None:
        raise ClockError("the game is adjourned: resume it with the sealed move")
    if books.runs or books.turn is None:
        return False
    books.runs = True
    books.since = at
    return True


# -- adjournment (004 §34-35) ------------------------------------------------------------


@changes
def adjourn(books: ClockLedger, at: int, session_ns: int | None = None) -> Adjournment:
    """Adjourn: the side to move has sealed his move; the clocks stop and the times are
    recorded (004 §34). With ``session_ns`` (the time set for the session, e.g. 4 h) the
    sealer adjourning early takes the rest of the session on his own clock (004 §34: the
    used times then add up to the session)."""
    books.check_time(at)
    if books.adjournment is not None:
        raise ClockError("the game is already adjourned")
    sealer = books.turn
    if sealer is None:
        raise ClockError("the clock is not started: nothing to adjourn")
    pause(books, at)
    books.runs = False
    charged = 0
    if session_ns is not None:
        total = books.used(Side.WHITE, at) + books.used(Side.BLACK, at)
        charged = max(0, session_ns - total)
        if charged:
            books.spent[sealer] += charged
            if books.control.counts_up:
                books.base[sealer] += charged
            else:
                books.base[sealer] -= charged
                if books.face(sealer, at) == 0 and books.fell[sealer] is None:
                    books.fell[sealer] = at
    books.adjournment = Adjournment(
        sealer,
        at,
        {s: books.face(s, at) for s in SIDES},
        {s: books.used(s, at) for s in SIDES},
        dict(books.moves),
        charged,
    )
    return books.adjournment


@changes
def resume_adjourned(books: ClockLedger, at: int) -> ClockPress:
    """Resumption (004 §35): the arbiter has set up the position and opened the envelope;
    the sealed move is played on the clock (it counts as the sealer's move, with its
    increment or control) and the opponent's clock starts at ``at``."""
    books.check_time(at)
    record = books.adjournment
    if record is None:
        raise ClockError("the game is not adjourned")
    books.adjournment = None
    books.runs = True
    books.since = at
    return settle(books, record.sealer, at)


def settle(books: ClockLedger, side: Side, at: int) -> ClockPress:
    """End ``side``'s turn at ``at`` and start the opponent's clock."""
    books.record_flag_if_fallen(at)
    elapsed = books.turn_elapsed(at)
    before = books.base[side]
    flag_at = books.fell[side]
    overstep = flag_at is not None and flag_at <= at
    books.moves[side] += 1
    moves = books.moves[side]
    credited = 0
    control = False
    if books.control.counts_up:
        after = before + elapsed
    elif overstep:
        after = 0
    else:
        bonus, amount = books.stage_bonus_for_move(side, moves)
        next_stage = books.control.control_at(moves)
        period = next_stage.seconds_ns if next_stage is not None else 0
        control = next_stage is not None
        credited = rules.credit(bonus, amount, elapsed) + period
        after = rules.settled(before, elapsed, bonus, amount, period)
    if books.control.kind is Kind.HOURGLASS:
        other = side.other
        books.base[other] = books.face(other, at)
    books.spent[side] += elapsed
    books.base[side] = after
    books.turn = side.other
    books.since = at
    books.turn_done = 0
    books.runs = True
    flag = None if flag_at is None else Flag(side, flag_at)
    return ClockPress(
        side, at, True, "", moves, elapsed, credited, max(0, after), overstep, control, flag
    )
