"""The shortest touch (000 3.9-3.11, ``--touch-min``) belongs to the game: it is written in the
journal's header, so that a rebuild or ``boardctl export`` judges touches exactly as the service
did; the feed's header line names the time control with its Fischer convention (issue 11)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from boardctl.service.games import GameSetup, session_for
from firmware.errors import EventLogError
from firmware.formats.journal import GameHeader


def test_touch_min_round_trips_through_the_journal_header() -> None:
    header = GameSetup("international", "300+5", touch_min=0.1).header("b1", "g1")
    back = GameHeader.from_record(json.loads(json.dumps(header.record())))
    assert back.touch_min == 0.1
    assert session_for(back).referee.touch_ns == 100_000_000
    default = GameSetup("international").header("b1", "g2")
    assert "touch_min" not in default.record()
    assert session_for(default).referee.touch_ns == 250_000_000  # the default, 0.25 s


@pytest.mark.parametrize("bad", [0.001, 5, "0.3", True])
def test_a_bad_touch_min_in_a_journal_is_named(bad: object) -> None:
    rec = GameSetup("international").header("b1", "g1").record()
    rec["touch_min"] = bad
    with pytest.raises(EventLogError, match="line 1"):
        GameHeader.from_record(rec)


def test_the_service_journals_its_touch_min_and_names_the_convention(tmp_path: Path) -> None:
    from support.service_helpers import sim_service

    lines: list[str] = []
    service, _ = sim_service(tmp_path, None, tc="300+5@start", lines=lines)
    service.setup.touch_min = 0.12
    service.boot()
    try:
        assert service.header is not None and service.header.touch_min == 0.12
        assert service.session is not None and service.session.referee.touch_ns == 120_000_000
        assert service.command({"cmd": "new", "force": True})["ok"]
        assert service.header.touch_min == 0.12  # a new game keeps the board's setting
    finally:
        service.close()
    records = [json.loads(line) for line in lines]
    headers = [r for r in records if r["type"] == "header"]
    assert headers and all(r["time_control"] == "300+5@start" for r in headers)
