"""Results the clock decides, as an arbiter checks them (issue 11): flags, lateness, the
arbiter's override, 000 7.2.9 at the start, ``[%clock]`` under both Fischer conventions."""

from __future__ import annotations

import pytest
from support.records_helpers import shapes

from firmware.clock.gameclock import ClockError
from firmware.formats.events import NS, Lift, MovesSet, Place, Press, Result, Start
from firmware.pdn import read_games
from firmware.session.session import BoardSession

MIN = 60 * NS


def play(session: BoardSession, frm: str, to: str, side: str, t: float) -> list[dict]:
    out = session.handle(Lift(round(t * NS), frm))
    out += session.handle(Place(round((t + 0.5) * NS), to))
    out += session.handle(Press(round((t + 1) * NS), side))
    return shapes(out)


@pytest.mark.parametrize("fen", ["W:WKc1,Ke1:BKh2", "W:WKc1,Ke1,Kg1:BKa1"])
def test_000_7_2_9_set_up_ending_without_fischer_is_drawn_at_the_start(fen: str) -> None:
    # 000 7.2.9: without Fischer seconds these endings are not played out: draw.
    s = BoardSession("russian", "2700", fen)
    out = shapes(s.handle(Start(0)))
    assert [r["type"] for r in out] == ["result"]
    assert out[0]["result"] == "1/2-1/2" and "7.2.9" in out[0]["reason"]
    fischer = BoardSession("russian", "1800+30@start", fen)
    assert fischer.handle(Start(0)) == []


def test_000_7_2_9_started_log_without_start_event_is_drawn_at_its_first_event() -> None:
    s = BoardSession("russian", "2700", "W:WKc1,Ke1:BKh2", started=True)
    out = shapes(s.handle(Lift(NS, "c1")))
    assert out and out[-1]["type"] == "result" and "7.2.9" in out[-1]["reason"]


def test_004_s32_flag_loses_with_the_exact_instant_and_freezes() -> None:
    # 004 §32: a player who oversteps the time loses; DGT 3000: the clock freezes.
    s = BoardSession("russian", "60")
    s.handle(Start(0))
    s.handle(Lift(NS, "c3"))  # White is at the board
    out = shapes(s.tick(61 * NS))
    assert out[-1]["result"] == "0-1" and out[-1]["reason"] == "time forfeit"
    assert out[-1]["at"] == 60.0 and out[-1]["side"] == "white"
    assert s.clock is not None and not s.clock.press(s.clock.turn, 62 * NS).accepted  # type: ignore[arg-type]


def test_004_s32_thirty_minutes_late_loses_by_default() -> None:
    # 004 §32: "Samuti loetakse kaotatuks ka vastane, kes hilines 30 või rohkem minutit".
    s = BoardSession("international", "4800+60@start")
    s.handle(Start(0))
    assert s.wake_at() == 30 * MIN
    assert s.tick(30 * MIN - 1) == []
    out = shapes(s.tick(30 * MIN))
    assert out[-1]["result"] == "0-2" and "30 minutes late" in out[-1]["reason"]


def test_004_s32_a_player_at_the_board_is_not_late() -> None:
    s = BoardSession("russian", "7200")
    s.handle(Start(0))
    s.handle(Lift(5 * MIN, "c3"))  # White thinks with the piece in hand: present
    s.handle(Place(5 * MIN + NS, "c3"))
    assert s.tick(45 * MIN) == []


def test_004_s32_black_absent_is_defaulted_after_30_minutes_on_his_clock() -> None:
    # 004 §32: the absent player's clock starts when his turn comes; the time is his.
    s = BoardSession("russian", "7200")
    s.handle(Start(0))
    play(s, "c3", "d4", "white", 600)  # White moves at 10 min; Black's clock runs from 601 s
    assert s.tick(601 * NS + 30 * MIN - 1) == []
    out = shapes(s.tick(601 * NS + 30 * MIN))
    assert out[-1]["result"] == "1-0" and "late" in out[-1]["reason"]


def test_arbiter_overrides_a_default_and_a_flag() -> None:
    # 004 §32: lateness "ilma vabandava põhjuseta" (without a valid excuse): the arbiter
    # judges the excuse and may overrule the automatic result.
    s = BoardSession("international", "4800+60@start")
    s.handle(Start(0))
    s.tick(30 * MIN)
    out = shapes(s.handle(Result(31 * MIN, "1-1", "arbiter: excused lateness")))
    assert out[-1]["result"] == "1-1" and out[-1]["override"] is True
    assert out[-1]["overridden"] == "0-2"
    assert s.result is not None and s.result["result"] == "1-1"
    # Not a clock result: an arbiter result stands as before (no second result).
    assert s.handle(Result(32 * MIN, "2-0", "arbiter")) == []


def test_late_default_can_be_switched_off() -> None:
    s = BoardSession("international", "4800+60", late_ns=None)
    s.handle(Start(0))
    assert s.tick(31 * MIN) == []


def test_clock_tag_keeps_the_time_after_the_moves_own_bonus_at_start() -> None:
    # Issue 11: [%clock] shows the time after the move's own bonus in both conventions.
    readings = []
    for control in ("300+5", "300+5@start"):
        s = BoardSession("russian", control)
        s.handle(Start(0))
        out = play(s, "c3", "d4", "white", 10)
        readings.append(out[0]["clock"])
        pdn = s.pdn()
        game = list(read_games(pdn))[0]
        assert game.tags["TimeControl"] == control
    assert readings[0] == readings[1] == {"white": 294.0, "black": 300.0}


def test_004_s32_moves_set_event_adds_the_period_and_refuses_under_15_minutes() -> None:
    s = BoardSession("russian", "20/3600")
    s.handle(Start(0))
    out = shapes(s.handle(MovesSet(MIN, "white", 20)))
    assert out[-1]["clock"]["white"] == 7140.0  # 59 min + the next hour
    with pytest.raises(ClockError, match="15 minutes"):
        s.handle(MovesSet(50 * MIN, "white", 0))
