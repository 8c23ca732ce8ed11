"""HTTP to a lidraughts server on the standard library alone (``http.client``; TLS through
``ssl``'s default context for ``https``).

``Transport.request`` makes one request on a connection of its own and returns its
:class:`Reply`; ``Transport.open_stream`` opens an NDJSON stream and returns a
:class:`Stream` whose ``read`` another thread may end (``abort``). A request that gets no
answer raises :class:`LinkError`, saying whether it may have reached the server. The token
goes into the ``Authorization`` header and nowhere else: requests are logged by method and
path.
"""

from __future__ import annotations

import http.client
import ipaddress
import logging
import socket
import ssl
import threading
import urllib.parse
from dataclasses import dataclass
from typing import Any

from boardctl.online.errors import LinkError, OnlineError
from boardctl.online.token import Token
from firmware.limits import loads

log = logging.getLogger(__name__)

#: lidraughts' own address (CONTRACT.md: the default of ``--online-url``).
DEFAULT_URL = "https://lidraughts.org"
USER_AGENT = "kabelaud-boardctl (sensor draughts board; +BOT)"
#: The most of an answer's body read (lidraughts' answers are a few hundred bytes).
MAX_BODY = 64 * 1024
#: A stream read returns what arrived, at most this much.
CHUNK = 16 * 1024


@dataclass(frozen=True, slots=True)
class Server:
    """Where the server is: ``https://lidraughts.org`` or a stand-in's ``http://127.0.0.1:PORT``."""

    scheme: str
    host: str
    port: int
    prefix: str = ""

    @classmethod
    def from_url(cls, url: str) -> Server:
        """OnlineError for anything but an http(s) URL with a host."""
        try:
            parts = urllib.parse.urlsplit(url.strip())
            port = parts.port
        except ValueError as exc:
            raise OnlineError(f"cannot read the URL {url[:80]!r}: {exc}") from None
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise OnlineError(f"the URL {url[:80]!r} is not http(s)://HOST[:PORT]")
        if parts.query or parts.fragment or parts.username:
            raise OnlineError(f"the URL {url[:80]!r} has parts a server address has not")
        default = 443 if parts.scheme == "https" else 80
        return cls(parts.scheme, parts.hostname, port or default, parts.path.rstrip("/"))

    @property
    def loopback(self) -> bool:
        if self.host == "localhost":
            return True
        try:
            return ipaddress.ip_address(self.host).is_loopback
        except ValueError:
            return False

    def __str__(self) -> str:
        return f"{self.scheme}://{self.host}:{self.port}{self.prefix}"


@dataclass(frozen=True, slots=True)
class Reply:
    """An answer: its status and its body, read as JSON when it is."""

    status: int
    body: Any
    text: str

    @property
    def error(self) -> str:
        """What the server said was wrong (lidraughts' ``{"error": ...}``), on one line."""
        if isinstance(self.body, dict) and isinstance(self.body.get("error"), str):
            said = self.body["error"]
        else:
            said = self.text
        said = " ".join(said.split())
        return (said[:157] + "...") if len(said) > 160 else (said or f"HTTP {self.status}")


class Stream:
    """An open NDJSON response; ``read`` on one thread, ``abort`` from any."""

    def __init__(self, conn: http.client.HTTPConnection,
                 response: http.client.HTTPResponse) -> None:
        self._conn = conn
        self._response = response
        self._lock = threading.Lock()
        self.aborted = False

    def read(self) -> bytes:
        """What arrived (b"" at the stream's clean end); LinkError when the connection is cut,
        times out or was aborted."""
        try:
            data = self._response.read1(CHUNK)
        except (OSError, http.client.HTTPException, ValueError) as exc:
            raise LinkError(_why(exc, self.aborted), sent=True) from None
        if not data and self.aborted:
            raise LinkError("closed by the board", sent=True)
        return data

    def abort(self) -> None:
        """End the stream now: a ``read`` blocked on another thread returns at once."""
        with self._lock:
            self.aborted = True
            sock = self._conn.sock
            if sock is not None:
                try:
                    sock.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    def close(self) -> None:
        self.abort()
        self._conn.close()


