"""Take-back as a session operation (the ``takeback`` event: the arbiter's correction of a
misread, and an engine game's take-back): the record, the referee and the clock go back, the
LEDs show the position to restore, nothing the board shows counts until it is restored, and a
journal replayed through a fresh session gives the same game."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from support.hall_helpers import Board, RelayProcess, wait_for, write_log
from support.mqtt_broker import Mosquitto
from support.records_helpers import shapes
from support.service_helpers import PACE, TC, game_log, replayed
from test_desk_control import TOKEN, broker_state, hall_key, post

from boardctl.service.control import request as socket_request
from boardctl.service.journal_file import current_path
from firmware.errors import BoardError
from firmware.formats.events import (
    NS,
    Event,
    Lift,
    Place,
    Press,
    Result,
    Resume,
    TakeBack,
    event_from_record,
)
from firmware.pdn import read_games
from firmware.rules.notation import move_text
from firmware.rules.position import Position
from firmware.rules.sets import find_rules
from firmware.session.session import BoardSession


def played(plies: int) -> tuple[BoardSession, list[Event]]:
    events = game_log(plies, seed=4, think=(0.05, 0.2), change_mind=0.0)
    session = BoardSession("international", TC)
    for e in events:
        session.handle(e)
    assert len(session.moves) == plies
    return session, events


def restore(session: BoardSession, target: Position, at: int) -> list[dict[str, object]]:
    """The hands put the board back to ``target``: pieces off, then pieces on."""
    alg = session.rules.geometry.algebraic
    sensed = set(session.referee.sensed)
    out: list = []
    for sq in sorted(sensed - set(target.occupied())):
        at += NS // 10
        out += session.handle(Lift(at, alg(sq)))
    for sq in sorted(set(target.occupied()) - sensed):
        at += NS // 10
        out += session.handle(Place(at, alg(sq)))
    out += session.tick(at + 3 * NS)
    return shapes(out)


def test_plies_taken_back_then_restored_then_played_again() -> None:
    session, events = played(4)
    at = session.last_at + NS
    before = session.status(at)["clock"]
    target = Position.from_fen(session.rules, session.moves[1]["fen"])
    out = shapes(session.handle(TakeBack(at, 2)))
    kinds = [r["type"] for r in out]
    assert kinds == ["clock", "takeback", "irregularity"], out
    assert out[1] == {"type": "takeback", "ply": 2}
    assert out[2]["kind"] == "restore" and out[2]["leds"]  # the LEDs show what to put back
    assert session.leds() == out[2]["leds"]
    assert len(session.moves) == 2 and session.position.fen() == target.fen()
    status = session.status(at + 5 * NS)
    assert status["running"] is None and status["ply"] == 2  # stopped: the arbiter resumes
    assert status["clock"] == before  # each face keeps what it showed
    assert session.clock is not None and session.clock.turn is target.turn
    # A press before the board is restored makes no move.
    side = target.turn.value
    assert not any(r["type"] == "move" for r in shapes(session.handle(Press(at + NS, side))))
    cleared = restore(session, target, at + 2 * NS)
    assert any(r["type"] == "cleared" for r in cleared) and session.leds() == {}
    # Play goes on once the arbiter resumes: the same two plies again, by the log's hands.
    session.handle(Resume(session.last_at + NS))
    presses = [i for i, e in enumerate(events) if e.type == "press"]
    rest = events[presses[1] + 1:]  # after the press that made ply 2
    offset = session.last_at + NS - rest[0].at
    for e in rest:
        session.handle(replace(e, at=e.at + offset))
    assert [m["move"] for m in session.moves] == [m["move"] for m in played(4)[0].moves]


def test_more_plies_than_the_game_has_change_nothing() -> None:
    session, _ = played(2)
    fen = session.position.fen()
    with pytest.raises(BoardError, match="2 plies can be taken back"):
        session.handle(TakeBack(session.last_at + NS, 3))
    assert session.position.fen() == fen and len(session.moves) == 2
    assert session.leds() == {}


def test_a_result_is_withdrawn_and_the_game_goes_on() -> None:
    session, _ = played(3)
    session.handle(Result(session.last_at + NS, "2-0", "resignation"))
    assert session.result is not None
    session.handle(TakeBack(session.last_at + NS, 1))
    assert session.result is None and len(session.moves) == 2 and not session.referee.over


def test_a_board_already_restored_has_nothing_to_show() -> None:
    """An engine game's take-back: the player restored the board first, so the position is
    there at once: no irregularity, the LEDs dark."""
    session, _ = played(2)
    target = Position.from_fen(session.rules, session.moves[0]["fen"])
    restore(session, target, session.last_at)
    out = shapes(session.handle(TakeBack(session.last_at + NS, 1)))
    assert [r["type"] for r in out] == ["clock", "takeback"] and session.leds() == {}


def test_the_journal_replays_a_takeback() -> None:
    session, events = played(4)
    at = session.last_at + NS
    log = [*events, TakeBack(at, 1)]
    again = BoardSession("international", TC)
    for e in log:
        again.handle(e)
    session.handle(TakeBack(at, 1))
    assert again.position.fen() == session.position.fen()
    assert again.moves == session.moves and again.leds() == session.leds()
    assert TakeBack(at, 3).record() == {"type": "takeback", "t": at / NS, "plies": 3}


def test_a_takeback_from_the_desk_seen_through_to_the_pdn(mosquitto: Mosquitto,
                                                          tmp_path: Path) -> None:
    """A real board, relay and broker: the desk takes a misread ply back; the board's LEDs
    show the position to restore and its journal records the takeback; the relay's PDN holds
    the game again without it, tags unchanged; the board put back and another move played,
    the PDN has that move."""
    key = hall_key(tmp_path)
    events = game_log(4, seed=5, think=(0.02, 0.06), change_mind=0.0, pace=PACE)
    moves = replayed(events).moves
    relay = RelayProcess(mosquitto.url, "H", tmp_path, "--arbiter-token", TOKEN,
                         "--hall-key", str(key))
    board = Board(mosquitto.url, "H", "b1", tmp_path / "b1",
                  write_log(tmp_path / "b1.jsonl", events), "--hall-key", str(key),
                  "--white", "Ann Aas", "--black", "Bert Berg", "--round", "3")
    sock = board.state / "control.sock"

    def pdn_game() -> Any:
        games = list(read_games(relay.get("/H.pdn")[1].decode(), "H.pdn"))
        return games[0] if len(games) == 1 else None

    try:
        relay.start()
        board.start()
        wait_for(lambda: broker_state(board) == "ready", 60, "b1 on the broker")
        wait_for(lambda: (g := pdn_game()) is not None and len(g.moves) == 4, 60, "4 plies")
        tags = dict(pdn_game().tags)
        code, answer = post(relay, "b1", {"cmd": "takeback", "plies": 1})
        assert code == 200 and answer["ok"], answer
        assert answer["ply"] == 3 and answer["irregularity"] == "restore" and answer["leds"]
        wait_for(lambda: len(pdn_game().moves) == 3, 30, "the PDN without the ply")
        game = pdn_game()
        assert dict(game.tags) == tags and [m.text for m in game.moves] == [
            m["move"] for m in moves[:3]]
        journal = current_path(board.state)
        assert journal is not None and '"type":"takeback"' in journal.read_text()
        # The journal holds it: a restarted board comes back to the same game.
        board.stop()
        board.start()
        wait_for(lambda: broker_state(board) == "ready", 60, "b1 back on the broker")
        assert socket_request(sock, "status")["moves"] == [m["move"] for m in moves[:3]]

        # The board put back as the LEDs show, the clocks resumed, another reply played.
        target = Position.from_fen(find_rules("international"), moves[2]["fen"])
        alg = target.rules.geometry.algebraic
        number = target.rules.geometry.number
        lit = sorted(answer["leds"], key=lambda sq: target.piece_at(number(sq)) is not None)
        for square in lit:  # off what is extra, then on what is missing
            act = "place" if target.piece_at(number(square)) is not None else "lift"
            socket_request(sock, "sim", type=act, square=square)
        wait_for(lambda: socket_request(sock, "status")["leds"] == {}, 30, "the board restored")
        assert socket_request(sock, "resume")["running"] == target.turn.value
        reply = next(m for m in target.legal_moves() if move_text(target, m) != moves[3]["move"])
        for sq in (reply.start, *reply.captured):
            socket_request(sock, "sim", type="lift", square=alg(sq))
        socket_request(sock, "sim", type="place", square=alg(reply.end))
        socket_request(sock, "sim", type="press", side=target.turn.value)
        wait_for(lambda: len(pdn_game().moves) == 4, 30, "the new ply on the PDN")
        assert pdn_game().moves[3].text == move_text(target, reply)
        assert dict(pdn_game().tags) == tags
    finally:
        board.stop()
        relay.stop()


def test_a_player_s_takeback_against_the_engine_keeps_his_clock_running() -> None:
    """``stop`` False (an engine game's take-back): the clock of the side now to move runs on
    from what it showed; the journal says so and replays it."""
    session, events = played(4)
    at = session.last_at + NS
    before = session.status(at)["clock"]
    event = TakeBack(at, 2, stop=False)
    session.handle(event)
    assert session.clock is not None and session.clock.running is session.position.turn
    now = session.status(at + 2 * NS)["clock"]
    side = session.position.turn.value
    assert round(before[side] - now[side], 3) == 2.0  # his clock ran on
    assert event.record()["stop"] is False and "stop" not in TakeBack(at, 2).record()
    again = BoardSession("international", TC)
    for e in [*events, event_from_record(event.record())]:
        again.handle(e)
    assert again.clock is not None and again.clock.running is session.position.turn
