"""firmware.formats.reader: one reader of the feed's lines (STYLE.md lesson 18). Every record
type round-trips through its line; every refusal is named; the bounds hold against a hostile
line of each kind; an unknown type from a newer board is a record readers skip, not a refusal;
the typed framing writes the bytes the mapping framing always wrote."""

from __future__ import annotations

import json
import zlib
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from firmware.formats.feed import Written, encode_line, frame
from firmware.formats.reader import FeedLine, Refusal, RefusalKind, dispatch, read_line, read_record
from firmware.formats.records import (
    RECORD_TYPES,
    UNSAID,
    AdjournedRecord,
    AlarmRecord,
    AnalysisRecord,
    ClearedRecord,
    ClockRecord,
    DrawOfferRecord,
    EngineMoveRecord,
    EngineRecord,
    GameRecord,
    GapRecord,
    GuessRecord,
    HardwareRecord,
    HeaderRecord,
    IrregularityRecord,
    MoveRecord,
    PositionRecord,
    RemoteMoveRecord,
    ResultRecord,
    SetupRecord,
    SnapshotRecord,
    StatusRecord,
    TakeBackRecord,
    UnknownRecord,
)
from firmware.limits import MAX_CLOCK, MAX_PLY, MAX_SQUARES, MAX_TAGS

CLOCK = {"white": 299.5, "black": 300.0}
FEN = "B:W28,31,33-50:B1-20"
MOVE = MoveRecord(1, "white", "32-28", FEN, CLOCK)

#: One record of every type the feed carries, with its optional members used.
EVERY = [
    MOVE,
    MoveRecord(2, "black", "c3xe5xg3", None),
    IrregularityRecord("touch-move", "white", ("c3",), {"c3": "must-move"}, 0.4),
    IrregularityRecord("board-mismatch", None, (), {}),
    ResultRecord("2-0", "resignation"),
    ResultRecord("0-2", "time forfeit", 61.5, "white"),
    ResultRecord("1-1", "agreed", overridden="0-2"),
    PositionRecord("W:W31:B19"),
    ClearedRecord(),
    ClockRecord("pause", CLOCK, None),
    ClockRecord("start", None, "white"),
    AdjournedRecord("black", CLOCK),
    TakeBackRecord(0),
    HeaderRecord("b12", "65f1-2a", "international", "g1", "300+5"),
    HeaderRecord("replay", "replay", "russian"),
    HeaderRecord("b1", "r", None, None, None),
    GameRecord("international", None, "300+5", {"White": "A", "Round": "3"}),
    GameRecord(None, "W:W31:B19", None, {}),
    GameRecord("russian", None, None, {}, "g1"),  # boardctl export's: its game's id first
    SnapshotRecord("g1", "international", FEN, FEN, {"Round": "1"},
                   (MoveRecord(1, "white", "32-28", None, CLOCK),), "300+5", CLOCK, "black",
                   "2-0", "resignation", {"c3": "restore"}),
    SnapshotRecord("g1", "international", FEN, FEN, {}, (), None),
    SnapshotRecord("g1", None, None, "W:W1:B50", {}, None),
    AlarmRecord("journal /s/j: No space left on device"),
    AlarmRecord(None),
    GapRecord(4, ("31-26",), (("31-26",),), 1, "rebuilt"),
    GapRecord(4, None, (("34-29", "20-25"), ("34-30",)), 30, "the arbiter decides"),
    HardwareRecord(("leds", "faces")),
    EngineMoveRecord(5, "white", "32x23", ("c3", "e5"), ("d4",)),
    RemoteMoveRecord(6, "black", "19-23", ("d6", "c5"), (), "lidraughts"),
    GuessRecord(7, "32-28", False),
    GuessRecord(9, "28x19", True),
    EngineRecord("no answer in 10 s", True),
    EngineRecord("no answer in 10 s"),
    SetupRecord("H-r1-b1", "applied", "game g: A - B"),
    SetupRecord(fill=("c3", "e5"), empty=("d4", "b2"), pieces={"c3": "w", "e5": "B"}),
    SetupRecord(fill=(), empty=()),
    StatusRecord("online"),
    AnalysisRecord(0, 25, ("32-28", "18-23"), 9),
    AnalysisRecord(31, 9995, ("27x38",), 1, 3),  # a win announced: in 3 of its moves
    AnalysisRecord(40, -9996, (), 12, -2),
    DrawOfferRecord("white", 6),
    DrawOfferRecord("black", 7, "declined"),
    DrawOfferRecord("white", 8, "offered", "3f9a0c1e"),
    UnknownRecord("crowd-noise", {"decibel": 70, "noise": [1, {"a": None}]}),
]


