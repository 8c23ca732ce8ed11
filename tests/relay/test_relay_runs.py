"""Issue 30: the relay's view of a board survives whatever order its lines come in (a run known
by the id every broker line carries; a snapshot that holds more is never a repeat), and the
relay keeps its games across a restart (boardctl.relay.store)."""

from __future__ import annotations

import errno
import json
import os
from pathlib import Path

import pytest
from test_relay_state import GAME, START, lines, move_records, real_moves

from boardctl.durable import JournalWriter
from boardctl.relay.relay import Relay
from boardctl.relay.state import RelayState
from boardctl.relay.store import GameStore, file_name, read_log
from firmware.errors import BoardError
from firmware.formats.feed import Written, decode_line, encode_line, header_record, snapshot_record
from firmware.formats.reader import FeedLine, read_line
from firmware.pdn import read_games


def snap(n: int, game: str = "g1") -> dict:
    return snapshot_record(game=game, rules="international", start_fen=START, fen="f",
                           moves=move_records(game)[:n], tags=GAME["tags"])


def with_run(line: str, run: str) -> str:
    """A line as a board's broker link publishes it: as its service wrote it for the broker
    (``Written.network``: the run's id on every line)."""
    read = read_line(line)
    assert isinstance(read, FeedLine)
    return Written(read.record, line, run).network()


def stamped(records: list[dict], run: str, start: int = 0) -> list[str]:
    """Lines as a board's broker link publishes them: the run's id on every line."""
    return [with_run(line, run) for line in lines(records, start)]


def test_the_broker_link_stamps_every_line_with_its_run() -> None:
    sent = stamped([header_record("b2", "runX", None), GAME, *move_records()[:2]], "runX")
    records = [decode_line(line) for line in sent]
    assert all(r is not None for r in records)
    assert [r.get("run") for r in records] == ["runX"] * 4  # type: ignore[union-attr]
    assert [r["seq"] for r in records] == [0, 1, 2, 3]  # type: ignore[index]
    assert sent[0] == lines([header_record("b2", "runX", None)])[0]  # a header names its own
    assert all(line.count('"run":') == 1 for line in sent)  # stamped once


def test_a_restart_whose_header_was_missed_is_taken_from_its_run_id() -> None:
    """The issue's reproduction: the relay, on run A at seq 40, misses the restarted board's
    header, game and snapshot (published while it was away); every later line of run B has a
    small seq. Before, all were repeats and the game stayed short for good."""
    state = RelayState()
    moves = move_records()
    old = stamped([header_record("b2", "runA", None), GAME, *moves[:6]], "runA")
    for line in old:
        state.feed_line("b2", line)
    for k in range(30):  # routine snapshots of run A push its seq far on
        state.feed_line("b2", stamped([snap(6)], "runA", start=len(old) + k)[0])
    assert len(state.games["g1"].moves) == 6
    later = []
    for i, record in enumerate([*moves[6:8], snap(10), *moves[10:12]], start=4):
        later.append(with_run(encode_line(record, i), "runB"))
    for line in later:
        state.feed_line("b2", line)
    assert [m["move"] for m in state.games["g1"].moves] == real_moves(12)
    assert state.repeats == 0
    # A late line of run A (a QoS 1 redelivery after run B began) winds nothing back.
    assert not state.feed_line("b2", stamped([snap(4)], "runA", start=5)[0])
    assert state.repeats == 1 and len(state.games["g1"].moves) == 12


def test_a_snapshot_holding_more_is_never_a_repeat_even_without_run_ids() -> None:
    state = RelayState()
    moves = move_records()
    for line in lines([header_record("9", "runA", None), GAME, *moves[:4], snap(4)]):
        state.feed_line("p", line)
    for k in range(20):
        state.feed_line("p", encode_line(snap(4), 7 + k))
    # the board restarted, its header lost; its lines carry no run id (an older board)
    assert state.feed_line("p", encode_line(snap(8), 2))
    assert len(state.games["g1"].moves) == 8
    assert not state.feed_line("p", encode_line(snap(3), 1))  # an older one: a repeat
    assert len(state.games["g1"].moves) == 8


