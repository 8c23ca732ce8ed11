"""A stand-in for lidraughts' Bot API, for the tests (our own code, written from lidraughts'
sources: modules ``bot``, ``api``, ``challenge``, ``round``; see docs/ONLINE.md).

It listens on 127.0.0.1 (a free port) and speaks as lidraughts does: NDJSON streams sent
chunked with blank keep-alive lines, ``gameFull`` then a ``gameState`` per change (no
``status`` in them, as lidraughts' ``BotJsonView``; ``status_in_state`` sends it as the API's
documentation shows), the stream ended when the game is over, a bot's capture taken a step at
a time (each step an entry of ``moves``), a draw offer handled before the move it rides on,
``400 {"error": ...}`` for a move the project's rules do not allow, ``401`` for a wrong token.

The scripted opponent plays what the test tells it (``play``: a whole move as one entry, as
lidraughts' web player does; ``play_steps``), or a list of moves in turn (``script``),
resigns, offers and answers draws, and loses on time by the injected clock (``clock``,
``tick``). Faults: ``cut_streams`` (connections dropped mid-game), ``lose_next_answer`` (a
request acted on, its answer never sent), ``restart`` (the port closed and opened again,
the games kept as lidraughts keeps them in its database), ``send_line`` (garbage, an
over-long line).
"""

from __future__ import annotations

import itertools
import json
import queue
import socket
import threading
import time
import urllib.parse
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from firmware.rules.position import Move, Position
from firmware.rules.sets import Side, find_rules

#: The stand-in's own variant table (lidraughts' keys).
VARIANT_RULES = {"standard": "international", "russian": "russian", "brazilian": "brazilian"}
NO_CLOCK = 2**31 - 1
_CUT = object()


class FakeClock:
    """The stand-in's time, in ms, moved by the test."""

    def __init__(self) -> None:
        self.ms = 1_000_000

    def advance(self, seconds: float) -> None:
        self.ms += round(seconds * 1000)


@dataclass
class StandinChallenge:
    id: str
    challenger: str
    dest: str
    variant: str
    rated: bool
    time_control: dict[str, Any]
    color: str
    initial_fen: str | None = None
    status: str = "created"
    reason: str | None = None

    def json(self, users: dict[str, str]) -> dict[str, Any]:
        def user(uid: str) -> dict[str, Any]:
            return {"id": uid, "name": users.get(uid, uid), "title": None, "rating": 1500}
        out = {"id": self.id, "url": f"https://lidraughts.org/{self.id}", "status": self.status,
               "challenger": user(self.challenger), "destUser": user(self.dest),
               "variant": {"key": self.variant, "name": self.variant.title(), "short": "x"},
               "rated": self.rated, "speed": "blitz", "timeControl": self.time_control,
               "color": self.color, "perf": {"icon": "#", "name": "Blitz"}}
        if self.initial_fen:
            out["initialFen"] = self.initial_fen
        return out


