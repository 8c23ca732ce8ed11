"""Issue 37: the relay's store (boardctl.relay.store) costs a short line a move, whatever the
board played before, fsyncs in groups (a few a second at most) and serves nothing before it is
fsync'd; it reads back every change as it was served, a torn last line dropped, damage set
aside, and an old-form folder written anew. Real files and fsync; the group window on an
injected clock; a real pty for the feed."""

from __future__ import annotations

import os
import pty
import random
import shutil
import tty
import zlib
from pathlib import Path
from typing import Any

import pytest
from test_relay_state import GAME, lines, move_records

from boardctl.relay import store as store_module
from boardctl.relay.http import Timeline, View
from boardctl.relay.ledger import fold
from boardctl.relay.relay import Relay
from boardctl.relay.store import GameStore, read_log
from firmware.formats.feed import encode_line, header_record
from firmware.pdn import read_games

DATA = Path(__file__).resolve().parents[2] / "boardctl" / "data" / "wk2003.pdn"
GAMES = [[m.text for m in g.moves] for g in read_games(DATA.read_text(), "wk2003.pdn")]


def _relay(folder: Path, log: list[str] | None = None, **store: Any) -> Relay:
    say = log.append if log is not None else None
    relay = Relay([], store=GameStore(folder, log=say, **store).open(), log=say)
    relay.restore()
    return relay


def _kill(relay: Relay) -> None:
    """What a kill -9 leaves: the file as appended (its lock let go), not written anew."""
    assert relay.store is not None
    relay.store.close()


class Board:
    """A hall board's feed lines, one record at a time, into a relay's state."""

    def __init__(self, relay: Relay, name: str) -> None:
        self.relay, self.name, self.seq = relay, name, 0
        relay.state.source(name, topic=True)

    def send(self, record: dict[str, Any]) -> bool:
        self.seq += 1
        return self.relay.state.feed_line(self.name, encode_line(record, self.seq))

    def game(self, game: str, round_: int, moves: list[str], result: str | None = None) -> None:
        self.send({"type": "game", "game": game, "rules": "international", "fen": None,
                   "time_control": "5400+30", "tags": {"Round": str(round_)}})
        for k, text in enumerate(moves):
            self.move(game, k + 1, text)
        if result:
            self.send({"type": "result", "game": game, "result": result})

    def move(self, game: str, ply: int, text: str) -> bool:
        return self.send({"type": "move", "game": game, "ply": ply,
                          "side": "white" if ply % 2 else "black", "move": text,
                          "clock": {"white": 5000.0 - ply, "black": 5000.0 - ply}})


def _written(relay: Relay) -> int:
    assert relay.store is not None
    return relay.store.written


def test_a_move_costs_one_short_line_whatever_the_board_played_before(tmp_path: Path) -> None:
    relay = _relay(tmp_path / "H")
    board = Board(relay, "b1")
    board.game("r1", 1, GAMES[0][:40])
    relay.publish()
    before = _written(relay)
    board.move("r1", 41, GAMES[0][40])
    relay.publish()
    first = _written(relay) - before
    for r in range(2, 11):  # ten rounds of 80 plies played on this board
        board.game(f"r{r}", r, GAMES[r][:80], result="1-1")
        relay.publish()
    board.game("r11", 11, GAMES[11][:40])
    relay.publish()
    before = _written(relay)
    board.move("r11", 41, GAMES[11][40])
    relay.publish()
    last = _written(relay) - before
    assert 60 < first < 300 and abs(last - first) <= 4  # the same line, its numbers aside
    records = read_log(tmp_path / "H" / "games.jsonl").records
    assert records[-1]["type"] == "moves" and records[-1]["from"] == 40
    assert records[-1]["moves"] == [[GAMES[11][40], 4959.0, 4959.0]]
    _kill(relay)
    again = _relay(tmp_path / "H")
    assert again.text == relay.text and len(again.state.games) == 11
    again.close()


def _pty_pair() -> tuple[int, str]:
    master, slave = pty.openpty()
    tty.setraw(slave)
    name = os.ttyname(slave)
    os.close(slave)
    return master, name


