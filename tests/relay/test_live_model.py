"""The live page's view model (pure): records in with the second they reached the relay, each
board's view out as it stood at any second (the delayed public page, the live arbiter view)."""

from __future__ import annotations

import random
from typing import Any

import pytest
from support.live_helpers import FakeClock, feed, game_records, observe

from boardctl.relay.live.model import KEEP_LOG, LiveHall, pieces
from boardctl.relay.live.stream import Channel
from boardctl.relay.live.web import LiveHub
from firmware.rules.position import Position


def fed(records: list[dict[str, Any]], board: str = "12", t0: float = 1000.0,
        step: float = 10.0) -> LiveHall:
    hall = LiveHall()
    for i, record in enumerate(records):
        feed(hall, board, record, t0 + i * step)
    return hall


def test_moves_clocks_and_names_at_any_second() -> None:
    records = game_records("g", 6)
    hall = fed(records)  # header at 1000, game at 1010, moves at 1020 .. 1070
    view = hall.view("12", 1075.0)
    assert view["ply"] == 6 and view["fen"] == records[-1]["fen"]
    assert view["white"] == "Ann Aas" and view["black"] == "Bert Berg" and view["size"] == 10
    assert view["last"]["move"] == records[-1]["move"] and view["last"]["side"] == "black"
    assert view["clock"] == {"white": 279.0, "black": 279.0, "running": "white", "age": 5.0}
    assert view["sq"] == pieces("international", records[-1]["fen"])
    earlier = hall.view("12", 1045.0)  # three moves had arrived by then
    assert earlier["ply"] == 3 and earlier["fen"] == records[4]["fen"]
    assert earlier["clock"]["running"] == "black" and earlier["clock"]["age"] == 5.0
    before = hall.view("12", 1015.0)
    assert before["ply"] == 0 and before["last"] is None and before["clock"] is None
    assert before["fen"] == Position.start("international").fen()
    moves = hall.moves("12", 1045.0)
    assert [m["move"] for m in moves] == [r["move"] for r in records[2:5]]
    assert moves[0]["clock"] == [293.0, 300.0] and moves[2]["hl"] != []


def test_snapshot_catch_up_keeps_the_seconds_moves_were_first_seen() -> None:
    records = game_records("g", 6)
    hall = fed(records[:5])  # three moves, the last at 1040
    snap = {"type": "snapshot", "game": "g", "rules": "international",
            "start_fen": Position.start("international").fen(), "fen": records[-1]["fen"],
            "tags": records[1]["tags"],
            "moves": [{k: r[k] for k in ("ply", "side", "move", "clock")} for r in records[2:]],
            "clock": {"white": 270.0, "black": 279.0}, "running": "white"}
    feed(hall, "12", snap, 2000.0)
    assert hall.view("12", 1041.0)["ply"] == 3  # the known moves were not re-dated
    view = hall.view("12", 2000.0)
    assert view["ply"] == 6 and view["fen"] == records[-1]["fen"]  # played out from the start
    assert view["clock"]["white"] == 270.0  # the snapshot corrects the clocks
    assert [m["fen"] for m in hall.moves("12", 2000.0)] == [r["fen"] for r in records[2:]]


def test_badges_follow_irregularities_flags_pauses_results_and_silence() -> None:
    hall = fed(game_records("g", 2))
    feed(hall, "12", {"type": "irregularity", "game": "g", "kind": "missed-capture",
                     "side": "white", "squares": ["c3", "e5"]}, 2000.0)
    feed(hall, "12", {"type": "clock", "game": "g", "event": "pause",
                     "clock": {"white": 280.0, "black": 290.0}, "running": None}, 2001.0)
    view = hall.view("12", 2001.0)
    assert view["badges"]["irregular"] == "missed-capture c3 e5" and view["badges"]["paused"]
    assert view["clock"]["running"] is None
    feed(hall, "12", {"type": "cleared", "game": "g"}, 2002.0)
    assert hall.view("12", 2002.0)["badges"]["irregular"] is None
    assert hall.view("12", 2001.5)["badges"]["irregular"] == "missed-capture c3 e5"
    assert hall.silent(2020.0, 25.0) == [] and hall.silent(2030.0, 25.0) == ["12"]
    assert hall.view("12", 2030.0)["badges"]["offline"]
    feed(hall, "12", {"type": "result", "game": "g", "result": "0-2", "reason": "time forfeit",
                     "at": 301.5, "side": "white"}, 2040.0)
    view = hall.view("12", 2040.0)
    assert not view["badges"]["offline"] and view["badges"]["flag"] == "white"
    assert view["result"] == "0-2" and view["reason"] == "time forfeit"
    kinds = [e["kind"] for e in hall.events(2040.0)]
    assert kinds == ["irregularity", "paused", "cleared", "offline", "online", "flag", "result"]
    assert "301.5" in hall.events(2040.0)[-2]["text"]


