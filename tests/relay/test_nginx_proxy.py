"""The relay behind Debian's nginx with the shipped configuration
(docs/examples/nginx/kabelaud-relay.conf, docs/SCALE.md): a real nginx on a free loopback port
(its own prefix, pid and temp folders, not a daemon, stopped by its pid) in front of the
relay's real HTTP server with the live page on it. The page and the PDN come through (the PDN
cached for a second, its ETag answered with 304), and the event stream is passed on as it
comes: a move published after the stream opened reaches the viewer while the stream is still
open (a buffering proxy would hold it back). Waiting is bounded polling, never timing."""

from __future__ import annotations

import http.client
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from support.live_helpers import LiveRelay, game_records
from support.nginx_proxy import PATIENCE, Nginx


@pytest.fixture
def proxied(tmp_path: Path) -> Iterator[tuple[LiveRelay, Nginx]]:
    relay = LiveRelay()
    relay.feed("12", *game_records("g", 4))
    proxy = Nginx(tmp_path / "nginx", relay.port)
    try:
        yield relay, proxy.start()
    finally:
        proxy.stop()
        relay.close()


def get(port: int, path: str, headers: dict[str, str] | None = None
        ) -> tuple[int, dict[str, str], bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=PATIENCE)
    try:
        conn.request("GET", path, headers=headers or {})
        resp = conn.getresponse()
        return resp.status, {k.lower(): v for k, v in resp.getheaders()}, resp.read()
    finally:
        conn.close()


def test_the_page_and_the_pdn_through_nginx_cached_for_a_second(
        proxied: tuple[LiveRelay, Nginx]) -> None:
    relay, proxy = proxied
    status, head, body = get(proxy.port, "/", {"Accept-Encoding": "gzip"})
    assert status == 200 and head["content-encoding"] == "gzip"
    direct = get(relay.port, "/games.pdn")
    status, head, body = get(proxy.port, "/games.pdn")
    assert status == 200 and body == direct[2] and head["etag"] == direct[1]["etag"]
    assert head["cache-control"] == "no-cache"  # the pollers still ask each time
    caches = [get(proxy.port, "/games.pdn")[1]["x-cache"] for _ in range(5)]
    assert "HIT" in caches  # nginx answered from its copy
    status, _, body = get(proxy.port, "/games.pdn", {"If-None-Match": head["etag"]})
    assert status == 304 and body == b""
    relay.feed("12", game_records("g", 5)[-1])  # a new move: the cached copy is a second old
    deadline = time.monotonic() + PATIENCE
    while b"3. " not in get(proxy.port, "/games.pdn")[2]:
        assert time.monotonic() < deadline, "the new move never came through the proxy"
        time.sleep(0.1)


def test_the_event_stream_passes_through_nginx_unbuffered(
        proxied: tuple[LiveRelay, Nginx]) -> None:
    relay, proxy = proxied
    conn = http.client.HTTPConnection("127.0.0.1", proxy.port, timeout=PATIENCE)
    try:
        conn.request("GET", "/events")
        resp = conn.getresponse()
        assert resp.status == 200
        assert resp.getheader("Content-Type", "").startswith("text/event-stream")
        assert resp.getheader("Cache-Control") == "no-cache"
        got = b""
        while b"event: state" not in got or not got.endswith(b"\n\n"):
            chunk = resp.read1(65536)
            assert chunk, "the stream ended"
            got += chunk
        relay.feed("12", game_records("g", 5)[-1])
        got = b""
        while b'"ply":5' not in got:  # the small event, not held back in a proxy buffer
            chunk = resp.read1(65536)
            assert chunk, "the stream ended"
            got += chunk
        assert b"event: board" in got
    finally:
        conn.close()
