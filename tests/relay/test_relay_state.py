"""boardctl.relay (relay, state, games): feeds in, PDN out; gaps filled by snapshots; garbage
dropped; real ports."""

from __future__ import annotations

import os
import pty
import tty
import urllib.request
from pathlib import Path

import pytest

from boardctl.durable import write_atomically
from boardctl.relay.http import PdnServer
from boardctl.relay.relay import Relay
from boardctl.relay.serial import LineSplitter
from boardctl.relay.state import RelayState
from firmware.formats.feed import encode_line, header_record, snapshot_record
from firmware.formats.reader import FeedLine, Refusal, read_framed
from firmware.pdn import read_games
from firmware.rules.position import Position

DATA = Path(__file__).resolve().parents[2] / "boardctl" / "data" / "wk2003.pdn"
START = Position.start("international").fen()


def real_moves(n: int = 12) -> list[str]:
    game = next(read_games(DATA.read_text(), "wk2003.pdn"))
    return [m.text for m in game.moves[:n]]


def move_records(game: str = "g1", n: int = 12) -> list[dict]:
    out = []
    white, black = 300.0, 300.0
    for i, text in enumerate(real_moves(n)):
        side = "white" if i % 2 == 0 else "black"
        if side == "white":
            white -= 7.5
        else:
            black -= 4.25
        out.append({"type": "move", "game": game, "ply": i + 1, "side": side, "move": text,
                    "fen": "x", "clock": {"white": white, "black": black}})
    return out


GAME = {"type": "game", "game": "g1", "rules": "international", "fen": None,
        "time_control": "300", "tags": {"Event": "Club", "Round": "3", "White": "A", "Black": "B"}}


def lines(records: list[dict], start: int = 0) -> list[str]:
    return [encode_line(r, start + i) for i, r in enumerate(records)]


def framed(members: dict) -> FeedLine | Refusal:
    """A line made as an object (no checksum to make), read as the relay reads a line."""
    return read_framed({"seq": 0, **members})


def test_moves_clocks_round_tag_and_result() -> None:
    state = RelayState()
    recs = [header_record("7", "run1", "international"), GAME, *move_records(),
            {"type": "result", "game": "g1", "result": "2-0", "reason": "resignation"}]
    for line in lines(recs):
        state.feed_line("/dev/ttyACM0", line)
    pdn = state.pdn()
    assert '[Round "3.7"]' in pdn and '[Result "2-0"]' in pdn and '[GameType "20"]' in pdn
    assert "{[%clock w0:04:52 B0:05:00]}" in pdn  # after White's first move Black's clock runs
    game = next(read_games(pdn, "relay"))
    assert [m.text for m in game.moves] == real_moves()
    assert game.moves[1].clock is not None and game.moves[1].clock.black == 295


def test_read_by_pydraughts() -> None:
    pdn_mod = pytest.importorskip("draughts.PDN")
    state = RelayState()
    for line in lines([header_record("7", "r", None), GAME, *move_records()]):
        state.feed_line("a", line)
    second = dict(GAME, game="g2", tags={**GAME["tags"], "White": "C"})
    for line in lines([second, *move_records("g2", 6)], start=100):
        state.feed_line("a", line)
    reader = pdn_mod.PDNReader(pdn_text=state.pdn())
    assert len(reader.games) == 2
    assert reader.games[0].tags["Round"] == "3.7"
    assert reader.games[0].moves == real_moves()
    assert reader.games[1].moves == real_moves(6)


def test_lost_lines_are_held_back_until_a_snapshot() -> None:
    state = RelayState()
    moves = move_records()
    for line in lines([header_record("2", "r", None), GAME, *moves[:4]]):
        state.feed_line("p", line)
    # moves 5 and 6 lost on the wire (unplugged), 7 arrives: not appended out of order.
    state.feed_line("p", encode_line(moves[6], 20))
    assert [m["ply"] for m in state.games["g1"].moves] == [1, 2, 3, 4]
    assert state.games["g1"].gap
    snap = snapshot_record(game="g1", rules="international", start_fen=START, fen="f",
                           moves=moves[:8], tags=GAME["tags"], clock={"white": 1, "black": 2},
                           running="white")
    assert state.feed_line("p", encode_line(snap, 21))
    assert [m["ply"] for m in state.games["g1"].moves] == list(range(1, 9))
    for i, rec in enumerate(moves[7:], 22):  # 8 again (duplicate), then on
        state.feed_line("p", encode_line(rec, i))
    assert [m["move"] for m in state.games["g1"].moves] == real_moves()
    assert state.refused == 0