def test_the_press_that_starts_a_game_is_logged_as_a_start() -> None:
    """Issue 36: the arbiter's log said "resumed" for the press that starts the game."""
    hall = fed(game_records("g", 0))
    feed(hall, "12", {"type": "clock", "game": "g", "event": "start",
                      "clock": {"white": 300.0, "black": 300.0}, "running": "white"}, 2000.0)
    feed(hall, "12", {"type": "clock", "game": "g", "event": "pause",
                      "clock": {"white": 290.0, "black": 300.0}, "running": None}, 2010.0)
    feed(hall, "12", {"type": "clock", "game": "g", "event": "resume",
                      "clock": {"white": 290.0, "black": 300.0}, "running": "white"}, 2020.0)
    said = [(e["kind"], e["text"]) for e in hall.events(2020.0)]
    assert said == [("started", "the game started: clocks run"), ("paused", "clocks paused"),
                    ("resumed", "clocks run")]
    assert not hall.view("12", 2020.0)["badges"]["paused"]


@pytest.mark.parametrize(("result", "reason", "side", "badge"), [
    ("0-2", "time forfeit", None, "white"),    # the arbiter's result names no side: the loser
    ("2-0", "flag", None, "black"),
    ("1-0", "Time forfeit", None, "black"),
    ("2-0", "time forfeit", "black", "black"),  # the record's side wins over the result
    ("1-1", "time forfeit", None, "?"),         # a draw on time: the side is not known
])
def test_a_time_forfeit_shows_whose_flag_fell(result: str, reason: str, side: str | None,
                                              badge: str) -> None:
    hall = fed(game_records("g", 2))
    record = {"type": "result", "game": "g", "result": result, "reason": reason}
    if side is not None:
        record["side"] = side
    feed(hall, "12", record, 2040.0)
    assert hall.view("12", 2040.0)["badges"]["flag"] == badge
    flag = [e for e in hall.events(2040.0) if e["kind"] == "flag"]
    assert flag and flag[0]["side"] == (None if badge == "?" else badge)
    assert flag[0]["text"].startswith(f"flag fell: {'a side' if badge == '?' else badge}")


def test_a_result_for_another_reason_raises_no_flag() -> None:
    hall = fed(game_records("g", 2))
    feed(hall, "12", {"type": "result", "game": "g", "result": "0-2",
                      "reason": "resignation"}, 2040)
    assert hall.view("12", 2040.0)["badges"]["flag"] is None


def test_a_new_game_on_the_board_starts_afresh_and_old_lines_are_ignored() -> None:
    hall = fed(game_records("g1", 4))
    feed(hall, "12", {"type": "result", "game": "g1", "result": "1-1", "reason": "agreed"}, 1100)
    feed(hall, "12", game_records("g2", 0)[1], 1200.0)
    view = hall.view("12", 1200.0)
    assert view["game"] == "g2" and view["ply"] == 0 and view["result"] is None
    feed(hall, "12", game_records("g1", 5)[-1], 1201.0)  # a late line of the old game
    assert hall.view("12", 1201.0)["ply"] == 0


def test_serial_sources_are_named_by_their_header_and_topics_by_themselves() -> None:
    hall = LiveHall()
    records = game_records("g", 1, board="b 7")
    for i, r in enumerate(records):
        feed(hall, "/dev/pts/4", r, float(i))
    assert list(hall.boards) == ["b-7"]
    feed(hall, "B12", game_records("h", 1)[1], 5.0)
    assert list(hall.boards) == ["b-7", "B12"]


def test_hostile_records_never_raise_and_memory_stays_bounded() -> None:
    rng = random.Random(14)
    hall = fed(game_records("g", 3))
    junk: list[Any] = [None, 1, "x", [], {}, {"a": 1}, -5, 1e308, True, "9" * 500]
    for i in range(3 * KEEP_LOG):
        record = {k: rng.choice(junk) for k in ("ply", "side", "move", "clock", "fen", "kind",
                                                 "squares", "result", "reason", "tags")}
        record["type"] = rng.choice(["move", "snapshot", "irregularity", "clock", "result",
                                     "position", "cleared", "game", "nonsense"])
        record["game"] = "g"
        feed(hall, "12", record, 2000.0 + i)
    feed(hall, "12", {"type": "irregularity", "game": "g", "kind": "x" * 10_000}, 9e5)
    view = hall.view("12", 1e6)
    assert view["ply"] == 3 and len(view["badges"]["irregular"]) <= 120
    assert len(hall.log) <= KEEP_LOG and len(hall.boards["12"].marks) <= 1024