@dataclass
class StandinGame:
    """One game as the stand-in keeps it."""

    id: str
    variant: str
    white: str
    black: str
    limit_ms: int | None
    increment_ms: int
    position: Position
    started_ms: int
    entries: list[str] = field(default_factory=list)
    plies: list[Move] = field(default_factory=list)
    pending: list[int] = field(default_factory=list)
    remaining: dict[Side, int] = field(default_factory=dict)
    offers: set[Side] = field(default_factory=set)
    status: str = "started"
    winner: Side | None = None
    script: list[str] = field(default_factory=list)
    fen: str | None = None

    @property
    def over(self) -> bool:
        return self.status != "started"

    def side_of(self, user: str) -> Side:
        return Side.WHITE if user == self.white else Side.BLACK

    def left(self, side: Side, now_ms: int) -> int:
        if self.limit_ms is None:
            return NO_CLOCK
        left = self.remaining[side]
        if not self.over and side is self.position.turn and self.plies:
            left -= now_ms - self.started_ms
        return max(0, left)

    def state(self, now_ms: int, with_status: bool) -> dict[str, Any]:
        out: dict[str, Any] = {
            "type": "gameState", "moves": " ".join(self.entries),
            "wtime": self.left(Side.WHITE, now_ms), "btime": self.left(Side.BLACK, now_ms),
            "winc": self.increment_ms, "binc": self.increment_ms,
            "wdraw": Side.WHITE in self.offers, "bdraw": Side.BLACK in self.offers}
        if with_status:
            out["status"] = self.status
            if self.winner is not None:
                out["winner"] = self.winner.value
        return out

    def full(self, now_ms: int, with_status: bool, users: dict[str, str]) -> dict[str, Any]:
        def player(uid: str) -> dict[str, Any]:
            return {"id": uid, "name": users.get(uid, uid), "title": None, "rating": 1500}
        clock = None if self.limit_ms is None else {"initial": self.limit_ms,
                                                    "increment": self.increment_ms}
        return {"type": "gameFull", "id": self.id,
                "variant": {"key": self.variant, "name": self.variant.title(), "short": "x",
                            "gameType": 20, "board": {"key": "x", "size": [10, 10]}},
                "clock": clock, "speed": "blitz", "perf": {"name": "Blitz"}, "rated": False,
                "createdAt": 1_700_000_000_000, "white": player(self.white),
                "black": player(self.black), "initialFen": self.fen or "startpos",
                "state": self.state(now_ms, with_status)}

    # -- moves, checked by the project's rules ---------------------------------------------

    def step(self, a: int, b: int, now_ms: int) -> str | None:
        """One step of the side to move; the error text, or None."""
        route = (*self.pending, b) if self.pending else (a, b)
        if self.pending and a != self.pending[-1]:
            return f"Piece on {a:02d} cannot move: the capture goes on from {self.pending[-1]:02d}"
        legal = self.position.legal_moves()
        fits = [m for m in legal if m.route[:len(route)] == route]
        if not fits:
            return f"Piece on {a:02d} cannot move to {b:02d}"
        self.entries.append(f"{a:02d}{b:02d}")
        whole = [m for m in fits if m.route == route]
        if whole:
            self._complete(whole[0], now_ms)
        else:
            self.pending = list(route)
        return None

    def play_whole(self, route: tuple[int, ...], now_ms: int) -> str | None:
        legal = [m for m in self.position.legal_moves() if m.route == route]
        if self.pending or not legal:
            return f"{route} is not a legal move"
        self.entries.append("".join(f"{sq:02d}" for sq in route))
        self._complete(legal[0], now_ms)
        return None

    def _complete(self, move: Move, now_ms: int) -> None:
        mover = self.position.turn
        if self.limit_ms is not None and self.plies:  # lidraughts starts the clock at ply 1
            used = now_ms - self.started_ms
            self.remaining[mover] -= used
            if self.remaining[mover] < 0:
                self.remaining[mover] = 0
                self.finish("outoftime", mover.other)
                return
            self.remaining[mover] += self.increment_ms
        self.plies.append(move)
        self.position = self.position.play(move)
        self.pending = []
        self.started_ms = now_ms
        self.offers.discard(mover.other)  # a move declines the opponent's offer (DrawNo)
        if not self.position.has_legal_move():
            self.finish("mate", mover)

    def finish(self, status: str, winner: Side | None) -> None:
        self.status = status
        self.winner = winner


class _Conn:
    """An open stream: lines to send, or a cut."""

    def __init__(self, kind: str, game_id: str | None) -> None:
        self.kind = kind
        self.game_id = game_id
        self.lines: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self.sock: socket.socket | None = None


