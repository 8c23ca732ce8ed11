"""The arbiter's desk on the relay (docs/HALL.md, "The arbiter's desk"): ``POST /arbiter/BOARD``
with ``Authorization: Bearer TOKEN`` (the relay's ``--arbiter-token``) and a control-socket
request as its JSON body, passed to that board over MQTT and answered with the board's reply.

:class:`Desk` has a paho client of its own (its network thread): it signs each request with
the hall's key (boardctl.hall.signing), publishes it on ``kabelaud/HALL/BOARD/control`` (QoS 1)
and waits, on the HTTP request's own thread, up to :data:`ANSWER_S` for the board's signed
answer on ``kabelaud/HALL/BOARD/reply`` (subscribed for every board: ``+/reply``). A reply
that is not signed with the hall's key, not from that board or not to a request still waiting
is refused (counted, logged the first ten times and then every thousandth). Answers:

- 200 and the board's JSON (``{"ok": true, ...}``, or its ``{"ok": false, "error"}``);
- 401 without an ``Authorization: Bearer`` header, 403 with a wrong token: nothing is sent;
- 404 for a board no retained ``status`` names (none of that name came online), 503 for
  one whose status is ``offline``: at once, nothing sent;
- 400 for a body that is not a JSON object with a ``cmd`` (at most :data:`MAX_BODY` bytes;
  JSON as the control socket reads it: no key given twice, no NaN or Infinity),
  404 for a name that is no board's, 503 with too many requests waiting;
- 504 when the board does not answer within :data:`ANSWER_S` seconds (switched off, not
  given the hall's key, or its ACL keeps it from the control topic).

The token travels with every request: on a network others can reach, serve HTTPS
(``--tls-cert``, ``--tls-key``). No cookie is ever set or read, so no other site's page can
make a browser act here.
"""

from __future__ import annotations

import hmac
import json
import logging
import secrets
import threading
from collections.abc import Callable, Mapping
from http.server import BaseHTTPRequestHandler
from typing import Any
from urllib.parse import unquote, urlsplit

from boardctl.hall.mqtt import NAME, BrokerConfig, board_of, make_client, topic
from boardctl.hall.signing import SignatureError, Signer
from firmware.limits import clip, loads

log = logging.getLogger(__name__)

#: Seconds the desk waits for a board's answer.
ANSWER_S = 5.0
#: The longest request body taken.
MAX_BODY = 64 * 1024
#: Requests waiting for their boards at once.
MAX_WAITING = 1024
#: Seconds a request to a board not (yet) heard online waits for its status.
STATUS_GRACE = 1.0
#: Boards whose retained status the desk keeps (more names are not boards of a real hall).
MAX_BOARDS = 4096


class _Waiting:
    __slots__ = ("board", "done", "body")

    def __init__(self, board: str) -> None:
        self.board = board
        self.done = threading.Event()
        self.body: dict[str, Any] | None = None


