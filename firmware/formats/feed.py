"""The broadcast feed's framing: one JSON object per line, numbered and checksummed.

Pure functions over text, apart from the serial port (pySerial ``threaded.Packetizer`` is the
model): the service frames each typed feed record (``firmware.formats.records``) with
:func:`frame`, on the thread that writes it, and the broker's copy of the line gets its run's
id with :func:`stamp_run` (:class:`Written`); a reader hands each received line to
``firmware.formats.reader.read_line`` (:func:`unframe` here, then the record) and gets the
typed record back, or a refusal naming why. :func:`encode_line` and :func:`decode_line` are
the same framing over plain mappings, for tools and tests that write lines by hand.

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

The record types (``move``, ``irregularity``, ``result``, ``snapshot`` of CONTRACT.md, and
``header``, ``game``, ``clock``, ``position``, ``cleared``, ``adjourned``, ``takeback``,
``alarm``, ``gap``, ``hardware``, ``engine-move``, ``engine``, ``setup``) are
``firmware.formats.records``'. Every record of a game carries its ``game`` id.
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from firmware.formats.records import CARRY_GAME, FeedRecord, GameRecord, HeaderRecord
from firmware.limits import MAX_FEED_LINE, TooDeep, loads

#: Version of this line format, sent in the header.
PROTOCOL = 1

_CRC_KEY = ',"crc":"'


def _dumps(obj: Any) -> str:
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
    does not parse, no string ``type`` or no integer ``seq``. Never raises. (The framing
    alone, as a mapping: ``firmware.formats.reader.read_line`` reads the typed record.)
    """
    obj = unframe(text)
    if isinstance(obj, str) or not isinstance(obj.get("type"), str):
        return None
    return obj


def unframe(text: str | bytes) -> dict[str, Any] | str:
    """The JSON object one feed line carries, checked (length, ASCII, crc, JSON, an integer
    ``seq``), or why not in a few words (``"bad crc: ..."``, ``"bad JSON: ..."``,
    ``"out of bounds: ..."``): the framing every reader starts from. Never raises."""
    if isinstance(text, bytes | bytearray):
        if len(text) > MAX_FEED_LINE:
            return f"out of bounds: a line longer than {MAX_FEED_LINE} bytes"
        try:
            text = bytes(text).decode("ascii")
        except UnicodeDecodeError:
            return "bad crc: a line that is not ASCII"
    if not isinstance(text, str) or len(text) > MAX_FEED_LINE:
        return f"out of bounds: a line longer than {MAX_FEED_LINE} bytes"
    line = text.strip()
    cut = line.rfind(_CRC_KEY)
    if cut < 1 or not line.endswith('"}') or len(line) != cut + len(_CRC_KEY) + 10:
        return "bad crc: no checksum at the line's end"
    given = line[cut + len(_CRC_KEY) : -2]
    checked = line[:cut] + "}"
    try:
        if crc_of(checked) != given:
            return "bad crc: the checksum does not match"
    except UnicodeEncodeError:
        return "bad crc: a line that is not ASCII"
    try:
        obj = loads(checked)
    except TooDeep as exc:
        return f"out of bounds: {exc}"
    except (ValueError, RecursionError):
        return "bad JSON: the line does not read as JSON"
    if not isinstance(obj, dict):
        return "bad JSON: not a JSON object"
    seq = obj.get("seq")
    if isinstance(seq, bool) or not isinstance(seq, int) or seq < 0:
        return "wrong kind: 'seq' must be a whole number from 0"
    return obj


def frame(record: FeedRecord, seq: int, game: str | None = None) -> str:
    """``record`` (typed) as one feed line numbered ``seq``, with its game's id after its own
    members (unless it carries one: a header, a snapshot): the bytes :func:`encode_line`
    writes for the same members, from one JSON encoding."""
    members = record.to_json()
    if game is not None and not _carries(record, "game"):
        members["game"] = game
    text = f'{{"seq":{seq},{_dumps(members)[1:]}'
    return f'{text[:-1]}{_CRC_KEY}{crc_of(text)}"}}\n'


def stamp_run(line: str, run: str) -> str:
    """A feed line as the broker carries it: its service run's id (``run``, the one its run's
    header names) as a last member, the checksum made again (CONTRACT.md, "Many boards over
    a network"); a string operation on the line, no JSON read or written."""
    end = "\n" if line.endswith("\n") else ""
    body = f'{line[:line.rfind(_CRC_KEY)]},"run":{_dumps(run)}'
    return f'{body}{_CRC_KEY}{crc_of(body + "}")}"}}{end}'


def _carries(record: FeedRecord, member: str) -> bool:
    """Whether ``record`` carries the ``game`` or ``run`` member itself."""
    if member == "run":
        return isinstance(record, HeaderRecord)
    return isinstance(record, CARRY_GAME) or (isinstance(record, GameRecord)
                                              and record.game is not None)


@dataclass(frozen=True, slots=True)
class Written:
    """A feed line as the board writes it (on the journal writer's thread): its record, the
    serial line, and the run it is of, which the network's line carries (:meth:`network`)."""

    record: FeedRecord
    line: str
    run: str | None = None

    def network(self) -> str:
        """The line as the broker carries it: stamped with the run's id, except a header (it
        names its run)."""
        if self.run is None or _carries(self.record, "run"):
            return self.line
        return stamp_run(self.line, self.run)


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