def test_every_record_type_is_in_the_round_trip() -> None:
    kinds = {type(r) for r in EVERY}
    assert kinds == set(RECORD_TYPES.values()) | {UnknownRecord}


@pytest.mark.parametrize("record", EVERY, ids=lambda r: r.type)
def test_every_record_round_trips_through_its_line(record) -> None:
    line = frame(record, 17, "g1")
    read = read_line(line)
    assert isinstance(read, FeedLine)
    header = isinstance(record, HeaderRecord)
    game = record.game if header or isinstance(record, SnapshotRecord) else "g1"
    run = record.run if header else None
    if isinstance(record, GameRecord) and record.game is not None:
        record = replace(record, game=None)  # its id is the line's: the feed writes it last
    else:
        assert frame(read.record, 17, "g1") == line  # and the line again, byte for byte
    assert read == FeedLine(record, 17, game, run)
    stamped = Written(record, line, "65f1-2a").network()
    assert read_line(stamped) == FeedLine(record, 17, game, run or "65f1-2a")


@pytest.mark.parametrize("record", EVERY, ids=lambda r: r.type)
def test_the_typed_framing_writes_the_bytes_of_the_mapping_framing(record) -> None:
    members = record.to_json()
    game = {} if "game" in members or isinstance(record, HeaderRecord) else {"game": "g1"}
    assert frame(record, 3, "g1") == encode_line({**members, **game}, 3)
    assert frame(record, 3) == encode_line(members, 3)


def test_the_broker_line_is_the_serial_line_stamped_with_its_run_once() -> None:
    """What the broker link did by reading and writing each line again (issue 35 item 3) is the
    line as the writer wrote it: the run's id last, the crc made again, a header (it names its
    run) and a line that carries one left as they are."""
    line = frame(MOVE, 7, "g1")
    stamped = Written(MOVE, line, "r9").network()
    body = json.loads(line)
    del body["crc"]
    assert stamped == encode_line({**body, "run": "r9"}, 7)
    assert stamped.startswith(line[:line.rindex(',"crc"')] + ',"run":"r9"')
    header = frame(HeaderRecord("b1", "r9"), 0)
    assert Written(HeaderRecord("b1", "r9"), header, "r9").network() == header
    assert Written(MOVE, line, None).network() == line


def _line(members: dict, seq: int = 1) -> str:
    return encode_line(members, seq)


def _crc_line(body: str) -> str:
    return f'{body},"crc":"{zlib.crc32((body + "}").encode()) & 0xFFFFFFFF:08x}"}}'


@pytest.mark.parametrize(("line", "kind", "words"), [
    (b"\xff\xfe not a line", RefusalKind.BAD_CRC, "not ASCII"),
    ('{"seq":1,"type":"move"}', RefusalKind.BAD_CRC, "no checksum"),
    (frame(MOVE, 1).replace("32-28", "32-27"), RefusalKind.BAD_CRC, "does not match"),
    (_crc_line('{"seq":1,"type":"move",'), RefusalKind.BAD_JSON, "does not read"),
    (_crc_line('[1,2'), RefusalKind.BAD_JSON, ""),
    (_crc_line('{"seq":1,"x":' + "[" * 40 + "]" * 40), RefusalKind.OUT_OF_BOUNDS, "nested"),
    ("x" * (2 << 20), RefusalKind.OUT_OF_BOUNDS, "longer than"),
    (_line({"type": "move"}, 0).replace('"seq":0', '"seq":"0"').replace(
        _line({"type": "move"}, 0)[-11:], "") + "", RefusalKind.BAD_CRC, ""),
    (_crc_line('{"seq":-1,"type":"cleared"'), RefusalKind.WRONG_KIND, "'seq'"),
])
def test_a_line_that_does_not_frame_is_refused_and_named(line, kind, words) -> None:
    read = read_line(line)
    assert isinstance(read, Refusal) and read.kind is kind and words in read.reason
    assert str(read).endswith(f"({kind.value})")


