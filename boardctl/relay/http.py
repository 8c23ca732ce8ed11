"""The relay's HTTP side: what broadcast sites poll (docs/HALL.md, "The round URL").

The relay's state thread hands over a :class:`View` after every change: each game's PDN text
with its round, board and the time its text last changed. The HTTP threads only read views, so
no request ever touches the relay's state. Paths::

    /HALL.pdn                every game of the hall (of each hall, when the relay follows
                             several: ``boardctl relay --hall A --hall B``)
    /HALL/round/R.pdn        the games whose Round is R or starts with "R." (in the order first
                             heard of: each keeps its place), at most 64 a URL; a bigger round
                             goes on at R-2.pdn, R-3.pdn ...
    /games.pdn               every game (and / where no live page is mounted)
    anything else            404 naming the paths this relay serves (its halls' own), unless
                             one of ``server.extra_handlers`` (the live page, the desk, the
                             crosstable) answers it first

GET and HEAD read; POST is the desk's (404 elsewhere); PUT, DELETE, PATCH and OPTIONS get
405 with ``Allow``; an unknown method, and a request that cannot be read, a one-line plain
text error (never http.server's HTML page).

Every PDN answer has an ``ETag`` and a ``Last-Modified`` (the newest change of the games it
holds), and a poller that sends them back gets ``304 Not Modified``. With a broadcast delay
(``--delay``) the public server answers from the view as it stood that many seconds ago
(:class:`Timeline`), while an arbiters' server (``live=True``) answers from the newest.
A round with no game yet is a valid, empty PDN body (200, zero games), never a 404; a round
is a number (``3``, a sub-round ``3.2``), so a name no game's Round has that is not one
(``/HALL/round/abc.pdn``) is a 404 that says so.

A slow client cannot hold a connection slot (:data:`MAX_CLIENTS`): from the moment the server
waits for a request on a connection (the first one, or the next one of a keep-alive
connection), the request line and all headers must have come within ``timeout`` seconds in
all, however the bytes trickle in; past that the server closes the connection
(:meth:`PdnServer.reap_slow_heads`, run by ``serve_forever`` every :data:`REAP_EVERY` seconds).
Once the head is read that deadline is over: answers run as long as they need, with their
own write timeouts, and an event stream's socket is handed to the one thread that writes every
stream (boardctl.relay.live.viewers), so a viewer holds no thread nor connection slot.
"""

from __future__ import annotations

import hashlib
import http.server
import logging
import re
import socket
import threading
import time
import urllib.parse
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from email.utils import parsedate_to_datetime
from typing import Any

#: Games a URL holds at most (broadcast sites read no more of one URL).
PER_URL = 64
#: Connections served at once (a thread each); more get a quick 503 (a broadcast site
#: retries). The live page's event streams are not among them: once its head is read, a
#: stream's socket goes to one event loop (boardctl.relay.live.viewers) and its thread ends.
MAX_CLIENTS = 640
#: How often ``serve_forever`` closes connections whose request head is overdue (seconds).
REAP_EVERY = 0.5

log = logging.getLogger(__name__)

Handler = Callable[[http.server.BaseHTTPRequestHandler, str], bool]


@dataclass(frozen=True)
class GameText:
    key: str
    round: str
    board: str
    text: str
    changed: float


