"""firmware.formats.feed: lines round-trip, and damaged lines are dropped, never raised on."""

from __future__ import annotations

import json
import zlib

from hypothesis import given, settings
from hypothesis import strategies as st

from firmware.formats.feed import decode_line, encode_line, header_record, snapshot_record

MOVE = {
    "type": "move",
    "ply": 1,
    "side": "white",
    "move": "32-28",
    "fen": "B:W28,31,33-50:B1-20",
    "clock": {"white": 299.5, "black": 300.0},
}

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**40), 2**40) | st.text(max_size=12)
    | st.floats(allow_nan=False, allow_infinity=False),
    lambda children: st.lists(children, max_size=4)
    | st.dictionaries(st.text(max_size=6), children, max_size=4),
    max_leaves=12,
)
records = st.dictionaries(st.text(max_size=8), json_values, max_size=6).map(
    lambda d: {**d, "type": "x"}
)


def test_move_line_shape_and_checksum_rule() -> None:
    line = encode_line(MOVE, 7)
    assert line.endswith('"}\n') and "\n" not in line[:-1]
    assert line.startswith('{"seq":7,"type":"move"')
    # The documented rule: CRC-32 of the text before ',"crc":"' followed by '}'.
    text = line.rstrip("\n")
    cut = text.rindex(',"crc":"')
    expected = f"{zlib.crc32((text[:cut] + '}').encode()) & 0xFFFFFFFF:08x}"
    assert text[cut + 8 : -2] == expected
    assert json.loads(text)["crc"] == expected
    decoded = decode_line(line)
    assert decoded == {**MOVE, "seq": 7}


@settings(max_examples=80, deadline=None)
@given(records, st.integers(0, 2**31))
def test_round_trip(record: dict, seq: int) -> None:
    decoded = decode_line(encode_line(record, seq))
    assert decoded is not None
    assert decoded.pop("seq") == seq
    assert decoded == {k: v for k, v in record.items() if k not in ("seq", "crc")}


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 10_000), st.integers(1, 255), st.data())
def test_any_changed_byte_is_dropped(pos: int, flip: int, data: st.DataObject) -> None:
    raw = bytearray(encode_line(MOVE, 3).rstrip("\n").encode())
    i = pos % len(raw)
    raw[i] ^= flip
    assert decode_line(bytes(raw)) is None


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 200))
def test_truncated_lines_are_dropped(keep: int) -> None:
    line = encode_line(MOVE, 3).rstrip("\n")
    if keep < len(line):
        assert decode_line(line[:keep]) is None


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=200) | st.text(max_size=200))
def test_garbage_never_raises(junk: bytes | str) -> None:
    assert decode_line(junk) is None


def test_foreign_json_without_crc_or_seq_is_dropped() -> None:
    assert decode_line(json.dumps(MOVE)) is None
    body = '{"type":"move"}'
    crc = f"{zlib.crc32(body.encode()) & 0xFFFFFFFF:08x}"
    assert decode_line(f'{{"type":"move","crc":"{crc}"}}') is None  # no seq
    assert decode_line('[1,"crc":"00000000"]') is None


def test_header_and_snapshot_records() -> None:
    header = decode_line(encode_line(header_record("board-3", "r1", rules="russian"), 0))
    assert header is not None and header["board"] == "board-3" and header["run"] == "r1"
    moves = [{"ply": 1, "side": "white", "move": "c3-d4", "fen": "x", "clock": {"white": 1}}]
    snap = snapshot_record(
        game="g1", rules="russian", start_fen="s", fen="f", moves=moves,
        tags={"Round": "1.2"}, clock={"white": 1.0, "black": 2.0}, running="black",
    )
    decoded = decode_line(encode_line(snap, 5))
    assert decoded is not None
    assert decoded["moves"] == [{"ply": 1, "side": "white", "move": "c3-d4", "clock": {"white": 1}}]
    assert decoded["running"] == "black" and decoded["tags"] == {"Round": "1.2"}


def test_encode_rejects_records_without_type() -> None:
    import pytest

    with pytest.raises(ValueError):
        encode_line({"ply": 1}, 0)
    with pytest.raises(ValueError):
        encode_line(MOVE, -1)