@pytest.mark.parametrize(("members", "kind", "words"), [
    ({}, RefusalKind.UNKNOWN_TYPE, "must be a name"),
    ({"type": 7}, RefusalKind.UNKNOWN_TYPE, "not 7"),
    ({"type": "Move!"}, RefusalKind.UNKNOWN_TYPE, "'Move!'"),
    ({"type": "x" * 41}, RefusalKind.UNKNOWN_TYPE, ""),
    ({"type": "move", "ply": "1", "side": "white", "move": "32-28"}, RefusalKind.WRONG_KIND,
     "move refused: 'ply' must be a whole number, not '1'"),
    ({"type": "move", "ply": True, "side": "white", "move": "32-28"}, RefusalKind.WRONG_KIND,
     "'ply'"),
    ({"type": "move", "ply": 1, "side": "red", "move": "32-28"}, RefusalKind.WRONG_KIND,
     "'side' must be white or black"),
    ({"type": "move", "ply": 1, "side": "white", "move": "<script>"}, RefusalKind.WRONG_KIND,
     "'move' must be a move in PDN notation"),
    ({"type": "move", "ply": 1, "side": "white", "move": "32-28", "clock": {"white": 1}},
     RefusalKind.WRONG_KIND, "'clock' must be both clocks"),
    ({"type": "move", "ply": 1, "side": "white", "move": "32-28", "fen": 5},
     RefusalKind.WRONG_KIND, "'fen' must be text"),
    ({"type": "irregularity", "kind": None}, RefusalKind.WRONG_KIND, "'kind'"),
    ({"type": "irregularity", "kind": "x", "squares": "c3"}, RefusalKind.WRONG_KIND,
     "'squares' must be a list of texts"),
    ({"type": "irregularity", "kind": "x", "leds": {"c3": 1}}, RefusalKind.WRONG_KIND,
     "'leds' must be an object of texts"),
    ({"type": "result", "reason": "x"}, RefusalKind.WRONG_KIND, "result refused: 'result'"),
    ({"type": "snapshot", "game": "g", "moves": [{"ply": "x"}]}, RefusalKind.WRONG_KIND,
     "snapshot's moves refused: moves[0]: 'ply'"),
    ({"type": "snapshot", "game": "g", "tags": "nope"}, RefusalKind.WRONG_KIND,
     "'tags' must be an object of PDN tags"),
    ({"type": "snapshot", "game": [1]}, RefusalKind.WRONG_KIND, "'game' must be an id"),
    ({"type": "header", "board": "b1"}, RefusalKind.WRONG_KIND, "'run'"),
    ({"type": "takeback", "ply": 2.5}, RefusalKind.WRONG_KIND, "'ply'"),
    ({"type": "gap", "ply": True}, RefusalKind.WRONG_KIND, "'ply'"),
    ({"type": "engine-move", "ply": 3, "side": "white", "move": "32-28", "route": [1, 2]},
     RefusalKind.WRONG_KIND, "'route'"),
    ({"type": "clock", "event": "pause", "clock": {"white": float("nan"), "black": 1.0}},
     RefusalKind.WRONG_KIND, "'white' must be a number of seconds"),
    ({"type": "adjourned", "side": "both"}, RefusalKind.WRONG_KIND, "'side'"),
    ({"type": "alarm", "alarm": 5}, RefusalKind.WRONG_KIND, "alarm refused: 'alarm'"),
    ({"type": "hardware", "missing": [1]}, RefusalKind.WRONG_KIND, "'missing'"),
    ({"type": "engine"}, RefusalKind.WRONG_KIND, "engine refused: 'error'"),
    ({"type": "setup", "id": ["x"], "status": "applied"}, RefusalKind.WRONG_KIND, "'id'"),
    ({"type": "status", "status": None}, RefusalKind.WRONG_KIND, "'status'"),
    ({"type": "position"}, RefusalKind.WRONG_KIND, "'fen'"),
    ({"type": "draw-offer", "side": "white", "ply": 4, "id": ["x"]}, RefusalKind.WRONG_KIND,
     "'id'"),
    ({"type": "move", "ply": 0, "side": "white", "move": "32-28"}, RefusalKind.OUT_OF_BOUNDS,
     "'ply' 0 is not from 1"),
    ({"type": "move", "ply": MAX_PLY + 1, "side": "white", "move": "32-28"},
     RefusalKind.OUT_OF_BOUNDS, "'ply'"),
    ({"type": "move", "ply": 1, "side": "white", "move": "32-28",
      "clock": {"white": MAX_CLOCK * 10, "black": 1}}, RefusalKind.OUT_OF_BOUNDS, "out of range"),
    ({"type": "irregularity", "kind": "x", "held": -1}, RefusalKind.OUT_OF_BOUNDS, "'held'"),
    ({"type": "irregularity", "kind": "x", "squares": ["c3"] * (MAX_SQUARES + 1)},
     RefusalKind.OUT_OF_BOUNDS, "'squares' lists more than"),
    ({"type": "snapshot", "game": "g", "moves": [MOVE.played()] * (MAX_PLY + 1)},
     RefusalKind.OUT_OF_BOUNDS, "'moves' lists more than"),
    ({"type": "game", "game": "g" * 10_000, "rules": "x" * 300}, RefusalKind.OUT_OF_BOUNDS,
     "'rules' longer than"),
    ({"type": "gap", "ply": -1, "recovered": ["32-28"]}, RefusalKind.OUT_OF_BOUNDS, "'ply'"),
    ({"type": "position", "fen": "W" * 5000}, RefusalKind.OUT_OF_BOUNDS, "'fen' longer than"),
    ({"type": "takeback", "ply": -3}, RefusalKind.OUT_OF_BOUNDS, "'ply' -3"),
    ({"type": "draw-offer", "side": "white", "ply": 4, "id": "x" * 300},
     RefusalKind.OUT_OF_BOUNDS, "'id' longer than"),
    ({"type": "hardware", "missing": ["x"] * (MAX_SQUARES + 1)}, RefusalKind.OUT_OF_BOUNDS,
     "'missing' lists more than"),
    ({"type": "engine-move", "ply": 3, "side": "white", "move": "32-28",
      "route": ["c3"] * (MAX_SQUARES + 1)}, RefusalKind.OUT_OF_BOUNDS, "'route'"),
    ({"type": "header", "board": "b", "run": "r" * 300}, RefusalKind.OUT_OF_BOUNDS, "'run'"),
    ({"type": "setup", "id": "s", "status": "x" * 300}, RefusalKind.OUT_OF_BOUNDS, "'status'"),
    ({"type": "setup", "fill": "c3", "empty": []}, RefusalKind.WRONG_KIND, "'fill'"),
    ({"type": "setup", "fill": [], "empty": [], "pieces": ["w"]}, RefusalKind.WRONG_KIND,
     "'pieces'"),
    ({"type": "result", "result": "2-0", "reason": "x", "at": -1}, RefusalKind.OUT_OF_BOUNDS,
     "'at'"),
    ({"type": "adjourned", "side": "white", "clock": {"white": -2e7, "black": 1}},
     RefusalKind.OUT_OF_BOUNDS, "out of range"),
    ({"type": "analysis", "ply": 1, "score": 1.5, "best": [], "depth": 3},
     RefusalKind.WRONG_KIND, "analysis refused: 'score' must be a whole number"),
    ({"type": "analysis", "ply": 1, "score": 5, "best": ["32-28", "<b>"], "depth": 3},
     RefusalKind.WRONG_KIND, "'best' move 2 is not a move"),
    ({"type": "analysis", "ply": 1, "score": 5, "best": "32-28", "depth": 3},
     RefusalKind.WRONG_KIND, "'best' must be a list"),
    ({"type": "analysis", "ply": 1, "score": 5, "best": [], "depth": "9"},
     RefusalKind.WRONG_KIND, "'depth'"),
    ({"type": "analysis", "ply": 1, "score": 10_001, "best": [], "depth": 3},
     RefusalKind.OUT_OF_BOUNDS, "'score' 10001 is not from -10000 to 10000"),
    ({"type": "analysis", "ply": -1, "score": 0, "best": [], "depth": 3},
     RefusalKind.OUT_OF_BOUNDS, "'ply'"),
    ({"type": "analysis", "ply": 1, "score": 0, "best": ["32-28"] * 65, "depth": 3},
     RefusalKind.OUT_OF_BOUNDS, "'best' lists more than 64"),
    ({"type": "analysis", "ply": 1, "score": 0, "best": [], "depth": 10**6},
     RefusalKind.OUT_OF_BOUNDS, "'depth'"),
    ({"type": "analysis", "ply": 1, "score": 9990, "best": [], "depth": 3, "win": 10**9},
     RefusalKind.OUT_OF_BOUNDS, "'win'"),
])
def test_a_record_that_does_not_read_is_refused_and_named(members, kind, words) -> None:
    refused = read_record(members)
    assert isinstance(refused, Refusal) and refused.kind is kind, refused
    assert words in refused.reason
    # on a line whose framing reads, the line is kept (its seq still counts), its record not
    body = json.dumps({"seq": 5, **members}, separators=(",", ":"))
    line = read_line(_crc_line(body[:-1]))
    assert isinstance(line, FeedLine) and line.seq == 5
    assert line.record == refused or "NaN" in body