def _said(state: RelayState) -> list[str]:
    said: list[str] = []
    state.log = said.append
    return said


def test_a_move_that_does_not_play_is_refused_and_the_game_waits_for_a_snapshot() -> None:
    """A record with a good checksum can still be wrong (a buggy or foreign sender): an
    illegal move, a move by the side not to move. Neither reaches the PDN; each is told once,
    naming board, game, ply and why; the next snapshot puts the game right."""
    state = RelayState()
    said = _said(state)
    seen: list[object] = []  # what the live page is told
    state.observers.append(lambda board, record, game: seen.append(getattr(record, "move",
                                                                            None)))
    moves = move_records()
    for line in lines([header_record("4", "r", None), GAME, *moves[:2]]):
        state.feed_line("p", line)
    illegal = {**moves[2], "move": "31-22"}  # a man two rows forward: no capture there
    state.feed_line("p", encode_line(illegal, 4))
    wrong_side = {**moves[2], "side": "black"}
    state.feed_line("p", encode_line(wrong_side, 5))
    game = state.games["g1"]
    assert [m["ply"] for m in game.moves] == [1, 2] and game.gap
    assert state.refused == 1  # the second waits behind the gap: nothing more to refuse
    assert len(said) == 1 and "board 4, game g1: move refused at ply 3 ('31-22')" in said[0]
    assert "not legal" in said[0]
    assert seen == [None, None, *real_moves(2)]  # header, game, the moves that play
    state.feed_line("p", encode_line(moves[2], 6))  # the right ply 3, but the game waits
    assert len(game.moves) == 2
    snap = snapshot_record(game="g1", rules="international", start_fen=START, fen="f",
                           moves=moves[:5], tags=GAME["tags"])
    assert state.feed_line("p", encode_line(snap, 7))
    assert [m["move"] for m in game.moves] == real_moves(5) and not game.gap
    assert seen[-1] is None and len(seen) == 5  # the snapshot
    fresh = RelayState()
    for line in lines([header_record("4", "r", None), GAME, *moves[:2], wrong_side]):
        fresh.feed_line("p", line)
    assert fresh.refused == 1 and len(fresh.games["g1"].moves) == 2
    games = list(read_games(state.pdn() + fresh.pdn(), "relay"))
    assert [len(g.replay().moves) for g in games] == [5, 2]


def test_a_snapshot_whose_moves_do_not_play_is_refused_whole() -> None:
    state = RelayState()
    said = _said(state)
    moves = move_records()
    for line in lines([header_record("4", "r", None), GAME, *moves[:4]]):
        state.feed_line("p", line)
    swapped = [moves[1], moves[0], *moves[2:6]]  # two moves in the wrong order
    swapped = [{**m, "ply": i} for i, m in enumerate(swapped, 1)]
    snap = snapshot_record(game="g1", rules="international", start_fen=START, fen="f",
                           moves=swapped, tags=GAME["tags"])
    assert not state.feed_line("p", encode_line(snap, 9))
    assert [m["move"] for m in state.games["g1"].moves] == real_moves(4)
    assert state.refused == 1 and "snapshot refused at ply 1" in said[0]


