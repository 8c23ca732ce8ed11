"""The live page's hub: it listens to the relay's records and answers the page's requests.

It plugs into the relay through the two hooks the hall code shares (HALL-INTERFACES.md 2):
:meth:`LiveHub.observe` goes into ``RelayState.observers`` (called on the relay's one state
thread) and :meth:`LiveHub.handle` into the HTTP server's ``extra_handlers``. Routes:

- ``GET /``: the page (``static/index.html``); ``/static/live.js``, ``/static/live.css``.
- ``GET /events``: the Server-Sent Events stream (:mod:`boardctl.relay.live.stream`, written by
  one event loop for every viewer: :mod:`boardctl.relay.live.viewers`): a ``state``
  event with every board, then a ``board`` event per change (and ``log`` events for arbiters).
- ``GET /board/BOARD.json``: one board's moves with clock times and positions (the page asks
  when a board is opened); ``GET /board/BOARD.pdn``: that game's PDN, for download.

Each takes ``?token=T``: with the relay's ``--arbiter-token`` it is the arbiter's view, live and
with the event log; without, the public view, ``--delay`` minutes behind. A wrong token is
refused (403), never silently downgraded.
"""

from __future__ import annotations

import argparse
import gzip
import hmac
import json
import logging
import math
import re
import threading
import time
from collections import Counter
from collections.abc import Callable
from functools import cache
from http.server import BaseHTTPRequestHandler
from importlib import resources
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

from boardctl.relay.live.model import BOARD_NAME, LiveHall, log_entry
from boardctl.relay.live.stream import Channel, serve
from boardctl.relay.live.viewers import StreamLoop
from firmware.errors import BoardError
from firmware.formats.records import FeedRecord

log = logging.getLogger(__name__)

#: A board not heard of for this long is shown offline (snapshots come every 10 s at least).
OFFLINE_AFTER = 25.0
#: How often the pump looks for silent boards and for delayed moves coming due.
PUMP = 0.2
#: A board followed among several halls (boardctl.relay.follower): ``HALL/BOARD``.
HALL_BOARD = re.compile(r"([A-Za-z0-9_-]{1,64})/([A-Za-z0-9_-]{1,64})")
#: Seconds one ``state`` text serves the viewers that connect at the same event number.
STATE_FOR = 1.0
STATIC = {
    "live.js": "text/javascript; charset=utf-8",
    "live.css": "text/css; charset=utf-8",
    "index.html": "text/html; charset=utf-8",
}


@cache
def asset(name: str) -> tuple[bytes, bytes]:
    """A static file of the page (package data), plain and gzipped."""
    body = resources.files("boardctl.relay.live").joinpath("static", name).read_bytes()
    return body, gzip.compress(body, 9, mtime=0)