class Desk:
    """See the module docstring. ``start()``, ``request(board, body)`` from any thread,
    ``handle`` as an HTTP server's extra handler, ``close()``."""

    def __init__(self, config: BrokerConfig, hall: str, key: bytes, token: str, *,
                 answer_s: float = ANSWER_S, signer: Signer | None = None,
                 log: Callable[[str], None] = log.warning) -> None:
        self.config = config
        self.hall = hall
        self.token = token
        self.answer_s = answer_s
        self.signer = signer or Signer(key, hall)
        self.log = log
        self.refused = 0
        self.timeouts = 0
        self.subscribed = threading.Event()
        #: Each board's retained ``status`` (``online``/``offline``): a request to a board
        #: never heard of is a 404, to one that is offline a 503, at once and nothing sent.
        self.boards: dict[str, str] = {}
        self._waiting: dict[int, _Waiting] = {}
        self._lock = threading.Lock()
        self._heard = threading.Condition()
        self._client: Any = None

    def start(self) -> Desk:
        client = make_client(self.config, f"kabelaud-desk-{self.hall}-{secrets.token_hex(4)}")
        client.on_connect = self._on_connect
        client.on_message = self._on_message
        client.on_subscribe = lambda *args: self.subscribed.set()
        client.reconnect_delay_set(0.2, 5)
        client.connect_async(self.config.host, self.config.port, keepalive=self.config.keepalive)
        client.loop_start()
        self._client = client
        return self

    def close(self) -> None:
        client, self._client = self._client, None
        if client is not None:
            client.disconnect()
            client.loop_stop()

    def _on_connect(self, client: Any, userdata: Any, flags: Any, reason: Any,
                    properties: Any = None) -> None:
        if reason.is_failure:
            self.log(f"desk: broker {self.config.url} refused the connection: {reason}")
            return
        client.subscribe([(topic(self.hall, "+", "reply"), 1),
                          (topic(self.hall, "+", "status"), 1)])

    def _on_status(self, board: str, payload: bytes) -> None:
        said = payload.decode("ascii", "replace")
        if said in ("online", "offline") and (board in self.boards
                                              or len(self.boards) < MAX_BOARDS):
            with self._heard:
                self.boards[board] = said
                self._heard.notify_all()

    def _online(self, board: str) -> str | None:
        """``board``'s status, waiting up to :data:`STATUS_GRACE` for an ``online`` (a board
        that has just connected, its status a few ms behind its ``ready``)."""
        with self._heard:
            self._heard.wait_for(lambda: self.boards.get(board) == "online", STATUS_GRACE)
            return self.boards.get(board)

    def _on_message(self, client: Any, userdata: Any, message: Any) -> None:
        status = board_of(self.hall, message.topic, "status")
        if status is not None:
            self._on_status(status, bytes(message.payload))
            return
        board = board_of(self.hall, message.topic, "reply")
        if board is None:
            return
        try:
            reply = self.signer.check_reply(board, bytes(message.payload))
        except SignatureError as exc:
            self._refuse(f"a reply on {message.topic}: {exc}")
            return
        with self._lock:
            waiting = self._waiting.get(reply.n)
            if waiting is not None and waiting.board == board:
                del self._waiting[reply.n]
            else:
                waiting = None
        if waiting is None:
            self._refuse(f"a reply on {message.topic} to no request waiting (a repeat, or "
                         "too late)")
            return
        waiting.body = reply.body
        waiting.done.set()

    def _refuse(self, what: str) -> None:
        self.refused += 1
        if self.refused <= 10 or self.refused % 1000 == 0:
            self.log(f"desk: REFUSED {what} ({self.refused} so far)")

    def request(self, board: str, body: Mapping[str, Any]) -> tuple[int, dict[str, Any]]:
        """(HTTP status, JSON) for one request to ``board``; waits up to ``answer_s``."""
        client = self._client
        if client is None:
            return 503, {"ok": False, "error": "the desk is not connected to the broker"}
        waiting = _Waiting(board)
        with self._lock:
            if len(self._waiting) >= MAX_WAITING:
                return 503, {"ok": False, "error": "too many desk requests waiting"}
            n = self.signer.next()
            try:
                payload = self.signer.request(board, body, n)
            except (ValueError, TypeError) as exc:  # NaN, a lone surrogate: not JSON to send
                return 400, {"ok": False, "error": f"the request cannot be sent as JSON: {exc}"}
            self._waiting[n] = waiting
            # Under the lock: the counters reach each board in order (it takes only rising ones).
            client.publish(topic(self.hall, board, "control"), payload, qos=1)
        if waiting.done.wait(self.answer_s) and waiting.body is not None:
            return 200, waiting.body
        with self._lock:
            self._waiting.pop(n, None)
        self.timeouts += 1
        return 504, {"ok": False, "error": f"board {board} did not answer within "
                     f"{self.answer_s:g} s (not given the hall's key, not let read its control "
                     "topic, or slow: it may have acted; ask its status before repeating)"}

    # -- HTTP ----------------------------------------------------------------------------------

    def handle(self, handler: BaseHTTPRequestHandler, path: str) -> bool:
        """The HTTP server's ``extra_handlers`` hook: ``POST /arbiter/BOARD``."""
        route = unquote(urlsplit(path).path)
        if not route.startswith("/arbiter/"):
            return False
        if handler.command != "POST":
            _answer(handler, 405, {"ok": False, "error": "POST a control request here"},
                    allow="POST")
            return True
        status, body = self._post(handler, route[len("/arbiter/"):])
        _answer(handler, status, body)
        return True

    def _post(self, handler: BaseHTTPRequestHandler, board: str) -> tuple[int, dict[str, Any]]:
        auth = handler.headers.get("Authorization", "")
        scheme, _, given = auth.partition(" ")
        if scheme.lower() != "bearer" or not given.strip():
            _drain(handler)
            return 401, {"ok": False, "error": "Authorization: Bearer TOKEN needed"}
        if not hmac.compare_digest(given.strip().encode(), self.token.encode()):
            _drain(handler)
            return 403, {"ok": False, "error": "wrong arbiter token"}
        if NAME.fullmatch(board) is None:
            _drain(handler)
            return 404, {"ok": False, "error": f"{board[:64]!r} is not a board's name"}
        try:
            length = int(handler.headers.get("Content-Length", ""))
        except ValueError:
            handler.close_connection = True
            return 411, {"ok": False, "error": "Content-Length needed"}
        if not 0 < length <= MAX_BODY:
            handler.close_connection = True
            return 400, {"ok": False, "error": f"a request body of 1 to {MAX_BODY} bytes"}
        try:
            # as the control socket reads a request: a key given twice is refused (the board
            # must not act on another reading than the desk's), NaN and Infinity are no JSON
            data = loads(handler.rfile.read(length).decode("utf-8"), unique_keys=True)
            json.dumps(data, allow_nan=False)
        except (UnicodeDecodeError, ValueError, RecursionError) as exc:
            return 400, {"ok": False, "error": f"the body is not UTF-8 JSON ({clip(str(exc), 80)})"}
        if not isinstance(data, dict) or not isinstance(data.get("cmd"), str):
            return 400, {"ok": False, "error": 'a control request such as {"cmd": "pause"}'}
        known = self._online(board)
        if known is None and self.subscribed.is_set():
            return 404, {"ok": False, "error": f"no board {board} in hall {self.hall}: none "
                         "has come online on the broker under that name"}
        if known == "offline":
            return 503, {"ok": False, "error": f"board {board} is offline (switched off, or "
                         "its network is down): nothing was sent"}
        return self.request(board, data)


