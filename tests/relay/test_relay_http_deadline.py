"""The relay's HTTP server against slow clients (slowloris): a request head must come whole
within the server's timeout, however it trickles in, or the connection is closed and its slot
freed; once the head is read the deadline is over (answers and event streams run on).

Time passes on an injected clock: a test moves it past the deadline and runs the reaper itself
(``service_actions``) or lets the server's ``serve_forever`` loop run it, so no test waits for
real seconds to go by.
"""

from __future__ import annotations

import http.client
import socket
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from support.live_helpers import LiveRelay, game_records

import boardctl.relay.http as relay_http
from boardctl.relay.http import PdnServer

TIMEOUT = 10.0
#: How long a test waits (real seconds) for the server's threads to act on what it did.
PATIENCE = 5.0


class FakeClock:
    """Monotonic seconds that move only when a test says so."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class Served:
    """A :class:`PdnServer` on loopback serving in its own thread, on a fake clock."""

    def __init__(self) -> None:
        self.clock = FakeClock()
        self.server = PdnServer(("127.0.0.1", 0), timeout=TIMEOUT, clock=self.clock)
        self.server.publish('[Event "Slow clients"]\n\n1. 32-28 19-23 *\n\n')
        self._thread = threading.Thread(target=self.server.serve_forever,
                                        args=(0.05,), daemon=True)
        self._thread.start()
        self._clients: list[socket.socket] = []

    @property
    def port(self) -> int:
        return int(self.server.server_address[1])

    def connect(self) -> socket.socket:
        sock = socket.create_connection(("127.0.0.1", self.port), timeout=PATIENCE)
        self._clients.append(sock)
        return sock

    def pass_time(self, seconds: float) -> None:
        """Move the clock on and run the reaper, as ``serve_forever`` does every poll."""
        self.clock.now += seconds
        self.server.service_actions()

    def close(self) -> None:
        for sock in self._clients:
            sock.close()
        self.server.shutdown()
        self.server.server_close()
        self._thread.join(PATIENCE)


@pytest.fixture
def served() -> Iterator[Served]:
    s = Served()
    try:
        yield s
    finally:
        s.close()


def until(check: Callable[[], Any], what: str) -> Any:
    """Wait (a bounded number of real seconds) for the server's threads to do ``what``."""
    end = time.monotonic() + PATIENCE
    while time.monotonic() < end:
        value = check()
        if value:
            return value
        threading.Event().wait(0.005)  # another thread's effect, not the test's time
    raise AssertionError(f"timed out waiting for {what}")


def closed_by_server(sock: socket.socket) -> bool:
    """True when the server has closed ``sock`` (end of stream or reset), after reading what
    it sent before; on a connection still open ``recv`` times out (an error) instead."""
    try:
        while sock.recv(4096):
            pass
    except ConnectionResetError:
        pass
    return True


def status_of_get(served: Served, path: str = "/games.pdn") -> int:
    """The status of a whole GET on a new connection (0 when it got no answer at all); read
    off the raw socket, since a full server answers 503 before reading the request."""
    sock = served.connect()
    try:
        sock.sendall(f"GET {path} HTTP/1.1\r\nHost: relay\r\nConnection: close\r\n\r\n"
                     .encode())
    except OSError:
        pass  # a full server may have closed it already: its 503 is still to be read
    got = b""
    try:
        while chunk := sock.recv(4096):
            got += chunk
    except ConnectionResetError:
        pass
    line = got.split(b"\r\n", 1)[0].split()
    return int(line[1]) if len(line) > 1 else 0


def test_half_a_request_line_is_closed_after_the_deadline(served: Served) -> None:
    slow = served.connect()
    slow.sendall(b"GET /games.p")
    until(lambda: served.server.waiting_for_heads() == 1, "the slow client's handler")
    served.pass_time(TIMEOUT - 1)
    assert served.server.waiting_for_heads() == 1  # not due yet
    served.pass_time(2)
    assert served.server.waiting_for_heads() == 0
    assert closed_by_server(slow)
    assert status_of_get(served) == 200