@dataclass(frozen=True)
class View:
    """Every game as it stood at ``stamp`` (wall-clock seconds)."""

    games: tuple[GameText, ...] = ()
    stamp: float = 0.0
    #: Where each round's games are in :attr:`games` (:func:`round_places`), when the relay
    #: has them already (boardctl.relay.changes: the same from view to view until a game is
    #: added or goes); else found at the view's first round request.
    places: Mapping[str, Sequence[int]] | None = field(default=None, repr=False, compare=False)
    _places: dict[str | None, dict[str, list[int]]] = field(
        default_factory=dict, init=False, repr=False, compare=False)

    def body(self, games: list[GameText] | tuple[GameText, ...]) -> tuple[bytes, str, float]:
        """(PDN bytes, ETag, Last-Modified) of some of this view's games."""
        body = "".join(g.text for g in games).encode("utf-8")
        etag = '"' + hashlib.blake2b(body, digest_size=12).hexdigest() + '"'
        changed = max((g.changed for g in games), default=0.0)
        return body, etag, changed

    def round(self, name: str, hall: str | None = None) -> list[GameText] | None:
        """The games of round ``name`` (and of its parts: ``3`` holds ``3.1`` and ``3.1.2``)
        of ``hall`` (their keys start with ``HALL/``; None: every game), in order; None when
        no game is of that round. A broadcast site's every poll of a round URL costs what the
        round holds, not what the event has played."""
        places = self.places if hall is None else None
        if places is None:
            places = self._places.get(hall)
            if places is None:  # two threads may find them at once: the same
                places = self._places[hall] = round_places(self.games, hall)
        found = places.get(name)
        return None if found is None else [self.games[k] for k in found]


def round_places(games: Sequence[GameText], hall: str | None = None) -> dict[str, list[int]]:
    """Where the games (of ``hall``) of each round are in ``games``: each under its ``Round``
    tag and under every round it is a part of (``3.1.2`` under ``3.1`` and ``3``)."""
    places: dict[str, list[int]] = {}
    for k, game in enumerate(games):
        if hall is not None and not game.key.startswith(hall + "/"):
            continue
        tag = game.round
        while True:
            places.setdefault(tag, []).append(k)
            cut = tag.rfind(".")
            if cut < 0:
                break
            tag = tag[:cut]
    return places


def _natural(text: str) -> tuple[Any, ...]:
    """A sort key that orders ``b2`` before ``b10``: the runs of 0-9 as numbers (the odd parts
    of the split), the rest as text, so that like compares with like."""
    return tuple(int(p) if i % 2 else p for i, p in enumerate(re.split(r"([0-9]+)", text)))


#: The paths that hold every game the relay follows (``/`` is the live page where one is mounted:
#: its handler answers first).
EVERY_GAME = frozenset({"/", "/games.pdn"})

_ROUND = re.compile(r"/([A-Za-z0-9_-]+)/round/(.+)\.pdn")
#: A round's name as a hall's rounds are numbered: ``3``, a sub-round ``3.12``.
ROUND_NUMBER = re.compile(r"[0-9]{1,4}(?:\.[0-9]{1,4})*")


def not_found_text(hall: str | Sequence[str] | None, path: str) -> str:
    """The 404's one line: what the relay serves, with its halls' own paths."""
    halls = (hall,) if isinstance(hall, str) else tuple(hall or ())
    served = ["/games.pdn"] + [p for h in halls for p in (f"/{h}.pdn", f"/{h}/round/R.pdn")]
    text = f"no such file: {path[:80]}; this relay serves {', '.join(served)}"
    m = _ROUND.fullmatch(path)
    if m and m.group(1) in halls:
        text += (f" (no game has Round {m.group(2)[:40]!r}, and a round not started yet is a "
                 "number: R is 3, 3.2, or 3-2 for a round's games past the first 64)")
    elif halls:
        text += " (R a round: 3, 3.2, or 3-2 for a round's games past the first 64)"
    return text + "\n"


