"""The Hub client (boardctl.engine.client): real engines (the built-in one, dame) and hostile
scripts that exit, die, hang, lie and print garbage: each gives a one-line error reply."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest

from boardctl.engine.client import (
    EngineClient,
    EngineReply,
    EngineSpec,
    EngineSpecError,
    ThinkRequest,
    parse_engine,
)
from firmware.rules.game import Game

HOSTILE = str(Path(__file__).with_name("hostile_engine.py"))


def _client(mode: str, **kw: float) -> EngineClient:
    spec = EngineSpec((sys.executable, HOSTILE, mode), f"hostile-{mode}")
    return EngineClient(spec, handshake_timeout=kw.get("handshake", 20.0),
                        grace=kw.get("grace", 0.5))


def _reply(client: EngineClient) -> EngineReply:
    return client.replies.get(timeout=30)


def test_parse_engine() -> None:
    spec = parse_engine("hub:'/opt/my scan/scan' hub", "russian")
    assert spec.argv == ("/opt/my scan/scan", "hub") and spec.name == "scan"
    builtin = parse_engine("builtin", "russian", "3")
    assert builtin.argv[-4:] == ("--rules", "russian", "--level", "3") and builtin.builtin
    for bad in ("hub:", "hub:'unclosed", "stockfish", ""):
        with pytest.raises(EngineSpecError):
            parse_engine(bad, "russian")


@pytest.mark.parametrize(("mode", "words"), [
    ("exit", "exited during its start"),
    ("die", "exited (code 4) while thinking"),
    ("hang", "did not answer in time"),
    ("mute", "did not answer 'wait' in time"),
    ("lie", "not legal here"),
    ("garbage", "not legal here"),
])
def test_hostile_engines_give_one_line_errors(mode: str, words: str) -> None:
    client = _client(mode, handshake=1.0 if mode == "mute" else 20.0)
    try:
        game = Game("international")
        client.think(ThinkRequest(game, move_time=0.1))
        reply = _reply(client)
        assert reply.move is None and reply.error is not None
        assert words in reply.error and "\n" not in reply.error
        assert client.last_error == reply.error
    finally:
        client.close()
    assert client.pid is None


def test_a_dead_engine_is_restarted_at_the_next_request() -> None:
    client = _client("die")
    try:
        game = Game("international")
        client.think(ThinkRequest(game, move_time=0.1))
        first = _reply(client)
        assert first.error is not None
        client.spec = EngineSpec((sys.executable, HOSTILE, "good"), "hostile-good")
        number = client.think(ThinkRequest(game, move_time=0.1))
        second = _reply(client)
        assert second.request == number and second.move in game.position.legal_moves()
    finally:
        client.close()


def test_missing_engine() -> None:
    client = EngineClient(EngineSpec(("/nonexistent/engine", "hub"), "engine"))
    try:
        client.think(ThinkRequest(Game("russian"), move_time=0.1))
        reply = _reply(client)
        assert reply.error is not None and "cannot start" in reply.error
    finally:
        client.close()


def test_cancel_and_new_request_get_only_the_new_reply() -> None:
    client = EngineClient(parse_engine("builtin", "russian"))
    try:
        game = Game("russian")
        client.think(ThinkRequest(game, depth=60))  # would think for long
        client.cancel()
        number = client.think(ThinkRequest(game, move_time=0.05))
        reply = _reply(client)
        assert reply.request == number and reply.move in game.position.legal_moves()
        assert client.replies.empty()
        assert client.engine_id.get("name") == "boardctl"
        pid = client.pid
        assert pid is not None  # the engine runs at a lower priority than this process
        assert os.getpriority(os.PRIO_PROCESS, pid) == max(10, os.getpriority(os.PRIO_PROCESS, 0))
    finally:
        client.close()
    assert client.pid is None


def test_a_game_between_the_builtin_engine_and_dame() -> None:
    dame = shutil.which("dame", path=str(Path(sys.executable).parent)) or shutil.which("dame")
    if dame is None:
        pytest.fail("dame-rs is not installed (pip install -e '.[test]' installs it)")
    game = Game("international")
    # a generous grace: the test is about a whole game played legally, not about time on a
    # machine whose cores other tests share (the deadline itself is tested with hostile engines)
    clients = {0: EngineClient(parse_engine("builtin", "international"), grace=15.0),
               1: EngineClient(parse_engine(f"hub:{dame} hub", "international"), grace=15.0)}
    try:
        for ply in range(300):  # to the end: a win, or a draw rule of firmware.rules.game
            if game.outcome() is not None:
                break
            client = clients[ply % 2]
            client.think(ThinkRequest(game, move_time=0.02))
            reply = _reply(client)
            assert reply.error is None, reply.error
            assert reply.move is not None
            game.push(reply.move)  # legal, or IllegalMoveError
        assert game.outcome() is not None, f"no end after {len(game.moves)} plies"
        assert clients[1].engine_id.get("name") == "dame"
    finally:
        for client in clients.values():
            client.close()
