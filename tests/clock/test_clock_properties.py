"""Property tests: the clock never creates or loses time.

For any control and any sequence of presses, pauses and wrong presses:

- each press settles exactly: remaining after = remaining at the turn's start - used + credited,
  and ``credited`` is exactly what the control grants for that move (increment, delay given
  back, period time), computed here independently of the clock;
- the wall clock is fully accounted: White's used + Black's used + paused time = now - start;
- the face of the running side is its turn-start time minus what the turn has charged;
- an hourglass keeps the sum of both faces constant.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from firmware.clock.gameclock import GameClock
from firmware.clock.timecontrol import Bonus, Kind, TimeControl
from firmware.rules.sets import Side

S = 1_000_000_000
CONTROLS = [
    "300",
    "60+2",
    "60+2@start",
    "B60+5",
    "D60+5",
    "3/40:2/20",
    "2/30+1:20+3",
    "2/30+1:20+3@start",
    "2/D30+2:B20+3",
    "1/10",
    "*45",
    "-",
]


def _expected_credit(control: TimeControl, moves: int, used: int) -> int:
    """What the control grants for a player's ``moves``-th move that took ``used`` ns."""
    if control.kind is not Kind.STAGES:
        return 0
    # The stage this move was made in, and whether it completes a period.
    done = 0
    stage_index = len(control.stages) - 1
    for index, stage in enumerate(control.stages):
        if stage.moves is None or moves <= done + stage.moves:
            stage_index = index
            break
        done += stage.moves
    stage = control.stages[stage_index]
    credit = 0
    if stage.bonus is Bonus.FISCHER:
        credit += stage.bonus_ns
    elif stage.bonus in (Bonus.BRONSTEIN, Bonus.DELAY):
        credit += min(used, stage.bonus_ns)
    # Period boundaries: cumulative move counts, the last period repeating.
    boundary = 0
    for index, stage in enumerate(control.stages):
        if stage.moves is None:
            break
        boundary += stage.moves
        if moves == boundary:
            following = control.stages[min(index + 1, len(control.stages) - 1)]
            return credit + following.seconds_ns
    last = control.stages[-1]
    if last.moves is not None and moves > boundary and (moves - boundary) % last.moves == 0:
        credit += last.seconds_ns
    return credit


_step = st.tuples(
    st.sampled_from(["press", "press", "press", "pause", "wrong", "peek"]),
    st.integers(min_value=0, max_value=25 * S),
)


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(CONTROLS), st.integers(0, 10**15), st.lists(_step, max_size=60))
def test_time_is_never_created_or_lost(
    text: str, origin: int, steps: list[tuple[str, int]]
) -> None:
    control = TimeControl.parse(text)
    clock = GameClock(control)
    clock.start(origin)
    now = origin
    paused_total = 0
    paused_since: int | None = None
    turn_start_face = {side: clock.remaining(side, now) for side in (Side.WHITE, Side.BLACK)}
    turn_start_used = 0
    total = sum(turn_start_face.values())
    for action, dt in steps:
        now += dt
        side = clock.turn
        assert side is not None
        if action == "press" and paused_since is None:
            before = turn_start_face[side] - _shown_ahead(control, clock.moves_made(side))
            flag = clock.flag(now)
            press = clock.press(side, now)
            if flag is not None and not control.counts_up:
                # DGT 3000: the clock froze on the flag; the press is refused, faces stay.
                assert not press.accepted and press.reason == "flag" and press.flag == flag
                frozen = {s: clock.remaining(s, now) for s in (Side.WHITE, Side.BLACK)}
                later = now + 10 * S
                assert {s: clock.remaining(s, later) for s in frozen} == frozen
                assert not clock.press(side, later).accepted
                assert clock.flags(later) == [flag]
                return
            assert press.accepted
            if control.counts_up:
                assert press.remaining_ns == before + press.used_ns
            else:
                assert press.credited_ns == _expected_credit(control, press.moves, press.used_ns)
                assert press.remaining_ns == before - press.used_ns + press.credited_ns
            turn_start_face = {s: clock.remaining(s, now) for s in (Side.WHITE, Side.BLACK)}
            turn_start_used = clock.used(side.other, now)
        elif action == "pause":
            if paused_since is None:
                assert clock.pause(now)
                paused_since = now
            else:
                assert clock.resume(now)
                paused_total += now - paused_since
                paused_since = None
        elif action == "wrong":
            press = clock.press(side.other, now)
            assert not press.accepted
        paused_now = paused_total + (now - paused_since if paused_since is not None else 0)
        used = clock.used(Side.WHITE, now) + clock.used(Side.BLACK, now)
        if clock.flag(now) is None:
            assert used + paused_now == now - origin
        if control.kind is Kind.HOURGLASS and clock.flag(now) is None:
            assert clock.remaining(Side.WHITE, now) + clock.remaining(Side.BLACK, now) == total
        if not control.counts_up and clock.flag(now) is None:
            turn = clock.turn
            assert turn is not None
            elapsed = clock.used(turn, now) - turn_start_used
            stage_bonus = _delay_of(control, clock.moves_made(turn))
            charged = max(0, elapsed - stage_bonus)
            if _bronstein_of(control, clock.moves_made(turn)):
                charged = elapsed  # the delay was on the face from the turn's start (DGT)
            if control.kind is not Kind.HOURGLASS:
                assert clock.remaining(turn, now) == turn_start_face[turn] - charged
            assert clock.remaining(turn.other, now) >= 0