def test_a_trickling_head_is_closed_once_its_total_time_is_up(served: Served) -> None:
    slow = served.connect()
    head = b"GET /games.pdn HTTP/1.1\r\nHost: relay\r\n\r\n"
    slow.sendall(head[:1])
    until(lambda: served.server.waiting_for_heads() == 1, "the slow client's handler")
    for byte in head[1:4]:
        served.pass_time(3.0)  # each step well inside a per-read timeout
        slow.sendall(bytes([byte]))
    assert served.server.waiting_for_heads() == 1  # 9 s in all: still due
    served.pass_time(3.0)
    assert closed_by_server(slow)
    assert status_of_get(served) == 200


def test_slow_clients_filling_every_slot_are_reaped(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(relay_http, "MAX_CLIENTS", 3)
    served = Served()
    try:
        slow = [served.connect() for _ in range(3)]
        for sock in slow:
            sock.sendall(b"GET / HTTP/1.1\r\nHost")
        until(lambda: served.server.waiting_for_heads() == 3, "three slow handlers")
        assert status_of_get(served) == 503  # the server is full
        served.pass_time(TIMEOUT + 1)
        for sock in slow:
            assert closed_by_server(sock)
        # the handler threads free their slots just after closing: poll for the first 200
        until(lambda: status_of_get(served) == 200, "a free slot")
    finally:
        served.close()


def test_an_idle_keep_alive_connection_is_closed_after_the_deadline(served: Served) -> None:
    conn = http.client.HTTPConnection("127.0.0.1", served.port, timeout=PATIENCE)
    try:
        conn.request("GET", "/games.pdn")
        resp = conn.getresponse()
        assert resp.status == 200 and b"32-28" in resp.read()
        assert not resp.will_close  # HTTP/1.1: the connection stays for the next request
        until(lambda: served.server.waiting_for_heads() == 1, "the wait for the next request")
        served.pass_time(TIMEOUT - 1)
        assert served.server.waiting_for_heads() == 1
        served.clock.now += 2  # this time the server's own serve_forever loop reaps it
        assert conn.sock is not None and closed_by_server(conn.sock)
    finally:
        conn.close()


def test_a_request_whose_head_came_is_answered_however_long_it_takes(served: Served) -> None:
    entered, go_on = threading.Event(), threading.Event()

    def slow_answer(handler: Any, path: str) -> bool:
        if path != "/slow":
            return False
        entered.set()
        go_on.wait(PATIENCE)
        body = b"answered\n"
        handler.send_response(200)
        handler.send_header("Content-Length", str(len(body)))
        handler.end_headers()
        handler.wfile.write(body)
        return True

    served.server.extra_handlers.append(slow_answer)
    conn = http.client.HTTPConnection("127.0.0.1", served.port, timeout=PATIENCE)
    try:
        conn.request("GET", "/slow")
        assert entered.wait(PATIENCE)
        served.pass_time(TIMEOUT * 100)  # far past any head deadline while it is answered
        go_on.set()
        resp = conn.getresponse()
        assert resp.status == 200 and resp.read() == b"answered\n"
    finally:
        go_on.set()
        conn.close()


def test_a_live_event_stream_outlives_the_head_deadline() -> None:
    relay = LiveRelay()
    relay.server.clock = relay.clock  # the head deadlines on the test's clock too
    relay.feed("12", *game_records("g", 4))
    conn = http.client.HTTPConnection("127.0.0.1", relay.port, timeout=PATIENCE)
    try:
        conn.request("GET", "/events")
        resp = conn.getresponse()
        assert resp.status == 200
        got = b""
        while b"event: state" not in got or not got.endswith(b"\n\n"):
            got += resp.read1(65536)
        relay.clock.now += TIMEOUT * 100
        relay.server.service_actions()
        relay.feed("12", *game_records("g", 6)[-2:])
        got = b""
        while b'"ply":6' not in got or not got.endswith(b"\n\n"):
            chunk = resp.read1(65536)
            assert chunk, "the stream was cut"
            got += chunk
    finally:
        conn.close()
        relay.close()
