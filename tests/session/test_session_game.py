"""BoardSession: the one composition of referee, clock and record that the service and
``boardctl replay`` share: move records with clocks, flag fall, adjournment with a sealed
move kept secret, results, PDN."""

from __future__ import annotations

import pytest
from support.records_helpers import shapes

from firmware.errors import IllegalMoveError
from firmware.formats.events import (
    NS,
    Adjourn,
    ClockSet,
    Lift,
    MovesSet,
    Pause,
    Place,
    Press,
    Result,
    Resume,
    ResumeAdjourned,
    Start,
)
from firmware.pdn import read_games
from firmware.session.session import BoardSession


def play(session: BoardSession, frm: str, to: str, side: str, t: float) -> list[dict]:
    out = session.handle(Lift(round(t * NS), frm))
    out += session.handle(Place(round((t + 0.5) * NS), to))
    out += session.handle(Press(round((t + 1) * NS), side))
    return shapes(out)


def test_move_record_shape_with_clock() -> None:
    s = BoardSession("russian", "300+5")
    s.handle(Start(0))
    out = play(s, "c3", "d4", "white", 10)
    assert out == [{
        "type": "move", "ply": 1, "side": "white", "move": "c3-d4",
        "fen": "B:Wd4,a3,e3,g3,b2,d2,f2,h2,a1,c1,e1,g1:Bb8,d8,f8,h8,a7,c7,e7,g7,b6,d6,f6,h6",
        "clock": {"white": 294.0, "black": 300.0},
    }]  # fmt: skip
    assert s.status()["running"] == "black"


def test_no_clock_without_time_control_and_settle() -> None:
    s = BoardSession("russian", None, settle_ns=NS)
    s.handle(Start(0))
    assert s.handle(Lift(NS, "c3")) == []
    assert s.handle(Place(2 * NS, "d4")) == []
    assert s.tick(2 * NS + NS // 2) == []  # not rested long enough
    out = shapes(s.tick(3 * NS))
    assert [r["move"] for r in out] == ["c3-d4"] and "clock" not in out[0]


def test_flag_fall_exactly_when_it_fell() -> None:
    s = BoardSession("international", "60")
    s.handle(Start(0))
    assert s.tick(59 * NS) == []
    out = shapes(s.tick(75 * NS))
    assert out == [{"type": "result", "result": "0-2", "reason": "time forfeit", "at": 60.0,
                    "side": "white"}]  # fmt: skip
    assert s.handle(Press(76 * NS, "white")) == []  # the game is over


def test_overstep_at_the_press() -> None:
    s = BoardSession("russian", "60")
    s.handle(Start(0))
    s.handle(Lift(10 * NS, "c3"))
    s.handle(Place(11 * NS, "d4"))
    out = shapes(s.handle(Press(61 * NS, "white")))
    assert [r["type"] for r in out] == ["result"] and out[0]["result"] == "0-1"


def test_pause_resume_and_corrections() -> None:
    s = BoardSession("russian", "600")
    s.handle(Start(0))
    out = shapes(s.handle(Pause(10 * NS)))
    assert out[0]["type"] == "clock" and out[0]["running"] is None
    out = shapes(s.handle(ClockSet(11 * NS, "white", 500.0)))
    assert out[0]["clock"]["white"] == 500.0
    s.handle(MovesSet(12 * NS, "white", 3))
    s.handle(Resume(20 * NS))
    assert s.status(30 * NS)["clock"]["white"] == 490.0


def test_adjournment_keeps_the_sealed_move_secret() -> None:
    s = BoardSession("russian", "3600")
    s.handle(Start(0))
    play(s, "c3", "d4", "white", 10)
    with pytest.raises(IllegalMoveError):
        s.handle(Adjourn(20 * NS, "a1-b2"))
    out = shapes(s.handle(Adjourn(20 * NS, "f6-g5")))
    assert out[0]["type"] == "adjourned" and "f6-g5" not in str(out) and "g5" not in str(out)
    assert "g5" not in s.pdn() and s.status()["adjourned"]
    assert s.handle(Press(25 * NS, "black")) == []
    out = shapes(s.handle(ResumeAdjourned(1000 * NS)))
    assert [r["move"] for r in out if r["type"] == "move"] == ["f6-g5"]
    assert s.status()["running"] == "white"
    assert s.leds() == {"f6": "remove", "g5": "restore"}  # the arbiter sets the move up
    s.handle(Lift(1001 * NS, "f6"))
    s.handle(Place(1002 * NS, "g5"))
    assert s.tick(1010 * NS) == [] and s.leds() == {}
    out = play(s, "g3", "h4", "white", 1040)
    assert [r["move"] for r in out if r["type"] == "move"] == ["g3-h4"]
    game = next(iter(read_games(s.pdn(), "adjourned")))
    assert [m.text for m in game.moves] == ["c3-d4", "f6-g5", "g3-h4"]


def test_arbiter_result_and_pdn() -> None:
    s = BoardSession("international", "4800+60", tags={"White": "A", "Black": "B"})
    s.handle(Start(0))
    play(s, "h4", "i5", "white", 5)  # 34-30
    out = shapes(s.handle(Result(100 * NS, "1-1", "agreement")))
    assert out == [{"type": "result", "result": "1-1", "reason": "agreement"}]
    text = s.pdn()
    game = next(iter(read_games(text, "session")))
    assert game.tags["Result"] == "1-1" and game.tags["TimeControl"] == "4800+60"
    assert [m.text for m in game.moves] == ["34-30"]
    assert game.moves[0].clock is not None and game.moves[0].clock.running == "black"


def test_game_over_on_the_board() -> None:
    s = BoardSession("russian", "600", "W:Wc3:Bd4")
    s.handle(Start(0))
    s.handle(Lift(NS, "c3"))
    s.handle(Place(2 * NS, "e5"))
    out = shapes(s.handle(Lift(3 * NS, "d4")))
    out += shapes(s.tick(10 * NS))  # the last move needs no press: the game is over
    assert [r["type"] for r in out] == ["move", "result"] and out[1]["result"] == "1-0"


def test_wake_at_tells_the_service_when_to_tick() -> None:
    s = BoardSession("russian", "60", settle_ns=NS)
    assert s.wake_at() is None
    s.handle(Start(0))
    assert s.wake_at() == 60 * NS  # White's flag
    s.handle(Lift(10 * NS, "c3"))
    assert s.wake_at() == 11 * NS  # the board may come to rest
