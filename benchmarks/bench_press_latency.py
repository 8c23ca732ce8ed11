"""How late a kernel-stamped button press reaches the buttons' queue on lgpio, against its
stamp: the figure behind hw/buttons.py LGPIO_GRACE_NS.

Two parts. lgpio's C alert thread (lgPthAlerts.c) polls its lines every 0.5 ms and writes an
alert to its notification pipe only once the alert is 0.5 ms old: 0.5-1.0 ms, taken as is.
Then the Python side, measured here: lgpio's notification thread (its ``_callback_thread``:
a buffered ``read(16)`` of the pipe, ``struct.unpack``, the callback) wakes, gpiozero's pin
callback and the button's handler run, and the press is queued; all while the service's
sensing thread scans the matrix 100 times a second with the real group scan
(hw.lgmatrix.GroupMatrix on the simulated chip), competing for the GIL as on the Pi.

This machine's wall-clock figures show the path works and its typical cost; their tail is
this (shared) machine's scheduling, not the code's. The Pi Zero 2 W estimate is built from CPU
figures instead: lgpio's C side (1 ms at worst) + the Python path's CPU time per alert and the
longest GIL hold of the sensing thread (one scan, with its row settle busy-wait), both scaled
by SLOWDOWN (benchmarks/bench_scan.py). What it leaves out is any other thread holding the
GIL (the referee handling a move): the grace's margin is for that.

Run: .venv/bin/python benchmarks/bench_press_latency.py [--presses 400]
"""

from __future__ import annotations

import argparse
import os
import platform
import queue
import struct
import threading
import time

from bench_scan import SLOWDOWN

from hw.buttons import LGPIO_GRACE_NS, ButtonPress, StampedButton, kernel_time
from hw.config import default_config
from hw.layout import MatrixLayout
from hw.lgmatrix import GroupMatrix
from hw.mock.matrix import SimulatedBoard, SimulatedChip

#: lgpio's C side, from its source: the 0.5 ms poll and the 0.5 ms hold-back.
LGPIO_C_NS = (500_000, 1_000_000)


def reader(fd: int, presses: queue.SimpleQueue[tuple[ButtonPress, int]], count: int) -> None:
    """lgpio's notification thread and gpiozero's dispatch, in short: each 16-byte alert
    becomes a press on the queue, stamped by the alert's kernel time."""
    with os.fdopen(fd, "rb") as pipe:
        buf = b""
        for _ in range(count):
            while len(buf) < 16:
                buf += pipe.read(16)
            tick, _chip, _gpio, level, _flags, _pad = struct.unpack("QBBBBI", buf[:16])
            buf = buf[16:]
            now = time.monotonic_ns()
            at = kernel_time(tick / 1e9, now, time.time_ns())
            if level == 0:  # a press: the pin falls (pull-up, button to ground)
                presses.put((ButtonPress("white", at), time.monotonic_ns()))


def cpu_us(fn: object, n: int = 20_000) -> float:
    """CPU microseconds per call of ``fn`` (process time)."""
    assert callable(fn)
    t = time.process_time()
    for _ in range(n):
        fn()
    return (time.process_time() - t) / n * 1e6


def handler_cpu_us() -> float:
    """One alert through the Python path: lgpio's unpacking, then the real button handler
    (hw.buttons.StampedButton with gpiozero's own edge bookkeeping after it) on a mock pin,
    edges alternating so that every other one is a press that is queued."""
    from gpiozero.pins.mock import MockFactory

    presses: queue.SimpleQueue[int] = queue.SimpleQueue()
    button = StampedButton(14, pin_factory=MockFactory(), kernel_stamps=True, lockout_ns=0,
                           on_press=presses.put)
    message = struct.pack("QBBBBI", time.monotonic_ns(), 0, 14, 0, 0, 0)
    level = [0]

    def one() -> None:
        tick, _chip, _gpio, _level, _flags, _pad = struct.unpack("QBBBBI", message)
        level[0] ^= 1
        button._pin_changed(tick / 1e9, level[0])
        if not presses.empty():
            presses.get_nowait()

    try:
        return cpu_us(one)
    finally:
        button.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--presses", type=int, default=400)
    on_arm = platform.machine() in ("aarch64", "armv7l", "armv6l")
    ap.add_argument("--slowdown", type=float, default=1.0 if on_arm else SLOWDOWN)
    args = ap.parse_args()
    config = default_config(10)
    layout = MatrixLayout(10, config.matrix.wiring)
    board = SimulatedBoard.from_config(10, config.matrix)
    board.set_pieces(sq for sq in layout.squares[:40] if sq)
    matrix = GroupMatrix(layout, config.matrix.rows, config.matrix.columns,
                         lgpio=SimulatedChip(board))  # type: ignore[arg-type]
    stop = threading.Event()

    def sensing() -> None:
        next_at = time.monotonic()
        while not stop.is_set():
            matrix.scan()
            next_at += 0.01
            time.sleep(max(0.0, next_at - time.monotonic()))

    scanner = threading.Thread(target=sensing, daemon=True)
    scanner.start()
    read_fd, write_fd = os.pipe()
    presses: queue.SimpleQueue[tuple[ButtonPress, int]] = queue.SimpleQueue()
    thread = threading.Thread(target=reader, args=(read_fd, presses, args.presses), daemon=True)
    thread.start()
    lags = []
    for i in range(args.presses):
        time.sleep(0.003 + (i % 7) * 0.0011)  # presses at all phases of the scan
        stamp = time.monotonic_ns()
        os.write(write_fd, struct.pack("QBBBBI", stamp, 0, 14, 0, 0, 0))
        press, queued = presses.get(timeout=5)
        assert press.at == stamp
        lags.append(queued - press.at)
    stop.set()
    thread.join()
    scanner.join()
    os.close(write_fd)
    matrix.close()
    lags.sort()

    def q(f: float) -> float:
        return lags[min(len(lags) - 1, int(f * len(lags)))] / 1000

    handler = handler_cpu_us()
    plain = GroupMatrix(layout, config.matrix.rows, config.matrix.columns,
                        lgpio=SimulatedChip(board))  # type: ignore[arg-type]
    plain.settle_ns = 0
    scan = cpu_us(plain.scan, 5000)
    plain.close()
    settle = layout.rows * config.matrix.settle_us
    print(f"python {platform.python_version()} on {platform.machine()}; {len(lags)} presses "
          "against a 100 Hz group scan")
    print(f"wall, pipe write to queued press, this machine: median {q(0.5):.0f} us, "
          f"p90 {q(0.9):.0f} us")
    print(f"CPU, this machine: the Python path {handler:.1f} us per alert; one scan "
          f"{scan:.1f} us (+ {settle} us settle busy-wait)")
    estimate = LGPIO_C_NS[1] / 1000 + (handler + scan) * args.slowdown + settle
    print(f"Pi Zero 2 W estimate: lgpio's C side {LGPIO_C_NS[1] / 1000:.0f} us + (path + one "
          f"scan's GIL hold) x {args.slowdown:g} + settle = {estimate:.0f} us; grace "
          f"LGPIO_GRACE_NS = {LGPIO_GRACE_NS / 1000:.0f} us")


if __name__ == "__main__":
    main()