class LidraughtsStandin:
    """The stand-in server. ``start()`` binds 127.0.0.1 on a free port; ``url`` is its
    address; ``stop()`` ends it (every connection cut)."""

    def __init__(self, token: str = "standin-token-1", bot: str = "boardbot",
                 bot_title: str | None = "BOT", status_in_state: bool = False,
                 keepalive_s: float = 1.0) -> None:
        self.token = token
        self.bot = bot
        self.bot_title = bot_title
        self.status_in_state = status_in_state
        #: A blank line on each stream after this long with nothing to send (lidraughts: 6 s).
        self.keepalive_s = keepalive_s
        #: While set, every request is answered 503, as a proxy answers for a server that is
        #: restarting.
        self.unavailable = False
        #: This many requests more are answered lidraughts' passing "OAuth server is
        #: offline" 401.
        self.oauth_offline = 0
        self.users = {bot: "BoardBot", "alice": "Alice", "bob": "Bob"}
        self.clock = FakeClock()
        self.games: dict[str, StandinGame] = {}
        self.challenges: dict[str, StandinChallenge] = {}
        #: (method, path, perf_counter_ns when read) of every request, in order.
        self.requests: list[tuple[str, str, int]] = []
        self.lock = threading.RLock()
        self.conns: list[_Conn] = []
        self.port = 0
        self._lose: set[str] = set()
        self._ids = itertools.count(1)
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self.arrived = threading.Condition(self.lock)

    # -- life ---------------------------------------------------------------------------------

    def start(self) -> LidraughtsStandin:
        handler = type("Handler", (_Handler,), {"standin": self})
        httpd = ThreadingHTTPServer(("127.0.0.1", self.port), handler)
        httpd.daemon_threads = True
        self.port = httpd.server_address[1]
        self._httpd = httpd
        self._thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05},
                                        name="lidraughts-standin", daemon=True)
        self._thread.start()
        return self

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def stop(self) -> None:
        httpd, self._httpd = self._httpd, None
        if httpd is not None:
            httpd.shutdown()
            httpd.server_close()
        self.cut_streams()
        if self._thread is not None:
            self._thread.join(5)

    def restart(self) -> None:
        """Close the port (every connection cut), keep the games, open it again."""
        self.stop()
        self.start()

    # -- the test's side: the opponent, challenges, faults ------------------------------------

    def new_id(self) -> str:
        return f"g{next(self._ids):07d}"

    def create_game(self, variant: str = "standard", bot_side: Side = Side.WHITE,
                    opponent: str = "alice", limit_s: int | None = 300, increment_s: int = 0,
                    game_id: str | None = None, fen: str | None = None) -> StandinGame:
        """A game under way, announced on the event streams (``gameStart``); ``fen``: its
        start, if not the usual one."""
        gid = game_id or self.new_id()
        rules = find_rules(VARIANT_RULES[variant])
        start = Position.from_fen(rules, fen) if fen else Position.start(rules)
        white, black = (self.bot, opponent) if bot_side is Side.WHITE else (opponent, self.bot)
        limit = None if limit_s is None else limit_s * 1000
        with self.lock:
            game = StandinGame(gid, variant, white, black, limit, increment_s * 1000,
                               start, self.clock.ms, fen=fen)
            if limit is not None:
                game.remaining = {Side.WHITE: limit, Side.BLACK: limit}
            self.games[gid] = game
            self._to_events({"type": "gameStart", "game": {"id": gid}})
        return game

    def play(self, game_id: str, text: str) -> None:
        """The opponent plays a whole move (its route's squares as lidraughts writes them)."""
        squares = tuple(int(text[i:i + 2]) for i in range(0, len(text), 2))
        with self.lock:
            game = self.games[game_id]
            error = game.play_whole(squares, self.clock.ms)
            if error:
                raise AssertionError(error)
            self._changed(game)

    def play_steps(self, game_id: str, text: str) -> None:
        """The opponent plays a capture a step at a time."""
        squares = [int(text[i:i + 2]) for i in range(0, len(text), 2)]
        with self.lock:
            game = self.games[game_id]
            for a, b in zip(squares, squares[1:], strict=False):
                error = game.step(a, b, self.clock.ms)
                if error:
                    raise AssertionError(error)
                self._changed(game)

    def script(self, game_id: str, moves: list[str]) -> None:
        """The opponent plays these in turn, each as soon as the bot's move lands."""
        with self.lock:
            game = self.games[game_id]
            game.script = list(moves)
            self._play_script(game)

    def resign(self, game_id: str) -> None:
        with self.lock:
            game = self.games[game_id]
            game.finish("resign", game.side_of(self.bot))
            self._changed(game)

    def offer_draw(self, game_id: str) -> None:
        """The opponent offers a draw (seen with the next state, as lidraughts pushes none)."""
        with self.lock:
            game = self.games[game_id]
            game.offers.add(game.side_of(self.bot).other)

    def answer_draw(self, game_id: str, accept: bool) -> None:
        with self.lock:
            game = self.games[game_id]
            if accept:
                game.finish("draw", None)
                self._changed(game)
            else:
                game.offers.discard(game.side_of(self.bot))

    def tick(self) -> None:
        """The server's look at the running clocks (lidraughts flags a player whose time ran
        out even if he never moves)."""
        with self.lock:
            for game in self.games.values():
                if game.over or game.limit_ms is None or not game.plies:
                    continue
                side = game.position.turn
                if game.left(side, self.clock.ms) <= 0:
                    game.remaining[side] = 0
                    game.finish("outoftime", side.other)
                    self._changed(game)

    def send_challenge(self, challenger: str = "alice", variant: str = "standard",
                       limit_s: int = 300, increment_s: int = 3, kind: str = "clock",
                       color: str = "white", rated: bool = False,
                       initial_fen: str | None = None) -> StandinChallenge:
        """``challenger`` challenges the bot (``color``: the challenger's)."""
        if kind == "clock":
            tc: dict[str, Any] = {"type": "clock", "limit": limit_s, "increment": increment_s,
                                  "show": f"{limit_s // 60}+{increment_s}"}
        elif kind == "correspondence":
            tc = {"type": "correspondence", "daysPerTurn": 3}
        else:
            tc = {"type": kind}
        with self.lock:
            c = StandinChallenge(self.new_id(), challenger, self.bot, variant, rated, tc, color,
                                 initial_fen)
            self.challenges[c.id] = c
            self._to_events({"type": "challenge", "challenge": c.json(self.users)})
        return c

    def accept_outgoing(self, challenge_id: str) -> StandinGame:
        """The challenged user accepts the bot's challenge: the game starts."""
        with self.lock:
            c = self.challenges[challenge_id]
            c.status = "accepted"
            return self._game_of(c)

    def lose_next_answer(self, kind: str = "move") -> None:
        """The next request of ``kind`` (move, resign, abort, challenge) acts, and its
        connection is closed before any answer."""
        with self.lock:
            self._lose.add(kind)

    def cut_streams(self, kind: str | None = None) -> None:
        """Drop open streams (``game``, ``event``; None: all) without an end."""
        with self.lock:
            for conn in list(self.conns):
                if kind is None or conn.kind == kind:
                    conn.lines.put(_CUT)
                    if conn.sock is not None:
                        try:
                            conn.sock.shutdown(socket.SHUT_RDWR)
                        except OSError:
                            pass

    def send_line(self, raw: bytes, kind: str = "game") -> None:
        """Send ``raw`` and a newline on the open streams of ``kind``."""
        with self.lock:
            for conn in self.conns:
                if conn.kind == kind:
                    conn.lines.put(raw + b"\n")

    def keepalive(self) -> None:
        with self.lock:
            for conn in self.conns:
                conn.lines.put(b"\n")

    def wait_for(self, predicate: Any, timeout: float = 10.0) -> None:
        """Wait until ``predicate()`` holds (checked under the lock at each request)."""
        deadline = time.monotonic() + timeout
        with self.arrived:
            while not predicate():
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError("the stand-in did not see what the test waited for")
                self.arrived.wait(left)

    def streams_open(self, kind: str) -> int:
        with self.lock:
            return sum(1 for c in self.conns if c.kind == kind)

    # -- inside -------------------------------------------------------------------------------

    def _game_of(self, c: StandinChallenge) -> StandinGame:
        if c.color == "random":
            bot_side = Side.BLACK
        else:
            challenger_side = Side(c.color)
            bot_side = challenger_side.other if c.challenger != self.bot else challenger_side
        other = c.dest if c.challenger == self.bot else c.challenger
        tc = c.time_control
        limit = tc["limit"] if tc["type"] == "clock" else None
        inc = tc.get("increment", 0) if tc["type"] == "clock" else 0
        return self.create_game(c.variant, bot_side, other, limit, inc, game_id=c.id)

    def _to_events(self, obj: dict[str, Any]) -> None:
        for conn in self.conns:
            if conn.kind == "event":
                conn.lines.put(_encode(obj))

    def _changed(self, game: StandinGame) -> None:
        line = _encode(game.state(self.clock.ms, self.status_in_state))
        for conn in self.conns:
            if conn.kind == "game" and conn.game_id == game.id:
                conn.lines.put(line)
                if game.over:
                    conn.lines.put(None)
        self.arrived.notify_all()

    def _play_script(self, game: StandinGame) -> None:
        bot = game.side_of(self.bot)
        while game.script and not game.over and game.position.turn is not bot:
            text = game.script.pop(0)
            squares = tuple(int(text[i:i + 2]) for i in range(0, len(text), 2))
            error = game.play_whole(squares, self.clock.ms)
            if error:
                raise AssertionError(f"the script's {text}: {error}")
            self._changed(game)

    def take_lost(self, kind: str) -> bool:
        with self.lock:
            if kind in self._lose:
                self._lose.discard(kind)
                return True
            return False


