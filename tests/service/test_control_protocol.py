"""boardctl.service.control: the request checks, and a real Unix socket fed garbage."""

from __future__ import annotations

import json
import socket
import stat
import threading
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from boardctl.service.control import ControlError, ControlServer, Request, parse_request, request
from firmware.errors import BoardError


def handler(req: Request) -> dict:
    if req.cmd == "result" and req.args["result"] == "boom":
        raise BoardError("the referee says no")
    return {"cmd": req.cmd, "args": req.args}


@pytest.fixture
def server(tmp_path: Path):
    srv = ControlServer(tmp_path / "c.sock", handler)
    stop = threading.Event()

    def loop() -> None:
        while not stop.is_set():
            srv.poll(0.02)

    thread = threading.Thread(target=loop, daemon=True)
    thread.start()
    yield srv
    stop.set()
    thread.join()
    srv.close()


def test_parse_good_requests() -> None:
    assert parse_request('{"cmd": "status"}') == Request("status", {})
    r = parse_request('{"cmd": "clock-set", "side": "black", "seconds": 90.5}')
    assert r.args == {"side": "black", "seconds": 90.5}
    r = parse_request('{"cmd": "new", "rules": "russian", "tags": {"Round": 3, "White": "A"}}')
    assert r.args == {"rules": "russian", "tags": {"Round": "3", "White": "A"}}


@pytest.mark.parametrize(
    "line, msg",
    [
        ("status", "not JSON"),
        ("[1, 2]", "JSON object"),
        ('{"cmd": "explode"}', "unknown command"),
        ("{}", 'a request needs "cmd"'),
        ('{"cmd": "status", "id": [1]}', "'id' must be a string"),
        ('{"cmd": "status", "id": "%s"}' % ("x" * 65), "'id' must be a string"),
        ('{"cmd": 7}', "unknown command"),
        ('{"cmd": "clock-set", "side": "black"}', "missing 'seconds'"),
        ('{"cmd": "clock-set", "side": "red", "seconds": 5}', "'side' must be white or black"),
        ('{"cmd": "clock-set", "side": "white", "seconds": -5}', "'seconds' must be"),
        ('{"cmd": "clock-set", "side": "white", "seconds": true}', "'seconds' must be"),
        ('{"cmd": "moves-set", "side": "white", "moves": 2.5}', "'moves' must be"),
        ('{"cmd": "pause", "now": 1}', "unexpected argument 'now'"),
        ('{"cmd": "new", "tags": {"bad key": "x"}}', "'bad key' is not a PDN tag name"),
        ('{"cmd": "new", "tags": ["White"]}', "'tags' must be"),
        (b'{"cmd": "\xff"}', "UTF-8"),
        ('{"cmd": "new", "tags": {"White": "\\ud800"}}', "lone UTF-16 surrogate"),
        ('{"cmd": "new", "fen": "W:W\\udfff"}', "lone UTF-16 surrogate"),
        ('{"cmd": "new", "tags": {"FEN": "W:W1:B2"}}', "the FEN tag is the game's own"),
        ('{"cmd": "new", "tags": {"GameType": "99"}}', "the GameType tag is the game's own"),
        ('{"cmd": "new", "tags": {"_x": "1"}}', "'_x' is not a PDN tag name"),
        ('{"cmd": "new", "tags": {"\u00c4": "1"}}', "is not a PDN tag name"),
        ('{"cmd": "new", "tags": {"White": "a\\u001b[2Jb"}}', "not a line of at most 200"),
        (json.dumps({"cmd": "new", "tags": {"White": "x" * 201}}), "not a line of at most 200"),
        (json.dumps({"cmd": "new", "tags": {f"T{i}": "v" for i in range(33)}}),
         "at most 32 tags, not 33"),
        ('{"cmd": "new", "time_control": "300\\u0000"}', "'time_control' must be"),
    ],
)
def test_parse_bad_requests(line: str | bytes, msg: str) -> None:
    with pytest.raises(ControlError, match=msg):
        parse_request(line)


def test_over_the_socket(server: ControlServer, tmp_path: Path) -> None:
    path = tmp_path / "c.sock"
    assert stat.S_IMODE(path.stat().st_mode) == 0o660
    assert request(path, "status")["cmd"] == "status"
    assert request(path, "clock-set", side="white", seconds=60)["args"]["seconds"] == 60
    with pytest.raises(ControlError, match="referee says no"):
        request(path, "result", result="boom")
    with pytest.raises(ControlError, match="missing 'side'"):
        request(path, "clock-set", seconds=3)


