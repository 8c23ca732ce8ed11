"""Shared helpers of the service tests: real game logs and a service on a virtual clock."""

from __future__ import annotations

import time
from dataclasses import replace
from functools import cache
from pathlib import Path

from boardctl.service.control import ControlError
from boardctl.service.hardware import EventScript, sim_hardware
from boardctl.service.service import GameSetup, Service
from firmware.formats.events import Event
from firmware.pdn import read_games
from firmware.rules.position import Move, Position
from firmware.session.handling import NOISY, handle_game
from firmware.session.session import BoardSession

DATA = Path(__file__).resolve().parents[2] / "boardctl" / "data" / "wk2003.pdn"
S = 1_000_000_000
TC = "300+5"


@cache
def wk_game(number: int = 1) -> tuple[Position, tuple[Move, ...]]:
    """A real game: WK 2003 (international), by its number in the file."""
    for g in read_games(DATA.read_text(), "wk2003.pdn"):
        if g.index == number:
            game = g.replay()
            return game.start, tuple(game.moves)
    raise LookupError(number)


#: The pace of the games process tests play only to have moves to broadcast or show.
PACE = 0.35
#: A gap in a hand's log that :func:`quicker` keeps as it is: a sensor's bounce (the
#: referee's BOUNCE_NS is 20 ms) and a brushed square stay what they were.
KEPT_GAP_NS = 30_000_000


def game_log(plies: int, seed: int = 1, think: tuple[float, float] = (0.3, 1.2),
             game: int = 1, start: bool = True, change_mind: float | None = None,
             pace: float = 1.0) -> list[Event]:
    """The first ``plies`` of a real game as human hands play it on a clocked board;
    ``pace`` < 1 plays it quicker (:func:`quicker`)."""
    position, moves = wk_game(game)
    style = replace(NOISY, think_ns=(int(think[0] * S), int(think[1] * S)))
    if change_mind is not None:
        style = replace(style, change_mind=change_mind)
    events = handle_game(position, moves[:plies], seed=seed, clocked=True, style=style,
                         start=start, t0=S // 2)
    return quicker(events, pace) if pace != 1.0 else events


def quicker(events: list[Event], pace: float) -> list[Event]:
    """``events`` with every gap between two of them longer than :data:`KEPT_GAP_NS`
    shortened by ``pace`` (to no less than that): the same hands, the same order and the
    same bounces, in a fraction of the time (tests whose subject is not the hand's timing:
    what a board broadcasts, what a relay or a terminal shows)."""
    out: list[Event] = []
    last = shifted = events[0].at if events else 0
    for event in events:
        gap = event.at - last
        last = event.at
        shifted += gap if gap <= KEPT_GAP_NS else max(KEPT_GAP_NS, int(gap * pace))
        out.append(replace(event, at=shifted))
    return out


def replayed(events: list[Event], tc: str | None = TC) -> BoardSession:
    """The log through a fresh session, as ``boardctl replay`` runs it (no hardware)."""
    has_start = any(e.type == "start" for e in events)
    session = BoardSession("international", tc, started=not has_start)
    for e in events:
        session.handle(e)
    session.finish()
    return session


class VirtualClock:
    def __init__(self, now: int = 7 * 10**12) -> None:
        self.now = now

    def __call__(self) -> int:
        return self.now


class RealClock(VirtualClock):
    """Monotonic time, for Service.run (the real-time path) where sim_service wants a clock."""

    def __call__(self) -> int:
        return time.monotonic_ns()


def sim_service(state_dir: Path, events: list[Event] | None = None, *, tc: str | None = TC,
                clock: VirtualClock | None = None, feed_url: str | None = None,
                lines: list[str] | None = None, **kwargs: object) -> tuple[Service, VirtualClock]:
    clock = clock or VirtualClock()
    service: Service | None = None

    def on_connect() -> list[str] | None:
        return service.port_connected() if service is not None else None

    hw = sim_hardware(10, clock=clock, feed_url=feed_url, on_connect=on_connect)
    script = EventScript(events) if events is not None else None
    setup = GameSetup("international", tc, started=script is not None and not script.has_start)
    if lines is not None:
        kwargs["on_line"] = lines.append
    service = Service(state_dir, setup, hw, board="3", clock=clock, script=script,
                      **kwargs)  # type: ignore[arg-type]
    return service, clock


def run_until(service: Service, clock: VirtualClock, game_seconds: float) -> None:
    """Step the loop every scan period until the game clock reads ``game_seconds``."""
    period = service.hw.scanner.period_ns
    while service.game_time(clock.now) < game_seconds * S:
        step = clock.now + period
        script = service.script
        due = script.next_at() if script is not None else None
        if due is not None:  # wake when the simulated hand acts, as Service.run does
            step = min(step, max(clock.now + 1, service.origin + due))
        clock.now = step
        service.step(clock.now)


def fast_presses(events: list[Event], lo_ms: float = 0.0, hi_ms: float = 30.0,
                 seed: int = 0) -> list[Event]:
    """The same log with every press moved to ``lo_ms``..``hi_ms`` after the sensor event
    before it: a player who hits the clock as the piece touches down."""
    import random

    from firmware.formats.events import Press

    rng = random.Random(seed)
    out: list[Event] = []
    last = 0
    for e in events:
        if isinstance(e, Press):
            e = replace(e, at=last + round(rng.uniform(lo_ms, hi_ms) * 1_000_000))
        else:
            last = e.at
        out.append(e)
    return out


def moves_of(session: BoardSession) -> list[str]:
    return [m["move"] for m in session.moves]


def wait_for(predicate, timeout: float = 20.0, what: str = "the service"):
    """``predicate``'s first true value, polled until ``timeout`` seconds (a service not yet
    answering on its socket counts as not yet)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            value = predicate()
        except ControlError:
            value = None
        if value:
            return value
        time.sleep(0.02)
    raise AssertionError(f"timed out waiting for {what}")
