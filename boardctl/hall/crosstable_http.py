"""The crosstable over HTTP, for the relay's ``server.extra_handlers`` hook (HALL-INTERFACES
section 2): ``GET /HALL/crosstable.html`` and ``GET /HALL/crosstable.csv``.

Each request reads the tournament file and the games afresh, so what it serves follows the
organizer's and the arbiter's entries and the boards' results without a restart; the pages are
computed again only when the file or the games' text changed (reading a whole hall's PDN is the
cost, see benchmarks/bench_crosstable.py). A bad file or PDN is answered with 503 and the
one-line reason, never a traceback.
"""

from __future__ import annotations

import hashlib
import logging
import re
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler
from pathlib import Path

from boardctl.hall.files import GamesSource, crosstable_of_texts, fetch_pdn, load_tournament
from firmware.errors import BoardError
from firmware.tournament.crosstable import render_csv, render_html

log = logging.getLogger(__name__)
PATH = re.compile(r"^/([A-Za-z0-9_-]+)/crosstable\.(html|csv)$")
TYPES = {"html": "text/html; charset=utf-8", "csv": "text/csv; charset=utf-8"}

Handler = Callable[[BaseHTTPRequestHandler, str], bool]


def crosstable_handler(tournament_path: str | Path, games_source: GamesSource | None,
                       hall: str | None = None) -> Handler:
    """A handler answering ``/HALL/crosstable.html|.csv`` (for any HALL, or only ``hall``);
    ``games_source`` is a PDN file, a URL, or a function giving the relay's PDN text."""
    path_of_state = Path(tournament_path)
    sources = [] if games_source is None else [games_source]
    lock = threading.Lock()
    cache: dict[str, tuple[bytes, str, str]] = {}  # "key" -> (key, html, csv)

    def pages() -> tuple[str, str]:
        stat = path_of_state.stat()
        texts = [fetch_pdn(s) for s in sources]
        digest = hashlib.sha256(repr((stat.st_mtime_ns, stat.st_size, stat.st_ino)).encode())
        for data, _ in texts:
            digest.update(data.encode() if isinstance(data, str) else data)
            digest.update(b"\0")
        key = digest.digest()
        with lock:
            if "last" in cache and cache["last"][0] == key:
                return cache["last"][1], cache["last"][2]
        t = load_tournament(path_of_state)
        table = crosstable_of_texts(t, texts)
        result = (key, render_html(t, table), render_csv(t, table))
        with lock:
            cache["last"] = result
        return result[1], result[2]

    def handle(request: BaseHTTPRequestHandler, path: str) -> bool:
        m = PATH.match(path.split("?", 1)[0])
        if m is None or (hall is not None and m.group(1) != hall):
            return False
        kind = m.group(2)
        try:
            html_page, csv_page = pages()
            text = html_page if kind == "html" else csv_page
            status, ctype = 200, TYPES[kind]
        except (BoardError, OSError) as exc:
            reason = str(exc) if isinstance(exc, BoardError) else \
                f"{exc.filename or path_of_state}: {exc.strerror or exc}"
            log.warning("crosstable: %s", reason)
            text, status, ctype = f"crosstable unavailable: {reason}\n", 503, \
                "text/plain; charset=utf-8"
        body = text.encode("utf-8")
        request.send_response(status)
        request.send_header("Content-Type", ctype)
        request.send_header("Content-Length", str(len(body)))
        request.send_header("Cache-Control", "no-cache")
        request.end_headers()
        if request.command != "HEAD":
            request.wfile.write(body)
        return True

    return handle
