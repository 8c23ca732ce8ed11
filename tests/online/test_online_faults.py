"""Faults injected by the stand-in: a connection cut mid-game and right after a move was
posted, a server restart, a proxy answering 503, a garbage line and an over-long one, a wrong
or revoked token, an account that is not a BOT. No move is lost or sent twice; a dead token
is one log line and no more requests."""

from __future__ import annotations

import logging
from collections.abc import Callable

import pytest
from conftest import Events
from support.lidraughts_standin import LidraughtsStandin

from boardctl.online.events import (
    EndReason,
    GameEnded,
    GameStarted,
    LinkDown,
    LinkFailed,
    LinkUp,
    MoveConfirmed,
    MoveRefused,
    OpponentMoved,
)
from boardctl.online.game import OnlineGame
from firmware.rules.position import Move
from firmware.rules.sets import Side

Connect = Callable[..., Events]
OPENING = ["3227", "1722", "3832", "1924", "4338", "2430"]  # lidraughts' API example


def move(text: str) -> Move:
    return Move((int(text[:2]), int(text[2:])))


def move_posts(standin: LidraughtsStandin) -> list[str]:
    return [path.split("/move/")[1].split("?")[0] for method, path, _ in standin.requests
            if "/move/" in path]


def begin(standin: LidraughtsStandin, connect: Connect) -> tuple[Events, str, OnlineGame]:
    """A link on a game the bot plays white, the opponent's replies to OPENING scripted."""
    events = connect()
    gid = standin.create_game(bot_side=Side.WHITE).id
    events.wait(GameStarted)
    standin.script(gid, OPENING[1::2])
    game = events.link.game
    assert game is not None
    return events, gid, game


def plies_told(events: Events) -> list[tuple[int, tuple[int, ...]]]:
    return [(e.ply, e.move.route) for e in events.seen
            if isinstance(e, MoveConfirmed | OpponentMoved)]


def test_a_stream_cut_mid_game_is_resumed_with_nothing_lost(standin: LidraughtsStandin,
                                                            connect: Connect) -> None:
    events, gid, game = begin(standin, connect)
    game.post_move(move("3227"))
    events.wait(OpponentMoved)
    standin.unavailable = True  # the stream cannot come back until the test says so
    standin.cut_streams()
    events.wait(LinkDown, lambda e: e.game_id == gid)
    game.post_move(move("3832"))  # the person moved while the link was down
    standin.unavailable = False
    events.wait(LinkUp, lambda e: e.game_id == gid)
    events.wait(OpponentMoved, lambda e: e.ply == 4)
    assert plies_told(events) == [(1, (32, 27)), (2, (17, 22)), (3, (38, 32)), (4, (19, 24))]
    assert move_posts(standin) == ["3227", "3832"]


def test_a_move_whose_answer_was_lost_is_not_sent_again(standin: LidraughtsStandin,
                                                        connect: Connect) -> None:
    events, gid, game = begin(standin, connect)
    standin.lose_next_answer("move")
    game.post_move(move("3227"))
    confirmed = events.wait(MoveConfirmed)
    assert confirmed.ply == 1
    events.wait(OpponentMoved, lambda e: e.ply == 2)
    game.post_move(move("3832"))
    events.wait(OpponentMoved, lambda e: e.ply == 4)
    assert move_posts(standin) == ["3227", "3832"]
    assert [e.ply for e in events.seen if isinstance(e, MoveConfirmed)] == [1, 3]
    assert events.of(MoveRefused) == []


def test_the_lost_answer_of_a_capture_s_first_step_sends_only_the_rest(
        standin: LidraughtsStandin, connect: Connect) -> None:
    events = connect()
    gid = standin.create_game(bot_side=Side.WHITE, fen="W:WK46,50:B37,19,3").id
    events.wait(GameStarted)
    game = events.link.game
    assert game is not None and game.view is not None
    [capture] = [m for m in game.view.position.legal_moves() if m.end == 10]
    standin.lose_next_answer("move")
    game.post_move(capture)
    assert events.wait(MoveConfirmed).move.captured == (37, 19)
    assert move_posts(standin) == ["4632", "3210"]
    assert standin.games[gid].entries == ["4632", "3210"]


def test_a_move_the_server_never_got_is_sent_once_it_is_back(standin: LidraughtsStandin,
                                                            connect: Connect) -> None:
    events, gid, game = begin(standin, connect)
    standin.unavailable = True  # a proxy answers 503: the move did not land
    game.post_move(move("3227"))
    standin.wait_for(lambda: any(path.endswith("/move/3227") for _, path, _ in
                                 standin.requests))
    assert standin.games[gid].plies == []
    standin.unavailable = False
    assert events.wait(MoveConfirmed).ply == 1
    events.wait(OpponentMoved, lambda e: e.ply == 2)
    assert standin.games[gid].entries == ["3227", "1722"]  # it landed once
    assert [e.ply for e in events.of(MoveConfirmed)] == [1]
    assert events.of(MoveRefused) == []