def _relay(folder: Path, out: Path | None = None, log: list[str] | None = None) -> Relay:
    store = GameStore(folder, log=(log.append if log is not None else None)).open()
    return Relay([], out=out, store=store, log=(log.append if log is not None else None))


def _kill(relay: Relay) -> None:
    """As a kill -9 leaves the store: what was appended, not written anew (its lock let go)."""
    assert relay.store is not None
    relay.store.close()


def _feed(relay: Relay, source: str, records: list[dict]) -> None:
    for line in lines(records):
        relay.state.feed_line(source, line)
    relay.publish()


def test_a_restarted_relay_serves_and_writes_every_game_it_had(tmp_path: Path) -> None:
    folder, out = tmp_path / "state" / "H", tmp_path / "hall.pdn"
    first = _relay(folder, out)
    first.poll()
    _feed(first, "/dev/ttyACM0", [header_record("7", "r", None), GAME, *move_records()[:9]])
    _feed(first, "/dev/ttyACM1", [header_record("8", "r", None), {**GAME, "game": "g2"},
                                  *move_records("g2")[:3],
                                  {"type": "result", "game": "g2", "result": "0-2",
                                   "reason": "resignation"}])
    had = first.text
    assert len(list(read_games(had, "had"))) == 2
    _kill(first)  # what was published was appended and fsync'd before it was served
    log: list[str] = []
    second = _relay(folder, out, log)
    assert second.restore() == 2
    assert second.text == had and out.read_text() == had
    assert second.timeline.live().games and len(second.timeline.live().games) == 2
    assert any("2 games restored" in m for m in log)
    # the board goes on where it stood: its next move is taken on the restored game
    _feed(second, "/dev/ttyACM0", [header_record("7", "r2", None), move_records()[9]])
    assert len(second.state.games["g1"].moves) == 10
    second.close()


def test_the_store_refuses_a_second_relay_and_sets_a_bad_file_aside(tmp_path: Path) -> None:
    folder = tmp_path / "H"
    first = GameStore(folder).open()
    with pytest.raises(BoardError, match="another relay keeps its games there"):
        GameStore(folder).open()
    first.close()
    (folder / "b1.json").write_text('{"format": "boardctl-relay-games", "version": 1, "sou')
    (folder / "b2.json").write_text(json.dumps({"format": "boardctl-relay-games", "version": 1,
                                                "source": "b3", "games": []}))
    good = {"format": "boardctl-relay-games", "version": 1, "source": "b4", "topic": True,
            "games": [{"game": "g", "board": "b4", "order": 0, "rules": "international",
                       "start_fen": None, "tags": {"Round": "1"}, "time_control": None,
                       "moves": [["32-28", 300.0, 300.0], ["17-22"], ["not a move"], ["28x17"]],
                       "result": None, "reason": None}]}
    (folder / file_name("b4")).write_text(json.dumps(good))
    log: list[str] = []
    relay = _relay(folder, log=log)
    assert relay.restore() == 1
    told = "\n".join(log)
    assert "b1.json: does not read" in told and "b2.json: does not read" in told
    assert "names feed 'b3'" in told
    assert (folder / "b1.json.bad").exists() and not (folder / "b1.json").exists()
    # a record that is no move ends the game's moves there: it waits for the next snapshot
    game = relay.state.games["b4/g"]
    assert [m["move"] for m in game.moves] == ["32-28", "17-22"] and game.gap
    assert game.moves[0]["clock"] == {"white": 300.0, "black": 300.0}
    assert game.board == "b4" and game.moves[1]["side"] == "black"
    # the former form is written anew at once; its files go once the new one is on disk
    assert sorted(p.name for p in folder.iterdir()) == [
        ".lock", "b1.json.bad", "b2.json.bad", "games.jsonl"]
    assert any("the games of 1 file of the former form written anew" in m for m in log)
    relay.close()
    again = _relay(folder)
    assert again.restore() == 1 and len(again.state.games["b4/g"].moves) == 2
    again.close()