class DurableCopy:
    """An fsync that notes what the file holds at that moment: what is on disk for sure."""

    def __init__(self) -> None:
        self.calls = 0
        self.data = b""

    def __call__(self, fd: int) -> None:
        os.fsync(fd)
        self.calls += 1
        self.data = Path(f"/proc/self/fd/{fd}").read_bytes()


def _moves_in(data: bytes, tmp: Path) -> dict[str, int]:
    """Each game's moves in the store's file content ``data``."""
    path = tmp / "copy.jsonl"
    path.write_bytes(data)
    games, unfit = fold(read_log(path).records)
    assert unfit == 0
    return {f"{g['source']}/{g['game']['game']}" if g["topic"] else g["game"]["game"]:
            len(g["game"]["moves"]) for g in games}


def test_fsyncs_come_in_groups_and_nothing_is_served_before_its_fsync(tmp_path: Path) -> None:
    """Moves a tenth of a second apart on a real pty: the relay fsyncs at most once a group
    window (0.25 s on the store's clock) and serves each view only after the fsync of
    everything in it, compared at every publish with what the file held at the last fsync."""
    clock = [100.0]
    durable = DurableCopy()
    store = GameStore(tmp_path / "H", clock=lambda: clock[0], fsync=durable).open()
    master, name = _pty_pair()
    served: list[int] = []

    def check() -> None:  # on every publish: served only what was fsync'd
        view = relay.timeline.live()
        n = len(next(read_games(view.games[0].text, "served")).moves) if view.games else 0
        assert n <= _moves_in(durable.data, tmp_path).get("g1", 0) or n == 0
        served.append(n)

    relay = Relay([name], store=store, on_publish=check, now=lambda: clock[0],
                  wall=lambda: clock[0], timeline=Timeline(now=lambda: clock[0]))
    try:
        relay.poll()  # restored (nothing) and the port opened
        records = [header_record("7", "r", None), GAME, *move_records()]
        for k, line in enumerate(lines(records)):
            os.write(master, line.encode())
            relay.wait(2.0)  # the line is there to read
            relay.poll()
            if k >= 2:
                assert relay.store is not None
                assert relay.pending == (served[-1] != k - 1)
            clock[0] += 0.1
        while relay.pending:
            assert relay.store is not None and 0 < relay.store.wait_s() <= 0.25
            clock[0] += relay.store.wait_s()
            relay.poll()
        assert served[-1] == 12  # every move served in the end
        assert 12 // 3 <= durable.calls <= 12 // 2 + 2  # 12 moves over 1.2 s: an fsync a 0.25 s
        assert len(served) < 12
    finally:
        os.close(master)
        relay.close()


def test_a_torn_last_line_is_dropped_with_a_line_in_the_log(tmp_path: Path) -> None:
    folder = tmp_path / "H"
    relay = _relay(folder)
    board = Board(relay, "b1")
    board.game("g", 1, GAMES[0][:10])
    relay.publish()
    for ply in (11, 12):
        board.move("g", ply, GAMES[0][ply - 1])
        relay.publish()
    _kill(relay)
    path = folder / "games.jsonl"
    whole = path.read_bytes()
    path.write_bytes(whole[:-40])  # the last move's line cut short by a crash
    log: list[str] = []
    again = _relay(folder, log)
    assert len(again.state.games["b1/g"].moves) == 11
    assert any("a torn last line" in m and "dropped" in m for m in log)
    assert path.read_bytes() == whole[:whole.rindex(b"\n", 0, -1) + 1]  # cut off
    assert Board(again, "b1").send({"type": "snapshot", "game": "g", "rules": "international",
                                    "moves": _records(12)})
    again.publish()
    _kill(again)
    with path.open("ab") as f:
        f.write(b"\0" * 300)  # a tail the file system never wrote
    log.clear()
    third = _relay(folder, log)
    assert len(third.state.games["b1/g"].moves) == 12
    assert any("a torn last line" in m for m in log)
    third.close()
    log.clear()
    fourth = _relay(folder, log)
    assert len(fourth.state.games["b1/g"].moves) == 12 and not _complaints(log)
    fourth.close()


def _complaints(log: list[str]) -> list[str]:
    return [m for m in log if "games restored" not in m]


