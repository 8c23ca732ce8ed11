"""The dispute view's data (boardctl.hall.remote.timeline): the journal's sensor events that led
to a ply, from a real game's journal written by the service on simulated hardware."""

from __future__ import annotations

import json
from pathlib import Path

from support.service_helpers import game_log, replayed

from boardctl.hall.remote import RemoteControl, timeline
from boardctl.hall.signing import Verifier


def journal_lines(plies: int = 4) -> list[str]:
    """A journal as the service writes it: the game, then events and the board's decisions."""
    events = game_log(plies, seed=3, think=(0.05, 0.2), change_mind=0.0)
    session = replayed(events)
    lines = [json.dumps({"type": "game", "journal": 2, "id": "g", "rules": "international"})]
    moves = iter(session.moves)
    for e in events:
        lines.append(json.dumps(e.record()))
        if e.type == "press":  # a clocked board commits the move on the press
            move = next(moves, None)
            if move is not None:
                lines.append(json.dumps({"type": "decision", "t": e.record()["t"],
                                         "record": {"type": "move", **move}}))
    return lines


def test_the_events_between_the_moves_before_and_the_ply() -> None:
    lines = journal_lines()
    got = timeline(lines, 2)
    assert got["move"]["ply"] == 2
    kinds = [e["type"] for e in got["events"]]
    assert kinds[-1] == "press" and "lift" in kinds and "place" in kinds
    # nothing from before ply 1's press, nothing after ply 2's
    whole = [json.loads(x) for x in lines]
    first = next(i for i, r in enumerate(whole) if r.get("record", {}).get("ply") == 1)
    second = next(i for i, r in enumerate(whole) if r.get("record", {}).get("ply") == 2)
    assert got["events"] == [r for r in whole[first + 1:second] if r["type"] != "decision"]


def test_a_ply_not_made_yet_and_a_torn_last_line() -> None:
    lines = journal_lines(2)
    got = timeline([*lines, '{"type":"lift","t":99.0,"square":3', "junk\n"], 9)
    assert got["move"] is None and got["events"] == []  # nothing after the last move
    got = timeline([*lines, json.dumps({"type": "lift", "t": 99.0, "square": 33})], 3)
    assert got["move"] is None and got["events"] == [{"type": "lift", "t": 99.0, "square": 33}]


def test_a_ply_made_again_after_a_takeback_shows_its_latest_making() -> None:
    lines = journal_lines(2)
    again = [json.dumps({"type": "takeback", "t": 50.0, "plies": 1}),
             json.dumps({"type": "lift", "t": 51.0, "square": 19}),
             json.dumps({"type": "place", "t": 52.0, "square": 24}),
             json.dumps({"type": "decision", "t": 52.5,
                         "record": {"type": "move", "ply": 2, "move": "19-24"}})]
    got = timeline(lines + again, 2)
    assert got["move"]["move"] == "19-24"
    assert [e["type"] for e in got["events"]] == ["takeback", "lift", "place"]


def test_the_desk_answers_a_timeline_from_the_journal_file(tmp_path: Path) -> None:
    path = tmp_path / "journal.jsonl"
    path.write_text("\n".join(journal_lines()) + "\n")
    sent: list[bytes] = []
    remote = RemoteControl(Verifier(b"k" * 32, "H", "b1"), command=lambda body: {"ok": True},
                           send=sent.append, journal=lambda: path)
    try:
        assert remote.answer({"cmd": "timeline", "ply": 1})["move"]["ply"] == 1
        assert "'ply' must be" in remote.answer({"cmd": "timeline", "ply": "1"})["error"]
        assert "'ply' must be" in remote.answer({"cmd": "timeline", "ply": 1, "x": 2})["error"]
        remote.journal = lambda: tmp_path / "gone"
        assert "cannot read the journal" in remote.answer({"cmd": "timeline", "ply": 1})["error"]
        remote.journal = lambda: None
        assert "no game journal" in remote.answer({"cmd": "timeline", "ply": 1})["error"]
    finally:
        remote.close()
