"""firmware.formats.journal and boardctl.service.journal_file: the format, torn tails, and the
files."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from boardctl.service.journal_file import create_journal, current_path, load_journal, open_journal
from firmware.errors import EventLogError
from firmware.formats.journal import GameHeader, decision_record, dumps, note_record, read_journal

HEADER = GameHeader("g1", "russian", None, "300", {"White": "A", "Round": "1.2"}, "b7")
EVENTS = [
    {"type": "start", "t": 0.0},
    {"type": "lift", "t": 1.25, "square": "c3"},
    {"type": "place", "t": 1.5, "square": "d4"},
    {"type": "press", "t": 2.0, "side": "white"},
    {"type": "clock-set", "t": 3.0, "side": "black", "seconds": 250},
]


def journal_text() -> str:
    lines = [dumps(HEADER.record())]
    for e in EVENTS:
        lines.append(dumps(e))
        if e["type"] == "press":
            lines.append(dumps(decision_record({"type": "move", "ply": 1, "move": "c3-d4"})))
    lines.append(dumps(note_record("restart")))
    return "".join(lines)


def test_round_trip_skips_decisions() -> None:
    j = read_journal(journal_text().splitlines(keepends=True))
    assert j.header == HEADER
    assert j.events == EVENTS
    assert j.decisions == [{"type": "move", "ply": 1, "move": "c3-d4"}]
    assert j.last_t == 3.0 and not j.torn
    assert j.end == len(journal_text().encode())


@pytest.mark.parametrize("cut", [1, 5, 17, 30])
def test_torn_last_line_is_dropped(cut: int) -> None:
    text = journal_text() + dumps({"type": "lift", "t": 4.0, "square": "d4"})[:cut]
    j = read_journal(text.splitlines(keepends=True))
    assert j.events == EVENTS and j.torn
    assert j.end == len(journal_text().encode())


def test_zero_filled_tail_is_dropped() -> None:
    data = journal_text().encode() + b"\x00" * 300
    j = read_journal(data.splitlines(keepends=True))
    assert j.events == EVENTS and j.torn


def test_complete_line_without_newline_counts_as_torn() -> None:
    text = journal_text() + dumps({"type": "lift", "t": 4.0, "square": "d4"}).rstrip("\n")
    assert read_journal(text.splitlines(keepends=True)).events == EVENTS


def test_damage_in_the_middle_is_an_error_naming_the_line() -> None:
    lines = journal_text().splitlines(keepends=True)
    lines[2] = '{"type": "lift", "t": 1.2\n'
    with pytest.raises(EventLogError, match="line 3"):
        read_journal(lines)


@pytest.mark.parametrize(
    "bad, msg",
    [
        ({"type": "teleport", "t": 5.0}, "unknown record type"),
        ({"type": "lift", "square": "c3"}, "needs a time"),
        ({"type": "lift", "t": 0.5, "square": "c3"}, "backwards"),
    ],
)
def test_bad_records_raise(bad: dict, msg: str) -> None:
    text = journal_text() + dumps(bad)
    with pytest.raises(EventLogError, match=msg):
        read_journal(text.splitlines(keepends=True))


def test_missing_or_bad_header() -> None:
    with pytest.raises(EventLogError, match="no 'game' record"):
        read_journal([])
    with pytest.raises(EventLogError, match="must start with a 'game'"):
        read_journal([dumps(EVENTS[0])])
    with pytest.raises(EventLogError, match="tags"):
        read_journal([dumps({**HEADER.record(), "tags": [1]})])


def test_files_current_pointer_and_truncation(tmp_path: Path) -> None:
    assert current_path(tmp_path) is None
    with create_journal(tmp_path, HEADER) as w:
        for e in EVENTS:
            w.write(e, sync=e["type"] == "press")
        assert w.syncs == 2  # the header, then the press
    path = current_path(tmp_path)
    assert path is not None and path.name == "g1.jsonl"
    good = path.stat().st_size
    with open(path, "ab") as f:
        f.write(b'{"type":"lift","t":9')
    journal, writer = open_journal(path)
    assert journal.torn and path.stat().st_size == good
    writer.write({"type": "pause", "t": 9.0}, sync=True)
    writer.close()
    again = load_journal(path)
    assert again.events[-1] == {"type": "pause", "t": 9.0} and not again.torn
    with pytest.raises(EventLogError, match="exists already"):
        create_journal(tmp_path, HEADER)


def test_current_pointer_to_missing_file(tmp_path: Path) -> None:
    (tmp_path / "current").write_text("gone.jsonl\n")
    with pytest.raises(EventLogError, match="gone.jsonl"):
        current_path(tmp_path)
    os.remove(tmp_path / "current")