def test_an_unknown_rule_set_or_a_bad_start_position_is_refused() -> None:
    state = RelayState()
    said = _said(state)
    odd = {**GAME, "game": "g2", "rules": "chess"}
    state.feed_record("p", framed(odd))
    state.feed_record("p", framed({**move_records("g2")[0], "seq": 1}))
    assert state.games["g2"].rules is None and state.games["g2"].moves == []
    bad_fen = {**GAME, "game": "g3", "fen": "W:W51,52:B1"}  # no square 51 on 10x10
    state.feed_record("p", framed(bad_fen))
    assert state.games["g3"].start_fen is None  # the standard start stands
    assert state.refused == 3
    assert "unknown rule set 'chess'" in said[0]
    assert "move refused: no rule set known yet" in said[1]
    assert "start position refused" in said[2]
    for game in read_games(state.pdn(), "relay"):
        assert "FEN" not in game.tags


def test_refusals_are_told_ten_times_then_every_thousandth() -> None:
    state = RelayState()
    said = _said(state)
    state.feed_record("p", framed(GAME))
    for n in range(2000):
        state.feed_record("p", framed({**GAME, "rules": f"nonsense{n}"}))
    assert state.refused == 2000 and len(said) == 12
    assert said[-1].endswith("(2000 refused so far)")


def test_feeds_and_moves_held_are_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    """A hostile publisher inventing board names, or playing legal moves without end, gets so
    far and no further: memory stays bounded, the boards already followed go on, and the log
    says what is left out."""
    import boardctl.relay.checks as relay_checks
    import boardctl.relay.state as relay_state

    monkeypatch.setattr(relay_state, "MAX_SOURCES", 2)
    monkeypatch.setattr(relay_checks, "MAX_MOVES", 6)
    state = RelayState()
    said = _said(state)
    moves = move_records(n=12)
    for board in ("p1", "p2", "p3"):  # hall boards: each its own games
        state.source(board, topic=True)
        for line in lines([GAME, *moves[:2]]):
            state.feed_line(board, line)
    assert sorted(state._sources) == ["p1", "p2"] and state.ignored == 3
    assert said[0] == ("relay: 'p3' not followed: 2 feeds are followed already (1 records "
                       "ignored so far)")
    for i, rec in enumerate(moves[2:4], 3):  # p1 takes the last two moves allowed
        state.feed_line("p1", encode_line(rec, i))
    game = state.games["p1/g1"]
    assert state.held == 6 and len(game.moves) == 4
    state.feed_line("p1", encode_line(moves[4], 5))
    assert len(game.moves) == 4 and state.held == 6
    assert said[-1].startswith("relay: board p1, game g1: move refused: the relay holds 6 moves")
    snap = snapshot_record(game="g1", rules="international", start_fen=START, fen="f",
                           moves=moves[:8], tags=GAME["tags"])
    assert not state.feed_line("p1", encode_line(snap, 6))
    assert state.held == 6 and "moves refused: the relay holds 6 moves already" in said[-1]
    shorter = snapshot_record(game="g1", rules="international", start_fen=START, fen="f",
                              moves=moves[:3], tags=GAME["tags"])
    assert state.feed_line("p1", encode_line(shorter, 7))  # a board taking a move back
    assert state.held == 5 and len(game.moves) == 3


def test_damaged_and_foreign_lines_are_dropped() -> None:
    state = RelayState()
    good = lines([header_record("2", "r", None), GAME, *move_records()[:2]])
    bad = good[3].replace("white", "whitf")
    for line in [good[0], "garbage\n", good[1], "\x00\xff{", good[2], bad, '{"type":"move"}']:
        state.feed_line("p", line)
    assert [m["ply"] for m in state.games["g1"].moves] == [1]
    assert state.dropped == 4


def test_board_restart_continues_the_same_game() -> None:
    state = RelayState()
    moves = move_records()
    for line in lines([header_record("5", "runA", None), GAME, *moves[:3]]):
        state.feed_line("p", line)
    snap = snapshot_record(game="g1", rules="international", start_fen=START, fen="f",
                           moves=moves[:3], tags=GAME["tags"])
    for line in lines([header_record("5", "runB", None), snap, *moves[3:6]]):  # seq from 0
        state.feed_line("p", line)
    assert len(state.games) == 1 and len(state.games["g1"].moves) == 6