def test_channel_catch_up_by_last_event_id() -> None:
    channel = Channel(keep=4)
    numbers = [channel.publish("board", f'{{"n":{i}}}') for i in range(6)]
    assert numbers == [1, 2, 3, 4, 5, 6]
    assert channel.after(channel.event_id(4)) == 4  # still in the ring: resume after it
    assert channel.after(channel.event_id(1)) is None  # fell out of the ring: full state
    assert channel.after("other-3") is None and channel.after(None) is None
    epoch = channel.event_id(4).partition("-")[0]  # a header's digits that int() refuses
    assert channel.after(f"{epoch}-\u00b2") is None
    assert channel.after(f"{epoch}-{'9' * 5000}") is None
    last, frames = channel.wait(4, 0.0)
    assert last == 6 and frames.count(b"event: board") == 2 and b'{"n":5}' in frames
    assert channel.wait(0, 0.0)[0] == -1  # too far behind: the caller resends the state


def test_a_routine_snapshot_publishes_nothing_a_correction_does() -> None:
    clock = FakeClock(1000.0)
    hub = LiveHub(now=clock)
    records = game_records("g", 2)  # after ply 2 both clocks read 293, White's runs
    for record in records:
        observe(hub, "12", record)
    published = hub.public.last
    snap = {"type": "snapshot", "game": "g", "rules": "international",
            "start_fen": Position.start("international").fen(), "fen": records[-1]["fen"],
            "tags": records[1]["tags"],
            "moves": [{k: r[k] for k in ("ply", "side", "move", "clock")} for r in records[2:]],
            "clock": {"white": 283.0, "black": 293.0}, "running": "white"}
    clock.now += 10
    observe(hub, "12", snap)
    assert hub.public.last == published  # what the page shows by itself: nothing sent
    clock.now += 10
    observe(hub, "12", {**snap, "clock": {"white": 280.0, "black": 293.0}})
    assert hub.public.last == published + 1  # 3 s off: the correction goes out
    assert hub.hall.view("12", clock.now)["clock"]["white"] == 280.0


def test_a_snapshot_that_rewrites_a_move_renews_it_and_all_after_it() -> None:
    records = game_records("g", 4)
    hall = fed(records)  # moves seen at 1020, 1030, 1040, 1050
    moves = [{k: r[k] for k in ("ply", "side", "move", "clock")} for r in records[2:]]
    other = game_records("h", 4, number=2)[3]  # a different second move
    rewritten = [moves[0], {**moves[1], "move": other["move"]}, moves[2], moves[3]]
    feed(hall, "12", {"type": "snapshot", "game": "g", "rules": "international",
                     "moves": rewritten + [{**moves[3], "ply": 9}]}, 2000.0)
    seen = [m.t for m in hall.boards["12"].moves]
    assert seen == [1020.0, 2000.0, 2000.0, 2000.0]  # in time order; ply 9 did not follow on
    assert hall.view("12", 1500.0)["ply"] == 1


def test_a_snapshot_with_no_moves_empties_a_board_shown_ahead_of_it() -> None:
    """A relay restarted on games a former run kept shows them at once; the board's own
    snapshot (the whole game) with no move yet must take the kept moves off, or the page shows
    a move before its line came (and the move's line, when it comes, has no event of its own)."""
    clock = FakeClock(1000.0)
    hub = LiveHub(now=clock)
    records = game_records("g", 1)
    kept = {"type": "snapshot", "game": "g", "rules": "international",
            "moves": [{k: records[2][k] for k in ("ply", "side", "move", "clock")}]}
    observe(hub, "12", kept)  # restore_games: the game as a former run kept it
    assert hub.hall.view("12", clock.now)["ply"] == 1
    clock.now += 5
    observe(hub, "12", records[1])
    observe(hub, "12", {"type": "snapshot", "game": "g", "rules": "international", "moves": [],
                       "start_fen": Position.start("international").fen(),
                       "fen": Position.start("international").fen()})
    assert hub.hall.view("12", clock.now)["ply"] == 0
    published = hub.public.last
    clock.now += 5
    observe(hub, "12", records[2])  # the move itself: an event of its own, ply 1
    assert hub.public.last == published + 1
    assert hub.hall.view("12", clock.now)["ply"] == 1
    # a snapshot whose moves do not read is no word on them: the moves stay
    observe(hub, "12", {"type": "snapshot", "game": "g", "rules": "international",
                       "moves": [{"ply": "x"}]})
    assert hub.hall.view("12", clock.now)["ply"] == 1
