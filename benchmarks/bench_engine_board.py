"""Benchmarks of the engine on the board (issue 28 item 3):
``python benchmarks/bench_engine_board.py``.

1. ``done`` from the engine -> the LEDs showing its move: the service on real time
   (``Service.run``, its display thread, the simulated strip) with the built-in engine playing
   Black in its own process; the time from the client reading ``done`` (``EngineReply.done_at``)
   to the strip being written with the move's start square lit, p50/p99/max over a game's
   engine moves.
2. press -> move line on the feed's pty while an engine searches on the same cores (a
   ``boardctl engine`` process kept thinking at nice 10, as the service starts it; then two,
   every core busy), against the same game with no engine: p50/p99, and the sensing
   thread's scans a second (the simulated board is configured for 100).
3. The engine process's peak memory (VmHWM) after the game, with the default table.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(len(values) * q))]


def _hwm_kib(pid: int | None) -> int | None:
    if pid is None:
        return None
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def done_to_leds(engine_moves: int = 30, move_time: float = 0.2) -> tuple[list[float], Any]:
    """Figure 1: seconds from ``done`` read to the strip written with the engine's move."""
    from boardctl.engine.client import parse_engine
    from boardctl.engine.player import EnginePlayer
    from boardctl.service.hardware import sim_hardware
    from boardctl.service.service import GameSetup, Service
    from firmware.rules.sets import Side

    hw = sim_hardware(8)
    spec = parse_engine("builtin", "russian", "10")
    setup = GameSetup("russian", "3600+0")
    state = Path(tempfile.mkdtemp(prefix="bench-engine-board-"))
    service = Service(state, setup, hw, board="bench")
    player = EnginePlayer(spec, Side.BLACK, service.door, move_time=move_time)
    done: dict[str, float] = {}
    latencies: list[float] = []
    strip = hw.leds
    assert strip is not None
    show = strip.show

    def on_reply(reply: Any) -> None:
        if reply.move is not None:
            done["at"] = reply.done_at
        original(reply)

    def timed_show(picture: Any) -> None:
        show(picture)
        if "must-move" in picture.values() and "at" in done:
            latencies.append(time.monotonic() - done.pop("at"))

    original = player._on_reply
    player.client.on_reply = on_reply
    strip.show = timed_show  # type: ignore[method-assign]
    service.door.seat(player)  # through the player door; closed with the service
    stop = threading.Event()
    thread = threading.Thread(target=service.run, args=(stop,), daemon=True)
    thread.start()
    try:
        _play(service, hw, player, engine_moves)
        hwm = _hwm_kib(player.client.pid)
    finally:
        stop.set()
        thread.join()
    return latencies, hwm


def _play(service: Any, hw: Any, player: Any, engine_moves: int) -> None:
    """White by hand (its first legal move in route order), Black's moves as the status
    shows them, until ``engine_moves`` engine moves or the end of the game."""
    while service.session is None:
        time.sleep(0.01)
    service.command({"cmd": "start"})
    geo = service.session.rules.geometry
    made = 0
    while made < engine_moves and service.session.result is None:
        session = service.session
        ply = len(session.moves)
        if session.position.turn.value == "white":
            move = min(session.position.legal_moves(), key=lambda m: m.route)
            _carry(hw, [geo.algebraic(sq) for sq in move.route],
                   [geo.algebraic(sq) for sq in move.captured])
            time.sleep(0.05)
            hw.press("white")
        else:
            shown = _wait(lambda: service.command({"cmd": "status"})["engine"]["move"])
            _carry(hw, shown["route"], shown["captured"])
            made += 1
        _wait(lambda p=ply: len(service.session.moves) > p or service.session.result)


def _carry(hw: Any, route: list[str], captured: list[str]) -> None:
    hw.sim.lift(route[0])
    hw.sim.place(route[-1])
    for sq in captured:
        hw.sim.lift(sq)


def _wait(predicate: Any, timeout: float = 30.0) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.005)
    raise RuntimeError("waited too long")


class BusyEngine:
    """A ``boardctl engine`` process kept searching (5 s requests, one after another)."""

    def __init__(self) -> None:
        from boardctl.engine.client import EngineClient, ThinkRequest, parse_engine
        from firmware.rules.game import Game
        from firmware.rules.position import Position
        from firmware.rules.sets import find_rules

        rules = find_rules("international")
        self.game = Game(rules, Position.start(rules))
        self.request = ThinkRequest
        self.client = EngineClient(parse_engine("builtin", "international", "10"),
                                   on_reply=lambda reply: self._again())
        self._stopped = False
        self._again()

    def _again(self) -> None:
        if not self._stopped:
            self.client.think(self.request(self.game, move_time=5.0))

    def close(self) -> None:
        self._stopped = True
        self.client.close()


def press_to_feed(plies: int, busy: int) -> tuple[list[float], float]:
    """Figure 2: press -> move line latencies, and scans a second over the game."""
    import bench_service

    from boardctl.service import service as service_module

    engines = [BusyEngine() for _ in range(busy)]
    scans: list[float] = []
    original = service_module.Service.close

    def close(self: Any) -> None:  # the sensing thread's scans over the service's life
        scans.append(self.sensing.scans / (time.monotonic() - started[0]))
        original(self)

    started = [time.monotonic()]
    service_module.Service.close = close  # type: ignore[method-assign]
    try:
        if engines:
            time.sleep(1.0)  # the engines started and searching
        started[0] = time.monotonic()
        latencies = bench_service.press_to_feed(plies)
    finally:
        service_module.Service.close = original  # type: ignore[method-assign]
        for engine in engines:
            engine.close()
    return latencies, scans[0] if scans else float("nan")


def main() -> None:
    lat, hwm = done_to_leds()
    print(f"done -> LEDs showing the engine's move ({len(lat)} moves): p50 "
          f"{statistics.median(lat) * 1e3:.1f} ms, p99 {pct(lat, 0.99) * 1e3:.1f} ms, "
          f"max {max(lat) * 1e3:.1f} ms")
    print(f"engine process peak memory (VmHWM, default table): "
          f"{hwm / 1024:.1f} MiB" if hwm else "engine process peak memory: not read")
    for busy in (0, 1, 2):
        try:
            lat, scans = press_to_feed(80, busy)
        except RuntimeError as exc:  # the machine so loaded a set-down was not seen in 50 ms
            print(f"press -> move line, {busy} engine(s): not measured: {exc}")
            continue
        what = {0: "no engine", 1: "an engine searching",
                2: "two engines searching (both cores busy)"}[busy]
        print(f"press -> move line on the pty, {what}: p50 {statistics.median(lat) * 1e3:.1f} "
              f"ms, p99 {pct(lat, 0.99) * 1e3:.1f} ms; sensing {scans:.1f} scans/s")


if __name__ == "__main__":
    main()
