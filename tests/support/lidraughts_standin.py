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

Its parts, each a module of its own: the games and challenges (``standin_game``), the NDJSON
streams (``standin_streams``), the faults met by a request (``standin_faults``), the HTTP
handler and its routes (``standin_http``). Their names the tests use are here too.
"""

from __future__ import annotations

import itertools
import threading
import time
from http.server import ThreadingHTTPServer
from typing import Any

from firmware.rules.position import Position
from firmware.rules.sets import Side, find_rules
from support.standin_faults import Faults
from support.standin_game import (
    NO_CLOCK,
    VARIANT_RULES,
    FakeClock,
    StandinChallenge,
    StandinGame,
    squares,
    time_control,
)
from support.standin_http import Handler
from support.standin_streams import Streams, encode

__all__ = ["NO_CLOCK", "VARIANT_RULES", "FakeClock", "LidraughtsStandin", "StandinChallenge",
           "StandinGame"]


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
        self.faults = Faults()
        self.users = {bot: "BoardBot", "alice": "Alice", "bob": "Bob"}
        self.clock = FakeClock()
        self.games: dict[str, StandinGame] = {}
        self.challenges: dict[str, StandinChallenge] = {}
        #: (method, path, perf_counter_ns when read) of every request, in order.
        self.requests: list[tuple[str, str, int]] = []
        self.lock = threading.RLock()
        self.arrived = threading.Condition(self.lock)
        self.streams = Streams(self.lock, self.arrived)
        self.port = 0
        self._ids = itertools.count(1)
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def unavailable(self) -> bool:
        """While set, every request is answered 503 (``faults.unavailable``)."""
        return self.faults.unavailable

    @unavailable.setter
    def unavailable(self, value: bool) -> None:
        self.faults.unavailable = value

    @property
    def oauth_offline(self) -> int:
        """This many requests more are answered "OAuth server is offline" 401."""
        return self.faults.oauth_offline

    @oauth_offline.setter
    def oauth_offline(self, value: int) -> None:
        self.faults.oauth_offline = value

    # -- life ---------------------------------------------------------------------------------

    def start(self) -> LidraughtsStandin:
        handler = type("StandinHandler", (Handler,), {"standin": self})
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

    def __enter__(self) -> LidraughtsStandin:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

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
            self.streams.to_events({"type": "gameStart", "game": {"id": gid}})
        return game

    def play(self, game_id: str, text: str) -> None:
        """The opponent plays a whole move (its route's squares as lidraughts writes them)."""
        with self.lock:
            game = self.games[game_id]
            error = game.play_whole(squares(text), self.clock.ms)
            if error:
                raise AssertionError(error)
            self.changed(game)

    def play_steps(self, game_id: str, text: str) -> None:
        """The opponent plays a capture a step at a time."""
        route = squares(text)
        with self.lock:
            game = self.games[game_id]
            for a, b in zip(route, route[1:], strict=False):
                error = game.step(a, b, self.clock.ms)
                if error:
                    raise AssertionError(error)
                self.changed(game)

    def script(self, game_id: str, moves: list[str]) -> None:
        """The opponent plays these in turn, each as soon as the bot's move lands."""
        with self.lock:
            game = self.games[game_id]
            game.script = list(moves)
            self.play_script(game)

    def resign(self, game_id: str) -> None:
        with self.lock:
            game = self.games[game_id]
            game.finish("resign", game.side_of(self.bot))
            self.changed(game)

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
                self.changed(game)
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
                    self.changed(game)

    def send_challenge(self, challenger: str = "alice", variant: str = "standard",
                       limit_s: int = 300, increment_s: int = 3, kind: str = "clock",
                       color: str = "white", rated: bool = False,
                       initial_fen: str | None = None) -> StandinChallenge:
        """``challenger`` challenges the bot (``color``: the challenger's)."""
        tc = time_control(kind, limit_s, increment_s)
        with self.lock:
            c = StandinChallenge(self.new_id(), challenger, self.bot, variant, rated, tc, color,
                                 initial_fen)
            self.challenges[c.id] = c
            self.streams.to_events({"type": "challenge", "challenge": c.json(self.users)})
        return c

    def accept_outgoing(self, challenge_id: str) -> StandinGame:
        """The challenged user accepts the bot's challenge: the game starts."""
        with self.lock:
            c = self.challenges[challenge_id]
            c.status = "accepted"
            return self.open_game(c)

    def lose_next_answer(self, kind: str = "move") -> None:
        """The next request of ``kind`` (move, resign, abort, challenge) acts, and its
        connection is closed before any answer."""
        with self.lock:
            self.faults.lose_next_answer(kind)

    def cut_streams(self, kind: str | None = None) -> None:
        """Drop open streams (``game``, ``event``; None: all) without an end."""
        self.streams.cut(kind)

    def send_line(self, raw: bytes, kind: str = "game") -> None:
        """Send ``raw`` and a newline on the open streams of ``kind``."""
        self.streams.send_line(raw, kind)

    def keepalive(self) -> None:
        self.streams.keepalive()

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
        return self.streams.count(kind)

    # -- inside: what a request or the test's move sets going ------------------------------

    def open_game(self, c: StandinChallenge) -> StandinGame:
        """The game an accepted challenge opens."""
        return self.create_game(**c.game_args(self.bot))

    def changed(self, game: StandinGame) -> None:
        """``game``'s new state on its streams (ended with it if the game is over)."""
        line = encode(game.state(self.clock.ms, self.status_in_state))
        self.streams.to_game(game.id, line, game.over)
        self.arrived.notify_all()

    def play_script(self, game: StandinGame) -> None:
        """The opponent's scripted moves while it is his turn."""
        bot = game.side_of(self.bot)
        while game.script and not game.over and game.position.turn is not bot:
            text = game.script.pop(0)
            error = game.play_whole(squares(text), self.clock.ms)
            if error:
                raise AssertionError(f"the script's {text}: {error}")
            self.changed(game)
