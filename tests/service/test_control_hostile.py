"""Hostile control clients and arbiter acts in the wrong state: a clear refusal, one answer a
line, the arbiter never locked out, the game never silently different."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest
from support.hall_helpers import wait_for
from support.service_helpers import S, game_log, run_until, sim_service

from boardctl.service.control import MAX_CONNECTIONS, ControlServer, Request, request
from firmware.formats.events import Adjourn
from firmware.rules.notation import move_text


def handler(req: Request) -> dict:
    return {"cmd": req.cmd}


@pytest.fixture
def server(tmp_path: Path):
    srv = ControlServer(tmp_path / "c.sock", handler)
    srv.start()
    yield srv
    srv.close()


def _connect(path: Path) -> socket.socket:
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(5)
    s.connect(str(path))
    return s


def _answers(s: socket.socket, until: bytes) -> list[dict]:
    buf = b""
    while until not in buf:
        chunk = s.recv(65536)
        if not chunk:
            break
        buf += chunk
    return [json.loads(line) for line in buf.splitlines()]


def test_clients_holding_half_a_line_never_lock_the_arbiter_out(server: ControlServer,
                                                                 tmp_path: Path) -> None:
    path = tmp_path / "c.sock"
    hogs = [_connect(path) for _ in range(MAX_CONNECTIONS + 4)]
    try:
        refused = 0
        for s in hogs:
            try:
                s.sendall(b"{")  # a request begun, never finished
            except (BrokenPipeError, ConnectionResetError):
                refused += 1  # one of the four over the bound, already told and closed
        assert refused <= 4
        wait_for(lambda: len(server._conns) == MAX_CONNECTIONS
                 and all(c.inbuf for c in server._conns), 10, 'the server read every "{"')
        for _ in range(3):
            assert request(path, "status")["cmd"] == "status"
    finally:
        for s in hogs:
            s.close()


def test_an_overlong_line_gets_one_answer(server: ControlServer, tmp_path: Path) -> None:
    s = _connect(tmp_path / "c.sock")
    try:
        s.sendall(b"x" * (1 << 20) + b'\n{"cmd": "status", "id": "next"}\n')
        answers = _answers(s, b'"next"')
    finally:
        s.close()
    assert answers == [{"ok": False, "error": "request line too long"},
                       {"cmd": "status", "ok": True, "id": "next"}]


def test_adjourn_only_a_game_in_play_and_only_once(tmp_path: Path) -> None:
    events = game_log(4, seed=41)
    service, clock = sim_service(tmp_path / "a", events)
    service.boot()
    try:
        early = service.command({"cmd": "adjourn", "sealed": "32-28"})
        assert early == {"ok": False,
                         "error": "adjourn: the game has not started (nothing to adjourn)"}
        assert service.session.sealed is None
        run_until(service, clock, events[-1].at / S + 1)
        position = service.session.position
        first, second = (move_text(position, m) for m in position.legal_moves()[:2])
        assert service.command({"cmd": "adjourn", "sealed": first})["ok"]
        again = service.command({"cmd": "adjourn", "sealed": second})
        assert not again["ok"] and "adjourned already" in again["error"]
        resumed = service.command({"cmd": "resume-adjourned"})
        assert resumed["ok"] and resumed["moves"][-1] == first  # the first sealed move stands
        assert service.command({"cmd": "result", "result": "1-1"})["ok"]
        over = service.command({"cmd": "adjourn", "sealed": second})
        assert over == {"ok": False, "error": "adjourn: the game is over already (1-1)"}
    finally:
        service.close()


def test_a_sealed_move_that_no_longer_plays_leaves_the_game_adjourned(tmp_path: Path) -> None:
    """A journal written before adjourn was refused on a game not started: sealed at the
    start, then played on. resume-adjourned refuses, and changes nothing (here or on disk)."""
    events = game_log(2, seed=41)
    service, clock = sim_service(tmp_path, events)
    service.boot()
    start = service.session.position
    sealed = move_text(start, start.legal_moves()[-1])
    service.path.handle(Adjourn(0, sealed))  # what the old service let through
    service.outbox.commit()
    run_until(service, clock, events[-1].at / S + 1)
    moves = service.command({"cmd": "status"})["moves"]
    assert len(moves) == 2 and sealed not in moves
    refused = service.command({"cmd": "resume-adjourned"})
    assert refused == {"ok": False, "error": "resume-adjourned: the sealed move is not legal in "
                       "the game's position now; the game stays adjourned"}
    assert service.session.sealed is not None
    assert service.command({"cmd": "status"})["moves"] == moves
    service.close()
    again, _ = sim_service(tmp_path, None)
    again.boot()
    try:
        assert again.command({"cmd": "status"})["moves"] == moves
        assert again.session.sealed is not None
    finally:
        again.close()


def test_a_key_given_twice_is_refused_not_guessed(server: ControlServer, tmp_path: Path) -> None:
    """``{"cmd": "status", "cmd": "pause"}`` reads as a status and would act as a pause (JSON
    keeps the last): refused, and so is a tag named twice."""
    s = _connect(tmp_path / "c.sock")
    try:
        s.sendall(b'{"cmd": "status", "cmd": "pause"}\n'
                  b'{"cmd": "new", "tags": {"Event": "a", "Event": "b"}}\n'
                  b'{"cmd": "status", "id": "next"}\n')
        answers = _answers(s, b'"next"')
    finally:
        s.close()
    assert answers == [
        {"ok": False, "error": "an ambiguous request: the key 'cmd' given twice"},
        {"ok": False, "error": "an ambiguous request: the key 'Event' given twice"},
        {"cmd": "status", "ok": True, "id": "next"}]
