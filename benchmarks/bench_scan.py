"""Microseconds per full matrix scan with the real scanner code (hw.matrix.ReedMatrix) on
gpiozero mock pins, and the Pi Zero 2 budget estimate.

Three pin models, same scanner code:
  sim        hw.mock.matrix.MatrixPin: the simulated diode matrix (computes each column level)
  nothing    a MockPin that does nothing: the scanner's own Python cost, nothing else
  lgpio-py   a MockPin with the Python path of gpiozero's lgpio pin and the lgpio module
             (a C builtin in place of the ioctl): scanner plus backend, short of the kernel
And the lgpio group scan (hw.lgmatrix.GroupMatrix: one group write and one group read per
row), on three stand-ins for the lgpio module:
  g-sim      hw.mock.matrix.SimulatedChip: lgpio's group calls over the simulated diode matrix
  g-lgpio    the Python path of lgpio's group_write/group_read wrappers (handle mask,
             status conversion, list result) with a C builtin in place of the ioctl
  g-direct   the same module showing its C extension as ``_lgpio`` (real lgpio does): the
             scan calls the extension's functions (the C builtins) directly, no wrappers
Plus the debouncer on an idle board (the common case: nothing changes between scans).

The target: a 10x10 scan at 100 Hz takes at most 5% of one core of a Pi Zero 2, i.e. at
most 500 us of Pi Zero 2 time per scan. This machine's figure is scaled by SLOWDOWN, the
single-thread CPython slowdown of a Pi Zero 2 (Cortex-A53, 1 GHz) against this machine
(see the constant's comment), and the backend's own calls are added from PER_CALL_US.

The row settle time (``[matrix] settle_us``, a busy-wait between selecting a row and reading
its columns) is wall time, the same on every machine: the scans here run without it, and the
estimate adds rows x settle_us unscaled (``--settle-us``, default the configuration's).

Run: .venv/bin/python benchmarks/bench_scan.py [--seconds 1]. On a Pi (ARM) the factor is 1:
the figures are then measured, only the backend calls remain an allowance.
"""

from __future__ import annotations

import argparse
import platform
import time
from collections.abc import Callable
from dataclasses import replace

from gpiozero.pins.mock import MockFactory, MockPin

from hw.config import SETTLE_US, MatrixConfig, default_config
from hw.debounce import Debouncer
from hw.lgmatrix import GroupMatrix
from hw.matrix import MatrixLayout, ReedMatrix
from hw.mock.matrix import SimulatedBoard, SimulatedChip, simulated_matrix

#: CPython single-thread speed of a recent x86-64 desktop/server core against a Cortex-A53 at
#: 1 GHz (Pi Zero 2 W). Published pyperformance/pystone runs put a Pi 4 (A72, 1.5 GHz) at
#: roughly 1/6 to 1/8 of a 4-5 GHz x86 core, and a Pi Zero 2 / Pi 3 (A53, 1.0-1.2 GHz) at
#: about 1/2.5 of a Pi 4: hence about 1/20. We take 25 to stay on the safe side.
SLOWDOWN = 25.0
#: The C/kernel side of one pin access on a Pi Zero 2, beyond the Python side measured with
#: the shaped pins and scaled by SLOWDOWN. lgpio: an ioctl on /dev/gpiochip (system call,
#: gpiolib line lookup, register access), budgeted at 2 us. RPi.GPIO: a volatile load or
#: store in the mmapped /dev/gpiomem plus argument checks, budgeted at 0.3 us.
PER_CALL_US = {"lgpio": 2.0, "rpigpio": 0.3}
BUDGET_US = 0.05 / 100 * 1e6  # 5% of a core at 100 scans a second


class NothingPin(MockPin):  # type: ignore[misc]
    """A pin that does nothing: isolates the scanner's Python overhead."""

    def _get_state(self) -> bool:
        return True

    def _set_state(self, value: bool) -> None:
        pass


def _u2i(status: int) -> int:
    value = status - ((status & (1 << 31)) << 1)  # unsigned 32-bit status to signed
    if value < 0:
        raise OSError(value)
    return value


def _gpio_read(handle: int, gpio: int) -> int:
    return _u2i(min(handle & 0xFFFF, gpio) & 1)  # min: a C call standing in for the ioctl


def _gpio_write(handle: int, gpio: int, level: int) -> int:
    return _u2i(min(handle & 0xFFFF, gpio, level) & 0)


def _u2i_list(status: list[int]) -> list[int]:
    status[0] = _u2i(status[0])
    return status