class LiveHub:
    """The view model, its two audiences and the pump that moves the delayed page along."""

    def __init__(self, *, delay: float = 0.0, arbiter_token: str | None = None,
                 now: Callable[[], float] = time.time, offline_after: float = OFFLINE_AFTER,
                 pdn: Callable[[str, float], str] | None = None) -> None:
        self.delay = delay
        self.token = arbiter_token
        self.now = now
        self.offline_after = offline_after
        self.hall = LiveHall()
        self.lock = threading.Lock()
        self.public = Channel()
        self.arbiter = Channel() if arbiter_token else None
        self.stop = threading.Event()
        #: Writes every viewer's event stream, on one thread (boardctl.relay.live.viewers).
        self.streams = StreamLoop()
        self.errors = 0
        self._shown: dict[str, tuple[Any, ...]] = {}
        self._live: dict[str, tuple[Any, ...]] = {}
        self._logged = 0
        self._thread: threading.Thread | None = None
        self._pdn = pdn
        #: The last state text of each audience: (event number, made at, text).
        self._states: dict[bool, tuple[int, float, str]] = {}

    # -- records in (the relay's state thread) -----------------------------------------------

    def observe(self, source: str, record: FeedRecord, game: str | None = None) -> None:
        """``RelayState.observers`` hook: one accepted feed record from ``source`` (as the
        relay took it) and the game's id its line names.

        A board of one of several halls comes as ``HALL/BOARD`` and is shown as
        ``HALL-BOARD`` (its feed's header names only the BOARD, which two halls may share)."""
        hall_board = HALL_BOARD.fullmatch(source)
        if hall_board is not None:
            source = f"{hall_board.group(1)}-{hall_board.group(2)}"
        try:
            with self.lock:
                now = self.now()
                name = self.hall.feed(source, record, now, game)
                if name is not None and name in self.hall.boards:
                    sig = self.hall.signature(name, now)
                    if self._live.get(name) != sig:  # a routine snapshot changes nothing
                        self._live[name] = sig
                        self._changed(name, now)
        except Exception as exc:  # a page fault must never stop the relay: logged and counted
            self.errors += 1
            log.warning("live page: record from %s not shown: %s", source, exc)

    def _changed(self, name: str, now: float) -> None:
        view = self.hall.view(name, now)
        view["ts"] = now
        data = json.dumps(view, separators=(",", ":"))
        if self.delay <= 0:
            self.public.publish("board", data)
        fresh = self._new_log()
        if self.arbiter is not None:
            self.arbiter.publish("board", data)
            for t, board, mark in list(self.hall.log)[len(self.hall.log) - fresh:]:
                entry = json.dumps(log_entry(t, board, mark), separators=(",", ":"))
                self.arbiter.publish("log", entry)

    def _new_log(self) -> int:
        total = self.hall.logged
        fresh = min(total - self._logged, len(self.hall.log))
        self._logged = total
        return fresh

    def tick(self) -> None:
        """Mark silent boards offline; publish the delayed page's boards whose view moved."""
        with self.lock:
            now = self.now()
            for name in self.hall.silent(now, self.offline_after):
                self._live[name] = self.hall.signature(name, now)
                self._changed(name, now)
            if self.delay <= 0:
                return
            at = now - self.delay
            for name in self.hall.boards:
                sig = self.hall.signature(name, at)
                if self._shown.get(name) != sig:
                    self._shown[name] = sig
                    view = self.hall.view(name, at)
                    view["ts"] = now
                    self.public.publish("board", json.dumps(view, separators=(",", ":")))

    def start(self) -> LiveHub:
        def pump() -> None:
            while not self.stop.wait(PUMP):
                self.tick()

        self._thread = threading.Thread(target=pump, name="live-page", daemon=True)
        self._thread.start()
        return self

    def close(self) -> None:
        self.stop.set()
        self.public.close()
        if self.arbiter is not None:
            self.arbiter.close()
        self.streams.close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    # -- the page's requests (HTTP threads) --------------------------------------------------

    def state(self, arbiter: bool) -> tuple[int, str]:
        """(last event number, the whole hall as the audience sees it), taken together.

        A crowd opening the page at once shares one: the text made for an event number is
        given again for :data:`STATE_FOR` seconds (every change since is an event after it)."""
        with self.lock:
            now = self.now()
            kept = self._states.get(arbiter)
            channel = self.arbiter if arbiter and self.arbiter is not None else self.public
            if kept is not None and kept[0] == channel.last and 0 <= now - kept[1] < STATE_FOR:
                return kept[0], kept[2]
            number, text = self._state(arbiter, now)
            self._states[arbiter] = (number, now, text)
            return number, text

    def _state(self, arbiter: bool, now: float) -> tuple[int, str]:
        at = now if arbiter else now - self.delay
        channel = self.arbiter if arbiter and self.arbiter is not None else self.public
        events = Counter(b.tags.get("Event", "") for b in self.hall.boards.values())
        title = max(events, key=lambda e: (bool(e), events[e]), default="")
        body: dict[str, Any] = {
            "ts": now, "delay": self.delay, "arbiter": arbiter, "title": title,
            "boards": [self.hall.view(name, at) for name in self.hall.boards],
        }
        if arbiter:
            body["log"] = self.hall.events(at)
        return channel.last, json.dumps(body, separators=(",", ":"))

    def handle(self, handler: BaseHTTPRequestHandler, path: str) -> bool:
        """The HTTP server's ``extra_handlers`` hook: True when ``path`` was answered here."""
        parts = urlsplit(path)
        route = unquote(parts.path)
        if route not in ("/", "/index.html", "/events") and not route.startswith(
                ("/static/", "/board/")):
            return False
        tokens = parse_qs(parts.query).get("token")
        token = tokens[0] if tokens else None
        arbiter = token is not None
        good = self.token is not None and token is not None and hmac.compare_digest(
            token.encode(), self.token.encode())
        if arbiter and not good:
            reply(handler, 403, "text/plain; charset=utf-8", b"wrong arbiter token\n")
            return True
        try:
            self._route(handler, route, arbiter)
        except (BrokenPipeError, ConnectionResetError):
            pass
        return True

    def _route(self, handler: BaseHTTPRequestHandler, route: str, arbiter: bool) -> None:
        if route in ("/", "/index.html") or route.startswith("/static/"):
            name = "index.html" if not route.startswith("/static/") else route[len("/static/"):]
            if name not in STATIC:
                reply(handler, 404, "text/plain; charset=utf-8", b"no such file\n")
                return
            plain, packed = asset(name)
            zipped = "gzip" in handler.headers.get("Accept-Encoding", "")
            reply(handler, 200, STATIC[name], packed if zipped else plain,
                  gzipped=zipped, cache="no-cache")
            return
        if route == "/events":
            channel = self.arbiter if arbiter and self.arbiter is not None else self.public
            serve(handler, channel, lambda: self.state(arbiter), self.streams)
            return
        match = re.fullmatch(r"/board/(.+)\.(json|pdn)", route)
        name = match.group(1) if match else ""
        with self.lock:
            known = BOARD_NAME.fullmatch(name) is not None and name in self.hall.boards
            at = self.now() - (0 if arbiter else self.delay)
            if known and match and match.group(2) == "json":
                body = json.dumps({"board": self.hall.view(name, at),
                                   "start": self.hall.start(name),
                                   "moves": self.hall.moves(name, at)}, separators=(",", ":"))
        if not known or match is None:
            reply(handler, 404, "text/plain; charset=utf-8", b"no such board\n")
        elif match.group(2) == "json":
            reply(handler, 200, "application/json", body.encode())
        else:
            text = self.board_pdn(name, at)
            reply(handler, 200, "application/x-draughts-pdn; charset=utf-8", text.encode(),
                  disposition=f'attachment; filename="{name}.pdn"')

    def board_pdn(self, name: str, at: float) -> str:
        """The game on ``name`` as seen at ``at``, in PDN (the relay's own writer)."""
        from boardctl.relay.games import RelayGame

        with self.lock:
            b = self.hall.boards[name]
            count = self.hall.visible(b, at)
            moves = [{"ply": m.ply, "side": m.side, "move": m.move,
                      **({"clock": {"white": m.clock[0], "black": m.clock[1]}} if m.clock else {})}
                     for m in b.moves[:count]]
            tags = dict(b.tags)
            tags.setdefault("Board", name)
            # keyed as a hall board's game (BOARD/GAME), so its writer keeps the Board tag
            game = RelayGame(board=name, game=b.game or name, key=f"{name}/{b.game or name}",
                             rules=b.rules,
                             start_fen=b.start_fen, tags=tags, time_control=b.time_control,
                             moves=moves,
                             result=b.result[1] if b.result and b.result[0] <= at else None)
        return game.pdn()


