"""The stand-in lidraughts server's HTTP side (tests/support/lidraughts_standin.py): a
request's checks (the faults injected, the token), then its route: the account, the event
and game streams, a game's record, the bot's moves (the draw flag handled before the move,
``400 {"error": ...}`` for one the rules do not allow), resign and abort, challenges."""

from __future__ import annotations

import json
import socket
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler
from typing import Any, Protocol

from firmware.rules.sets import Side
from support.standin_faults import Faults
from support.standin_game import VARIANT_RULES, FakeClock, StandinChallenge, StandinGame
from support.standin_streams import Stream, Streams, encode, pump


class Server(Protocol):
    """What the HTTP side reads and changes of the stand-in."""

    token: str
    bot: str
    bot_title: str | None
    status_in_state: bool
    keepalive_s: float
    users: dict[str, str]
    games: dict[str, StandinGame]
    challenges: dict[str, StandinChallenge]
    clock: FakeClock
    requests: list[tuple[str, str, int]]
    lock: threading.RLock
    arrived: threading.Condition
    faults: Faults
    streams: Streams

    def new_id(self) -> str: ...

    def open_game(self, challenge: StandinChallenge) -> StandinGame: ...

    def changed(self, game: StandinGame) -> None: ...

    def play_script(self, game: StandinGame) -> None: ...


class Handler(BaseHTTPRequestHandler):
    """One connection's requests; ``standin`` set on a subclass made for each server."""

    standin: Server
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        self._serve("GET")

    def do_POST(self) -> None:
        self._serve("POST")

    def _serve(self, method: str) -> None:
        s = self.standin
        url = urllib.parse.urlsplit(self.path)
        with s.lock:
            s.requests.append((method, self.path, time.perf_counter_ns()))
            s.arrived.notify_all()
            refusal = s.faults.refusal(self.headers.get("Authorization"), s.token)
        if refusal is not None:
            self._json(refusal[0], {"error": refusal[1]})
            return
        length = int(self.headers.get("Content-Length") or 0)
        form = urllib.parse.parse_qs(self.rfile.read(length).decode()) if length else {}
        query = urllib.parse.parse_qs(url.query)
        parts = [p for p in url.path.split("/") if p]
        Routes(s, self, parts, form, query).dispatch(method)

    def _json(self, status: int, obj: dict[str, Any]) -> None:
        body = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(body)
        self.close_connection = True

    def _drop(self) -> None:
        """Close the connection with no answer."""
        try:
            self.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.close_connection = True

    def _stream(self, stream: Stream) -> None:
        """Send ``stream``'s lines until it ends or is cut, then close the connection."""
        self.send_response(200)
        self.send_header("Content-Type", "application/x-ndjson")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        stream.sock = self.connection
        try:
            pump(self.wfile, stream, self.standin.keepalive_s)
        except OSError:
            pass
        finally:
            self.standin.streams.remove(stream)
            self._drop()


