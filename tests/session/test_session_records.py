"""One record type per feed line (issue 12): each record's ``to_json`` is the CONTRACT.md
shape in its order, the session's feed is built from them only, and the scoresheet is the
one place PDN, ``[%clock]`` readings and the snapshot's moves come from."""

from __future__ import annotations

import dataclasses
import json

import pytest

from firmware.formats.events import NS, ClockSet, Lift, Pause, Place, Press, Resume, Start
from firmware.formats.records import (
    AdjournedRecord,
    ClearedRecord,
    ClockRecord,
    IrregularityRecord,
    MoveRecord,
    PositionRecord,
    ResultRecord,
)
from firmware.formats.scoresheet import Scoresheet
from firmware.session.session import BoardSession

CLOCK = {"white": 5399.5, "black": 5400.0}


@pytest.mark.parametrize("record,expected", [
    (MoveRecord(1, "white", "32-28", "B:W...", CLOCK),
     {"type": "move", "ply": 1, "side": "white", "move": "32-28", "fen": "B:W...",
      "clock": CLOCK}),
    (MoveRecord(2, "black", "19-23", "W:W..."),
     {"type": "move", "ply": 2, "side": "black", "move": "19-23", "fen": "W:W..."}),
    (IrregularityRecord("touch-move", "white", ("c3",), {"c3": "must-move"}, 0.4),
     {"type": "irregularity", "kind": "touch-move", "side": "white", "squares": ("c3",),
      "leds": {"c3": "must-move"}, "held": 0.4}),
    (IrregularityRecord("board-mismatch", None, (), {}),
     {"type": "irregularity", "kind": "board-mismatch", "side": None, "squares": (),
      "leds": {}}),
    (ResultRecord("0-2", "time forfeit", 61.5, "white"),
     {"type": "result", "result": "0-2", "reason": "time forfeit", "at": 61.5,
      "side": "white"}),
    (ResultRecord("1-1", "agreed", overridden="0-2"),
     {"type": "result", "result": "1-1", "reason": "agreed", "override": True,
      "overridden": "0-2"}),
    (PositionRecord("W:W31:B19"), {"type": "position", "fen": "W:W31:B19",
                                   "reason": "accepted"}),
    (ClearedRecord(), {"type": "cleared"}),
    (ClockRecord("pause", CLOCK, None),
     {"type": "clock", "event": "pause", "clock": CLOCK, "running": None}),
    (AdjournedRecord("black", CLOCK), {"type": "adjourned", "side": "black", "clock": CLOCK}),
])
def test_each_record_is_its_feed_line(record: object, expected: dict) -> None:
    got = record.to_json()  # type: ignore[attr-defined]
    assert got == expected
    assert list(got) == list(expected)  # the order the feed has always had
    fields = dataclasses.fields(record)  # type: ignore[arg-type]
    if fields:
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(record, fields[0].name, "x")


def _played(session: BoardSession) -> list[dict]:
    out = session.handle(Start(0))
    t = NS
    for frm, to, side in (("c3", "d4", "white"), ("f6", "e5", "black")):
        out += session.handle(Lift(t, frm))
        out += session.handle(Place(t + NS // 5, to))
        out += session.handle(Press(t + NS // 2, side))
        t += 2 * NS
    out += session.handle(Pause(t))
    out += session.handle(ClockSet(t + 1, "white", 100.0))
    out += session.handle(Resume(t + 2))
    return out


def test_the_session_feed_is_made_of_records_and_a_pause_is_one_line() -> None:
    session = BoardSession("russian", "300+5")
    out = _played(session)
    kinds = [r.type for r in out]
    assert kinds.count("move") == 2
    clock_lines = [r for r in out if isinstance(r, ClockRecord)]
    assert [r.event for r in clock_lines] == ["pause", "clock-set", "resume"]
    assert json.dumps([r.to_json() for r in out])  # plain JSON all through
    # The move list, the snapshot and the PDN come from one scoresheet.
    moves = [r.to_json() for r in out if isinstance(r, MoveRecord)]
    assert session.moves == moves
    assert [m.move for m in session.snapshot("g").moves or ()] == ["c3-d4", "f6-e5"]
    pdn = session.pdn()
    assert "c3-d4" in pdn and "f6-e5" in pdn and pdn.count("[%clock") == 2


def test_scoresheet_restarts_the_snapshot_at_an_accepted_position() -> None:
    sheet = Scoresheet("START")
    sheet.add(MoveRecord(1, "white", "c3-d4", "F1", CLOCK))
    sheet.add(PositionRecord("ACCEPTED"))
    sheet.add(MoveRecord(2, "black", "f6-e5", "F2", CLOCK))
    start, moves = sheet.snapshot_start()
    assert start == "ACCEPTED" and [m.ply for m in moves] == [2]
    items = sheet.movetext()
    assert items[0] == "c3-d4" and getattr(items[1], "fen", None) == "ACCEPTED"
    assert [c.running if c else None for c in sheet.clocks()] == ["black", "white"]