def _records(n: int) -> list[dict[str, Any]]:
    return [{"ply": k + 1, "side": "white" if k % 2 == 0 else "black", "move": GAMES[0][k],
             "clock": {"white": 5000.0 - k - 1, "black": 5000.0 - k - 1}} for k in range(n)]


def test_damage_before_the_end_is_set_aside_and_what_read_is_kept(tmp_path: Path) -> None:
    folder = tmp_path / "H"
    relay = _relay(folder)
    board = Board(relay, "b1")
    board.game("g", 1, GAMES[0][:10])
    relay.publish()
    for ply in range(11, 16):
        board.move("g", ply, GAMES[0][ply - 1])
        relay.publish()
    _kill(relay)
    path = folder / "games.jsonl"
    text = path.read_text().splitlines(keepends=True)
    text[4] = text[4].replace('"from":12', '"from":13')  # a changed line: its seal breaks
    path.write_text("".join(text))
    log: list[str] = []
    again = _relay(folder, log)
    assert len(again.state.games["b1/g"].moves) == 12  # the records before the damage
    assert any("line 5: checksum does not match" in m and "games.jsonl.bad" in m for m in log)
    assert (folder / "games.jsonl.bad").read_text() == "".join(text)
    again.close()
    log.clear()
    third = _relay(folder, log)
    assert len(third.state.games["b1/g"].moves) == 12 and not _complaints(log)
    third.close()


@pytest.mark.parametrize("content", [
    b'{"format": "boardctl-relay-games", "version": 3}\n',
    b"\x00\x01\x02 not a store",
    b"[" * 100_000,
    b'{"type":"game","journal":2,"id":"x","rules":"international","n":0,"c":"00000000"}\n',
])
def test_a_file_that_is_not_a_store_is_set_aside_whole(tmp_path: Path, content: bytes) -> None:
    folder = tmp_path / "H"
    folder.mkdir()
    (folder / "games.jsonl").write_bytes(content)
    log: list[str] = []
    relay = _relay(folder, log)
    assert relay.state.games == {} and any("does not read" in m for m in log)
    assert (folder / "games.jsonl.bad").read_bytes() == content
    Board(relay, "b1").game("g", 1, GAMES[0][:4])
    relay.publish()
    _kill(relay)
    again = _relay(folder)
    assert len(again.state.games["b1/g"].moves) == 4
    again.close()


