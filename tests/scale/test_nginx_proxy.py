"""The relay behind Debian's nginx with the shipped configuration
(docs/examples/nginx/kabelaud-relay.conf, docs/SCALE.md): a real nginx on a free loopback port
(its own prefix, pid and temp folders, not a daemon, stopped by its pid) in front of the
relay's real HTTP server with the live page on it. The page and the PDN come through (the PDN
cached for a second, its ETag answered with 304), and the event stream is passed on as it
comes: a move published after the stream opened reaches the viewer while the stream is still
open (a buffering proxy would hold it back). Waiting is bounded polling, never timing."""

from __future__ import annotations

import http.client
import os
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from live_helpers import LiveRelay, game_records
from mqtt_broker import free_port
from processes import stop_by_pid

ROOT = Path(__file__).resolve().parents[2]
SITE = ROOT / "docs" / "examples" / "nginx" / "kabelaud-relay.conf"
PATIENCE = 20.0


def nginx_program() -> str:
    found = shutil.which("nginx") or next(
        (p for p in ("/usr/sbin/nginx",) if os.access(p, os.X_OK)), None)
    if found is None:
        message = "nginx is not installed (run tests/install-system-deps.sh)"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return found


class Nginx:
    """nginx with the shipped site file, pointed at ``upstream`` and listening on a free
    loopback port."""

    def __init__(self, workdir: Path, upstream: int) -> None:
        self.program = nginx_program()
        self.port = free_port()
        self.dir = workdir
        for sub in ("temp", "cache", "logs"):
            (workdir / sub).mkdir(parents=True, exist_ok=True)
        site = SITE.read_text()
        site = site.replace("server 127.0.0.1:8080;", f"server 127.0.0.1:{upstream};")
        site = site.replace("listen 80;", f"listen 127.0.0.1:{self.port};")
        site = site.replace("/var/cache/nginx/kabelaud", str(workdir / "cache"))
        assert str(upstream) in site and str(self.port) in site
        (workdir / "site.conf").write_text(site)
        temp = workdir / "temp"
        user = "user root;\n" if os.geteuid() == 0 else ""
        (workdir / "nginx.conf").write_text(
            f"{user}daemon off;\nworker_processes 1;\npid {workdir}/nginx.pid;\n"
            f"error_log {workdir}/logs/error.log warn;\n"
            "events { worker_connections 4096; }\n"
            "http {\n  access_log off;\n"
            + "".join(f"  {kind}_temp_path {temp}/{kind};\n"
                      for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"))
            + f"  include {workdir}/site.conf;\n}}\n")
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> Nginx:
        self.proc = subprocess.Popen(
            [self.program, "-p", str(self.dir), "-c", str(self.dir / "nginx.conf"),
             "-e", str(self.dir / "logs" / "error.log")],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.monotonic() + PATIENCE
        while True:
            assert self.proc.poll() is None, self.log()
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return self
            except OSError:
                assert time.monotonic() < deadline, "nginx never listened"
                time.sleep(0.05)

    def log(self) -> str:
        path = self.dir / "logs" / "error.log"
        return path.read_text(errors="replace") if path.exists() else ""

    def stop(self) -> None:
        proc, self.proc = self.proc, None
        if proc is not None:
            stop_by_pid(proc)


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
