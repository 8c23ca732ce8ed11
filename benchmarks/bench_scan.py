"""Microseconds per full matrix scan with the real scanner code (hw.matrix.ReedMatrix) on
gpiozero mock pins, and the Pi Zero 2 budget estimate.

Three pin models, same scanner code:
  sim        hw.sim.MatrixPin: the simulated diode matrix (computes each column level)
  nothing    a MockPin that stores writes and returns a constant: the scanner's own Python
             cost plus gpiozero's Pin.state property, nothing else
Plus the debouncer on an idle board (the common case: nothing changes between scans).

The target: a 10x10 scan at 100 Hz takes at most 5% of one core of a Pi Zero 2, i.e. at
most 500 us of Pi Zero 2 time per scan. This machine's figure is scaled by SLOWDOWN, the
single-thread CPython slowdown of a Pi Zero 2 (Cortex-A53, 1 GHz) against this machine
(see the constant's comment), and the backend's own calls are added from PER_CALL_US.

Run: .venv/bin/python benchmarks/bench_scan.py [--seconds 1]
"""

from __future__ import annotations

import argparse
import platform
import time
from collections.abc import Callable

from gpiozero.pins.mock import MockFactory, MockPin

from hw.config import MatrixConfig, default_config
from hw.debounce import Debouncer
from hw.matrix import MatrixLayout, ReedMatrix
from hw.sim import simulated_matrix

#: CPython single-thread speed of a recent x86-64 desktop/server core against a Cortex-A53 at
#: 1 GHz (Pi Zero 2 W). Published pyperformance/pystone runs put a Pi 4 (A72, 1.5 GHz) at
#: roughly 1/6 to 1/8 of a 4-5 GHz x86 core, and a Pi Zero 2 / Pi 3 (A53, 1.0-1.2 GHz) at
#: about 1/2.5 of a Pi 4: hence about 1/20. We take 25 to stay on the safe side.
SLOWDOWN = 25.0
#: One lgpio/RPi.GPIO call (gpio_read, gpio_write through the C extension) on a Pi Zero 2,
#: beyond the Python cost already measured with the do-nothing pin: a few hundred ns of C
#: plus the ioctl on /dev/gpiochip; budgeted generously.
PER_CALL_US = 2.0
BUDGET_US = 0.05 / 100 * 1e6  # 5% of a core at 100 scans a second


class NothingPin(MockPin):  # type: ignore[misc]
    """A pin that does nothing: isolates the scanner's Python overhead."""

    def _get_state(self) -> bool:
        return True

    def _set_state(self, value: bool) -> None:
        pass


def per_call(fn: Callable[[], object], seconds: float) -> float:
    """Microseconds per call of fn, best of 5 runs of ~seconds/5 each."""
    n = 200
    while True:
        t = time.perf_counter()
        for _ in range(n):
            fn()
        if time.perf_counter() - t > seconds / 25:
            break
        n *= 2
    best = float("inf")
    for _ in range(5):
        t = time.perf_counter()
        for _ in range(n):
            fn()
        best = min(best, (time.perf_counter() - t) / n)
    return best * 1e6


def full_config(size: int) -> MatrixConfig:
    pins = (4, 5, 6, 12, 13, 16, 17, 19, 20, 21, 22, 23, 24, 26, 27, 7, 8, 9, 11, 25)
    return MatrixConfig(wiring="full", rows=pins[:size], columns=pins[size:2 * size])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=1.0, help="time per measurement")
    args = ap.parse_args()
    print(f"python {platform.python_version()} on {platform.machine()} "
          f"({platform.processor() or 'cpu'})")
    print(f"{'matrix':<16}{'pins':>8}{'sim us':>10}{'nothing us':>12}{'debounce us':>13}"
          f"{'calls':>7}{'Zero 2 us':>11}{'% core':>8}")
    for size, cfg in ((10, default_config(10).matrix), (8, default_config(8).matrix),
                      (10, full_config(10)), (8, full_config(8))):
        layout = MatrixLayout(size, cfg.wiring)
        matrix, board = simulated_matrix(size, cfg)
        board.set_pieces(sq for sq in layout.squares[: len(layout.squares) // 2] if sq)
        sim_us = per_call(matrix.scan, args.seconds)
        matrix.close()
        nothing_factory = MockFactory(pin_class=NothingPin)
        nothing = ReedMatrix(layout, cfg.rows, cfg.columns, pin_factory=nothing_factory)
        nothing_us = per_call(nothing.scan, args.seconds)
        nothing.close()
        deb = Debouncer(layout.squares, 3, initial=0b1011)
        idle = 0b1011
        deb_us = per_call(lambda: deb.feed(idle, 0), args.seconds)  # noqa: B023
        sensors = sum(sq is not None for sq in layout.squares)
        calls = 2 * layout.rows + sensors
        zero2_us = (nothing_us + deb_us) * SLOWDOWN + calls * PER_CALL_US
        share = zero2_us / 100  # at 100 Hz: us per 10 ms scan period, as % of one core
        name = f"{size}x{size} {cfg.wiring}"
        print(f"{name:<16}{len(cfg.rows) + len(cfg.columns):>8}{sim_us:>10.1f}"
              f"{nothing_us:>12.1f}{deb_us:>13.2f}{calls:>7}{zero2_us:>11.0f}{share:>7.1f}%")
    print(f"budget: {BUDGET_US:.0f} us of Pi Zero 2 time per scan (5% of a core at 100 Hz); "
          f"estimate = (nothing + debounce) x {SLOWDOWN:g} + calls x {PER_CALL_US:g} us")


if __name__ == "__main__":
    main()
