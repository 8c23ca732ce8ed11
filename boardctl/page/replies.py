"""The board page's answers on the wire: JSON (every error one line: ``{"error": "..."}``),
the page's static files (gzipped when the browser takes it), and a POST's body read within
bounds (:data:`MAX_BODY`: more is 413, unread; no ``Content-Length``, or one that does not read,
is 400)."""

from __future__ import annotations

import gzip
import json
from functools import cache
from http.server import BaseHTTPRequestHandler
from importlib import resources
from typing import Any

from boardctl.relay.live.web import asset as relay_asset
from boardctl.relay.live.web import reply
from firmware.limits import DuplicateKey, loads

#: A request body at most (a new game's settings are a few hundred bytes).
MAX_BODY = 16 * 1024
JSON = "application/json; charset=utf-8"
#: The page's files: where each comes from and its type (``draughts.js`` is the live page's,
#: shared: boardctl/relay/live/static).
STATIC = {
    "index.html": ("boardctl.page", "text/html; charset=utf-8"),
    "page.js": ("boardctl.page", "text/javascript; charset=utf-8"),
    "page.css": ("boardctl.page", "text/css; charset=utf-8"),
    "draughts.js": ("boardctl.relay.live", "text/javascript; charset=utf-8"),
}


class BadRequest(Exception):  # noqa: N818 (an answer, not a fault of ours)
    """A request refused: its status, its one line, headers to add."""

    def __init__(self, status: int, message: str, headers: tuple[tuple[str, str], ...] = ()
                 ) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.headers = headers


def send_json(handler: BaseHTTPRequestHandler, status: int, body: Any,
              headers: tuple[tuple[str, str], ...] = ()) -> None:
    data = json.dumps(body, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    send_bytes(handler, status, JSON, data, headers=headers)


def send_error(handler: BaseHTTPRequestHandler, error: BadRequest) -> None:
    """The refusal as one line of JSON; a POST's connection closes after it (its body may
    be left unread)."""
    if handler.command == "POST":
        handler.close_connection = True
    send_json(handler, error.status, {"error": " ".join(error.message.split())[:300]},
              error.headers)


def send_bytes(handler: BaseHTTPRequestHandler, status: int, ctype: str, body: bytes, *,
               disposition: str | None = None,
               headers: tuple[tuple[str, str], ...] = ()) -> None:
    """``reply`` (the live page's) with the page's own headers: no framing by other sites,
    and a connection that ends after a refused body says so."""
    more = (*headers, ("X-Frame-Options", "DENY"))
    if handler.close_connection:
        more += (("Connection", "close"),)
    reply(handler, status, ctype, body, disposition=disposition, headers=more)


@cache
def asset(name: str) -> tuple[bytes, bytes]:
    """A static file of the page, plain and gzipped."""
    package, _ = STATIC[name]
    if package != "boardctl.page":
        return relay_asset(name)
    body = resources.files(package).joinpath("static", name).read_bytes()
    return body, gzip.compress(body, 9, mtime=0)


def send_static(handler: BaseHTTPRequestHandler, name: str) -> None:
    plain, packed = asset(name)
    zipped = "gzip" in handler.headers.get("Accept-Encoding", "")
    reply(handler, 200, STATIC[name][1], packed if zipped else plain, gzipped=zipped,
          cache="no-cache")


def read_json(handler: BaseHTTPRequestHandler, required: bool) -> dict[str, Any]:
    """The POST's body as a JSON object (``{}`` for none when not ``required``)."""
    if "chunked" in handler.headers.get("Transfer-Encoding", "").lower():
        raise BadRequest(400, "send the body with a Content-Length, not chunked")
    length_text = handler.headers.get("Content-Length")
    if length_text is None or not length_text.strip():
        if required:
            raise BadRequest(400, "the body must be a JSON object (with a Content-Length)")
        return {}
    length = length_text.strip()
    if not length.isascii() or not length.isdigit() or len(length) > 12:
        raise BadRequest(400, f"Content-Length {length[:20]!r} is not a number of bytes")
    size = int(length)
    if size > MAX_BODY:
        raise BadRequest(413, f"the body is {size} bytes; at most {MAX_BODY} are read")
    try:
        data = handler.rfile.read(size)
    except OSError:
        raise BadRequest(400, "the body did not come in time") from None
    if len(data) < size:
        raise BadRequest(400, "the body ended before its Content-Length")
    if not data.strip():
        if required:
            raise BadRequest(400, "the body must be a JSON object, and is empty")
        return {}
    try:
        body = loads(data, unique_keys=True)
    except DuplicateKey as exc:
        raise BadRequest(400, f"an ambiguous request: {exc}") from None
    except (ValueError, RecursionError) as exc:
        raise BadRequest(400, f"not JSON: {str(exc)[:80]}") from None
    if not isinstance(body, dict):
        raise BadRequest(400, "the body must be a JSON object such as {\"rules\": \"russian\"}")
    return body