class _ShapedExtension:
    """lgpio's C extension (``lgpio._lgpio``) with a C builtin where each ioctl would be:
    a group write answers a size (>= 0), a group read a status of 0 and some levels."""

    _group_write = staticmethod(max)
    _group_read = staticmethod(divmod)


class LgpioShapedGroups:
    """The lgpio module's group calls with the shape of their Python wrappers (handle mask,
    status conversion, list result) over :class:`_ShapedExtension`. ``direct``: the module
    shows its extension as ``_lgpio`` (real lgpio does), so GroupMatrix calls it directly;
    else the scan goes through the wrappers."""

    SET_PULL_UP = 32

    def __init__(self, direct: bool) -> None:
        if direct:
            self._lgpio = _ShapedExtension

    def gpiochip_open(self, chip: int) -> int:
        return 3

    def gpiochip_close(self, handle: int) -> int:
        return 0

    def group_claim_output(self, handle: int, gpio: list[int], levels: list[int] = [0],  # noqa: B006
                           lFlags: int = 0) -> int:  # noqa: N803
        return 0

    def group_claim_input(self, handle: int, gpio: list[int], lFlags: int = 0) -> int:  # noqa: N803
        return 0

    def group_free(self, handle: int, gpio: int) -> int:
        return 0

    def group_write(self, handle: int, gpio: int, group_bits: int, group_mask: int = -1) -> int:
        return _u2i(_ShapedExtension._group_write(handle & 0xFFFF, gpio, group_bits, group_mask))

    def group_read(self, handle: int, gpio: int) -> list[int]:
        return _u2i_list(list(_ShapedExtension._group_read(handle & 0xFFFF, gpio)))


class LgpioShapedPin(MockPin):  # type: ignore[misc]
    """A pin whose Python path has the shape of gpiozero's LGPIOPin over the lgpio module
    (pwm check, factory handle, module wrapper, status conversion) with a C builtin where
    the ioctl would be: the backend's Python cost, without the kernel's."""

    def __init__(self, factory: MockFactory, info: object) -> None:
        super().__init__(factory, info)
        self._pwm = None

    def _get_state(self) -> bool:
        if self._pwm:
            return False
        return bool(_gpio_read(self.factory._boardctl_handle, self._number))

    def _set_state(self, value: bool) -> None:
        if self._pwm:
            return
        if self._function == "input":
            raise RuntimeError("input")
        _gpio_write(self.factory._boardctl_handle, self._number, bool(value))


class RpiGpioShapedPin(MockPin):  # type: ignore[misc]
    """A pin with the Python path of gpiozero's RPiGPIOPin (pwm check, one call into the C
    module, which reads the register through /dev/gpiomem: a C builtin stands in)."""

    def __init__(self, factory: MockFactory, info: object) -> None:
        super().__init__(factory, info)
        self._pwm = None

    def _get_state(self) -> bool:
        if self._pwm:
            return False
        return bool(abs(self._number) & 1)

    def _set_state(self, value: bool) -> None:
        if self._pwm:
            return
        try:
            abs(self._number + value)
        except ValueError:
            raise RuntimeError("input") from None


def per_call(fn: Callable[[], object], seconds: float) -> float:
    """CPU microseconds per call of fn (process time: other processes on the machine do not
    count), best of 11 runs: the quietest run is the closest to the code's own cost."""
    clock = time.process_time
    n = 200
    while True:
        t = clock()
        for _ in range(n):
            fn()
        if clock() - t > seconds / 50:
            break
        n *= 2
    best = float("inf")
    for _ in range(11):
        t = clock()
        for _ in range(n):
            fn()
        best = min(best, (clock() - t) / n)
    return best * 1e6


