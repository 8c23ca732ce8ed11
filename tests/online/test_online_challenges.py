"""Challenges against the stand-in: taken or declined as ``--online-accept`` and the board
say, with the reason lidraughts knows; the board's own challenge with its clock and variant."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from conftest import Events
from support.lidraughts_standin import LidraughtsStandin

from boardctl.online.errors import OnlineError
from boardctl.online.events import ChallengeAnswered, ChallengeSent, GameStarted
from boardctl.online.variants import ClockSetting
from firmware.rules.sets import Side

Connect = Callable[..., Events]


def test_anyone_s_challenge_starts_a_game(standin: LidraughtsStandin, connect: Connect) -> None:
    events = connect()
    c = standin.send_challenge("bob", limit_s=600, increment_s=5, color="white")
    answered = events.wait(ChallengeAnswered)
    assert (answered.challenge_id, answered.accepted, answered.clock) == (c.id, True, "10+5")
    started = events.wait(GameStarted)
    assert (started.game_id, started.side, str(started.time_control)) == (c.id, Side.BLACK,
                                                                          "600+5")
    assert str(started.opponent) == "Bob (1500)"
    assert standin.challenges[c.id].status == "accepted"


def test_only_the_named_users_are_taken(standin: LidraughtsStandin, connect: Connect) -> None:
    events = connect(accept="Alice")
    bob = standin.send_challenge("bob")
    declined = events.wait(ChallengeAnswered)
    assert (declined.challenge_id, declined.accepted) == (bob.id, False)
    assert "not among the accepted users" in declined.reason
    assert (standin.challenges[bob.id].status, standin.challenges[bob.id].reason) == (
        "declined", "generic")
    alice = standin.send_challenge("alice")
    assert events.wait(ChallengeAnswered).accepted
    assert events.wait(GameStarted).game_id == alice.id


@pytest.mark.parametrize("challenge, key, words", [
    ({"variant": "frisian"}, "variant", "Frisian is not played"),
    ({"variant": "russian"}, "variant", "played on 8x8, the board is 10x10"),
    ({"kind": "correspondence"}, "timeControl", "correspondence games"),
    ({"limit_s": 15, "increment_s": 0}, "tooFast", "too fast"),
    ({"limit_s": 0, "increment_s": 3}, "timeControl", "starts at 0"),
])
def test_what_the_board_cannot_play_is_declined_with_its_reason(
        standin: LidraughtsStandin, connect: Connect, challenge: dict[str, object], key: str,
        words: str) -> None:
    events = connect()
    c = standin.send_challenge("alice", **challenge)  # type: ignore[arg-type]
    answered = events.wait(ChallengeAnswered)
    assert not answered.accepted and words in answered.reason
    assert (standin.challenges[c.id].status, standin.challenges[c.id].reason) == ("declined",
                                                                                  key)
    assert not standin.games


def test_an_8x8_board_takes_russian_and_declines_international(
        standin: LidraughtsStandin, connect: Connect) -> None:
    events = connect(rules="russian")
    standin.send_challenge("alice", variant="standard")
    assert not events.wait(ChallengeAnswered).accepted
    c = standin.send_challenge("alice", variant="russian")
    assert events.wait(ChallengeAnswered).accepted
    started = events.wait(GameStarted)
    assert (started.game_id, started.rules.name) == (c.id, "russian")


def test_a_busy_board_asks_for_later(standin: LidraughtsStandin, connect: Connect) -> None:
    events = connect()
    standin.create_game(bot_side=Side.WHITE)
    events.wait(GameStarted)
    c = standin.send_challenge("bob")
    assert not events.wait(ChallengeAnswered).accepted
    assert standin.challenges[c.id].reason == "later"


def test_challenges_waiting_when_the_link_starts_are_answered(standin: LidraughtsStandin,
                                                              connect: Connect) -> None:
    c = standin.send_challenge("alice")  # before the board is online
    events = connect()
    assert events.wait(ChallengeAnswered).challenge_id == c.id
    assert events.wait(GameStarted).game_id == c.id


def test_a_game_under_way_is_found_again_when_the_link_starts(standin: LidraughtsStandin,
                                                              connect: Connect) -> None:
    game = standin.create_game(bot_side=Side.BLACK)
    standin.play(game.id, "3227")
    events = connect()
    started = events.wait(GameStarted)
    assert started.game_id == game.id and [str(m) for m in started.plies] == ["32-27"]


def test_the_board_challenges_a_user(standin: LidraughtsStandin, connect: Connect) -> None:
    events = connect(challenge="alice", time_control="5+3")
    sent = events.wait(ChallengeSent)
    assert sent.user == "alice" and sent.challenge_id and not sent.refused
    c = standin.challenges[sent.challenge_id]
    assert (c.variant, c.time_control, c.rated, c.color) == (
        "standard", {"type": "clock", "limit": 300, "increment": 3}, False, "random")
    standin.accept_outgoing(sent.challenge_id)
    started = events.wait(GameStarted)
    assert (started.game_id, str(started.time_control)) == (sent.challenge_id, "300+3")


def test_a_challenge_the_server_refuses_is_told(standin: LidraughtsStandin,
                                                connect: Connect) -> None:
    events = connect(challenge="nobody", time_control="5+3")
    sent = events.wait(ChallengeSent)
    assert (sent.challenge_id, sent.refused) == (None, "No such user")


def test_a_challenge_whose_answer_was_lost_is_not_sent_twice(standin: LidraughtsStandin,
                                                             connect: Connect) -> None:
    standin.lose_next_answer("challenge")
    events = connect(challenge="alice", time_control="5+3", rules="russian")
    sent = events.wait(ChallengeSent)
    assert sent.challenge_id is None and "no answer" in sent.refused
    [c] = standin.challenges.values()
    assert c.variant == "russian"


def test_a_challenge_to_a_name_that_is_no_user_name_is_refused_here(
        standin: LidraughtsStandin, connect: Connect) -> None:
    events = connect()
    with pytest.raises(OnlineError, match="not a lidraughts user name"):
        events.link.challenge("../../api/account", ClockSetting(300, 0), "international")
    with pytest.raises(OnlineError, match="no variant"):
        events.link.challenge("alice", ClockSetting(300, 0), "home")