def _bronstein_of(control: TimeControl, moves: int) -> int:
    """The Bronstein delay of the stage the next move belongs to (0 when none)."""
    if control.kind is not Kind.STAGES:
        return 0
    _, stage = control.stage_after(moves)
    return stage.bonus_ns if stage.bonus is Bonus.BRONSTEIN else 0


def _shown_ahead(control: TimeControl, moves: int) -> int:
    """What a face shows beyond the settled time at a turn's start: a Bronstein delay (DGT
    3000 "Delay") and, under ``@start``, the move's own Fischer bonus."""
    extra = _bronstein_of(control, moves)
    if control.bonus_at_start and control.kind is Kind.STAGES:
        _, stage = control.stage_after(moves)
        if stage.bonus is Bonus.FISCHER:
            extra += stage.bonus_ns
    return extra


def _delay_of(control: TimeControl, moves: int) -> int:
    """The simple delay of the stage the next move belongs to (0 when none)."""
    if control.kind is not Kind.STAGES:
        return 0
    _, stage = control.stage_after(moves)
    return stage.bonus_ns if stage.bonus is Bonus.DELAY else 0


def _faces(clock: GameClock, at: int) -> tuple[object, ...]:
    sides = (Side.WHITE, Side.BLACK)
    return (clock.running, clock.turn, clock.paused,
            tuple(clock.remaining(s, at) for s in sides),
            tuple(clock.moves_made(s) for s in sides), tuple(clock.flags(at)))


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(CONTROLS), st.lists(_step, max_size=40), st.integers(0, 40))
def test_a_copy_reads_as_the_clock_did_when_copied(
    text: str, steps: list[tuple[str, int]], cut: int
) -> None:
    """The display thread's copy (GameClock.copy) keeps reading as the clock did when it was
    taken, however the clock goes on; and it reads exactly like a deep copy."""
    import copy

    clock = GameClock(TimeControl.parse(text))
    clock.start(0)
    now = 0
    copies: list[tuple[int, GameClock, GameClock]] = []
    for index, (action, dt) in enumerate(steps):
        if index == cut:
            copies.append((now, clock.copy(), copy.deepcopy(clock)))
        now += dt
        side = clock.turn
        assert side is not None
        if action == "press":
            clock.press(side, now)
        elif action == "pause":
            if not clock.pause(now):
                clock.resume(now)
        elif action == "wrong":
            clock.press(side.other, now)
    for at, mine, deep in copies:
        assert type(mine) is GameClock
        for later in (at, at + 7 * S, now + 3 * S):
            assert _faces(mine, later) == _faces(deep, later)


_act = st.tuples(
    st.sampled_from(["press", "wrong", "pause", "resume", "set", "moves", "correct", "read"]),
    st.integers(0, 90 * S),
    st.integers(0, 40),
)


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(CONTROLS), st.lists(_act, max_size=40))
def test_a_copy_is_current_while_the_generation_stands(
    text: str, acts: list[tuple[str, int, int]]
) -> None:
    """The service copies the clock for the display only when ``generation`` moved
    (boardctl.service.base._publish_clock). So every change, the arbiter's corrections and a
    refused call included, must move it: after any call that leaves it where it was, the last
    copy still reads exactly as the clock does, now and later."""
    from firmware.errors import BoardError

    clock = GameClock(TimeControl.parse(text))
    clock.start(0)
    now = 0
    copy, seen = clock.copy(), clock.generation
    for action, dt, n in acts:
        now += dt
        side = clock.turn or Side.WHITE
        try:
            if action == "press":
                clock.press(side, now)
            elif action == "wrong":
                clock.press(side.other, now)
            elif action == "pause":
                clock.pause(now)
            elif action == "resume":
                clock.resume(now)
            elif action == "set":
                clock.set_remaining(side.other, n * 20 * S, now)
            elif action == "moves":
                clock.set_moves(side, n)
            elif action == "correct":
                clock.correct_moves(side.other, n, now)
            else:
                clock.flags(now)
                clock.remaining(side, now)
        except BoardError:
            pass  # refused: whatever it changed before refusing still counts
        if clock.generation == seen:
            for later in (now, now + 5 * S, now + 600 * S):
                assert _faces(copy, later) == _faces(clock, later), action
        else:
            copy, seen = clock.copy(), clock.generation
