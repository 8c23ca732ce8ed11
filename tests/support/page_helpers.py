"""The board page's tests: a real ``boardctl run --sim --http 127.0.0.1:0`` process, its page's
address read from ``status`` (``page.url``), HTTP requests to it, and the simulated hand that
plays moves through the control socket's ``sim`` requests (boardctl.terminal.play.Hand)."""

from __future__ import annotations

import http.client
import json
import os
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from boardctl.service.control import request
from boardctl.terminal.play import Hand
from boardctl.terminal.sources import SocketClient
from support.processes import stop_by_pid
from support.service_helpers import wait_for

BOARDCTL = [sys.executable, "-m", "boardctl"]
#: Where the browser tests leave their screenshots (docs/img/page-*.png are copies of them;
#: PAGE_SCREENSHOTS=docs/img refreshes those).
SCREENSHOTS = Path(os.environ.get("PAGE_SCREENSHOTS",
                                  Path(__file__).resolve().parents[2] / "build" / "screenshots"))


class Reply:
    def __init__(self, status: int, headers: http.client.HTTPMessage, body: bytes) -> None:
        self.status = status
        self.headers = headers
        self.body = body

    def json(self) -> Any:
        return json.loads(self.body)

    @property
    def error(self) -> str:
        """The one-line error of a refusal."""
        body = self.json()
        assert set(body) == {"error"} and "\n" not in body["error"], body
        return str(body["error"])


class PageBoard:
    """``boardctl run --sim --http`` on ``state`` (stopped by its pid)."""

    def __init__(self, state: Path, *extra: str, rules: str = "international",
                 tc: str | None = "300+5", listen: str | None = "127.0.0.1:0") -> None:
        self.state = state
        self.log = state.parent / f"{state.name}-service.log"
        command = [*BOARDCTL, "run", "--sim", "--rules", rules, "--state-dir", str(state),
                   *(["--http", listen] if listen else []), *extra]
        if tc:
            command += ["--time-control", tc]
        state.mkdir(parents=True, exist_ok=True)
        with open(self.log, "ab") as log:
            self.proc: subprocess.Popen[bytes] | None = subprocess.Popen(
                command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=log,
                env={**os.environ, "PYTHONUNBUFFERED": "1"})
        self.socket = state / "control.sock"
        status = wait_for(lambda: self._page_status(), what="the board and its page")
        self.url = str(status["page"]["url"])
        split = urlsplit(self.url)
        self.host, self.port = split.hostname or "127.0.0.1", int(split.port or 80)
        self.hand = Hand(SocketClient(self.socket))

    def _page_status(self) -> dict[str, Any] | None:
        assert self.proc is not None
        if self.proc.poll() is not None:
            raise AssertionError(f"the service stopped: {self.log.read_text()[-2000:]}")
        if not self.socket.exists():
            return None
        status = self.ask("status")
        return status if isinstance(status.get("page"), dict) else None

    def ask(self, cmd: str, **args: Any) -> dict[str, Any]:
        return request(self.socket, cmd, timeout=5.0, **args)

    def play(self, *moves: str) -> None:
        """Whole moves made by the simulated hand (lift, place, captured pieces off, press)."""
        for move in moves:
            said = self.hand.line(move)
            assert said.endswith("made"), (said, self.ask("status"))

    def call(self, method: str, path: str, body: bytes | str | Mapping[str, Any] | None = None,
             headers: Mapping[str, str] | None = None) -> Reply:
        if isinstance(body, Mapping):
            body = json.dumps(body)
        data = body.encode() if isinstance(body, str) else body
        conn = http.client.HTTPConnection(self.host, self.port, timeout=15)
        try:
            conn.request(method, path, body=data, headers=dict(headers or {}))
            resp = conn.getresponse()
            return Reply(resp.status, resp.headers, resp.read())
        finally:
            conn.close()

    def get(self, path: str, **kw: Any) -> Reply:
        return self.call("GET", path, **kw)

    def post(self, path: str, body: Any = None, **kw: Any) -> Reply:
        return self.call("POST", path, body, **kw)

    def stop(self) -> None:
        stop_by_pid(self.proc)
        self.proc = None
