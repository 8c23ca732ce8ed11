"""The broadcast feed's framing: one JSON object per line, numbered and checksummed.

Pure functions over text, apart from the serial port (pySerial ``threaded.Packetizer`` is the
model): the service hands each feed record (CONTRACT.md "Broadcast feed") to :func:`encode_line`
and writes the result to the port; a reader hands each received line to :func:`decode_line`
and gets the record back, or ``None`` for a line damaged on the way.

Line format (exactly, so that a reader in any language can check it)::

    {"seq":17,"type":"move",...,"crc":"1c291ca3"}\\n

- The object is written as compact JSON (separators ``,`` and ``:``, no spaces), ASCII only
  (``\\uXXXX`` escapes), ``seq`` first, then the record's own members in the order given, and
  the member ``"crc"`` last.
- ``crc`` is the CRC-32 (IEEE 802.3, the one ``zlib.crc32`` and Ethernet use), as 8 lowercase
  hex digits, of the ASCII bytes of the line *as if the crc member were not there*: the text
  before ``,"crc":"`` followed by ``}``. A reader finds the last ``,"crc":"``, checks that the
  line ends with 8 hex digits then ``"}``, recomputes, and drops the line on any mismatch. No
  JSON re-serialisation is needed to check a line.
- ``seq`` counts the lines one service run has sent, from 0; it starts again at 0 when the board
  restarts, and the ``header`` line that opens every run (and every reconnection) says so with
  its ``run`` id. A gap in ``seq`` tells a reader it lost lines; the next ``snapshot`` (sent on
  connect and every few seconds) carries the whole game so the reader catches up.

Record types beyond CONTRACT.md's ``move``, ``irregularity``, ``result`` and ``snapshot``:
``header`` (who is talking), ``game`` (a new game begins: its tags), ``clock`` (the clocks after
a start, pause, resume or arbiter correction: ``event``, ``clock``, ``running``), and those of
``firmware.session.session``: ``position`` (an irregular board accepted) and ``adjourned`` (the
sealed move itself never travels). Every record of a game carries its ``game`` id.
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Mapping, Sequence
from typing import Any

from firmware.limits import loads

#: Version of this line format, sent in the header.
PROTOCOL = 1

_CRC_KEY = ',"crc":"'
_MAX_LINE = 1 << 20  # a longer "line" is noise, not a record


def _dumps(obj: Mapping[str, Any]) -> str:
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=True, allow_nan=False)


def crc_of(text: str) -> str:
    """CRC-32 of ``text`` (ASCII) as 8 lowercase hex digits."""
    return f"{zlib.crc32(text.encode('ascii')) & 0xFFFFFFFF:08x}"


def encode_line(record: Mapping[str, Any], seq: int) -> str:
    """``record`` as one feed line (with its trailing newline), numbered ``seq``.

    ``record`` must have a string ``type``; any ``seq`` or ``crc`` members it carries are
    replaced. Values must be JSON-serialisable and finite.
    """
    if not isinstance(record.get("type"), str):
        raise ValueError(f"a feed record needs a string 'type': {record!r}")
    if isinstance(seq, bool) or not isinstance(seq, int) or seq < 0:
        raise ValueError(f"seq must be a non-negative int, not {seq!r}")
    body: dict[str, Any] = {"seq": seq}
    body.update((k, v) for k, v in record.items() if k not in ("seq", "crc"))
    text = _dumps(body)
    return f"{text[:-1]}{_CRC_KEY}{crc_of(text)}\"}}\n"


def decode_line(text: str | bytes) -> dict[str, Any] | None:
    """The record carried by one feed line (``seq`` kept, ``crc`` removed), or ``None``.

    ``None`` for anything damaged or foreign: bad bytes, a missing or wrong checksum, JSON that
    does not parse, no string ``type`` or no integer ``seq``. Never raises.
    """
    if isinstance(text, bytes | bytearray):
        if len(text) > _MAX_LINE:
            return None
        try:
            text = bytes(text).decode("ascii")
        except UnicodeDecodeError:
            return None
    if not isinstance(text, str) or len(text) > _MAX_LINE:
        return None
    line = text.strip()
    cut = line.rfind(_CRC_KEY)
    if cut < 1 or not line.endswith('"}') or len(line) != cut + len(_CRC_KEY) + 10:
        return None
    given = line[cut + len(_CRC_KEY) : -2]
    checked = line[:cut] + "}"
    try:
        if crc_of(checked) != given:
            return None
        obj = loads(checked)
    except (UnicodeEncodeError, ValueError, RecursionError):
        return None
    if not isinstance(obj, dict):
        return None
    seq = obj.get("seq")
    if not isinstance(obj.get("type"), str) or isinstance(seq, bool) or not isinstance(seq, int):
        return None
    return obj


def header_record(board: str, run: str, rules: str | None = None, **extra: Any) -> dict[str, Any]:
    """The line that opens a run or a reconnection: names the board and this run of it.

    ``board`` is the board's name in the tournament (for a relay, ``"r.b"``-style round and
    board numbers usually come from the game's tags); ``run`` changes each time the service
    starts, so that a reader knows ``seq`` started again.
    """
    record: dict[str, Any] = {"type": "header", "protocol": PROTOCOL, "board": board, "run": run}
    if rules is not None:
        record["rules"] = rules
    record.update(extra)
    return record


def snapshot_record(
    *,
    game: str,
    rules: str,
    start_fen: str,
    fen: str,
    moves: Sequence[Mapping[str, Any]],
    tags: Mapping[str, str],
    clock: Mapping[str, float] | None = None,
    running: str | None = None,
    result: str | None = None,
    reason: str | None = None,
    time_control: str | None = None,
    leds: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """The whole state of one game, for a reader joining late or after lost lines.

    ``moves`` are the game's move records so far, each ``{"ply", "side", "move"}`` with
    ``clock`` when a time control is set (the same members as the ``move`` lines); ``game`` is
    the game's id (stable for its whole life, also after a restart of the board).
    """
    record: dict[str, Any] = {
        "type": "snapshot",
        "game": game,
        "rules": rules,
        "start_fen": start_fen,
        "fen": fen,
        "tags": dict(tags),
        "moves": [
            {k: m[k] for k in ("ply", "side", "move", "clock") if k in m} for m in moves
        ],
    }
    if time_control is not None:
        record["time_control"] = time_control
    if clock is not None:
        record["clock"] = dict(clock)
        record["running"] = running
    if result is not None:
        record["result"] = result
        record["reason"] = reason
    if leds:
        record["leds"] = dict(leds)
    return record
