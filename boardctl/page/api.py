"""The board page's requests (docs/PAGE.md), answered on the relay's HTTP server's threads
(boardctl.relay.http, as its one ``extra_handlers`` entry: every path is the page's).

GET (and HEAD): ``/`` and ``/static/NAME`` (the page), ``/api/state``, ``/api/options``,
``/api/games``, ``/api/games/ID.pdn``, ``/api/games/ID.json``, ``/api/events`` (the state
pushed, Server-Sent Events). POST: ``/api/new``, ``/api/hint``, ``/api/resign``,
``/api/offer-draw``, ``/api/decline-draw``, ``/api/login``, ``/api/logout``. Anything else:
404; a path with another method: 405 (with ``Allow``); each a one-line JSON error. A POST
from a page of another site (its ``Origin`` not this host) is refused (403) before anything
is read.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler
from typing import Any
from urllib.parse import unquote, urlsplit

from boardctl.page.archive import GameArchive, replay_pdn
from boardctl.page.gate import Gate
from boardctl.page.live import Commands, PageLive
from boardctl.page.options import choices, new_request
from boardctl.page.replies import (
    STATIC,
    BadRequest,
    read_json,
    send_bytes,
    send_error,
    send_json,
    send_static,
)
from boardctl.page.view import page_state
from boardctl.relay.live.stream import serve
from firmware.errors import BoardError

log = logging.getLogger(__name__)

Route = Callable[[BaseHTTPRequestHandler, str], None]
_GAME = re.compile(r"/api/games/([^/]{1,80})\.(pdn|json)")
#: The player's requests the page passes on (the person's side: a hint, resign, a draw offer,
#: a draw offer of an opponent not at the board declined).
PLAYER_REQUESTS = ("hint", "resign", "offer-draw", "decline-draw")


class PageApi:
    """The page's routes over the service (``board``), its live state, its games and its
    gate; ``board_name`` for file names."""

    def __init__(self, board: Commands, live: PageLive, archive: GameArchive, gate: Gate,
                 ) -> None:
        self.board = board
        self.live = live
        self.archive = archive
        self.gate = gate
        self.reads: dict[str, Route] = {
            "/": self._page, "/index.html": self._page, "/api/state": self._state,
            "/api/options": self._options, "/api/games": self._games,
            "/api/events": self._events,
        }
        self.changes: dict[str, Route] = {
            "/api/new": self._new, "/api/login": self._login, "/api/logout": self._logout,
            **{f"/api/{cmd}": self._player(cmd) for cmd in PLAYER_REQUESTS},
        }
        #: Open whatever the gate says: the page itself, its choices, signing in and out.
        self.open = frozenset({"/", "/index.html", "/api/options", "/api/login",
                               "/api/logout"})

    def handle(self, handler: BaseHTTPRequestHandler, target: str) -> bool:
        """The HTTP server's ``extra_handlers`` hook: every request is the page's (True)."""
        route = unquote(urlsplit(target).path)
        try:
            self._answer(handler, route)
        except BadRequest as refusal:
            send_error(handler, refusal)
        except (BrokenPipeError, ConnectionResetError):
            pass
        except BoardError as exc:
            send_error(handler, BadRequest(400, str(exc)))
        return True

    def _answer(self, handler: BaseHTTPRequestHandler, route: str) -> None:
        reading = handler.command in ("GET", "HEAD")
        table = self.reads if reading else self.changes
        action = table.get(route) or (self._lookup(route) if reading else None)
        if action is None:
            other = self.changes if reading else self.reads
            if route in other or (not reading and self._lookup(route) is not None):
                allow = "POST" if reading else "GET, HEAD"
                raise BadRequest(405, f"{route[:80]}: {handler.command} is not allowed "
                                 f"(use {allow})", (("Allow", allow),))
            raise BadRequest(404, f"no such page: {route[:80]} (the board's page is /, its "
                             "API /api/state, /api/new, /api/games)")
        if not reading:
            self._same_site(handler)
        if route not in self.open and not route.startswith("/static/"):
            refusal = self.gate.admit(handler.headers, handler.client_address[0],
                                      changing=not reading)
            if refusal is not None:
                raise BadRequest(refusal.status, refusal.message, refusal.headers)
        action(handler, route)

    def _lookup(self, route: str) -> Route | None:
        if route.startswith("/static/") and route[len("/static/"):] in STATIC:
            return lambda handler, r: send_static(handler, r[len("/static/"):])
        if _GAME.fullmatch(route):
            return self._game
        return None

    @staticmethod
    def _same_site(handler: BaseHTTPRequestHandler) -> None:
        """A browser says where a POST comes from: only this page's own may change things."""
        origin = handler.headers.get("Origin")
        host = handler.headers.get("Host", "")
        if origin is not None and origin not in (f"http://{host}", f"https://{host}"):
            raise BadRequest(403, "a change from another site's page is refused")

    # -- reading -------------------------------------------------------------------------------

    def _page(self, handler: BaseHTTPRequestHandler, route: str) -> None:
        send_static(handler, "index.html")

    def status(self) -> dict[str, Any]:
        """The service's status now; 503 when it does not answer."""
        status = self.live.status()
        if status is None:
            raise BadRequest(503, "the board does not answer; try again")
        return status

    def _state(self, handler: BaseHTTPRequestHandler, route: str) -> None:
        send_json(handler, 200, page_state(self.status(), self.live.remote))

    def _options(self, handler: BaseHTTPRequestHandler, route: str) -> None:
        state = page_state(self.status())
        signed = self.gate.session(handler.headers.get("Cookie", ""))
        send_json(handler, 200, {
            **choices(state["size"]), "size": state["size"], "board": state["board"],
            "password": self.gate.protected, "read_open": self.gate.read_open,
            "signed_in": signed or not self.gate.protected})

    def _games(self, handler: BaseHTTPRequestHandler, route: str) -> None:
        current = page_state(self.status(), self.live.remote)
        send_json(handler, 200, self.archive.games(current))

    def _game(self, handler: BaseHTTPRequestHandler, route: str) -> None:
        m = _GAME.fullmatch(route)
        assert m is not None
        game_id, kind = m.group(1), m.group(2)
        text = self.archive.pdn(game_id)
        if text is None and game_id == self.status().get("game"):
            text = str(self.board.command({"cmd": "pdn"}).get("pdn") or "") or None
        if text is None:  # (the game in play before its journal is written: the same PDN)
            raise BadRequest(404, f"no game {game_id[:70]!r} on this board (GET /api/games "
                             "lists them)")
        if kind == "pdn":
            send_bytes(handler, 200, "application/x-draughts-pdn; charset=utf-8",
                       text.encode("utf-8"), disposition=f'attachment; filename="{game_id}.pdn"')
        else:
            send_json(handler, 200, replay_pdn(game_id, text))

    def _events(self, handler: BaseHTTPRequestHandler, route: str) -> None:
        serve(handler, self.live.channel, self.live.state, self.live.streams)

    # -- changes -------------------------------------------------------------------------------

    def _new(self, handler: BaseHTTPRequestHandler, route: str) -> None:
        request = new_request(read_json(handler, required=True))
        answer = self.board.command(request)
        if not answer.get("ok"):
            raise BadRequest(400, str(answer.get("error") or "the board refused"))
        log.info("board page: a new game from %s", handler.client_address[0])
        self.live.saw(answer)
        self.live.poke()
        send_json(handler, 200, page_state(answer))

    def _player(self, cmd: str) -> Route:
        def act(handler: BaseHTTPRequestHandler, route: str) -> None:
            read_json(handler, required=False)
            answer = self.board.command({"cmd": cmd})
            if not answer.get("ok"):
                raise BadRequest(400, str(answer.get("error") or "the board refused"))
            self.live.saw(answer)
            self.live.poke()
            send_json(handler, 200, answer)
        return act

    def _login(self, handler: BaseHTTPRequestHandler, route: str) -> None:
        body = read_json(handler, required=True)
        password = body.get("password")
        if not isinstance(password, str) or not password:
            raise BadRequest(400, "sign in with {\"password\": \"...\"}")
        if not self.gate.protected:
            send_json(handler, 200, {"signed_in": True})
            return
        refusal = self.gate.try_password(password.encode("utf-8", "replace"),
                                         handler.client_address[0])
        if refusal is not None:
            raise BadRequest(refusal.status, refusal.message, refusal.headers)
        cookie = self.gate.cookie(self.gate.sign_in())
        send_json(handler, 200, {"signed_in": True}, (("Set-Cookie", cookie),))

    def _logout(self, handler: BaseHTTPRequestHandler, route: str) -> None:
        read_json(handler, required=False)
        self.gate.sign_out(handler.headers.get("Cookie", ""))
        send_json(handler, 200, {"signed_in": False}, (("Set-Cookie", self.gate.cookie(None)),))