def test_the_file_is_compacted_as_it_grows_and_at_a_clean_stop(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(store_module, "COMPACT_MIN", 20_000)
    folder = tmp_path / "H"
    relay = _relay(folder)
    boards = [Board(relay, f"b{n}") for n in range(1, 5)]
    sizes = []
    for r in range(1, 4):
        for board in boards:
            board.game(f"r{r}", r, [])
        for ply in range(1, 81):
            for k, board in enumerate(boards):
                board.move(f"r{r}", ply, GAMES[r * 4 + k][ply - 1])
            relay.publish()
            sizes.append((folder / "games.jsonl").stat().st_size)
    compactions = sum(1 for a, b in zip(sizes, sizes[1:], strict=False) if b < a)
    assert compactions >= 2 and max(sizes) < 3 * sizes[-1] + 20_000
    _kill(relay)
    again = _relay(folder)
    assert again.text == relay.text
    again.close()  # a clean stop: every game whole, and nothing else
    assert {r["type"] for r in read_log(folder / "games.jsonl").records} == {"game"}
    third = _relay(folder)
    assert third.text == relay.text
    third.close()


def _snapshot(game: str, moves: list[str], clocks: float = 5000.0) -> dict[str, Any]:
    return {"type": "snapshot", "game": game, "rules": "international",
            "moves": [{"ply": k + 1, "side": "white" if k % 2 == 0 else "black", "move": m,
                       "clock": {"white": clocks - k - 1, "black": clocks - k - 1}}
                      for k, m in enumerate(moves)]}


def _step(rng: random.Random, board: Board, games: dict[str, str],
          played: dict[str, list[str]]) -> None:
    """One seeded change of a board's game: a move, a new game (the one before left empty
    now and then: it is dropped), a snapshot (its earlier clocks changed now and then), a
    takeback, a clock line, a result."""
    game = games.setdefault(board.name, "g0")
    moves = played.setdefault(f"{board.name}/{game}", [])
    source = GAMES[zlib.crc32(f"{board.name}/{game}".encode()) % len(GAMES)]
    what = rng.choice(["move"] * 6 + ["new", "snapshot", "takeback", "clock", "result"])
    if what == "move" and len(moves) < 60:
        moves.append(source[len(moves)])
        board.move(game, len(moves), moves[-1])
    elif what == "new":
        games[board.name] = f"g{len(played)}"
        board.send({"type": "game", "game": games[board.name], "rules": "international",
                    "tags": {"Round": str(len(played))}})
    elif what == "snapshot":
        board.send(_snapshot(game, moves, rng.choice([5000.0, 4000.0])))
    elif what == "takeback" and moves:
        del moves[len(moves) - rng.randint(1, len(moves)):]
        board.send({"type": "takeback", "game": game, "ply": len(moves)})
    elif what == "clock" and moves:
        board.send({"type": "clock", "game": game, "clock": {"white": 100.0, "black": 90.0},
                    "running": "white"})
    elif what == "result" and moves:
        board.send({"type": "result", "game": game, "result": "2-0"})


@pytest.mark.parametrize("seed", [1, 2, *(pytest.param(s, marks=pytest.mark.slow)
                                   for s in range(3, 31))])
def test_every_change_reads_back_as_it_was_served(tmp_path: Path, seed: int) -> None:
    """Seeded changes of three boards' games, every kind a feed has; after each publish the
    store, as a kill -9 would leave it, read by a new relay serves exactly what was served,
    and so after clean stops (the file compacted) along the way."""
    rng = random.Random(seed)
    folder = tmp_path / "H"
    relay = _relay(folder)
    boards = [Board(relay, f"b{n}") for n in range(1, 4)]
    games: dict[str, str] = {}
    played: dict[str, list[str]] = {}
    for n in range(120):
        board = rng.choice(boards)
        _step(rng, board, games, played)
        relay.publish({board.name} if n % 3 else None)  # only its feed's games looked at
        copy = tmp_path / f"copy{n}"
        shutil.copytree(folder, copy)
        again = _relay(copy)
        assert again.text == relay.text, n
        assert {k: [m["move"] for m in g.moves] for k, g in again.state.games.items()} == {
            k: [m["move"] for m in g.moves] for k, g in relay.state.games.items()}
        again.close()
        shutil.rmtree(copy)
        view = relay.changes.view  # its rounds' places, kept from view to view, as found anew
        assert view is not None
        fresh = View(view.games, view.stamp)
        for tag in {g.round for g in view.games}:
            for name in (tag, tag.split(".")[0]):
                assert view.round(name) == fresh.round(name) and view.round(name), (n, name)
        if rng.random() < 0.05:  # a clean stop and a start
            seqs = [b.seq for b in boards]
            relay.close()
            relay = _relay(folder)
            boards = [Board(relay, f"b{n}") for n in range(1, 4)]
            for board, seq in zip(boards, seqs, strict=True):
                board.seq = seq
    relay.close()


def test_a_sealed_line_that_is_no_text_ends_the_reading_there(tmp_path: Path) -> None:
    """A record whose seal holds but whose text does not (a lone UTF-16 surrogate in a tag,
    which no PDN can carry): the games before it are taken back, the file set aside."""
    folder = tmp_path / "H"
    relay = _relay(folder)
    board = Board(relay, "b1")
    board.game("g", 1, GAMES[0][:6])
    relay.publish()
    relay.close()
    good = read_log(folder / "games.jsonl").records
    bad = {**good[0], "key": "b2/g", "source": "b2",
           "game": {**good[0]["game"], "tags": {"White": "\ud800"}, "order": 5}}
    store = GameStore(folder).open()
    store.compact([good[0], bad, {**bad, "key": "b3/g", "source": "b3"}])
    store.close()
    log: list[str] = []
    again = _relay(folder, log)
    assert list(again.state.games) == ["b1/g"] and len(again.state.games["b1/g"].moves) == 6
    assert any("line 3: " in m and "surrogate" in m and "games.jsonl.bad" in m for m in log)
    again.close()