def test_a_store_that_cannot_be_written_is_told_and_the_relay_serves_on(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    log: list[str] = []
    relay = _relay(tmp_path / "H", log=log)
    relay.poll()
    real = JournalWriter.append

    def full(self: JournalWriter, data: bytes) -> None:
        os.write(self._fd, data[:7])  # a torn piece, as a disk that fills up mid-write leaves
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(JournalWriter, "append", full)
    _feed(relay, "p", [header_record("7", "r", None), GAME, *move_records()[:2]])
    assert len(list(read_games(relay.text, "t"))[0].moves) == 2  # served all the same
    assert any("cannot be kept" in m and "No space left" in m for m in log)
    monkeypatch.setattr(JournalWriter, "append", real)
    relay.state.feed_line("p", encode_line(move_records()[2], 4))
    relay.publish()  # the lines kept in memory written first, the torn piece cut off
    assert any(m.endswith("again") for m in log)
    _kill(relay)
    again = _relay(tmp_path / "H", log=log)
    again.restore()
    assert len(again.state.games["g1"].moves) == 3
    assert not any("does not read" in m or "torn" in m for m in log)
    again.close()


def test_a_restarted_relay_with_a_broadcast_delay_goes_on_from_the_delayed_view(
        tmp_path: Path) -> None:
    """With --delay, the public view after a restart is the games as they stood ``delay``
    before (never empty, never later than the delay allows), rebuilt from when each move came."""
    from boardctl.relay.http import Timeline

    clock = [1000.0]

    def relay() -> Relay:
        store = GameStore(tmp_path / "H").open()
        return Relay([], store=store, timeline=Timeline(delay=60, now=lambda: clock[0]),
                     wall=lambda: clock[0])

    def public_moves(r: Relay) -> list[int]:
        return [len(g.moves) for g in read_games(r.timeline.public().body(
            r.timeline.public().games)[0].decode(), "public")]

    first = relay()
    first.poll()
    _feed(first, "p", [header_record("7", "r", None), GAME])
    for k, move in enumerate(move_records()[:10]):  # a move every 10 s
        clock[0] = 1000.0 + 10 * (k + 1)
        first.state.feed_line("p", encode_line(move, 2 + k))
        first.publish()
    clock[0] = 1110.0
    assert public_moves(first) == [5]  # moves 1-5 came at 1010-1050, 60 s ago or more
    first.close()
    clock[0] = 1112.0  # killed and back two seconds later
    second = relay()
    assert second.restore() == 1
    assert public_moves(second) == [5]  # not empty, not the live 10
    assert [len(g.moves) for g in read_games(second.text, "live")] == [10]
    clock[0] = 1131.0
    assert public_moves(second) == [7]  # 1070 came public at 1130, as without the restart
    clock[0] = 1200.0
    assert public_moves(second) == [10]
    second.close()


def test_kept_texts_of_an_older_form_are_written_anew_after_an_upgrade(tmp_path: Path) -> None:
    """A relay upgraded mid-event (its PDN's form changed, e.g. the sub-round numbers):
    the texts kept by the old version are not served again as they were, but written anew
    from the kept games; texts of this version's form are served as kept (a fast restart)."""
    folder = tmp_path / "H"
    first = _relay(folder)
    first.poll()
    _feed(first, "/dev/ttyACM0", [header_record("7", "r", None), GAME, *move_records()[:9]])
    had = first.text
    first.close()  # a clean stop: every game whole, with its text
    kept = read_log(folder / "games.jsonl").records
    assert [r["type"] for r in kept] == ["game"]
    assert kept[0]["game"]["pdn_form"] == 2 and kept[0]["game"]["pdn"] == had

    def restarted(**game: object) -> str:
        store = GameStore(folder).open()
        store.compact([{**kept[0], "game": {**kept[0]["game"], **game}}])
        store.close()
        relay = _relay(folder)
        try:
            assert relay.restore() == 1
            return relay.text
        finally:
            relay.close()

    old = had.replace("[Event", '[Round "3.b1"]\n[Event', 1)  # an older version's text
    assert old != had
    assert restarted(pdn=old) == old  # this form: the kept text, as written
    assert restarted(pdn=old, pdn_form=1) == had  # an older form: written anew
    assert restarted(pdn=old, pdn_form=None) == had  # kept before the form was stamped
