"""The crosstable handler mounted on a plain http.server, as the relay mounts it through
``server.extra_handlers`` (HALL-INTERFACES section 2)."""

from __future__ import annotations

import csv
import http.server
import io
import json
import threading
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from support.tournament_helpers import tournament

from boardctl.hall.crosstable_http import crosstable_handler
from boardctl.hall.files import save_tournament

Handler = Callable[[http.server.BaseHTTPRequestHandler, str], bool]


class _Request(http.server.BaseHTTPRequestHandler):
    server: Any

    def _route(self) -> None:
        for handler in self.server.extra_handlers:
            if handler(self, self.path):
                return
        self.send_error(404)

    def do_GET(self) -> None:  # noqa: N802
        self._route()

    def do_HEAD(self) -> None:  # noqa: N802
        self._route()

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        pass


@pytest.fixture
def serve() -> Iterator[Callable[[Handler], str]]:
    servers: list[http.server.ThreadingHTTPServer] = []

    def start(handler: Handler) -> str:
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Request)
        server.extra_handlers = [handler]  # type: ignore[attr-defined]
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers.append(server)
        return f"http://127.0.0.1:{server.server_address[1]}"

    yield start
    for server in servers:
        server.shutdown()
        server.server_close()


def pdn(rnd: int, board: str, white: str, black: str, result: str) -> str:
    return (f'[Round "{rnd}.{board}"]\n[White "{white}"]\n[Black "{black}"]\n'
            f'[Result "{result}"]\n\n{result}\n\n')


def get(url: str, method: str = "GET") -> tuple[int, str, bytes]:
    try:
        with urllib.request.urlopen(urllib.request.Request(url, method=method), timeout=5) as r:
            return r.status, r.headers["Content-Type"], r.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.headers["Content-Type"], exc.read()


def test_crosstable_pages_follow_the_games_and_the_arbiter(
        tmp_path: Path, serve: Callable[[Handler], str]) -> None:
    t = tournament(["Aavik", "Bauer", "Cerny", "Dahl"])
    state = tmp_path / "t.json"
    save_tournament(state, t)
    games = {"text": pdn(1, "1", "Aavik", "Dahl", "1-0") + pdn(1, "2", "Bauer", "Cerny", "*")}
    base = serve(crosstable_handler(state, lambda: games["text"], hall="tartu"))
    status, ctype, body = get(base + "/tartu/crosstable.csv")
    assert status == 200 and ctype.startswith("text/csv")
    rows = {r["Name"]: r for r in csv.DictReader(io.StringIO(body.decode()))}
    assert rows["Aavik"]["Points"] == "1" and rows["Aavik"]["4"] == "1"
    assert rows["Dahl"]["1"] == "0" and rows["Bauer"]["3"] == ""
    # a game finishes on its board, the arbiter enters a forfeit: the next request shows both
    games["text"] = pdn(1, "1", "Aavik", "Dahl", "1-0") + pdn(1, "2", "Bauer", "Cerny",
                                                                "1/2-1/2")
    data = json.loads(state.read_text())
    data["results"] = [{"round": 2, "white": "Dahl", "black": "Cerny", "result": "-+"}]
    state.write_text(json.dumps(data))
    status, ctype, body = get(base + "/tartu/crosstable.html")
    assert status == 200 and ctype.startswith("text/html")
    page = body.decode()
    assert '<tr data-player="Cerny">' in page and "<td>½</td>" in page and "<td>+</td>" in page
    assert "Sonneborn-Berger" in page
    status, _, body = get(base + "/tartu/crosstable.csv", "HEAD")
    assert status == 200 and body == b""
    assert get(base + "/other/crosstable.html")[0] == 404  # another hall's path is not ours
    assert get(base + "/tartu/crosstable.pdf")[0] == 404


def test_a_broken_tournament_file_gives_503_with_one_line(
        tmp_path: Path, serve: Callable[[Handler], str]) -> None:
    state = tmp_path / "t.json"
    state.write_text("{not json")
    base = serve(crosstable_handler(state, None))
    status, ctype, body = get(base + "/h/crosstable.html")
    assert status == 503 and ctype.startswith("text/plain")
    assert body.decode().count("\n") == 1 and "not JSON" in body.decode()
    assert get(base + "/h/crosstable.csv")[0] == 503
    save_tournament(state, tournament(["A", "B", "C"]))
    games = tmp_path / "games.pdn"
    games.write_text(pdn(1, "1", "Nobody", "B", "1-0"))
    base = serve(crosstable_handler(state, games))
    status, _, body = get(base + "/h/crosstable.csv")
    assert status == 503 and "'Nobody' is not a player" in body.decode()


def test_names_are_escaped_in_the_page(tmp_path: Path,
                                       serve: Callable[[Handler], str]) -> None:
    state = tmp_path / "t.json"
    save_tournament(state, tournament(["<b>Bold</b>", "A&B", "C"]))
    base = serve(crosstable_handler(state, None))
    page = get(base + "/h/crosstable.html")[2].decode()
    assert "<b>Bold</b>" not in page and "&lt;b&gt;Bold&lt;/b&gt;" in page
    assert "A&amp;B" in page
