"""The game as the server shows it (boardctl.online.tracker), line by line: pure, with lines
shaped as lidraughts' BotJsonView writes them."""

from __future__ import annotations

from typing import Any

import pytest

from boardctl.online.errors import ProtocolError
from boardctl.online.events import (
    ClocksChanged,
    DrawDeclined,
    DrawOffered,
    EndReason,
    GameEnded,
    GameStarted,
    MoveConfirmed,
    OpponentMoved,
    PliesWithdrawn,
)
from boardctl.online.tracker import GameTracker, Unplayable
from firmware.rules.sets import Side


def state(moves: str = "", **over: Any) -> dict[str, Any]:
    s: dict[str, Any] = {"type": "gameState", "moves": moves, "wtime": 300000,
                         "btime": 300000, "winc": 3000, "binc": 3000, "wdraw": False,
                         "bdraw": False}
    s.update(over)
    return s


def full(moves: str = "", variant: str = "standard", **over: Any) -> dict[str, Any]:
    f: dict[str, Any] = {
        "type": "gameFull", "id": "Game1234",
        "variant": {"key": variant, "name": variant, "short": "x"},
        "clock": {"initial": 300000, "increment": 3000}, "speed": "blitz", "rated": True,
        "createdAt": 1, "white": {"id": "boardbot", "name": "BoardBot", "title": "BOT"},
        "black": {"id": "alice", "name": "Alice", "rating": 1650},
        "initialFen": "startpos", "state": state(moves)}
    f.update(over)
    return f


def tracker() -> GameTracker:
    return GameTracker("Game1234", "BoardBot")


def test_the_first_full_starts_the_game() -> None:
    t = tracker()
    [started] = t.full(full("3227 1822"), now_ns=5)
    assert isinstance(started, GameStarted)
    assert (started.rules.name, str(started.time_control), started.side, started.rated) == (
        "international", "300+3", Side.WHITE, True)
    assert str(started.opponent) == "Alice (1650)"
    assert [str(m) for m in started.plies] == ["32-27", "18-22"]
    assert started.clocks is not None and started.clocks.running is Side.WHITE
    assert started.clocks.received_ns == 5 and started.clocks.left_ms(Side.BLACK) == 300000


def test_states_tell_each_new_ply_once_with_its_side() -> None:
    t = tracker()
    t.full(full(), 0)
    events = t.state(state("3227"), 1) + t.state(state("3227 1822", btime=298000), 2)
    assert [(type(e).__name__, getattr(e, "ply", None)) for e in events] == [
        ("MoveConfirmed", 1), ("OpponentMoved", 2)]
    assert t.state(state("3227 1822", btime=298000), 3) == []  # nothing new, nothing told
    [clocks] = t.state(state("3227 1822", wtime=290000, btime=298000), 4)
    assert isinstance(clocks, ClocksChanged) and clocks.clocks.white_ms == 290000


def test_the_board_playing_black_sees_white_s_moves_as_the_opponent_s() -> None:
    t = tracker()
    t.full(full(white={"id": "alice", "name": "Alice"},
                black={"id": "boardbot", "name": "BoardBot"}), 0)
    [moved] = t.state(state("3227"), 1)
    assert isinstance(moved, OpponentMoved) and moved.ply == 1


def test_a_capture_played_step_by_step_is_told_when_whole() -> None:
    t = tracker()
    t.full(full(initialFen="W:WK46,50:B37,19,3:H0:F1"), 0)
    assert t.state(state("4628"), 1) == []
    assert t.view is not None and t.view.pending == (46, 28)
    [done] = t.state(state("4628 2810"), 2)
    assert isinstance(done, MoveConfirmed) and done.move.captured == (37, 19)


def test_draw_offers_come_and_lapse() -> None:
    t = tracker()
    t.full(full("3227"), 0)
    events = t.state(state("3227 1722", bdraw=True), 1)
    assert DrawOffered("Game1234", Side.BLACK) in events
    assert t.view is not None and t.view.offers == {Side.BLACK}
    events = t.state(state("3227 1722 3832", wdraw=True), 2)  # the board's, with its move
    assert not any(isinstance(e, DrawOffered | DrawDeclined) for e in events)
    events = t.state(state("3227 1722 3832 1924"), 3)
    assert DrawDeclined("Game1234", Side.BLACK) in events


@pytest.mark.parametrize("status, winner, result, reason", [
    ("resign", "black", "0-2", EndReason.RESIGNATION),
    ("outoftime", "white", "2-0", EndReason.FLAG),
    ("draw", None, "1-1", EndReason.DRAW),
    ("aborted", None, "*", EndReason.ABORT),
    ("mate", "white", "2-0", EndReason.NO_MOVES),
    ("somethingNew", None, "*", EndReason.UNKNOWN),
])
def test_a_status_in_a_state_ends_the_game_once(status: str, winner: str | None, result: str,
                                                reason: EndReason) -> None:
    t = tracker()
    t.full(full(), 0)
    events = t.state(state("3227", status=status, **({"winner": winner} if winner else {})), 1)
    assert events[-1] == GameEnded("Game1234", result, {"white": Side.WHITE, "black":
                                                         Side.BLACK, None: None}[winner], reason)
    assert t.finished(status, winner) == []


def test_russian_results_are_8x8_results() -> None:
    t = tracker()
    t.full(full(variant="russian"), 0)
    assert t.finished("resign", "white") == [GameEnded("Game1234", "1-0", Side.WHITE,
                                                       EndReason.RESIGNATION)]


def test_a_resync_after_the_link_was_down_tells_what_happened_meanwhile() -> None:
    t = tracker()
    t.full(full("3227"), 0)
    events = t.full(full("3227 1722 3832 1924"), 9)
    assert [type(e).__name__ for e in events] == ["OpponentMoved", "MoveConfirmed",
                                                   "OpponentMoved"]
    assert t.view is not None and t.view.fulls == 2
    [clocks] = t.full(full("3227 1722 3832 1924"), 10)
    assert isinstance(clocks, ClocksChanged)


def test_plies_the_server_lost_are_withdrawn() -> None:
    t = tracker()
    t.full(full("3227 1722 3832"), 0)
    events = t.full(full("3227 1722 3732"), 1)
    assert events[0] == PliesWithdrawn("Game1234", 2)
    assert isinstance(events[1], MoveConfirmed) and events[1].ply == 3


def test_no_clock_is_no_clock() -> None:
    t = tracker()
    [started] = t.full(full(clock=None, state=state(wtime=2**31 - 1, btime=2**31 - 1)), 0)
    assert isinstance(started, GameStarted) and str(started.time_control) == "-"
    assert started.clocks is not None and started.clocks.white_ms is None


@pytest.mark.parametrize("line, error", [
    (full(variant="frisian"), Unplayable),
    (full(white={"id": "x"}, black={"id": "y"}), ProtocolError),
    (full(id="Other123"), ProtocolError),
    (full(state={"type": "gameState"}), ProtocolError),
    (full(state=state(wtime="lots")), ProtocolError),
    (full(initialFen="W:W99:B1"), ProtocolError),
    (full(clock={"initial": 0, "increment": 2000}), Unplayable),
    (full("3229"), ProtocolError),
])
def test_a_full_that_cannot_be_used_is_refused(line: dict[str, Any],
                                               error: type[Exception]) -> None:
    with pytest.raises(error):
        tracker().full(line, 0)


def test_a_state_before_the_full_is_refused() -> None:
    with pytest.raises(ProtocolError, match="before the gameFull"):
        tracker().state(state(), 0)