def test_a_request_id_is_echoed_in_its_response(server: ControlServer, tmp_path: Path) -> None:
    """A client may tag each request with an ``id`` (a string or an integer): the response,
    an error included, carries it back; a request without one gets a response without."""
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(5)
    s.connect(str(tmp_path / "c.sock"))
    lines = [{"cmd": "status", "id": 1}, {"cmd": "pause", "id": "p-2"},
             {"cmd": "result", "result": "boom", "id": 3}, {"cmd": "clock-set", "id": 4},
             {"cmd": "nope", "id": "n"}, {"cmd": "status"}]
    s.sendall(b"".join(json.dumps(line).encode() + b"\n" for line in lines))
    answers: list[dict] = []
    buf = b""
    while len(answers) < len(lines):
        buf += s.recv(65536)
        while b"\n" in buf:
            line, buf = buf.split(b"\n", 1)
            answers.append(json.loads(line))
    s.close()
    assert [a.get("id") for a in answers] == [1, "p-2", 3, 4, "n", None]
    assert [a["ok"] for a in answers] == [True, True, False, False, False, True]
    assert answers[0]["cmd"] == "status" and answers[0]["args"] == {}
    assert "referee says no" in answers[2]["error"] and "missing" in answers[3]["error"]


def test_a_client_argument_that_is_not_text_is_one_line(server: ControlServer,
                                                         tmp_path: Path) -> None:
    """`boardctl new --white $'\\xff'`: the shell's byte is not UTF-8 (Python hands it on as
    a lone surrogate); the client says so instead of failing to encode the request."""
    with pytest.raises(ControlError, match="new: an argument is not valid text"):
        request(tmp_path / "c.sock", "new", tags={"White": "\udcff"})
    assert request(tmp_path / "c.sock", "status")["ok"]


def test_garbage_on_one_connection_gets_errors_then_answers(server: ControlServer,
                                                            tmp_path: Path) -> None:
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(5)
    s.connect(str(tmp_path / "c.sock"))
    junk = [b"\x00\x01\x02", b"{", b'{"cmd": null}', b"x" * 70000, b'{"cmd":"status"}']
    s.sendall(b"\n".join(junk) + b"\n")
    answers: list[dict] = []
    buf = b""
    while len(answers) < 5:
        buf += s.recv(65536)
        while b"\n" in buf:
            line, buf = buf.split(b"\n", 1)
            answers.append(json.loads(line))
    s.close()
    assert [a["ok"] for a in answers] == [False, False, False, False, True]
    assert "too long" in answers[3]["error"]


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=300) | st.text(max_size=300))
def test_garbage_never_raises(junk: bytes | str) -> None:
    srv = ControlServer.__new__(ControlServer)
    srv.handler = handler
    srv.requests = srv.errors = 0
    answer = srv.answer(junk)
    assert answer["ok"] in (True, False)
    json.dumps(answer)


def test_clear_error_when_the_service_is_not_running(tmp_path: Path) -> None:
    with pytest.raises(ControlError, match="not running"):
        request(tmp_path / "none.sock", "status")
    stale = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    stale.bind(str(tmp_path / "stale.sock"))
    stale.close()  # a socket file left behind by a crash
    with pytest.raises(ControlError, match="not running"):
        request(tmp_path / "stale.sock", "status")
    srv = ControlServer(tmp_path / "stale.sock", handler)  # and the service reclaims it
    srv.close()


def test_a_second_service_on_the_same_socket_is_refused(server: ControlServer,
                                                        tmp_path: Path) -> None:
    with pytest.raises(ControlError, match="another service"):
        ControlServer(tmp_path / "c.sock", handler)


def test_socket_group(tmp_path: Path) -> None:
    import grp
    import os

    groups = [g for g in grp.getgrall() if g.gr_gid != os.getgid()]
    name = groups[0].gr_name if os.getuid() == 0 and groups else grp.getgrgid(os.getgid()).gr_name
    srv = ControlServer(tmp_path / "g.sock", handler, group=name)
    try:
        assert (tmp_path / "g.sock").stat().st_gid == grp.getgrnam(name).gr_gid
    finally:
        srv.close()
    with pytest.raises(ControlError, match="no group named"):
        ControlServer(tmp_path / "h.sock", handler, group="no-such-group-here")


def test_the_serving_thread_sleeps_until_something_happens(tmp_path: Path) -> None:
    """No timer on an idle control socket (an idle board's control thread never wakes): the
    thread sleeps in select() with no timeout, is woken by requests and by close(), and sets a
    deadline only for a client that leaves its replies unread."""
    now = [100.0]
    srv = ControlServer(tmp_path / "w.sock", handler, clock=lambda: now[0])
    assert srv._wait() is None
    srv.start()
    thread = srv._thread
    assert thread is not None
    try:
        assert request(tmp_path / "w.sock", "status")["cmd"] == "status"  # woken by a client
        assert srv._wait() is None
    finally:
        srv.close()
    assert not thread.is_alive()  # close() rang: no wait for a timer that never comes
    srv.close()  # twice is harmless

    stalled = ControlServer(tmp_path / "s.sock", handler, clock=lambda: now[0])
    try:
        client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        client.connect(str(tmp_path / "s.sock"))
        stalled.poll(1.0)  # accepts it
        (conn,) = stalled._conns
        conn.stalled = now[0]  # replies unread since now
        wait = stalled._wait()
        assert wait is not None and 2.0 <= wait <= 2.01  # STALL_S from now, then dropped
        now[0] += 2.5
        stalled.poll(0.0)
        assert stalled.connections == 0 and stalled.dropped == 1
        client.close()
    finally:
        stalled.close()
