"""What broadcast sites read of the arbiter's acts (issue 31): the last move's ``[%clock]``
says the clocks as they are after a pause, a resume or a correction, at once (not after the
next move), with the running side in capitals and none when the clocks stand; a takeback
republishes the game without the plies, its tags kept."""

from __future__ import annotations

from pathlib import Path

from support.live_helpers import feed

from boardctl.relay.state import RelayState
from firmware.formats.feed import encode_line, header_record
from firmware.pdn import read_games

DATA = Path(__file__).resolve().parents[2] / "boardctl" / "data" / "wk2003.pdn"
GAME = {"type": "game", "game": "g1", "rules": "international", "fen": None,
        "time_control": "300", "tags": {"Event": "Club", "Round": "3", "White": "A", "Black": "B"}}


def move_records(n: int) -> list[dict]:
    """A real game's first ``n`` plies as feed lines, each side's clock going down."""
    game = next(read_games(DATA.read_text(), "wk2003.pdn"))
    out, white, black = [], 300.0, 300.0
    for i, m in enumerate(game.moves[:n]):
        side = "white" if i % 2 == 0 else "black"
        if side == "white":
            white -= 7.5
        else:
            black -= 4.25
        out.append({"type": "move", "game": "g1", "ply": i + 1, "side": side, "move": m.text,
                    "clock": {"white": white, "black": black}})
    return out


def lines(records: list[dict], start: int = 0) -> list[str]:
    return [encode_line(r, start + i) for i, r in enumerate(records)]


def fed(records: list[dict], state: RelayState | None = None, start: int = 0) -> RelayState:
    state = state or RelayState()
    for line in lines(records, start):
        state.feed_line("/dev/ttyACM0", line)
    return state


def last_clock(state: RelayState) -> str:
    pdn = state.pdn()
    return pdn[pdn.rindex("{[%clock"):pdn.rindex("]}") + 2]


def test_a_correction_and_a_pause_show_at_once() -> None:
    moves = move_records(n=4)
    state = fed([header_record("7", "run1", "international"), GAME, *moves])
    assert last_clock(state) == "{[%clock W0:04:45 b0:04:51]}"  # White to move: his runs
    n = 2 + len(moves)
    clock = {"type": "clock", "game": "g1", "event": "clock-set",
             "clock": {"white": 600.0, "black": 291.5}, "running": "white"}
    assert fed([clock], state, n) is state and last_clock(state) == "{[%clock W0:10:00 b0:04:51]}"
    paused = {**clock, "event": "pause", "running": None}
    fed([paused], state, n + 1)
    assert last_clock(state) == "{[%clock w0:10:00 b0:04:51]}"  # both stand
    game = next(read_games(state.pdn(), "relay"))
    assert len(game.moves) == 4 and game.moves[-1].clock is not None
    # a snapshot (every 10 s) keeps what the clock line said; the next move writes its own
    snap = {"type": "snapshot", "game": "g1", "rules": "international", "moves": moves,
            "tags": GAME["tags"], "time_control": "300"}
    fed([snap], state, n + 2)
    assert last_clock(state) == "{[%clock w0:10:00 b0:04:51]}"
    fifth = move_records(n=5)[4]
    fed([fifth], state, n + 3)
    assert last_clock(state) == "{[%clock w0:04:37 B0:04:51]}"


def test_the_clocks_stand_once_the_game_is_over() -> None:
    state = fed([header_record("7", "run1", "international"), GAME, *move_records(n=3),
                 {"type": "result", "game": "g1", "result": "2-0", "reason": "resignation"}])
    assert last_clock(state) == "{[%clock w0:04:45 b0:04:55]}"


def test_a_takeback_republishes_the_game_with_its_tags() -> None:
    moves = move_records(n=6)
    state = fed([header_record("7", "run1", "international"), GAME, *moves])
    before = next(read_games(state.pdn(), "relay"))
    fed([{"type": "takeback", "game": "g1", "ply": 4}], state, 8)
    after = next(read_games(state.pdn(), "relay"))
    assert [m.text for m in after.moves] == [m.text for m in before.moves[:4]]
    assert after.tags == before.tags
    # the next move is ply 5 again, and another one may be played there
    fed([{**moves[4], "ply": 5}], state, 9)
    assert len(next(read_games(state.pdn(), "relay")).moves) == 5
    # a takeback the game cannot have (more plies left than it holds) changes nothing
    fed([{"type": "takeback", "game": "g1", "ply": 9}], state, 10)
    assert len(next(read_games(state.pdn(), "relay")).moves) == 5


def test_the_live_page_drops_the_plies_taken_back_at_once() -> None:
    from boardctl.relay.live.model import LiveHall

    hall = LiveHall()
    moves = move_records(n=6)
    for i, record in enumerate([GAME, *moves]):
        feed(hall, "b1", record, 100.0 + i)
    assert hall.view("b1", 200.0)["ply"] == 6
    feed(hall, "b1", {"type": "takeback", "game": "g1", "ply": 4}, 210.0)
    view = hall.view("b1", 220.0)
    assert view["ply"] == 4 and view["last"]["move"] == moves[3]["move"]
    assert any(e["kind"] == "takeback" for e in hall.events(220.0))
    feed(hall, "b1", {**moves[4], "ply": 5}, 230.0)  # play goes on from ply 5
    assert hall.view("b1", 240.0)["ply"] == 5


def test_the_clocks_after_a_takeback_show_at_once() -> None:
    """The board stops its clocks at a takeback and says so in a clock line before its
    takeback line: the ply left last carries those readings, none running (it showed the
    taken-back game's running side and that ply's old times until the next move)."""
    moves = move_records(n=6)
    state = fed([header_record("7", "run1", "international"), GAME, *moves])
    stopped = {"type": "clock", "game": "g1", "event": "takeback",
               "clock": {"white": 270.0, "black": 280.0}, "running": None}
    fed([stopped, {"type": "takeback", "game": "g1", "ply": 4}], state, 8)
    assert last_clock(state) == "{[%clock w0:04:30 b0:04:40]}"
    fed([{**moves[4], "ply": 5}], state, 10)  # the next move writes its own
    assert last_clock(state) == "{[%clock w0:04:37 B0:04:51]}"


def test_the_board_writes_a_result_in_its_rule_set_s_form(tmp_path: Path) -> None:
    """A 100-square board took ``1-0`` from the desk and ended its game with it, while the
    relay (rightly) refuses that form: the broadcast showed the game running for ever. The
    board now writes each result in its rule set's form (``1-0`` is ``2-0``, ``1/2-1/2`` is
    ``1-1`` on 100 squares), on its feed and in its journal."""
    from support.service_helpers import sim_service

    from firmware.formats.feed import decode_line

    lines: list[str] = []
    service, _clock = sim_service(tmp_path / "state", lines=lines)
    service.boot()
    try:
        done = service.command({"cmd": "result", "result": "1-0", "reason": "resignation"})
        assert done["ok"] and done["result"] == "2-0", done
        fed_results = [r["result"] for r in map(decode_line, lines)
                       if r and r.get("type") == "result"]
        assert fed_results == ["2-0"]
        assert '[Result "2-0"]' in service.command({"cmd": "pdn"})["pdn"]
    finally:
        service.close()
    again, _clock = sim_service(tmp_path / "state")  # the journal says 2-0 too
    again.boot()
    try:
        assert again.command({"cmd": "status"})["result"] == "2-0"
    finally:
        again.close()
