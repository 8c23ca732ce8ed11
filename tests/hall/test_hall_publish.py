"""What the public sees of a hall: the broadcast delay (an injected clock), the arbiters' live
server beside it, and the push mode to a site's URL (a local HTTP server run here)."""

from __future__ import annotations

import http.server
import socket
import threading
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from support.hall_helpers import wait_for

from boardctl.relay.follower import Pusher
from boardctl.relay.http import PdnServer, Timeline
from boardctl.relay.relay import Relay
from firmware.formats.feed import encode_line
from firmware.pdn import read_games


class Clock:
    def __init__(self, now: float = 1_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def feed(relay: Relay, board: str, *records: dict[str, Any]) -> None:
    for n, record in enumerate(records):
        relay.state.source(board, topic=True)
        relay.state.feed_line(board, encode_line(record, n))
    relay.publish()


GAME = {"type": "game", "game": "g", "rules": "international",
        "tags": {"Round": "1", "White": "A", "Black": "B"}}


def mv(ply: int, text: str) -> dict[str, Any]:
    return {"type": "move", "game": "g", "ply": ply, "side": "white" if ply % 2 else "black",
            "move": text}


#: Two kings in opposite corners: a game of legal moves as long as a test needs (the relay
#: takes only moves that play).
KINGS = {**GAME, "fen": "W:WK46:BK1"}


def shuffle(ply: int) -> dict[str, Any]:
    """Ply ``ply`` of the kings' game: 46-41 1-7 41-46 7-1, over and over."""
    back = (ply - 1) // 2 % 2
    if ply % 2:
        return mv(ply, "41-46" if back else "46-41")
    return mv(ply, "7-1" if back else "1-7")


@contextmanager
def serving(server: PdnServer) -> Iterator[str]:
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def get(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=5) as resp:
        return bytes(resp.read())


def moves_at(url: str) -> list[str]:
    games = list(read_games(get(url).decode(), url))
    return [m.text for m in games[0].moves] if games else []


def test_the_public_sees_the_hall_delayed_while_arbiters_see_it_live() -> None:
    clock = Clock()
    timeline = Timeline(delay=15 * 60, now=clock)
    public = PdnServer(("127.0.0.1", 0), hall="H", timeline=timeline)
    live = PdnServer(("127.0.0.1", 0), hall="H", timeline=timeline, live=True)
    relay = Relay([], timeline=timeline, wall=clock)
    with serving(public) as pub, serving(live) as arb:
        feed(relay, "b1", GAME, mv(1, "32-28"))
        assert moves_at(f"{arb}/H.pdn") == ["32-28"]
        assert get(f"{pub}/H.pdn") == b""  # nothing is 15 minutes old yet
        clock.now += 60
        feed(relay, "b1", mv(2, "17-22"))
        clock.now += 14 * 60 - 1
        assert get(f"{pub}/H/round/1.pdn") == b""
        clock.now += 1  # the first move is 15 minutes old now, the second not yet
        assert moves_at(f"{pub}/H/round/1.pdn") == ["32-28"]
        assert moves_at(f"{arb}/H/round/1.pdn") == ["32-28", "17-22"]
        clock.now += 60
        assert moves_at(f"{pub}/H.pdn") == ["32-28", "17-22"]


def test_the_delay_keeps_a_bounded_number_of_views() -> None:
    clock = Clock()
    timeline = Timeline(delay=60, now=clock)
    relay = Relay([], timeline=timeline, wall=clock)
    feed(relay, "b1", KINGS)
    for ply in range(1, 200):
        clock.now += 0.5  # two changes a second: one view a second is kept
        feed(relay, "b1", shuffle(ply))
    assert len(relay.state.games["b1/g"].moves) == 199
    assert len(timeline._views) <= 62
    assert timeline.public().stamp <= clock.now - 60


class Site(http.server.ThreadingHTTPServer):
    """A broadcast site's upload URL: fails the first ``failures`` requests with 503."""

    daemon_threads = True

    def __init__(self, failures: int = 0) -> None:
        self.failures = failures
        self.bodies: list[tuple[str, bytes]] = []
        super().__init__(("127.0.0.1", 0), _SiteHandler)


class _SiteHandler(http.server.BaseHTTPRequestHandler):
    server: Site

    def _take(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        if self.server.failures > 0:
            self.server.failures -= 1
            self.send_response(503)
        else:
            self.server.bodies.append((self.command, body))
            self.send_response(204)
        self.send_header("Content-Length", "0")
        self.end_headers()

    do_PUT = do_POST = _take  # noqa: N815

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        pass


def test_push_sends_the_round_after_each_change_retrying_failures() -> None:
    site = Site(failures=2)
    threading.Thread(target=site.serve_forever, daemon=True).start()
    timeline = Timeline()
    relay = Relay([], timeline=timeline)
    logs: list[str] = []

    def body() -> tuple[bytes, str]:
        view = timeline.public()
        data, etag, _ = view.body(view.games)
        return data, etag

    pusher = Pusher(f"http://127.0.0.1:{site.server_address[1]}/upload", body,
                    method="POST", backoff=0.01, log=logs.append).start()
    relay.on_publish = pusher.notify
    try:
        feed(relay, "b1", GAME, mv(1, "32-28"))
        wait_for(lambda: site.bodies, what="the first push")
        assert pusher.failures == 2 and any("503" in line for line in logs)
        feed(relay, "b1", mv(2, "17-22"))
        wait_for(lambda: len(site.bodies) == 2, what="the second push")
        method, last = site.bodies[-1]
        assert method == "POST"
        assert [m.text for m in next(read_games(last.decode(), "push")).moves] == \
            ["32-28", "17-22"]
    finally:
        pusher.close()
        site.shutdown()
        site.server_close()


def test_a_site_that_never_answers_never_blocks_the_relay() -> None:
    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen(1)  # accepts the connection, never answers
    timeline = Timeline()
    relay = Relay([], timeline=timeline)
    entered = threading.Event()

    def body() -> tuple[bytes, str]:
        entered.set()
        view = timeline.public()
        data, etag, _ = view.body(view.games)
        return data, etag

    pusher = Pusher(f"http://127.0.0.1:{silent.getsockname()[1]}/", body, timeout=30,
                    log=lambda _: None).start()
    relay.on_publish = pusher.notify
    try:
        feed(relay, "b1", KINGS)
        entered.wait(10)
        for ply in range(1, 30):  # the pusher hangs in its request meanwhile
            feed(relay, "b1", shuffle(ply))
        assert len(relay.state.games["b1/g"].moves) == 29
        assert pusher.pushed == 0 and pusher.failures == 0
    finally:
        silent.close()
        pusher.close()


def test_a_started_game_keeps_its_tags() -> None:
    relay = Relay([])
    feed(relay, "b1", GAME, mv(1, "32-28"))
    late = {"type": "snapshot", "game": "g", "rules": "international",
            "tags": {"Round": "9", "White": "X"}, "moves": [mv(1, "32-28")]}
    feed(relay, "b1", late)
    game = relay.state.games["b1/g"]
    assert game.tags["Round"] == "1" and game.tags["White"] == "A"
    assert game.round_tag() == "1.1"
