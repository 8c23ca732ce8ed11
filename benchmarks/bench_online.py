"""The lidraughts link's latency on loopback, against the stand-in
(tests/support/lidraughts_standin.py).

    python benchmarks/bench_online.py [--games N]

Two figures, p50 / p99 / max over every ply of N real international games (wk2003.pdn),
the board playing White through ``OnlineGame.post_move`` and the stand-in's script Black:

- stream line -> event: from the game stream's read that brought a ``gameState`` (the
  opponent's move) to its ``OpponentMoved`` being in the link's inbox (the wake callback's
  call): framing, JSON, the replay of the moves, the event. ``Stream.read`` is wrapped here
  to stamp each read; the stamp and the put are on the stream's thread.
- post_move -> server: from the player's ``post_move`` call to the stand-in having read the
  request's line (a new connection per request, as the link makes).

Both clocks are ``time.perf_counter_ns`` (CLOCK_MONOTONIC, one clock for the process).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE.parent / "tests"))

from support.lidraughts_standin import LidraughtsStandin  # noqa: E402

from boardctl.online import transport  # noqa: E402
from boardctl.online.events import Event, GameStarted, MoveConfirmed, OpponentMoved  # noqa: E402
from boardctl.online.link import LidraughtsLink  # noqa: E402
from boardctl.online.moves import li_route  # noqa: E402
from boardctl.online.settings import OnlineSettings  # noqa: E402
from boardctl.online.streams import Backoff  # noqa: E402
from firmware.pdn import read_games  # noqa: E402
from firmware.rules.sets import Side  # noqa: E402

GAMES = HERE.parent / "tests" / "data" / "pdn" / "international-world-championship-2003.pdn"


class Stamps:
    """The last stream read on each thread; at each wake-up (called on the thread that put
    the event, right after the put) that read's stamp and the time. Events and wake-ups
    pair by order: in play only the game stream's thread puts."""

    def __init__(self) -> None:
        self.local = threading.local()
        self.wakes: list[tuple[int, int]] = []
        self.events: list[Event] = []

    def wake(self) -> None:
        self.wakes.append((getattr(self.local, "read_ns", 0), time.perf_counter_ns()))

    @property
    def line_to_event(self) -> list[int]:
        assert len(self.wakes) == len(self.events)
        return [put - read for (read, put), e in zip(self.wakes, self.events, strict=True)
                if isinstance(e, OpponentMoved)]

    def wrap_reads(self) -> None:
        read = transport.Stream.read
        local = self.local

        def stamped(stream: transport.Stream) -> bytes:
            data = read(stream)
            local.read_ns = time.perf_counter_ns()
            return data

        transport.Stream.read = stamped  # type: ignore[method-assign]



def wait(link: LidraughtsLink, cls: type, seen: Stamps) -> Event:
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        event = link.inbox.get(1.0)
        if event is not None:
            seen.events.append(event)
            if isinstance(event, cls):
                return event
    raise SystemExit(f"no {cls.__name__} within 10 s")


def play(link: LidraughtsLink, standin: LidraughtsStandin, moves: list, stamps: Stamps,
         post_to_server: list[int]) -> None:
    gid = standin.create_game(bot_side=Side.WHITE, limit_s=None).id
    wait(link, GameStarted, stamps)
    standin.script(gid, [li_route(m) for m in moves[1::2]])
    game = link.game
    assert game is not None
    for ply, move in enumerate(moves, 1):
        if ply % 2 == 0:
            wait(link, OpponentMoved, stamps)
            continue
        seen = len(standin.requests)
        start = time.perf_counter_ns()
        game.post_move(move)
        standin.wait_for(lambda n=seen: len(standin.requests) > n)
        post_to_server.append(standin.requests[seen][2] - start)
        wait(link, MoveConfirmed, stamps)
    standin.resign(gid)


def figures(name: str, samples: list[int]) -> str:
    ordered = sorted(samples)
    p99 = ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))]
    return (f"{name:<28} n={len(samples):4d}  p50 {statistics.median(ordered) / 1e6:6.3f} ms  "
            f"p99 {p99 / 1e6:6.3f} ms  max {ordered[-1] / 1e6:6.3f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=6)
    args = parser.parse_args()
    games = [g.replay().moves for g in read_games(GAMES.read_text(encoding="utf-8"),
                                                  GAMES.name)][:args.games]
    stamps = Stamps()
    stamps.wrap_reads()
    standin = LidraughtsStandin(keepalive_s=6.0).start()
    post_to_server: list[int] = []
    with tempfile.TemporaryDirectory() as tmp:
        token = Path(tmp) / "token"
        token.write_text(standin.token)
        settings = OnlineSettings.from_options(str(token), url=standin.url)
        link = LidraughtsLink(settings, wake=stamps.wake, backoff=Backoff(0.01, 2, 0.05))
        link.start()
        try:
            for moves in games:
                play(link, standin, moves, stamps, post_to_server)
        finally:
            link.close()
            standin.stop()
    stamps.events += link.poll()
    print(f"lidraughts link on loopback, {len(games)} games of {GAMES.name}")
    print(figures("stream line -> event queued", stamps.line_to_event))
    print(figures("post_move -> server reads it", post_to_server))


if __name__ == "__main__":
    main()