def test_an_unknown_type_from_a_newer_board_is_a_record_readers_skip() -> None:
    line = read_line(encode_line({"type": "crowd-noise", "decibel": 70, "game": "g"}, 9))
    assert isinstance(line, FeedLine) and line.game == "g"
    assert line.record == UnknownRecord("crowd-noise", {"decibel": 70})
    table = {MoveRecord: lambda owner, record: f"{owner}: {record.move}"}
    assert dispatch(line.record, table, "view") is None  # no table names it: skipped
    assert dispatch(Refusal(RefusalKind.WRONG_KIND, "x"), table, "view") is None
    assert dispatch(MOVE, table, "view") == "view: 32-28"


def test_members_people_read_are_taken_as_they_come_and_a_gaps_extras_leniently() -> None:
    """An irregularity's kind, a reason, an alarm: text of any length (the line bounds it, the
    reader that shows it cuts it). A gap line's count and text only say more: left out when
    they are not what they should be; of its candidates the first 8 are read, those that are
    not lists of moves skipped."""
    long = read_record({"type": "irregularity", "kind": "x" * 10_000})
    assert isinstance(long, IrregularityRecord) and len(long.kind) == 10_000
    junk = ["x" * 40] * 30
    gap = read_record({"type": "gap", "ply": 1, "recovered": None, "count": "x", "text": 5,
                       "candidates": [junk, 5, ["32-28", 7]] * 100})
    assert isinstance(gap, GapRecord) and gap.count is None and gap.text is None
    assert gap.candidates == (tuple(junk),) * 3
    tags = {"White": "A", "Round": 3, "Black": "B", **{f"T{i}": "x" for i in range(5000)}}
    game = read_record({"type": "game", "rules": "international", "tags": tags})
    assert isinstance(game, GameRecord) and "Round" not in game.tags  # not text: left
    assert len(game.tags) == MAX_TAGS and game.tags["White"] == "A" and game.tags["Black"] == "B"


