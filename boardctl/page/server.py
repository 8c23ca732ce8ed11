"""The board's page assembled and tied to the running service (``boardctl run --http``).

:class:`BoardPage` is made before the service (it listens at once, so a port in use is told
before the board starts, and its feed sink goes into ``Service(..., sinks=...)``), then
:meth:`BoardPage.attach` hands it the service: its requests go through ``Service.command``,
its address goes into ``status`` (``page``: ``boardctl status`` prints it), and it starts
serving once the referee runs (``Service.call_soon``: a request is then answered on the
referee's thread, never on the HTTP thread that asked). The HTTP server is the relay's
(boardctl.relay.http.PdnServer: a thread a request, slow request heads cut off, a bounded
number of connections), the page's one ``extra_handlers`` entry answering every path.
"""

from __future__ import annotations

import logging
import socket
import threading
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Protocol

from boardctl.page.api import PageApi
from boardctl.page.archive import GameArchive
from boardctl.page.gate import Gate
from boardctl.page.live import FeedLines, PageLive
from boardctl.page.settings import PageSettings
from boardctl.relay.http import PdnServer
from firmware.errors import BoardError

log = logging.getLogger(__name__)

#: Seconds a client has to send a request's head (and each read of its body).
CLIENT_TIMEOUT = 10.0


class Served(Protocol):
    """What the page needs of the service (boardctl.service.service.Service)."""

    status_extras: list[Callable[[], dict[str, Any]]]

    def command(self, request: Mapping[str, Any]) -> dict[str, Any]: ...

    def call_soon(self, fn: Callable[[], None]) -> None: ...


class BoardPage:
    """The page's server, sink, state, games and gate (module docstring)."""

    def __init__(self, settings: PageSettings, state_dir: Path) -> None:
        self.settings = settings
        try:
            self.server = PdnServer((settings.host, settings.port), timeout=CLIENT_TIMEOUT)
        except OSError as exc:
            raise BoardError(f"--http {settings.listen}: cannot listen there: "
                             f"{exc.strerror or exc}") from None
        self.lines = FeedLines()
        self.gate = Gate(settings.password, read_open=settings.read_open)
        self.archive = GameArchive(state_dir)
        self.live: PageLive | None = None
        self.urls = page_urls(settings.host, self.server.server_address[1])
        self._thread: threading.Thread | None = None

    @property
    def sinks(self) -> list[FeedLines]:
        """The service's feed sinks the page needs (``Service(..., sinks=...)``)."""
        return [self.lines]

    def attach(self, service: Served) -> None:
        """Serve this service's board: requests to it, its status, started once it runs."""
        self.live = PageLive(service, self.lines)
        api = PageApi(service, self.live, self.archive, self.gate)
        self.server.extra_handlers.append(api.handle)
        service.status_extras.append(self.status)
        service.call_soon(self.start)

    def status(self) -> dict[str, Any]:
        """The ``status`` answer's ``page``: where it is, and whether changes need a password."""
        return {"page": {"url": self.urls[0], "urls": list(self.urls),
                         "password": self.gate.protected}}

    def start(self) -> None:
        """Serve (on threads of its own)."""
        if self._thread is not None or self.live is None:
            return
        self.live.start()
        self._thread = threading.Thread(target=self.server.serve_forever, name="board-page-http",
                                        daemon=True)
        self._thread.start()
        log.info("the board's page: %s", ", ".join(self.urls))

    def close(self) -> None:
        if self._thread is not None:
            self.server.shutdown()
            self._thread.join(timeout=5)
        self.server.server_close()
        if self.live is not None:
            self.live.close()


def page_urls(host: str, port: int) -> list[str]:
    """The page's addresses: the one it listens on, or, listening on every address, this
    machine's on its networks and its ``.local`` name (mDNS, as Raspberry Pi OS announces)."""
    if host not in ("", "0.0.0.0", "::"):
        shown = f"[{host}]" if ":" in host else host
        return [f"http://{shown}:{port}/"]
    urls = [f"http://{ip}:{port}/" for ip in _addresses()]
    name = socket.gethostname().split(".")[0]
    if name and name != "localhost":
        urls.append(f"http://{name}.local:{port}/")
    return urls or [f"http://127.0.0.1:{port}/"]


def _addresses() -> list[str]:
    """This machine's IPv4 address on its default route (a UDP socket's connect sends
    nothing), else none."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            probe.connect(("192.0.2.1", 9))  # TEST-NET-1: a route is looked up, nothing sent
            address = probe.getsockname()[0]
    except OSError:
        return []
    return [address] if address and not address.startswith("127.") else []