def test_a_server_restart_mid_game(standin: LidraughtsStandin, connect: Connect) -> None:
    events, gid, game = begin(standin, connect)
    game.post_move(move("3227"))
    events.wait(OpponentMoved)
    standin.stop()  # connections refused while it is down
    events.wait(LinkDown, lambda e: e.game_id == gid)
    events.wait(LinkDown, lambda e: e.game_id is None)
    game.post_move(move("3832"))
    standin.start()
    events.wait(LinkUp, lambda e: e.game_id == gid)
    events.wait(OpponentMoved, lambda e: e.ply == 4)
    game.post_move(move("4338"))
    events.wait(OpponentMoved, lambda e: e.ply == 6)
    assert [p for p, _ in plies_told(events)] == [1, 2, 3, 4, 5, 6]
    assert move_posts(standin).count("3832") == 1
    standin.resign(gid)
    assert events.wait(GameEnded).winner is Side.WHITE


@pytest.mark.parametrize("line", [b"this is not json {", b"x" * 200_000,
                                  b'{"type": "gameState", "moves": "3229"}',
                                  b'{"type": "gameState"}'])
def test_a_bad_line_is_named_once_and_the_game_read_again(
        standin: LidraughtsStandin, connect: Connect, line: bytes,
        caplog: pytest.LogCaptureFixture) -> None:
    events, gid, game = begin(standin, connect)
    game.post_move(move("3227"))
    events.wait(OpponentMoved)
    with caplog.at_level(logging.DEBUG, logger="boardctl.online"):
        standin.send_line(line)
        events.wait(LinkUp, lambda e: e.game_id == gid)
        standin.send_line(line)
        events.wait(LinkUp, lambda e: e.game_id == gid)
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1 and "skipped" in warnings[0].getMessage()
    assert len(warnings[0].getMessage()) < 300  # named, not dumped
    game.post_move(move("3832"))
    events.wait(OpponentMoved, lambda e: e.ply == 4)
    assert [p for p, _ in plies_told(events)] == [1, 2, 3, 4]


def test_garbage_on_the_event_stream_loses_no_challenge(standin: LidraughtsStandin,
                                                        connect: Connect) -> None:
    events = connect()
    standin.wait_for(lambda: standin.streams_open("event") == 1)
    standin.send_line(b"\x00\xff garbage", kind="event")
    events.wait(LinkUp, lambda e: e.game_id is None)
    standin.create_game(bot_side=Side.BLACK)
    assert events.wait(GameStarted).side is Side.BLACK


def test_a_wrong_token_is_one_line_and_no_more_requests(
        standin: LidraughtsStandin, connect: Connect,
        caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.INFO, logger="boardctl.online"):
        events = connect(token="not-the-token")
        failed = events.wait(LinkFailed)
        events.link.close()
    assert "401" in failed.reason and "not-the-token" not in failed.reason
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert len(errors) == 1 and "offline" in errors[0].getMessage()
    assert "not-the-token" not in caplog.text
    assert [path for _, path, _ in standin.requests] == ["/api/account"]
    assert events.link.failed


def test_a_token_revoked_mid_game_stops_the_link(standin: LidraughtsStandin,
                                                 connect: Connect) -> None:
    events, gid, game = begin(standin, connect)
    game.post_move(move("3227"))
    events.wait(OpponentMoved)
    standin.token = "revoked"
    standin.cut_streams()
    failed = events.wait(LinkFailed)
    assert "refused the token" in failed.reason
    events.link.close()
    count = len(standin.requests)
    game.post_move(move("3832"))  # after the link stopped: nothing goes out
    assert len(standin.requests) == count
    assert len(events.of(LinkFailed)) == 1


def test_an_account_that_is_not_a_bot_is_refused(connect: Connect,
                                                 standin: LidraughtsStandin) -> None:
    standin.bot_title = None
    events = connect()
    assert "not a BOT account" in events.wait(LinkFailed).reason


def test_lidraughts_oauth_server_offline_is_waited_out(standin: LidraughtsStandin,
                                                       connect: Connect) -> None:
    standin.oauth_offline = 2  # the account check, then again
    events, gid, game = begin(standin, connect)
    standin.oauth_offline = 1  # the move's request
    game.post_move(move("3227"))
    assert events.wait(MoveConfirmed).ply == 1
    assert standin.games[gid].entries[:1] == ["3227"]
    assert events.of(LinkFailed) == [] and events.of(MoveRefused) == []


def test_a_game_the_server_does_not_have_ends_as_gone(standin: LidraughtsStandin,
                                                      connect: Connect) -> None:
    events = connect()
    standin.wait_for(lambda: standin.streams_open("event") == 1)
    standin.send_line(b'{"type":"gameStart","game":{"id":"Nosuch12"}}', kind="event")
    ended = events.wait(GameEnded)
    assert (ended.game_id, ended.reason, ended.result) == ("Nosuch12", EndReason.GONE, "*")
    standin.create_game(bot_side=Side.WHITE)  # the board is free for the next
    events.wait(GameStarted)


def test_a_stream_silent_past_its_keepalives_is_taken_as_lost(standin: LidraughtsStandin,
                                                              connect: Connect) -> None:
    standin.keepalive_s = 60.0  # the server goes silent: no keep-alive lines
    events = connect(idle=0.3)
    gid = standin.create_game(bot_side=Side.WHITE).id
    events.wait(GameStarted)
    down = events.wait(LinkDown, lambda e: e.game_id == gid)
    assert down.reason.endswith("timed out")
    events.wait(LinkUp, lambda e: e.game_id == gid)
    standin.keepalive_s = 1.0
    assert events.link.game is not None
    events.link.game.post_move(move("3227"))
    assert events.wait(MoveConfirmed).ply == 1
