"""Whole games against the stand-in server (tests/support/lidraughts_standin.py), the test
playing the board's side as the player will: it waits for the link's events and calls ``link.game``.
The stand-in's clock is the test's (``clock.advance``), never the wall's."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from conftest import Events
from support.lidraughts_standin import LidraughtsStandin

from boardctl.online.events import (
    ChallengeAnswered,
    DrawDeclined,
    DrawOffered,
    EndReason,
    GameEnded,
    GameStarted,
    MoveConfirmed,
    MoveRefused,
    OpponentMoved,
    RequestRefused,
)
from boardctl.online.game import OnlineGame
from boardctl.online.moves import li_route, li_steps
from firmware.pdn import read_games
from firmware.rules.game import parse_result, result_text
from firmware.rules.position import Move
from firmware.rules.sets import Side

GAMES = Path(__file__).resolve().parents[1] / "data" / "pdn"
Connect = Callable[..., Events]


@dataclass
class Opened:
    """A game the board plays on the stand-in: the link's events, its game, the game's id."""

    events: Events
    game: OnlineGame
    gid: str
    started: GameStarted


def open_game(standin: LidraughtsStandin, connect: Connect, side: Side = Side.WHITE,
              move: Move | None = None, reply: str | None = None, rules: str = "international",
              **create: Any) -> Opened:
    """Connect, the stand-in's game with the board on ``side``, its ``GameStarted``, the
    link's game; with ``move``: the board's first move posted and confirmed (``reply``, the
    opponent's scripted answer, seen too)."""
    events = connect(rules=rules)
    gid = standin.create_game(bot_side=side, **create).id
    started = events.wait(GameStarted)
    game = events.link.game
    assert game is not None and started.game_id == gid
    if reply is not None:
        standin.script(gid, [reply])
    if move is not None:
        game.post_move(move)
        events.wait(MoveConfirmed)
        if reply is not None:
            events.wait(OpponentMoved)
    return Opened(events, game, gid, started)


def real_game(name: str, index: int) -> tuple[list[Move], str]:
    game = list(read_games((GAMES / name).read_text(encoding="utf-8"), name))[index]
    return game.replay().moves, game.tags["Result"]


def play_out(events: Events, standin: LidraughtsStandin, gid: str, side: Side,
             moves: list[Move], offer_draw: bool = False) -> None:
    """The board plays its side of ``moves`` (offering a draw with its last move); the
    stand-in's script the other."""
    theirs = [li_route(m) for i, m in enumerate(moves) if (i % 2 == 0) != (side is Side.WHITE)]
    standin.script(gid, theirs)
    game = events.link.game
    assert game is not None
    last = max(i for i in range(1, len(moves) + 1) if (i % 2 == 1) == (side is Side.WHITE))
    for ply, move in enumerate(moves, 1):
        mover = Side.WHITE if ply % 2 else Side.BLACK
        if mover is side:
            if offer_draw and ply == last:
                game.offer_draw()
            game.post_move(move)
            got: MoveConfirmed | OpponentMoved = events.wait(MoveConfirmed)
        else:
            got = events.wait(OpponentMoved)
        assert (got.ply, got.move.key) == (ply, move.key)


@pytest.mark.parametrize("name, index, side", [
    ("international-world-championship-2003.pdn", 0, Side.WHITE),
    ("international-world-championship-2003.pdn", 1, Side.BLACK),
    ("russian-ussr-championship-1947.pdn", 0, Side.BLACK),
    ("russian-ussr-championship-1947.pdn", 2, Side.WHITE),
])
def test_a_real_game_to_its_result(standin: LidraughtsStandin, connect: Connect, name: str,
                                   index: int, side: Side) -> None:
    moves, result = real_game(name, index)
    variant = "standard" if "international" in name else "russian"
    opened = open_game(standin, connect, side, variant=variant,
                       rules="international" if variant == "standard" else "russian")
    events, game, gid, started = opened.events, opened.game, opened.gid, opened.started
    assert (started.side, started.plies) == (side, ())
    winner, _ = parse_result(result)
    play_out(events, standin, gid, side, moves, offer_draw=winner is None)
    if winner is None:
        standin.answer_draw(gid, accept=True)
    elif winner is side:
        standin.resign(gid)
    else:
        game.resign()
    ended = events.wait(GameEnded)
    assert (ended.winner, ended.result) == (winner, result_text(started.rules, winner))
    server = standin.games[gid]
    assert [m.key for m in server.plies] == [m.key for m in moves]
    posted = [path.rsplit("/", 1)[1].split("?")[0] for method, path, _ in standin.requests
              if "/move/" in path]
    ours = [s for i, m in enumerate(moves) if (i % 2 == 0) == (side is Side.WHITE)
            for s in li_steps(m)]
    assert posted == ours  # every step once, none twice
    assert events.of(MoveRefused) == []


@pytest.mark.parametrize("status_in_state", [False, True])
def test_the_opponent_flags_by_the_server_s_clock(standin: LidraughtsStandin, connect: Connect,
                                                  status_in_state: bool) -> None:
    standin.status_in_state = status_in_state
    opened = open_game(standin, connect, limit_s=60, increment_s=2)
    events, game, gid = opened.events, opened.game, opened.gid
    standin.script(gid, ["1722"])
    game.post_move(Move((32, 27)))
    events.wait(MoveConfirmed)
    moved = events.wait(OpponentMoved)
    standin.clock.advance(7)
    game.post_move(Move((38, 32)))
    confirmed = events.wait(MoveConfirmed)
    assert confirmed.clocks is not None and confirmed.clocks.white_ms == 60_000 - 7_000 + 2_000
    assert moved.clocks is not None and moved.clocks.running is Side.WHITE
    standin.clock.advance(61.9)  # black has 62 s: its move and its increment
    standin.tick()
    assert standin.games[gid].status == "started"
    standin.clock.advance(0.1)
    standin.tick()
    ended = events.wait(GameEnded)
    assert (ended.reason, ended.winner, ended.result) == (EndReason.FLAG, Side.WHITE, "2-0")


def test_the_board_flags_when_its_person_does_not_move(standin: LidraughtsStandin,
                                                       connect: Connect) -> None:
    opened = open_game(standin, connect, Side.BLACK, limit_s=60)
    events, gid = opened.events, opened.gid
    standin.play(gid, "3228")
    events.wait(OpponentMoved)
    standin.clock.advance(61)
    standin.tick()
    ended = events.wait(GameEnded)
    assert (ended.reason, ended.winner) == (EndReason.FLAG, Side.WHITE)


@pytest.mark.parametrize("status_in_state", [False, True])
def test_resignation_both_ways(standin: LidraughtsStandin, connect: Connect,
                               status_in_state: bool) -> None:
    standin.status_in_state = status_in_state
    opened = open_game(standin, connect, move=Move((32, 27)), reply="1722")
    events, game, first = opened.events, opened.game, opened.gid
    game.resign()
    ended = events.wait(GameEnded)
    assert (ended.game_id, ended.reason, ended.winner, ended.result) == (
        first, EndReason.RESIGNATION, Side.BLACK, "0-2")
    second = standin.create_game(bot_side=Side.BLACK).id
    started = events.wait(GameStarted)
    assert started.game_id == second and events.link.game is not game
    standin.play(second, "3228")
    events.wait(OpponentMoved)
    standin.resign(second)
    ended = events.wait(GameEnded)
    assert (ended.game_id, ended.reason, ended.winner) == (second, EndReason.RESIGNATION,
                                                           Side.BLACK)


def test_resigning_before_the_second_ply_aborts(standin: LidraughtsStandin,
                                                connect: Connect) -> None:
    opened = open_game(standin, connect)
    opened.game.resign()
    ended = opened.events.wait(GameEnded)
    assert (ended.reason, ended.result, ended.winner) == (EndReason.ABORT, "*", None)


def test_the_board_takes_up_the_opponent_s_draw_offer(standin: LidraughtsStandin,
                                                      connect: Connect) -> None:
    opened = open_game(standin, connect, move=Move((32, 27)))
    events, game, gid = opened.events, opened.game, opened.gid
    standin.offer_draw(gid)
    standin.play(gid, "1722")  # the offer is seen with the move
    offered = events.wait(DrawOffered)
    assert offered.by is Side.BLACK
    game.answer_draw(True)
    ended = events.wait(GameEnded)
    assert (ended.reason, ended.winner, ended.result) == (EndReason.DRAW, None, "1-1")
    assert len(standin.games[gid].plies) == 2  # accepting played nothing
    assert events.of(RequestRefused) == []


def test_the_board_s_draw_offer_rides_on_its_move(standin: LidraughtsStandin,
                                                  connect: Connect) -> None:
    opened = open_game(standin, connect)
    events, game, gid = opened.events, opened.game, opened.gid
    game.offer_draw()
    game.post_move(Move((32, 27)))
    events.wait(MoveConfirmed)
    assert standin.games[gid].offers == {Side.WHITE}
    assert any("offeringDraw=true" in path for _, path, _ in standin.requests)
    standin.play(gid, "1722")  # moving declines it
    declined = events.wait(DrawDeclined)
    assert declined.by is Side.BLACK
    game.offer_draw()
    game.post_move(Move((38, 32)))
    events.wait(MoveConfirmed)
    standin.answer_draw(gid, accept=True)
    ended = events.wait(GameEnded)
    assert ended.reason is EndReason.DRAW


def test_accepting_no_offer_is_refused_and_plays_nothing(standin: LidraughtsStandin,
                                                         connect: Connect) -> None:
    opened = open_game(standin, connect)
    opened.game.answer_draw(True)
    refused = opened.events.wait(RequestRefused)
    assert "no draw offer" in refused.reason and not standin.games[opened.gid].over


def test_an_illegal_move_is_a_refusal_not_an_exception(standin: LidraughtsStandin,
                                                       connect: Connect) -> None:
    opened = open_game(standin, connect)
    events, game, gid = opened.events, opened.game, opened.gid
    game.post_move(Move((32, 29)))
    refused = events.wait(MoveRefused)
    assert (refused.ply, refused.reason) == (1, "Piece on 32 cannot move to 29")
    game.post_move(Move((32, 28)))  # the game goes on
    assert events.wait(MoveConfirmed).ply == 1
    assert len(standin.games[gid].plies) == 1


def test_a_move_out_of_turn_is_refused_before_it_is_sent(standin: LidraughtsStandin,
                                                         connect: Connect) -> None:
    opened = open_game(standin, connect, Side.BLACK)
    opened.game.post_move(Move((19, 23)))
    refused = opened.events.wait(MoveRefused)
    assert "not the board's turn" in refused.reason
    assert not any("/move/" in path for _, path, _ in standin.requests)


def test_a_multi_capture_goes_a_step_at_a_time(standin: LidraughtsStandin,
                                               connect: Connect) -> None:
    opened = open_game(standin, connect, fen="W:WK46,50:B37,19,3")
    events, game, gid = opened.events, opened.game, opened.gid
    assert opened.started.initial_fen == "W:WK46,50:B37,19,3"
    assert game.view is not None
    [move] = [m for m in game.view.position.legal_moves() if m.end == 10]
    game.post_move(move)
    confirmed = events.wait(MoveConfirmed)
    assert confirmed.move.captured == (37, 19)
    assert standin.games[gid].entries == ["4632", "3210"]


def test_a_game_started_as_another_ends_is_played_next(standin: LidraughtsStandin,
                                                       connect: Connect) -> None:
    opened = open_game(standin, connect)
    events, first = opened.events, opened.gid
    second = standin.create_game(bot_side=Side.BLACK).id  # a rematch, say, before the end
    standin.send_challenge("bob")  # read after the gameStart: its answer says that was read
    assert events.wait(ChallengeAnswered).reason == "the board is playing a game"
    assert events.link.game is not None and events.link.game.game_id == first
    standin.resign(first)
    assert events.wait(GameEnded).game_id == first
    started = events.wait(GameStarted)
    assert (started.game_id, started.side) == (second, Side.BLACK)


def test_abort_only_while_lidraughts_allows_it(standin: LidraughtsStandin,
                                               connect: Connect) -> None:
    opened = open_game(standin, connect, move=Move((32, 27)), reply="1722")
    events, game, gid = opened.events, opened.game, opened.gid
    game.abort()
    refused = events.wait(RequestRefused)
    assert (refused.request, refused.reason) == ("abort", "This game can no longer be aborted")
    second = standin.create_game(bot_side=Side.BLACK).id
    standin.resign(gid)
    events.wait(GameEnded)
    assert events.wait(GameStarted).game_id == second
    assert events.link.game is not None
    events.link.game.abort()
    ended = events.wait(GameEnded)
    assert (ended.game_id, ended.reason, ended.result) == (second, EndReason.ABORT, "*")
