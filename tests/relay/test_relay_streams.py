"""The one thread that writes every live page stream (boardctl.relay.live.viewers), on real sockets:
every event reaches every viewer that reads, a viewer that stops reading is dropped without
holding the others back, idle streams get keep-alive comments and stalled ones are closed, on
an injected clock; the open files limit is raised to the hard limit."""

from __future__ import annotations

import resource
import select
import socket
import time
from collections.abc import Callable, Iterator

import pytest
from support.live_helpers import FakeClock

import boardctl.relay.live.viewers as streams
from boardctl.relay.live.stream import Channel
from boardctl.relay.live.viewers import StreamLoop

PATIENCE = 30.0


def until(check: Callable[[], bool], what: str) -> None:
    """Wait for the loop's thread to get somewhere (a bound on a hang, not a timing check)."""
    deadline = time.monotonic() + PATIENCE
    while not check():
        assert time.monotonic() < deadline, f"never: {what}"
        time.sleep(0.005)


def read_until(sock: socket.socket, marker: bytes, got: bytearray) -> bytes:
    sock.settimeout(PATIENCE)
    while marker not in got:
        chunk = sock.recv(65536)
        assert chunk, f"stream ended before {marker!r}"
        got += chunk
    return bytes(got)


@pytest.fixture
def loop() -> Iterator[tuple[StreamLoop, FakeClock]]:
    clock = FakeClock(100.0)
    loop = StreamLoop(clock=clock)
    try:
        yield loop, clock
    finally:
        loop.close()


def viewer(loop: StreamLoop, channel: Channel, after: int = 0,
           first: bytes = b"") -> socket.socket:
    ours, theirs = socket.socketpair()
    assert loop.adopt(ours, channel, after, first)
    return theirs


def test_every_viewer_gets_the_catch_up_and_every_event(
        loop: tuple[StreamLoop, FakeClock]) -> None:
    stream, _ = loop
    channel = Channel()
    for i in range(3):
        channel.publish("board", f'{{"n":{i}}}')
    late = viewer(stream, channel, after=1, first=b"retry: 1000\n\n")  # resumes after event 1
    fresh = [viewer(stream, channel, after=3) for _ in range(20)]
    for i in range(3, 40):
        channel.publish("board", f'{{"n":{i}}}')
    got = read_until(late, b'{"n":39}', bytearray())
    assert got.startswith(b"retry: 1000\n\n") and b'{"n":0}' not in got
    assert [f'{{"n":{i}}}'.encode() in got for i in range(1, 40)] == [True] * 39
    for sock in fresh:
        got = read_until(sock, b'{"n":39}', bytearray())
        assert got.count(b"event: board") == 37 and b'{"n":2}' not in got
    assert stream.viewers == 21
    late.close()
    until(lambda: stream.viewers == 20, "a viewer that hung up is let go")


def test_a_viewer_that_stops_reading_is_dropped_and_never_holds_back_the_others(
        loop: tuple[StreamLoop, FakeClock]) -> None:
    stream, _ = loop
    channel = Channel()
    slow = viewer(stream, channel)
    fast = viewer(stream, channel)
    body = "x" * 8000
    got = bytearray()
    events = 0
    while stream.dropped_slow == 0:  # the slow one's kernel buffer and queue fill up
        assert events < 10_000, "the slow viewer was never dropped"
        channel.publish("board", f'{{"n":{events},"pad":"{body}"}}')
        events += 1
        read_until(fast, f'{{"n":{events - 1},'.encode(), got)
    assert events * 8000 > streams.MAX_PENDING  # it was let run up to its bound first
    assert stream.viewers == 1
    channel.publish("board", '{"n":"after"}')
    read_until(fast, b'{"n":"after"}', got)
    slow.settimeout(PATIENCE)
    while slow.recv(65536):  # what it had been sent, then the end of the stream
        pass


def test_idle_streams_get_keep_alive_and_stalled_ones_are_closed(
        loop: tuple[StreamLoop, FakeClock]) -> None:
    stream, clock = loop
    channel = Channel()
    idle = viewer(stream, channel, first=b"retry: 1000\n\n")
    stuck = viewer(stream, channel, first=b"y" * (4 << 20))  # more than its socket takes
    read_until(idle, b"retry: 1000\n\n", bytearray())
    until(lambda: stream.viewers == 2, "both adopted")
    clock.now += streams.HEARTBEAT + 1
    stream.wake()
    read_until(idle, b": keep-alive\n\n", bytearray())
    assert stream.viewers == 2  # 15 s without taking a byte: not stalled yet
    clock.now += streams.STALL
    stream.wake()
    until(lambda: stream.dropped_stalled == 1, "the stalled viewer dropped")
    assert stream.viewers == 1
    stuck.close()
    idle.close()


def test_a_full_loop_turns_viewers_away_and_the_open_files_limit_is_raised() -> None:
    small = StreamLoop(limit=2)
    channel = Channel()
    try:
        socks = [socket.socketpair() for _ in range(3)]
        assert small.adopt(socks[0][0], channel, 0) and small.adopt(socks[1][0], channel, 0)
        assert small.full() and not small.adopt(socks[2][0], channel, 0)
    finally:
        small.close()
        for a, b in socks:
            a.close()
            b.close()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    try:
        if hard != resource.RLIM_INFINITY and hard > 64:
            resource.setrlimit(resource.RLIMIT_NOFILE, (64, hard))
            assert streams.raise_open_files_limit() == hard
            assert resource.getrlimit(resource.RLIMIT_NOFILE)[0] == hard
            assert streams.capacity() == min(streams.MAX_VIEWERS, hard - 1024) or hard < 1040
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


def test_a_wake_landing_while_the_loop_drains_its_pipe_is_never_lost() -> None:
    """A channel publishing (another thread's ``wake``) just as the loop empties its wake
    pipe: the loop must be woken by every later ``wake`` too, not wait for its tick."""
    stream = StreamLoop()  # no viewer: no thread, the loop's turn is driven here
    real = stream._wake_r

    class Racing:
        """The wake pipe, with another thread's ``wake`` landing at the loop's first read."""

        calls = 0

        def recv(self, size: int) -> bytes:
            Racing.calls += 1
            if Racing.calls == 1:
                stream.wake()
            return real.recv(size)

    try:
        stream.wake()  # something to do: a byte in the pipe
        stream._wake_r = Racing()  # type: ignore[assignment]
        stream._drain_wake()
        stream._wake_r = real
        stream.wake()  # the next publish
        assert select.select([real], [], [], 0)[0], "the loop is no longer woken"
    finally:
        stream._wake_r = real
        stream.close()
