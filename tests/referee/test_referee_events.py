"""The event vocabulary: reading log lines (CONTRACT.md "Event log"), writing them back, and
clear errors naming the line."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from firmware.errors import EventLogError
from firmware.formats.events import (
    EVENT_CLASSES,
    Adjourn,
    ClockSet,
    Lift,
    MovesSet,
    Press,
    Result,
    Start,
    event_to_json,
    parse_event_line,
    read_events,
)


def test_contract_types() -> None:
    assert parse_event_line('{"type":"lift","t":1.25,"square":"C3"}', 1) == Lift(
        1_250_000_000, "c3"
    )
    assert parse_event_line('{"type":"press","t":2,"side":"black"}', 1) == Press(2 * 10**9, "black")
    assert parse_event_line(b'{"type":"start","t":0}', 1) == Start(0)
    assert set(EVENT_CLASSES) >= {"start", "lift", "place", "press", "pause", "resume", "accept",
                                  "clock-set", "moves-set", "adjourn", "resume-adjourned",
                                  "result"}  # fmt: skip


def test_arbiter_events() -> None:
    assert parse_event_line('{"type":"clock-set","t":1,"side":"white","seconds":90.5}', 3) == (
        ClockSet(10**9, "white", 90.5)
    )
    assert parse_event_line('{"type":"moves-set","t":1,"side":"black","moves":12}', 3) == (
        MovesSet(10**9, "black", 12)
    )
    assert parse_event_line('{"type":"adjourn","t":1,"sealed":"32-28"}', 3) == Adjourn(
        10**9, "32-28"
    )
    assert parse_event_line('{"type":"result","t":1,"result":"1-0","reason":"resignation"}', 3) == (
        Result(10**9, "1-0", "resignation")
    )


@pytest.mark.parametrize(
    "line",
    [
        "", "[]", "{", '{"t":1}', '{"type":"lift","t":1}', '{"type":"lift","t":"1","square":"a1"}',
        '{"type":"lift","t":1,"square":"11"}', '{"type":"press","t":1}',
        '{"type":"lift","t":NaN,"square":"a1"}', '{"type":"lift","t":-1,"square":"a1"}',
        '{"type":"clock-set","t":1,"side":"white","seconds":-5}',
        '{"type":"moves-set","t":1,"side":"white","moves":1.5}',
        '{"type":"adjourn","t":1}', b'\xff\xfe',
    ],
)  # fmt: skip
def test_bad_lines_name_the_line(line: str | bytes) -> None:
    with pytest.raises(EventLogError, match="line 7"):
        parse_event_line(line, 7, "")


def test_torn_last_line_only_when_asked() -> None:
    lines = [
        '{"type":"start","t":0}\n',
        "\n",
        '{"type":"lift","t":1,"square":"a1"}\n',
        '{"type":"pl',
    ]
    with pytest.raises(EventLogError, match="log.jsonl: line 4"):
        read_events(lines, "log.jsonl")
    assert read_events(lines, "log.jsonl", tolerate_torn_tail=True) == [Start(0), Lift(10**9, "a1")]
    with pytest.raises(EventLogError, match="line 2"):
        read_events(['{"type":"start","t":0}\n', "garbage\n", '{"type":"start","t":1}\n'],
                    tolerate_torn_tail=True)  # fmt: skip


@given(
    st.floats(0, 1e6),
    st.sampled_from(["a1", "j10", "b2", "h8"]),
    st.sampled_from(["lift", "place"]),
)
def test_round_trip(t: float, square: str, kind: str) -> None:
    event = parse_event_line(f'{{"type":"{kind}","t":{t!r},"square":"{square}"}}', 1)
    again = parse_event_line(event_to_json(event), 1)
    assert again == event


def test_crlf_and_byte_order_mark_are_read() -> None:
    data = b'\xef\xbb\xbf{"type":"start","t":0}\r\n{"type":"lift","t":1,"square":"c3"}\r\n'
    assert read_events(data.splitlines(keepends=True)) == [Start(0), Lift(10**9, "c3")]