def test_line_splitter_cuts_overlong_lines() -> None:
    s = LineSplitter(limit=10)
    assert s.feed(b"ab\ncd") == [b"ab\n"]
    assert s.feed(b"x" * 20) == []
    assert s.feed(b"yy\nok\n") == [b"ok\n"]


def test_write_atomically(tmp_path: Path) -> None:
    out = tmp_path / "live.pdn"
    write_atomically(out, "one")
    write_atomically(out, "two")
    assert out.read_text() == "two" and os.listdir(tmp_path) == ["live.pdn"]


def _pty_pair() -> tuple[int, str]:
    master, slave = pty.openpty()
    tty.setraw(slave)
    name = os.ttyname(slave)
    os.close(slave)
    return master, name


def test_relay_over_pty_unplug_replug_and_http(tmp_path: Path) -> None:
    """A board on a pty (named by a stable symlink, as udev's by-id names are) is unplugged and
    plugged back in; the relay reopens it and nothing is lost. Read back with urllib."""
    now = [0.0]
    link = tmp_path / "board7"
    master, name = _pty_pair()
    link.symlink_to(name)
    server = PdnServer(("127.0.0.1", 0))
    import threading

    threading.Thread(target=server.serve_forever, daemon=True).start()
    relay = Relay([str(link)], out=tmp_path / "live.pdn", server=server, now=lambda: now[0])
    try:
        moves = move_records()
        first = lines([header_record("7", "r", None), GAME, *moves[:5]])
        relay.poll()  # opens the port
        os.write(master, "".join(first).encode())
        for _ in range(50):
            relay.wait(2.0)
            relay.poll()
            if len(relay.state.games.get("g1", GAME_EMPTY).moves) == 5:
                break
        assert len(relay.state.games["g1"].moves) == 5
        # Unplug: the device disappears mid-line; the board goes on (lines lost meanwhile).
        os.write(master, first[-1][:10].encode())
        os.close(master)
        link.unlink()
        relay.poll()
        relay.poll()
        assert not relay.feeds[0].connected
        master, name = _pty_pair()
        link.symlink_to(name)
        now[0] += 10
        relay.poll()
        assert relay.feeds[0].connected and relay.feeds[0].opens == 2
        snap = snapshot_record(game="g1", rules="international", start_fen=START, fen="f",
                               moves=moves[:9], tags=GAME["tags"])
        again = lines([header_record("7", "r", None), snap, *moves[9:]], 40)
        os.write(master, "".join(again).encode())
        for _ in range(50):
            relay.wait(2.0)
            relay.poll()
            if len(relay.state.games["g1"].moves) == 12:
                break
        url = f"http://127.0.0.1:{server.server_address[1]}/games.pdn"
        with urllib.request.urlopen(url, timeout=5) as resp:
            body = resp.read().decode()
            assert resp.headers["Content-Type"].startswith("application/x-draughts-pdn")
        game = next(read_games(body, "http"))
        assert [m.text for m in game.moves] == real_moves()
        assert (tmp_path / "live.pdn").read_text() == body
    finally:
        relay.close()
        os.close(master)
        server.shutdown()
        server.server_close()


class _Empty:
    moves: list = []


GAME_EMPTY = _Empty()


from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=12),
    lambda c: st.lists(c, max_size=3) | st.dictionaries(st.text(max_size=6), c, max_size=3),
    max_leaves=10,
)
_records = st.fixed_dictionaries(
    {"type": st.sampled_from(["header", "game", "move", "snapshot", "result", "x"])},
    optional={k: _values for k in ("game", "ply", "side", "move", "moves", "tags", "clock",
                                   "rules", "result", "seq", "board", "run", "start_fen")},
)