def select_games(view: View, hall: str | Sequence[str] | None,
                 path: str) -> list[GameText] | None:
    """The games ``path`` names in ``view``, or None when it names none of these URLs.

    ``hall`` is the relay's hall, or its halls when it follows several: then a game's key
    starts with its ``HALL/`` (the relay names each board ``HALL/BOARD``) and each hall's URLs
    hold that hall's games only."""
    halls = (hall,) if isinstance(hall, str) else tuple(hall or ())
    m = _ROUND.fullmatch(path)
    name = m.group(1) if m else path[1:-len(".pdn")] if path.endswith(".pdn") else ""
    if name not in halls or (m is None and path != f"/{name}.pdn"):
        return None
    if m is None:
        return list(view.games) if len(halls) == 1 else [
            g for g in view.games if g.key.startswith(name + "/")]
    of = None if len(halls) == 1 else name
    name, part = m.group(2), 1
    chosen = view.round(name, of)
    tail = re.fullmatch(r"(.+)-(\d{1,4})", name)
    if chosen is None and tail:
        name, part = tail.group(1), int(tail.group(2))
        chosen = view.round(name, of)
    if part < 1:
        return []
    # In the order the relay first heard of each game, never re-sorted: a broadcast site
    # (lidraughts) matches each game to its chapter by its place in the file and stops the
    # round when a game it has moves to another place, as a late board sorted in would.
    if not chosen and not ROUND_NUMBER.fullmatch(name):
        return None  # a round that has not started is a number: this names none
    return (chosen or [])[(part - 1) * PER_URL: part * PER_URL]


class Timeline:
    """The views of the last ``delay`` seconds (one a second at most), for a broadcast delay:
    ``public()`` is the newest view at least ``delay`` old (an empty one before that)."""

    def __init__(self, delay: float = 0.0, now: Callable[[], float] = time.time) -> None:
        self.delay = delay
        self.now = now
        self._lock = threading.Lock()
        self._views: deque[View] = deque()
        self._live = View(stamp=now())
        self._empty = View(stamp=self._live.stamp)

    def push(self, view: View) -> None:
        with self._lock:
            self._live = view
            if self.delay <= 0:
                return
            if self._views and view.stamp - self._views[-1].stamp < 1.0:
                self._views[-1] = view  # views within a second: the last one stands for all
            else:
                self._views.append(view)
            self._trim(view.stamp)

    def _trim(self, now: float) -> None:
        cut = now - self.delay
        while len(self._views) > 1 and self._views[1].stamp <= cut:
            self._empty = self._views.popleft()

    def live(self) -> View:
        with self._lock:
            return self._live

    def public(self) -> View:
        if self.delay <= 0:
            return self.live()
        with self._lock:
            now = self.now()
            self._trim(now)
            cut = now - self.delay
            if self._views and self._views[0].stamp <= cut:
                return self._views[0]
            return self._empty  # the newest view dropped from the queue (or none at all)