class Routes:
    """One request's handling, by its path."""

    def __init__(self, s: Server, h: Handler, parts: list[str],
                 form: dict[str, list[str]], query: dict[str, list[str]]) -> None:
        self.s, self.h, self.parts, self.form, self.query = s, h, parts, form, query

    def dispatch(self, method: str) -> None:
        p = self.parts
        if method == "GET" and p == ["api", "account"]:
            me: dict[str, Any] = {"id": self.s.bot, "username": self.s.users[self.s.bot]}
            if self.s.bot_title:
                me["title"] = self.s.bot_title
            self.h._json(200, me)
        elif method == "GET" and p == ["api", "stream", "event"]:
            self._event_stream()
        elif method == "GET" and p[:4] == ["api", "bot", "game", "stream"] and len(p) == 5:
            self._game_stream(p[4])
        elif method == "GET" and p[:2] == ["api", "game"] and len(p) == 3:
            self._record(p[2])
        elif method == "POST" and p[:3] == ["api", "bot", "game"] and len(p) >= 5:
            self._game_command(p[3], p[4:])
        elif method == "POST" and p[:2] == ["api", "challenge"] and len(p) == 4:
            self._answer_challenge(p[2], p[3])
        elif method == "POST" and p[:2] == ["api", "challenge"] and len(p) == 3:
            self._create_challenge(p[2])
        elif method == "POST" and p == ["api", "bot", "account", "upgrade"]:
            self.h._json(200, {"ok": True})
        else:
            self.h._json(404, {"error": "Not found"})

    def _event_stream(self) -> None:
        s = self.s
        with s.lock:
            first: list[bytes | None] = [
                encode({"type": "gameStart", "game": {"id": g.id}})
                for g in s.games.values() if not g.over and s.bot in (g.white, g.black)]
            first += [encode({"type": "challenge", "challenge": c.json(s.users)})
                      for c in s.challenges.values()
                      if c.status == "created" and c.dest == s.bot]
            stream = s.streams.add("event", None, first)
        self.h._stream(stream)

    def _game(self, gid: str) -> StandinGame | None:
        """The game ``gid``, or None once answered 404 as lidraughts does."""
        game = self.s.games.get(gid)
        if game is None:
            self.h._json(404, {"error": "No such game"})
        return game

    def _game_stream(self, gid: str) -> None:
        s = self.s
        with s.lock:
            game = self._game(gid)
            if game is None:
                return
            first: list[bytes | None] = [encode(game.full(s.clock.ms, s.status_in_state,
                                                          s.users))]
            if game.over:
                first.append(None)
            stream = s.streams.add("game", gid, first)
        self.h._stream(stream)

    def _record(self, gid: str) -> None:
        game = self._game(gid)
        if game is None:
            return
        out: dict[str, Any] = {"id": gid, "status": game.status, "variant": game.variant}
        if game.winner is not None:
            out["winner"] = game.winner.value
        self.h._json(200, out)

    def _game_command(self, gid: str, rest: list[str]) -> None:
        s = self.s
        with s.lock:
            game = self._game(gid)
            if game is None:
                return
            kind = rest[0]
            if kind == "move" and len(rest) == 2:
                error = self._move(game, rest[1])
            elif kind in ("resign", "abort"):
                error = self._end(game, kind)
            else:
                self.h._json(404, {"error": "No such command"})
                return
            lose = s.faults.take_lost(kind)
        if lose:
            self.h._drop()
        elif error:
            self.h._json(400, {"error": error})
        else:
            self.h._json(200, {"ok": True})

    def _move(self, game: StandinGame, uci: str) -> str | None:
        s = self.s
        if not (uci.isdigit() and len(uci) == 4):
            return f"Invalid UCI: {uci}"
        me = game.side_of(s.bot)
        if game.over:
            return "Not your turn, or game already over"
        if game.position.turn is not me:
            return "Not your turn, or game already over"
        self._draw_flag(game, me)
        if game.over:
            s.changed(game)
            return "game is finished"
        error = game.step(int(uci[:2]), int(uci[2:]), s.clock.ms)
        if error is None:
            s.changed(game)
            s.play_script(game)
        return error

    def _draw_flag(self, game: StandinGame, me: Side) -> None:
        """lidraughts' BotPlayer: the draw flag is handled before the move."""
        wanted = self.query.get("offeringDraw", [""])[0]
        if wanted == "true" and me not in game.offers:
            if me.other in game.offers:
                game.finish("draw", None)
            else:
                game.offers.add(me)
        elif wanted == "false" and me in game.offers and me.other in game.offers:
            game.offers.discard(me.other)

    def _end(self, game: StandinGame, kind: str) -> str | None:
        me = game.side_of(self.s.bot)
        if game.over:
            return "This game cannot be resigned"
        if kind == "abort" or len(game.plies) < 2:
            if len(game.plies) >= 2:
                return "This game can no longer be aborted"
            game.finish("aborted", None)
        else:
            game.finish("resign", me.other)
        self.s.changed(game)
        return None

    def _answer_challenge(self, cid: str, verb: str) -> None:
        s = self.s
        with s.lock:
            c = s.challenges.get(cid)
            if c is None or c.status != "created" or verb not in ("accept", "decline"):
                self.h._json(404, {"error": "Not found"})
                return
            if verb == "accept":
                c.status = "accepted"
                s.open_game(c)
            else:
                c.status = "declined"
                c.reason = self.form.get("reason", [""])[0]
            s.arrived.notify_all()
        self.h._json(200, {"ok": True})

    def _create_challenge(self, user: str) -> None:
        s = self.s
        f = {k: v[0] for k, v in self.form.items()}
        limit, inc = f.get("clock.limit"), f.get("clock.increment")
        if user.lower() not in s.users or user.lower() == s.bot:
            self.h._json(400, {"error": "No such user" if user.lower() != s.bot
                               else "You can't challenge yourself"})
            return
        if f.get("variant", "standard") not in VARIANT_RULES:
            self.h._json(400, {"error": "variant: error.invalid"})
            return
        with s.lock:
            lose = s.faults.take_lost("challenge")
            c = StandinChallenge(s.new_id(), s.bot, user.lower(), f.get("variant", "standard"),
                                 f.get("rated") == "true",
                                 {"type": "clock", "limit": int(limit or 0),
                                  "increment": int(inc or 0)}, f.get("color", "random"))
            s.challenges[c.id] = c
            s.arrived.notify_all()
        if lose:
            self.h._drop()
            return
        self.h._json(200, {"challenge": c.json(s.users), "socketVersion": 0})