def _drain(handler: BaseHTTPRequestHandler) -> None:
    """A refused request's body is not read: the connection closes after the answer."""
    handler.close_connection = True


def _answer(handler: BaseHTTPRequestHandler, status: int, body: Mapping[str, Any], *,
            allow: str | None = None) -> None:
    data = json.dumps(body, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    try:
        handler.send_response(status)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Content-Length", str(len(data)))
        handler.send_header("Cache-Control", "no-store")
        if status == 401:
            handler.send_header("WWW-Authenticate", 'Bearer realm="arbiter"')
        if allow:
            handler.send_header("Allow", allow)
        if handler.close_connection:
            handler.send_header("Connection", "close")
        handler.end_headers()
        handler.wfile.write(data)
    except (BrokenPipeError, ConnectionResetError):
        pass


def serve_tls(server: Any, cert: str, key: str) -> None:
    """Serve ``server`` (an HTTP server, not yet serving) over TLS with this certificate
    chain and key. The handshake happens on each connection's own thread, at its first
    read, so a client that stalls in it holds its own slot only, never the accepting loop."""
    import ssl

    from firmware.errors import BoardError

    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    try:
        context.load_cert_chain(cert, key)
    except (OSError, ssl.SSLError) as exc:
        raise BoardError(f"--tls-cert {cert} / --tls-key {key}: cannot use them "
                         f"({getattr(exc, 'strerror', None) or exc})") from None
    server.socket = context.wrap_socket(server.socket, server_side=True,
                                        do_handshake_on_connect=False)