class PdnServer(http.server.ThreadingHTTPServer):
    """The relay's HTTP server (module docstring). ``publish(text)`` keeps a serial relay's
    old call working (one anonymous view of all games).

    ``timeout`` bounds a whole request head (and each read); ``clock`` is the monotonic clock
    the head deadlines are read on, injected so tests pass time without waiting."""

    daemon_threads = True
    #: The listen backlog: a crowd of viewers opening the page at once waits here (the kernel
    #: caps it at net.core.somaxconn) rather than retrying its connection a second later.
    request_queue_size = 2048

    def __init__(self, address: tuple[str, int], *, hall: str | Sequence[str] | None = None,
                 timeline: Timeline | None = None, live: bool = False,
                 timeout: float = 10.0, clock: Callable[[], float] = time.monotonic) -> None:
        self.hall = hall
        self.timeline = timeline or Timeline()
        self.live = live
        self.client_timeout = timeout
        self.clock = clock
        self.extra_handlers: list[Handler] = []
        self._clients = threading.BoundedSemaphore(MAX_CLIENTS)
        self._heads: dict[_PdnHandler, float] = {}  # connections awaiting a head: deadline
        self._heads_lock = threading.Lock()
        self._first = time.time()
        super().__init__(address, _PdnHandler)

    def serve_forever(self, poll_interval: float = REAP_EVERY) -> None:
        """Serve until ``shutdown()``; ``poll_interval`` also paces :meth:`service_actions`,
        so overdue request heads are reaped that often."""
        super().serve_forever(poll_interval)

    def service_actions(self) -> None:
        super().service_actions()
        self.reap_slow_heads()

    def shutdown(self) -> None:
        """Stop ``serve_forever`` now, not at its next poll (up to :data:`REAP_EVERY` later):
        the stop is asked on a thread of its own while a connection of the server's own
        wakes its wait, which sees the stop before it accepts anything. Only after
        ``serve_forever`` has started, as ``socketserver``'s."""
        asked = threading.Thread(target=super().shutdown, name="http-shutdown", daemon=True)
        asked.start()
        while asked.is_alive():
            self._knock()
            asked.join(0.02)

    def _knock(self) -> None:
        """A connection to this server's own port, closed at once (the loopback address of
        its family where it listens on every address)."""
        host, port = self.server_address[:2]
        if host in ("", "0.0.0.0", "::"):
            host = "::1" if self.address_family == socket.AF_INET6 else "127.0.0.1"
        try:
            with socket.create_connection((str(host), int(port)), timeout=0.2):
                pass
        except OSError:
            pass  # not listening any more, or refused: the poll ends the wait as ever

    def await_head(self, handler: _PdnHandler) -> None:
        """``handler`` starts waiting for a request: its whole head is due within
        ``client_timeout`` seconds from now."""
        with self._heads_lock:
            self._heads[handler] = self.clock() + self.client_timeout

    def head_read(self, handler: _PdnHandler) -> bool:
        """``handler`` is done waiting for its head (read, refused or gone): no deadline any
        more. False when the reaper closed it first (what it read is cut short)."""
        with self._heads_lock:
            self._heads.pop(handler, None)
            return not handler.head_overdue

    def waiting_for_heads(self) -> int:
        """How many connections are waiting for a request head now."""
        with self._heads_lock:
            return len(self._heads)

    def reap_slow_heads(self) -> int:
        """Close every connection whose request head is overdue; how many were closed.

        The shutdown ends the handler's blocked read, so its thread ends and frees its slot.
        It runs under the lock, so a handler that has just read its head is never cut."""
        now = self.clock()
        with self._heads_lock:
            late = [h for h, due in self._heads.items() if now >= due]
            for handler in late:
                del self._heads[handler]
                handler.head_overdue = True
                try:
                    handler.connection.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass  # the client went already
        if late:
            log.debug("closed %d connection(s) slow to send a request head", len(late))
        return len(late)

    def publish(self, text: str) -> None:
        now = self.timeline.now()
        self.timeline.push(View((GameText("*", "", "", text, now),), now))

    def view(self) -> View:
        return self.timeline.live() if self.live else self.timeline.public()

    def answer(self, path: str) -> tuple[bytes, str, float] | None:
        """The PDN ``path`` names: a hall's or a round's games (:func:`select_games`), or every
        game at ``/games.pdn`` (and ``/`` where no live page is mounted); None for any other
        path, which is answered 404 (a broadcast site never takes a stray URL for the hall)."""
        view = self.view()
        games = select_games(view, self.hall, path)
        if games is None:
            if path not in EVERY_GAME:
                return None
            games = list(view.games)
        body, etag, changed = view.body(games)
        return body, etag, changed or self._first

    def process_request(self, request: Any, client_address: Any) -> None:
        if not self._clients.acquire(blocking=False):
            try:
                request.sendall(b"HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\n"
                                b"Retry-After: 2\r\nConnection: close\r\n\r\n")
            except OSError:
                pass
            self.shutdown_request(request)
            return
        super().process_request(request, client_address)

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self._clients.release()


