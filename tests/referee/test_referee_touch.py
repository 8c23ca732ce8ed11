"""The shortest touch (issue 11): 000 3.9-3.11 — a piece lifted and put back within 0.3 s has
been touched; a contact bounce (a few ms) never is. Measured from the debounced edges."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.records_helpers import FeedShapedSession as BoardSession  # records as feed lines
from test_referee_irregular import feed, kinds

from boardctl.cli import main
from firmware.errors import BoardError
from firmware.referee import BOUNCE_NS, TOUCH_NS, check_touch_min

MS = 1_000_000


def new(touch_ns: int | None = None) -> BoardSession:
    s = BoardSession("russian", "300", touch_ns=touch_ns)
    feed(s, "0 start")
    return s


def touch_lines(out: list[dict]) -> list[dict]:
    return [r for r in out if r["type"] == "irregularity" and r["kind"] == "touch-move"]


def test_000_3_10_a_lift_of_0_3_s_is_a_touch_with_how_long_it_was_held() -> None:
    assert TOUCH_NS <= 250 * MS
    s = new()
    out = feed(s, "1 lift c3; 1.3 place c3; 3 lift e3; 3.3 place f4; 4 press white")
    lines = touch_lines(out)
    assert len(lines) == 1 and lines[0]["squares"] == ["c3"]
    assert lines[0]["held"] == pytest.approx(0.3)


def test_000_3_10_the_shortest_touch_is_configurable() -> None:
    events = "1 lift c3; 1.2 place c3; 3 lift e3; 3.3 place f4; 4 press white"
    assert kinds(feed(new(), events)) == []  # 0.2 s: under the default 0.25 s
    assert kinds(feed(new(150 * MS), events)) == ["touch-move"]


def test_a_flicker_is_never_a_touch_even_with_the_shortest_setting() -> None:
    s = new(1 * MS)  # asked for 1 ms: the bounce window still holds
    out = feed(s, "1 lift c3; 1.004 place c3; 3 lift e3; 3.3 place f4; 4 press white")
    assert kinds(out) == []
    with pytest.raises(BoardError, match="contact bounce"):
        check_touch_min(0.005)
    with pytest.raises(BoardError, match="between"):
        check_touch_min(5)
    assert check_touch_min(0.25) == 250 * MS and BOUNCE_NS == 20 * MS


def test_bounce_inside_a_hold_does_not_cut_it_short() -> None:
    # Debounced edges: the hold runs from the first lift to the last set-down; a bounce on the
    # set-down (place, 2 ms lift, 2 ms place) is part of the same hold.
    s = new()
    out = feed(s, "1 lift c3; 1.15 place c3; 1.152 lift c3; 1.154 place c3; 1.156 lift c3; "
                  "1.3 place c3; 3 lift e3; 3.3 place f4; 4 press white")
    lines = touch_lines(out)
    assert len(lines) == 1 and lines[0]["held"] == pytest.approx(0.3)


def test_replay_takes_touch_min(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = tmp_path / "touch.jsonl"
    records = [{"type": "start", "t": 0}, {"type": "lift", "t": 1, "square": "c3"},
               {"type": "place", "t": 1.2, "square": "c3"},
               {"type": "lift", "t": 3, "square": "e3"},
               {"type": "place", "t": 3.3, "square": "f4"},
               {"type": "press", "t": 4, "side": "white"}]
    log.write_text("".join(json.dumps(r) + "\n" for r in records))
    base = ["replay", "--rules", "russian", "--time-control", "300", "--format", "feed"]
    assert main([*base, str(log)]) == 0
    assert '"touch-move"' not in capsys.readouterr().out
    assert main([*base, "--touch-min", "0.15", str(log)]) == 0
    assert '"held":0.2' in capsys.readouterr().out
    assert main([*base, "--touch-min", "0.001", str(log)]) != 0
    err = capsys.readouterr().err
    assert "contact bounce" in err and "Traceback" not in err