def _encode(obj: dict[str, Any]) -> bytes:
    return json.dumps(obj, separators=(",", ":")).encode() + b"\n"


class _Handler(BaseHTTPRequestHandler):
    standin: LidraughtsStandin
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
        if s.unavailable:
            self._json(503, {"error": "Service Unavailable"})
            return
        with s.lock:
            offline, s.oauth_offline = s.oauth_offline > 0, max(0, s.oauth_offline - 1)
        if offline:
            self._json(401, {"error": "OAuth server is offline! Try again soon."})
            return
        if self.headers.get("Authorization") != f"Bearer {s.token}":
            self._json(401, {"error": "No such token"})
            return
        length = int(self.headers.get("Content-Length") or 0)
        form = urllib.parse.parse_qs(self.rfile.read(length).decode()) if length else {}
        query = urllib.parse.parse_qs(url.query)
        parts = [p for p in url.path.split("/") if p]
        route = _Routes(s, self, parts, form, query)
        route.dispatch(method)

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

    def _stream(self, conn: _Conn) -> None:
        """Send ``conn``'s lines (its first ones queued before it was listed, so nothing
        overtakes them) until it ends or is cut."""
        s = self.standin
        self.send_response(200)
        self.send_header("Content-Type", "application/x-ndjson")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        conn.sock = self.connection
        try:
            while True:
                try:
                    item = conn.lines.get(timeout=s.keepalive_s)
                except queue.Empty:
                    item = b"\n"
                if item is _CUT:
                    break
                if item is None:
                    self.wfile.write(b"0\r\n\r\n")
                    self.wfile.flush()
                    break
                self.wfile.write(b"%x\r\n%s\r\n" % (len(item), item))
                self.wfile.flush()
        except OSError:
            pass
        finally:
            with s.lock:
                if conn in s.conns:
                    s.conns.remove(conn)
                s.arrived.notify_all()
            self._drop()