class _PdnHandler(http.server.BaseHTTPRequestHandler):
    server: PdnServer
    protocol_version = "HTTP/1.1"
    server_version = "kabelaud-relay"

    #: Set by the server's reaper when the request head did not come in time.
    head_overdue = False

    def setup(self) -> None:
        super().setup()
        self.connection.settimeout(self.server.client_timeout)  # a silent client is let go

    def handle_one_request(self) -> None:
        self.server.await_head(self)  # each request of a keep-alive connection, idle included
        super().handle_one_request()

    def parse_request(self) -> bool:
        """Read the head as ``http.server`` does, then drop its deadline; a head the reaper
        cut short is not answered (its end was the shutdown, not the client's blank line)."""
        if self.head_overdue:
            self.close_connection = True
            return False
        try:
            parsed = super().parse_request()
        finally:
            in_time = self.server.head_read(self)
        if not in_time:
            self.close_connection = True
            return False
        return parsed

    def finish(self) -> None:
        self.server.head_read(self)
        super().finish()

    def version_string(self) -> str:
        return self.server_version  # no Python version in the Server header

    def _send(self, head_only: bool) -> None:
        for handler in list(self.server.extra_handlers):
            if handler(self, self.path):  # the whole target: a handler reads its own query
                return
        path = urllib.parse.urlsplit(self.path).path
        answer = self.server.answer(path)
        if answer is None:
            self._not_found(head_only)
            return
        body, etag, changed = answer
        modified = self.date_time_string(int(changed))
        fresh = False
        match = self.headers.get("If-None-Match")
        if match is not None:
            fresh = etag in [t.strip() for t in match.split(",")] or match.strip() == "*"
        elif self.headers.get("If-Modified-Since"):
            try:
                since = parsedate_to_datetime(self.headers["If-Modified-Since"]).timestamp()
                fresh = since >= int(changed)
            except (TypeError, ValueError, IndexError, OverflowError):
                fresh = False
        self.send_response(304 if fresh else 200)
        self.send_header("Content-Type", "application/x-draughts-pdn; charset=utf-8")
        self.send_header("ETag", etag)
        self.send_header("Last-Modified", modified)
        self.send_header("Cache-Control", "no-cache")
        if fresh:
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if not head_only:
            self.wfile.write(body)

    def _not_found(self, head_only: bool) -> None:
        path = urllib.parse.urlsplit(self.path).path
        self._plain(404, not_found_text(self.server.hall, path), head_only)

    def _plain(self, code: int, text: str, head_only: bool = False,
               headers: dict[str, str] | None = None) -> None:
        """A one-line plain text answer."""
        body = text.encode("utf-8", errors="replace")
        self.send_response(code)
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.send_header("Content-Type", "text/plain; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if not head_only:
            self.wfile.write(body)

    def send_error(self, code: int, message: str | None = None,
                   explain: str | None = None) -> None:
        """http.server's errors (an unknown method, a request line or head that cannot be
        read) as one line of plain text, not its HTML page."""
        self.log_error("code %d, message %s", code, message)
        phrase = self.responses.get(code, ("error", ""))[0]
        self.close_connection = True
        self._plain(code, f"{code} {phrase}: {message or explain or phrase}\n"[:300],
                    head_only=self.command == "HEAD" or code < 200 or code in (204, 304),
                    headers={"Connection": "close"})

    def _not_allowed(self) -> None:
        """PUT, DELETE, PATCH, OPTIONS: the relay only serves (and the desk takes POSTs)."""
        self.close_connection = True
        self._plain(405, f"{self.command[:20]} is not allowed: the relay answers GET and HEAD "
                    "(POST for the arbiter's desk)\n",
                    headers={"Allow": "GET, HEAD, POST", "Connection": "close"})

    do_PUT = do_DELETE = do_PATCH = do_OPTIONS = _not_allowed  # noqa: N815

    def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
        self._send(head_only=False)

    def do_HEAD(self) -> None:  # noqa: N802
        self._send(head_only=True)

    def do_POST(self) -> None:  # noqa: N802
        """Only ``extra_handlers`` take a POST (the arbiter's desk); anything else is 404."""
        for handler in list(self.server.extra_handlers):
            if handler(self, self.path):
                return
        self.send_response(404)
        self.send_header("Content-Length", "0")
        self.send_header("Connection", "close")
        self.close_connection = True
        self.end_headers()

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        pass