class Transport:
    """Requests to one server with one token."""

    def __init__(self, server: Server, token: Token, timeout: float = 10.0,
                 tls: ssl.SSLContext | None = None) -> None:
        self.server = server
        self._token = token
        self.timeout = timeout
        self._tls = tls
        if server.scheme == "http" and not server.loopback:
            log.warning("lidraughts link: %s is plain http: the token crosses the network "
                        "unencrypted", server)

    def __repr__(self) -> str:
        return f"Transport({self.server})"

    def _connection(self, timeout: float) -> http.client.HTTPConnection:
        s = self.server
        if s.scheme == "https":
            context = self._tls or ssl.create_default_context()
            return http.client.HTTPSConnection(s.host, s.port, timeout=timeout, context=context)
        return http.client.HTTPConnection(s.host, s.port, timeout=timeout)

    def _headers(self, accept: str) -> dict[str, str]:
        return {"Authorization": self._token.authorization(), "User-Agent": USER_AGENT,
                "Accept": accept}

    def _connect(self, timeout: float) -> http.client.HTTPConnection:
        conn = self._connection(timeout)
        try:
            conn.connect()
        except (OSError, http.client.HTTPException) as exc:
            conn.close()
            raise LinkError(f"cannot reach {self.server}: {_why(exc, False)}", sent=False) \
                from None
        return conn

    def request(self, method: str, path: str, form: dict[str, str] | None = None) -> Reply:
        """One request; its Reply whatever the status; LinkError without one."""
        conn = self._connect(self.timeout)
        headers = self._headers("application/json")
        body = None
        if form is not None:
            body = urllib.parse.urlencode(form)
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        log.debug("lidraughts: %s %s", method, path)
        try:
            conn.request(method, self.server.prefix + path, body=body, headers=headers)
            response = conn.getresponse()
            raw = response.read(MAX_BODY)
        except (OSError, http.client.HTTPException) as exc:
            raise LinkError(f"{method} {path}: no answer ({_why(exc, False)})", sent=True) \
                from None
        finally:
            conn.close()
        return _reply(response.status, raw)

    def open_stream(self, path: str, idle_timeout: float) -> tuple[Reply | None, Stream | None]:
        """(None, Stream) when the server answers 200, else (its Reply, None). A read that
        waits ``idle_timeout`` seconds with nothing, not even a keep-alive, is a lost link."""
        conn = self._connect(idle_timeout)
        log.debug("lidraughts: GET %s (stream)", path)
        try:
            conn.request("GET", self.server.prefix + path,
                         headers=self._headers("application/x-ndjson"))
            response = conn.getresponse()
            if response.status != 200:
                raw = response.read(MAX_BODY)
                conn.close()
                return _reply(response.status, raw), None
        except (OSError, http.client.HTTPException) as exc:
            conn.close()
            raise LinkError(f"GET {path}: no answer ({_why(exc, False)})", sent=True) from None
        return None, Stream(conn, response)


def _reply(status: int, raw: bytes) -> Reply:
    text = raw.decode("utf-8", "replace")
    try:
        body = loads(text) if text.strip() else None
    except ValueError:
        body = None
    return Reply(status, body, text)


def _why(exc: BaseException, aborted: bool) -> str:
    if aborted:
        return "closed by the board"
    if isinstance(exc, TimeoutError | socket.timeout):
        return "timed out"
    if isinstance(exc, http.client.IncompleteRead):
        return "connection cut mid-stream"
    if isinstance(exc, http.client.RemoteDisconnected):
        return "the server closed the connection"
    if isinstance(exc, ssl.SSLError):
        return f"TLS: {exc.reason or exc}"
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    return type(exc).__name__