def full_config(size: int) -> MatrixConfig:
    pins = (4, 5, 6, 12, 13, 16, 17, 19, 20, 21, 22, 23, 24, 26, 27, 7, 8, 9, 11, 25)
    return MatrixConfig(wiring="full", rows=pins[:size], columns=pins[size:2 * size])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=1.0, help="time per measurement")
    on_arm = platform.machine() in ("aarch64", "armv7l", "armv6l")
    ap.add_argument("--slowdown", type=float, default=1.0 if on_arm else SLOWDOWN,
                    help="this machine -> Pi Zero 2 factor (1 when run on the Pi itself)")
    ap.add_argument("--settle-us", type=float, default=SETTLE_US,
                    help="busy-wait per row added to the estimate (default: the config's)")
    args = ap.parse_args()
    print(f"python {platform.python_version()} on {platform.machine()} "
          f"({platform.processor() or 'cpu'})")
    warm, _ = simulated_matrix(10, default_config(10).matrix)
    per_call(warm.scan, args.seconds)  # warm-up: caches, CPU clock, specialising interpreter
    warm.close()
    print(f"{'matrix':<13}{'pins':>5}{'calls':>6}{'sim':>8}{'nothing':>9}{'rpigpio':>9}"
          f"{'lgpio':>8}{'g-calls':>8}{'g-sim':>8}{'g-lgpio':>8}{'g-direct':>9}{'debounce':>10}"
          "   Pi Zero 2 estimate")
    for size, cfg in ((10, default_config(10).matrix), (8, default_config(8).matrix),
                      (10, full_config(10)), (8, full_config(8))):
        layout = MatrixLayout(size, cfg.wiring)
        matrix, board = simulated_matrix(size, replace(cfg, settle_us=0))  # settle: see above
        board.set_pieces(sq for sq in layout.squares[: len(layout.squares) // 2] if sq)
        sim_us = per_call(matrix.scan, args.seconds)
        matrix.close()
        timings = {}
        for name, pin_class in (("nothing", NothingPin), ("rpigpio", RpiGpioShapedPin),
                                ("lgpio", LgpioShapedPin)):
            factory = MockFactory(pin_class=pin_class)
            factory._boardctl_handle = 3
            scanner = ReedMatrix(layout, cfg.rows, cfg.columns, pin_factory=factory)
            timings[name] = per_call(scanner.scan, args.seconds)
            scanner.close()
        board = SimulatedBoard.from_config(size, cfg)
        board.set_pieces(sq for sq in layout.squares[: len(layout.squares) // 2] if sq)
        group = GroupMatrix(layout, cfg.rows, cfg.columns, lgpio=SimulatedChip(board))
        timings["g-sim"] = per_call(group.scan, args.seconds)
        group.close()
        for name, direct in (("g-lgpio", False), ("g-direct", True)):
            group = GroupMatrix(layout, cfg.rows, cfg.columns,
                                lgpio=LgpioShapedGroups(direct))  # type: ignore[arg-type]
            assert group.direct is direct
            timings[name] = per_call(group.scan, args.seconds)
            group.close()
        deb = Debouncer(layout.squares, 3, initial=0b1011)
        idle = 0b1011
        deb_us = per_call(lambda: deb.feed(idle, 0), args.seconds)  # noqa: B023
        sensors = sum(sq is not None for sq in layout.squares)
        calls = 2 * layout.rows + sensors
        group_calls = 2 * layout.rows + 1
        estimates = []
        for backend, shaped, n in (("rpigpio", "rpigpio", calls), ("lgpio", "lgpio", calls),
                                   ("lgpio-group", "g-lgpio", group_calls),
                                   ("lgpio-direct", "g-direct", group_calls)):
            per = PER_CALL_US["lgpio" if backend.startswith("lgpio") else backend]
            zero2_us = ((timings[shaped] + deb_us) * args.slowdown + n * per
                        + layout.rows * args.settle_us)
            estimates.append(f"{backend} {zero2_us:4.0f} us = {zero2_us / 100:.1f}%")
        name = f"{size}x{size} {cfg.wiring}"
        print(f"{name:<13}{len(cfg.rows) + len(cfg.columns):>5}{calls:>6}{sim_us:>8.1f}"
              f"{timings['nothing']:>9.1f}{timings['rpigpio']:>9.1f}{timings['lgpio']:>8.1f}"
              f"{group_calls:>8}{timings['g-sim']:>8.1f}{timings['g-lgpio']:>8.1f}"
              f"{timings['g-direct']:>9.1f}"
              f"{deb_us:>10.2f}   {'; '.join(estimates)}")
    print("figures: CPU us per full scan (sim, nothing, rpigpio, lgpio pins; g-: lgpio group "
          "scan) and per idle debounce; calls: backend calls per scan; estimate: Pi Zero 2 us "
          "per scan and % of one core at 100 Hz")
    print(f"budget: {BUDGET_US:.0f} us per scan (5% of a core at 100 Hz); estimate = "
          f"(pin-shaped scan + debounce) x {args.slowdown:g} + calls x C/kernel time "
          f"({', '.join(f'{k} {v:g} us' for k, v in PER_CALL_US.items())}) + rows x "
          f"{args.settle_us:g} us settle")


if __name__ == "__main__":
    main()
