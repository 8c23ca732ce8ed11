"""Clock benchmarks: press-to-switch error under a slow loop, and the cost of a face update.

1. Press-to-switch error. A player thread presses the real ``ClockButtons`` code on gpiozero
   mock pins at random moments, noting the true time of each press just before driving the
   pin. The service loop is delayed by LATENCY per pass (sleep stands in for scanning, feed
   writes, a slow SD card). Two clocks are fed the same presses: one charged at the edge's
   timestamp (``press.at``, what the service does), one at the time the loop got to the press.
   We report how far each clock's switch times and final remaining times are from the truth.
2. Face update cost: formatting (firmware.clock.face) plus Adafruit's HT16K33 driver writing to
   the recording I2C bus, per update in which a face changes.

Run: ``.venv/bin/python benchmarks/bench_clock.py [--presses N]``
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from gpiozero.pins.mock import MockFactory  # noqa: E402

from firmware.clock.face import face_view  # noqa: E402
from firmware.clock.gameclock import GameClock  # noqa: E402
from firmware.rules.sets import Side  # noqa: E402
from hw.buttons import ClockButtons  # noqa: E402
from hw.mock.faces import simulated_faces  # noqa: E402

PINS = {"white": 14, "black": 15}


def press_error(latency_s: float, presses: int, seed: int) -> dict[str, float]:
    factory = MockFactory()
    buttons = ClockButtons(PINS, pin_factory=factory, lockout_ns=1_000_000)
    edge_clock, loop_clock = GameClock("3600"), GameClock("3600")
    truth: list[int] = []
    start = time.monotonic_ns()
    for clock in (edge_clock, loop_clock):
        clock.start(start)
    rng = random.Random(seed)
    done = threading.Event()

    def player() -> None:
        side = "white"
        for _ in range(presses):
            time.sleep(rng.uniform(0.004, 0.012))
            pin = factory.pin(PINS[side])
            truth.append(time.monotonic_ns())
            pin.drive_low()
            time.sleep(0.002)
            pin.drive_high()
            side = "black" if side == "white" else "white"
        done.set()

    thread = threading.Thread(target=player)
    thread.start()
    edge_switch: list[int] = []
    loop_switch: list[int] = []
    while not done.is_set() or len(edge_switch) < presses:
        time.sleep(latency_s)  # the rest of the loop's work
        now = time.monotonic_ns()
        for press in buttons.poll():
            edge_clock.press(Side(press.name), press.at)
            loop_clock.press(Side(press.name), now)
            edge_switch.append(press.at)
            loop_switch.append(now)
    thread.join()
    end = max(edge_switch[-1], loop_switch[-1]) + 1
    buttons.close()
    factory.reset()
    # The true remaining time: 3600 s minus the true durations of each side's turns.
    true_used = {Side.WHITE: 0, Side.BLACK: 0}
    previous = start
    for index, t in enumerate(truth):
        side = Side.WHITE if index % 2 == 0 else Side.BLACK
        true_used[side] += t - previous
        previous = t
    true_used[Side.WHITE if presses % 2 == 0 else Side.BLACK] += end - previous

    def remaining_error(clock: GameClock) -> float:
        worst = 0
        for side in (Side.WHITE, Side.BLACK):
            expected = 3600 * 10**9 - true_used[side]
            worst = max(worst, abs(clock.remaining(side, end) - expected))
        return worst / 1000

    # The edge clock's accounting against its own stamps: must be exactly 0 ns.
    stamp_used = {Side.WHITE: 0, Side.BLACK: 0}
    previous = start
    for index, t in enumerate(edge_switch):
        stamp_used[Side.WHITE if index % 2 == 0 else Side.BLACK] += t - previous
        previous = t
    exact = max(abs(edge_clock.used(s, previous) - stamp_used[s]) for s in stamp_used)
    stamp_lag = [a - t for a, t in zip(edge_switch, truth, strict=True)]
    loop_lag = [a - t for a, t in zip(loop_switch, truth, strict=True)]
    return {
        "edge_vs_stamp_ns": float(exact),
        "edge_mean_us": statistics.mean(stamp_lag) / 1000,
        "edge_max_us": max(stamp_lag) / 1000,
        "loop_mean_us": statistics.mean(loop_lag) / 1000,
        "loop_max_us": max(loop_lag) / 1000,
        "edge_remaining_err_us": remaining_error(edge_clock),
        "loop_remaining_err_us": remaining_error(loop_clock),
    }


def face_update_cost(rounds: int) -> dict[str, float]:
    """Per update in which White's face changes (m:ss, a second apart), and per loop pass in
    which nothing changes (no I2C traffic)."""
    second = 10**9
    changed = unchanged = formatting = 0.0
    updates = writes = 0
    for _ in range(rounds):
        faces = simulated_faces()
        clock = GameClock("3000")
        clock.start(0)
        faces.update(clock, 0)
        before = faces.i2c.transfers
        started = time.perf_counter()
        for index in range(1, 2900):
            faces.update(clock, index * second)
        changed += time.perf_counter() - started
        writes += faces.i2c.transfers - before
        started = time.perf_counter()
        for _ in range(1, 2900):
            faces.update(clock, 2899 * second)
        unchanged += time.perf_counter() - started
        started = time.perf_counter()
        for index in range(1, 2900):
            face_view(clock, Side.WHITE, index * second)
            face_view(clock, Side.BLACK, index * second)
        formatting += time.perf_counter() - started
        updates += 2899
    return {
        "update_us": changed / updates * 1e6,
        "unchanged_us": unchanged / updates * 1e6,
        "format_us": formatting / updates * 1e6,
        "i2c_transfers_per_update": writes / updates,
    }


def clock_op_cost(count: int) -> dict[str, float]:
    """The pure accounting: a press (with a control every 25 moves) and a face read."""
    clock = GameClock("50/7200:25/3600")
    clock.start(0)
    side = Side.WHITE
    started = time.perf_counter()
    for index in range(1, count + 1):
        clock.press(side, index * 10**9)
        side = side.other
    press = time.perf_counter() - started
    started = time.perf_counter()
    for index in range(count):
        clock.remaining(Side.WHITE, count * 10**9 + index)
    remaining = time.perf_counter() - started
    return {"press_us": press / count * 1e6, "remaining_us": remaining / count * 1e6}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--presses", type=int, default=40)
    args = parser.parse_args()
    print("press-to-switch error (true press -> clock switch), real button code on mock pins")
    print(f"{'loop latency':>13} {'edge-stamped: mean/max':>24} {'loop-time: mean/max':>24} "
          f"{'remaining err edge/loop':>26} {'clock vs edge stamps':>21}")
    for latency_ms in (0, 1, 10, 50, 200):
        r = press_error(latency_ms / 1000, args.presses, seed=latency_ms)
        print(f"{latency_ms:>10} ms {r['edge_mean_us']:>11.1f}/{r['edge_max_us']:<8.1f} µs "
              f"{r['loop_mean_us'] / 1000:>11.2f}/{r['loop_max_us'] / 1000:<8.2f} ms "
              f"{r['edge_remaining_err_us']:>11.1f} µs/{r['loop_remaining_err_us'] / 1000:<6.2f} ms"
              f" {r['edge_vs_stamp_ns']:>14.0f} ns")
    ops = clock_op_cost(50_000)
    print()
    print(f"clock accounting: press {ops['press_us']:.2f} µs, remaining "
          f"{ops['remaining_us']:.2f} µs")
    cost = face_update_cost(5)
    print()
    print("face update (face_view for both sides + Seg7x4.print/show on the recording bus):")
    print(f"  {cost['update_us']:.1f} µs per update that changes a face "
          f"({cost['i2c_transfers_per_update']:.2f} I2C writes), of which formatting both "
          f"faces {cost['format_us']:.1f} µs; {cost['unchanged_us']:.1f} µs when nothing changed")


if __name__ == "__main__":
    main()