class _Routes:
    """One request's handling, by its path."""

    def __init__(self, s: LidraughtsStandin, h: _Handler, parts: list[str],
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
        conn = _Conn("event", None)
        with s.lock:
            first: list[bytes | None] = [
                _encode({"type": "gameStart", "game": {"id": g.id}})
                for g in s.games.values() if not g.over and s.bot in (g.white, g.black)]
            first += [_encode({"type": "challenge", "challenge": c.json(s.users)})
                      for c in s.challenges.values()
                      if c.status == "created" and c.dest == s.bot]
            for line in first:
                conn.lines.put(line)
            s.conns.append(conn)
            s.arrived.notify_all()
        self.h._stream(conn)

    def _game_stream(self, gid: str) -> None:
        s = self.s
        with s.lock:
            game = s.games.get(gid)
            if game is None:
                self.h._json(404, {"error": "No such game"})
                return
            conn = _Conn("game", gid)
            first: list[bytes | None] = [_encode(game.full(s.clock.ms, s.status_in_state,
                                                           s.users))]
            if game.over:
                first.append(None)
            for line in first:
                conn.lines.put(line)
            s.conns.append(conn)
            s.arrived.notify_all()
        self.h._stream(conn)

    def _record(self, gid: str) -> None:
        game = self.s.games.get(gid)
        if game is None:
            self.h._json(404, {"error": "No such game"})
            return
        out: dict[str, Any] = {"id": gid, "status": game.status, "variant": game.variant}
        if game.winner is not None:
            out["winner"] = game.winner.value
        self.h._json(200, out)

    def _game_command(self, gid: str, rest: list[str]) -> None:
        s = self.s
        with s.lock:
            game = s.games.get(gid)
            if game is None:
                self.h._json(404, {"error": "No such game"})
                return
            kind = rest[0]
            if kind == "move" and len(rest) == 2:
                error = self._move(game, rest[1])
            elif kind in ("resign", "abort"):
                error = self._end(game, kind)
            else:
                self.h._json(404, {"error": "No such command"})
                return
            lose = s.take_lost(kind)
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
            s._changed(game)
            return "game is finished"
        error = game.step(int(uci[:2]), int(uci[2:]), s.clock.ms)
        if error is None:
            s._changed(game)
            s._play_script(game)
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
        self.s._changed(game)
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
                s._game_of(c)
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
            lose = s.take_lost("challenge")
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