def test_null_and_left_out_are_told_apart_where_they_differ() -> None:
    """A snapshot or header without a time control (``boardctl replay``'s) says nothing of it;
    the service's says the game has none (null); a snapshot without moves lists none."""
    assert read_record({"type": "snapshot", "game": "g"}) == SnapshotRecord(
        "g", None, None, None, {}, None, UNSAID)
    said = read_record({"type": "snapshot", "game": "g", "moves": [], "time_control": None})
    assert isinstance(said, SnapshotRecord) and said.moves == () and said.time_control is None
    assert list(said.to_json())[-1] == "time_control"  # where the service has always put it
    header = read_record({"type": "header", "board": "b", "run": "r", "game": 12})
    assert isinstance(header, HeaderRecord) and header.game == "12"
    assert header.time_control is UNSAID and "time_control" not in header.to_json()


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**40), 2**40) | st.text(max_size=12)
    | st.floats(allow_nan=False, allow_infinity=False),
    lambda children: st.lists(children, max_size=4)
    | st.dictionaries(st.text(max_size=6), children, max_size=4),
    max_leaves=12,
)


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(sorted(RECORD_TYPES) + ["newer", "", "X"]),
       st.dictionaries(st.sampled_from(["ply", "side", "move", "fen", "clock", "kind",
                                        "squares", "leds", "held", "result", "reason", "at",
                                        "game", "moves", "tags", "rules", "start_fen", "run",
                                        "board", "event", "running", "recovered", "count",
                                        "candidates", "route", "error", "status", "id",
                                        "missing", "alarm", "protocol", "time_control"]),
                       json_values, max_size=8),
       st.integers(0, 2**31))
def test_any_members_read_as_a_record_or_a_refusal_never_an_error(kind, members, seq) -> None:
    line = read_line(encode_line({**members, "type": kind}, seq))
    assert isinstance(line, FeedLine) and line.seq == seq
    record = line.record
    if not isinstance(record, Refusal):  # what reads, writes as it read
        again = read_line(frame(record, seq, line.game))
        assert isinstance(again, FeedLine) and again.record == record


def test_the_analysis_line_s_score_bound_is_a_win_now() -> None:
    from firmware.engine.scores import WIN
    from firmware.formats.reader import MAX_SCORE

    assert MAX_SCORE == WIN
