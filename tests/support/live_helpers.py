"""Shared helpers of the live page tests: a real game's feed records and the relay's real HTTP
server with the live hub plugged into its hooks, on an injected clock."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path
from typing import Any

from boardctl.relay.http import PdnServer
from boardctl.relay.live.web import LiveHub
from boardctl.relay.relay import Relay
from firmware.formats.feed import encode_line, header_record
from firmware.rules.notation import move_text
from support.records_helpers import heard
from support.service_helpers import wk_game

ROOT = Path(__file__).resolve().parents[2]
#: Where the page tests leave their screenshots (docs/img/live-page.png is one of them).
SCREENSHOTS = Path(os.environ.get("LIVE_SCREENSHOTS", ROOT / "build" / "screenshots"))


def feed(hall: Any, board: str, members: dict[str, Any], now: float) -> str | None:
    """A record (its feed line's members) into a live hall's view model, as the relay hands
    it on: read as its line's record, with the game's id the line names."""
    record, game = heard(members)
    return hall.feed(board, record, now, game)


def observe(hub: LiveHub, source: str, members: dict[str, Any]) -> None:
    """A record (its feed line's members) to the live hub, as the relay's observers are told."""
    hub.observe(source, *heard(members))


class FakeClock:
    """Wall-clock seconds that move only when a test says so."""

    def __init__(self, now: float | None = None) -> None:
        self.now = time.time() if now is None else now

    def __call__(self) -> float:
        return self.now


def game_records(game: str, plies: int, *, number: int = 1, white: str = "Ann Aas",
                 black: str = "Bert Berg", board: str = "12", base: float = 300.0,
                 ) -> list[dict[str, Any]]:
    """A header, a game line and the first ``plies`` moves of WK 2003 game ``number``, each
    with the position after it and the clocks (each move takes its mover 7 s, no increment)."""
    start, moves = wk_game(number)
    records: list[dict[str, Any]] = [
        header_record(board, f"run-{game}", "international"),
        {"type": "game", "game": game, "rules": "international", "fen": None,
         "time_control": "300", "tags": {"White": white, "Black": black, "Round": "3",
                                         "Board": board, "Event": "Test hall"}},
    ]
    position, clock = start, {"white": base, "black": base}
    for ply, move in enumerate(moves[:plies], 1):
        side = position.turn.value
        text = move_text(position, move)
        position = position.play(move)
        clock[side] -= 7
        records.append({"type": "move", "game": game, "ply": ply, "side": side, "move": text,
                        "fen": position.fen(), "clock": dict(clock)})
    return records


class LiveRelay:
    """The relay's HTTP server (``boardctl.relay.http.PdnServer``) and state with the live hub on
    their hooks, as ``boardctl relay`` wires them; records go in as real feed lines."""

    def __init__(self, *, delay: float = 0.0, token: str | None = None,
                 clock: FakeClock | None = None, port: int = 0, pump: bool = False) -> None:
        self.clock = clock or FakeClock()
        self.server = PdnServer(("127.0.0.1", port))
        self.relay = Relay([], server=self.server)
        self.hub = LiveHub(delay=delay, arbiter_token=token, now=self.clock)
        self.relay.state.observers.append(self.hub.observe)
        self.server.extra_handlers.append(self.hub.handle)
        self._thread = threading.Thread(target=self.server.serve_forever, args=(0.05,),
                                        daemon=True)
        self._thread.start()
        if pump:
            self.hub.start()
        self._seq: dict[str, int] = {}

    @property
    def port(self) -> int:
        return int(self.server.server_address[1])

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/"

    def feed(self, board: str, *records: dict[str, Any]) -> None:
        """Records from ``board`` as feed lines, through the relay's line decoding."""
        for record in records:
            seq = self._seq.get(board, 0)
            self._seq[board] = seq + 1
            self.relay.state.feed_line(board, encode_line(record, seq))
        self.relay.publish()

    def close(self) -> None:
        self.hub.close()
        self.server.shutdown()
        self.server.server_close()
