"""A six-hour session with the 1953 moves-per-hour control and an adjournment (004 §32-35).

15 moves an hour (004 §32 a). White thinks 200 s a move, Black 220 s: a full move takes 420 s,
so each control hour White saves 15 x (240 - 200) = 600 s and Black 15 x (240 - 220) = 300 s,
carried into the next hour. The session is 6 hours (004 §32: 4 to 6); after 51 full moves
(21 420 s) White thinks 100 s and seals his 52nd move: the game is adjourned with the session
time, so White takes the 80 s left of the 6 hours on his own clock (004 §34). The clock goes
into the journal as JSON and comes back the next day on another monotonic origin (a reboot);
the arbiter opens the envelope, the sealed move is played and Black's clock starts (004 §35).
Black then needs 400 s a move and oversteps before his 60th move, the control.
"""

from __future__ import annotations

from firmware.clock.gameclock import Flag, GameClock
from firmware.clock.timecontrol import TimeControl
from firmware.rules.sets import Side

S = 1_000_000_000
W, B = Side.WHITE, Side.BLACK
HOUR = 3600 * S


def test_six_hour_session_with_adjournment() -> None:
    clock = GameClock(TimeControl.parse("1953-15"))
    day_one = 7 * HOUR  # any monotonic origin
    clock.start(day_one)
    t = day_one
    for move in range(1, 52):
        t += 200 * S
        press = clock.press(W, t)
        assert press.control == (move % 15 == 0)
        t += 220 * S
        clock.press(B, t)
        if move % 15 == 0:
            hours = move // 15
            # after each control: the new hour plus everything saved so far
            assert clock.remaining(W, t) == HOUR + hours * 600 * S
            assert clock.remaining(B, t) == HOUR + hours * 300 * S
    assert t - day_one == 21_420 * S
    # Move 51: 3 controls passed. White: 4 h granted - 51 x 200 s; Black: 4 h - 51 x 220 s.
    assert clock.remaining(W, t) == (14_400 - 10_200) * S
    assert clock.remaining(B, t) == (14_400 - 11_220) * S

    sealed_at = t + 100 * S
    record = clock.adjourn(sealed_at, session_ns=6 * HOUR)
    assert record.sealer is W
    assert record.charged_ns == 80 * S  # 6 h - (10 300 + 11 220) s
    assert record.used == {W: 10_380 * S, B: 11_220 * S}
    assert record.remaining == {W: 4_020 * S, B: 3_180 * S}
    assert record.moves == {W: 51, B: 51}
    assert sum(record.used.values()) == 6 * HOUR

    day_two = sealed_at + 20 * HOUR  # the next day, on the game's own time line
    assert clock.adjournment is not None and clock.adjournment.sealer is W
    assert clock.remaining(W, day_two) == 4_020 * S  # times restored (004 §35)
    assert clock.remaining(B, day_two) == 3_180 * S

    opened = day_two + 600 * S
    press = clock.resume_adjourned(opened)  # the sealed move is played: White's 52nd
    assert press.side is W and press.moves == 52 and press.used_ns == 100 * S
    assert press.remaining_ns == 4_020 * S  # no control before move 60
    assert clock.running is B
    t = opened
    for _ in range(52, 59):  # Black's moves 52..58 at 400 s, White answers in 200 s
        t += 400 * S
        clock.press(B, t)
        t += 200 * S
        clock.press(W, t)
    # Black has 3 180 - 7 x 400 = 380 s for his 59th and 60th moves: the flag falls first.
    assert clock.remaining(B, t) == 380 * S
    assert clock.next_flag_at() == t + 380 * S
    late = clock.press(B, t + 400 * S)
    assert late.overstep and late.flag == Flag(B, t + 380 * S)
    assert clock.flag(t + 400 * S) == Flag(B, t + 380 * S)
    assert clock.remaining(W, t + 400 * S) == (4_020 - 7 * 200) * S