@settings(max_examples=int(os.environ.get("RELAY_FUZZ_EXAMPLES", "100")), deadline=None)
@given(st.lists(_records, max_size=8))
def test_records_that_pass_the_checksum_but_make_no_sense_never_crash(records: list) -> None:
    """A foreign or buggy sender with valid checksums: the relay keeps serving a PDN."""
    state = RelayState()
    for i, rec in enumerate([{"type": "game", "game": "g", "rules": "russian"}, *records]):
        line = framed({**rec, "seq": i} if not isinstance(rec.get("seq"), int) else rec)
        if isinstance(line, FeedLine):  # a line without a seq does not frame
            state.feed_record("p", line)
    text = state.pdn()
    assert isinstance(text, str)
    games = list(read_games(text, "relay"))
    assert len(games) == sum(g.shown for g in state.games.values())  # the games played
    for game in games:  # only moves that play are published
        game.replay()


def test_two_boards_on_two_ports_make_one_pdn() -> None:
    state = RelayState()
    for port, board, game in (("ttyUSB0", "1", "ga"), ("ttyUSB1", "2", "gb")):
        recs = [header_record(board, "r", "international"), dict(GAME, game=game),
                *move_records(game, 4 if board == "1" else 6)]
        for line in lines(recs):
            state.feed_line(port, line)
    games = list(read_games(state.pdn(), "relay"))
    assert [g.tags["Round"] for g in games] == ["3.1", "3.2"]
    assert [len(g.moves) for g in games] == [4, 6]


def test_a_line_of_the_run_taken_already_is_not_taken_again() -> None:
    """MQTT delivers a QoS 1 message again after a lost acknowledgement, and a board that
    reconnects sends again what the broker may have missed: a line whose ``seq`` is not past
    the last one of its run is a repeat. An old snapshot taken again would wind a finished game
    back (and nothing would put it right: the board has moved on to its next game)."""
    state = RelayState()
    seen: list[object] = []
    state.observers.append(lambda board, record, game: seen.append(record.type))
    moves = move_records()
    early = snapshot_record(game="g1", rules="international", start_fen=START, fen="f",
                            moves=moves[:4], tags=GAME["tags"])
    recs = [header_record("6", "runA", None), GAME, *moves[:4], early, *moves[4:],
            {"type": "result", "game": "g1", "result": "2-0", "reason": "resignation"}]
    sent = lines(recs)
    for line in sent:
        state.feed_line("p", line)
    told = len(seen)
    for line in (sent[6], sent[3], sent[-1]):  # the early snapshot, a move, the result again
        assert not state.feed_line("p", line)
    game = state.games["g1"]
    assert [m["move"] for m in game.moves] == real_moves() and game.result == "2-0"
    assert state.repeats == 3 and len(seen) == told  # the live page is not told either
    # A restart says so (a header, a new run): its seq starts again and is taken.
    snap = snapshot_record(game="g2", rules="international", start_fen=START, fen="f",
                           moves=moves[:2], tags=GAME["tags"])
    for line in lines([header_record("6", "runB", None), {**GAME, "game": "g2"}, snap]):
        state.feed_line("p", line)
    assert [m["move"] for m in state.games["g2"].moves] == real_moves(2)
    # A restart whose header was lost on the wire starts with its game line: taken as one.
    for line in lines([{**GAME, "game": "g3"}, {**moves[0], "game": "g3"}], start=1):
        state.feed_line("p", line)
    assert [m["move"] for m in state.games["g3"].moves] == real_moves(1)
    assert state.games["g1"].result == "2-0" and len(state.games["g1"].moves) == 12


def test_a_snapshot_without_moves_must_stand_where_the_game_stands() -> None:
    """A snapshot without moves shows its ``fen`` on the live page: one claiming another
    position is refused whole, its result too; one where the game stands is taken."""
    state = RelayState()
    moves = move_records()
    for line in lines([header_record("8", "r", None), GAME, *moves[:2]]):
        state.feed_line("p", line)
    game = state.games["g1"]
    wrong = {"type": "snapshot", "game": "g1", "rules": "international", "fen": "W:W1,2,3:B50",
             "result": "2-0", "reason": "resignation"}
    state.feed_line("p", encode_line(wrong, 4))
    assert state.refused == 1 and game.result is None and len(game.moves) == 2
    right = {**wrong, "fen": game.position.fen()}
    state.feed_line("p", encode_line(right, 5))
    assert state.refused == 1 and game.result == "2-0" and len(game.moves) == 2