def reply(handler: BaseHTTPRequestHandler, status: int, ctype: str, body: bytes, *,
          gzipped: bool = False, cache: str = "no-store", disposition: str | None = None) -> None:
    handler.send_response(status)
    handler.send_header("Content-Type", ctype)
    handler.send_header("Content-Length", str(len(body)))
    handler.send_header("Cache-Control", cache)
    handler.send_header("X-Content-Type-Options", "nosniff")
    if gzipped:
        handler.send_header("Content-Encoding", "gzip")
        handler.send_header("Vary", "Accept-Encoding")
    if disposition:
        handler.send_header("Content-Disposition", disposition)
    handler.end_headers()
    if handler.command != "HEAD":
        handler.wfile.write(body)


# -- the command line --------------------------------------------------------------------------


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``--delay MINUTES`` (shared with the public PDN when the hall relay defines it) and
    ``--arbiter-token TOKEN``."""
    if "--delay" not in parser._option_string_actions:
        parser.add_argument("--delay", type=float, default=0.0, metavar="MINUTES",
                            help="delay everything public (the live page) by MINUTES")
    parser.add_argument("--arbiter-token", metavar="TOKEN",
                        help="open the undelayed arbiter view at /?token=TOKEN")


def attach(args: argparse.Namespace, observers: list[Any], server: Any) -> LiveHub | None:
    """Make the hub for ``boardctl relay``'s arguments and plug it into the relay's hooks
    (None without an HTTP server)."""
    delay = getattr(args, "delay", 0.0) or 0.0
    if not (math.isfinite(delay) and 0 <= delay <= 24 * 60):
        raise BoardError("--delay must be a number of minutes from 0 to 1440")
    token = getattr(args, "arbiter_token", None)
    if token is not None and not re.fullmatch(r"[A-Za-z0-9_.~-]{8,200}", token):
        raise BoardError("--arbiter-token: 8 or more letters, digits or _.~- please")
    if server is None:
        return None
    hub = LiveHub(delay=delay * 60, arbiter_token=token)
    observers.append(hub.observe)
    server.extra_handlers.append(hub.handle)
    return hub.start()
