"""What the threads beside the scan cost on a Pi, and what they do to the scan: lgpio's alert
thread, the LED redraw, and the scan period's jitter while the LEDs are redrawn.

1. lgpio's alert thread (lgPthAlerts.c, lgPthAlert): while any line has an alert (the clock
   buttons' edges), it loops on ``ppoll`` of the alert lines' file descriptors with a 0.5 ms
   timeout, whether anything moves or not: up to 2,000 wake-ups a second (fewer: the kernel's
   50 us timer slack), in C, outside the GIL. Here the same loop runs on three pipes that
   never become readable (the three button lines), through ctypes, and its thread's CPU time
   is measured; the ctypes call's own Python cost (a ``labs`` call in the same loop) is taken
   off, so what remains is the system call, the timer and the two context switches of each
   wake-up: kernel time. This machine is a virtual machine, where arming a timer and taking
   its interrupt exit to the host: most of its wake-up is that. So the Pi Zero 2 W estimate
   is a range: at least this machine's figure as it stands (its system calls and context
   switches are no faster than a 1 GHz Cortex-A53's), at most what a bare core spends (a bare
   ``ppoll`` and two context switches, measured here, plus TIMER_US for the timer) made
   KERNEL_SLOWDOWN times slower. On a Pi (``--kernel-factor 1``) the figure is measured.
2. The LED redraw: :class:`hw.leds.LedStrip` on the real ``neopixel_spi.NeoPixel_SPI`` (the
   strip's driver: adafruit_pixelbuf's colour handling, then one SPI byte per colour bit) over
   a stand-in SPI bus at the outermost edge, for an empty picture, a move's few squares and
   every dark square, with the library's loop over the bits (before) and the frame from
   hw.leds.table_bits (now); CPU microseconds, scaled by SLOWDOWN (benchmarks/bench_scan.py).
   The SPI
   transfer itself (2,528 bytes at 6.4 MHz for 100 pixels: 3.2 ms) is an ioctl, outside the
   GIL.
3. The scan's period while the LEDs are redrawn: the service's own sensing thread
   (boardctl.service.sensing.Sensing, its fixed schedule at ``scan_hz``) scans the simulated
   matrix through lgpio's group calls, while the service's display thread
   (boardctl.service.outputs.Display) redraws the strip back to back, each picture drawn
   ``--redraw-repeat`` times (default: SLOWDOWN, so that a redraw holds the GIL as long as one
   does on a Pi Zero 2 W). Each row's select and read are timed: the span of a row (select to
   read) shows whether a redraw ever ran in the middle of a row (the scan itself makes no
   call that lets the GIL go, and CPython gives a thread that takes the GIL a whole switch
   interval, 5 ms, before another may ask for it back), and the scan starts show the
   period's jitter. Three runs: no redraws; redraws as now (under the strip's lock, which the
   sensing thread holds through each scan: a scan due during a redraw waits for its end; the
   frame from the table); redraws as before (no lock: the scan waited for the GIL, a switch
   interval at most, and a scan outlasting its GIL slice, a garbage collection in it or a
   preemption, could be cut mid-row; the library's loop). The rows' settle busy-wait is
   stretched (``--settle-us``) so that a scan holds the GIL as long as a Pi Zero 2 W's does.
   Where allowed (root), the benchmark's threads run SCHED_FIFO in part 3, so that the other
   processes of a shared machine do not stretch its timings, as they would not on an idle
   Pi's four cores (``--no-realtime``).

Run: .venv/bin/python benchmarks/bench_pi_threads.py [--seconds 5]. On a Pi (ARM) the factors
are 1 and the figures are measured.
"""

from __future__ import annotations

import argparse
import ctypes
import dataclasses
import functools
import os
import platform
import statistics
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

from bench_scan import SLOWDOWN

from boardctl.service.hardware import sim_hardware
from boardctl.service.outputs import Display
from boardctl.service.sensing import BUTTONS, SENSORS, EventMerge, Sensing
from hw.config import default_config
from hw.leds import LedStrip, PixelMap, table_bits

#: Kernel code on a Pi Zero 2 W (Cortex-A53, 1 GHz, in order) against a bare x86 core: about
#: a third of the clock and a third of the work per clock.
KERNEL_SLOWDOWN = 10.0
#: A bare core's timer for one wake-up (arm the hrtimer, take its interrupt), beyond the
#: system call and the context switches.
TIMER_US = 1.0
#: lgpio's alert poll timeout (lgPthAlerts.c: ``struct timespec tspec = {0, 5e5}``).
LGPIO_POLL_NS = 500_000
ALERT_LINES = 3  # the clock buttons: white, black, pause


class _PollFd(ctypes.Structure):
    _fields_ = [("fd", ctypes.c_int), ("events", ctypes.c_short), ("revents", ctypes.c_short)]


class _Timespec(ctypes.Structure):
    _fields_ = [("tv_sec", ctypes.c_long), ("tv_nsec", ctypes.c_long)]


def alert_thread(seconds: float, timeout_ns: int) -> tuple[float, float]:
    """lgpio's alert loop for ``seconds``: (wake-ups per second, thread CPU us per wake-up),
    the ctypes call's Python cost included."""
    libc = ctypes.CDLL(None, use_errno=True)
    pipes = [os.pipe() for _ in range(ALERT_LINES)]
    fds = (_PollFd * ALERT_LINES)(*[_PollFd(r, 0x1 | 0x2, 0) for r, _ in pipes])  # POLLIN|POLLPRI
    tspec = _Timespec(0, timeout_ns)
    out: list[float] = []

    def run() -> None:
        ppoll, n, ts = libc.ppoll, ALERT_LINES, ctypes.byref(tspec)
        wakes = 0
        cpu, wall = time.thread_time(), time.monotonic()
        end = wall + seconds
        while time.monotonic() < end:
            ppoll(fds, n, ts, None)
            wakes += 1
        out.extend((wakes / (time.monotonic() - wall), (time.thread_time() - cpu) / wakes))

    thread = threading.Thread(target=run, name="alerts")
    thread.start()
    thread.join()
    for r, w in pipes:
        os.close(r)
        os.close(w)
    return out[0], out[1] * 1e6


def context_switch_us(rounds: int = 5_000, runs: int = 7) -> float:
    """One context switch between two processes on the same CPU: a byte passed to and fro
    through two pipes, less the same reads and writes without a switch, each the least of
    ``runs`` (other processes on this CPU only add). What this kernel charges for the
    switches of a wake-up, with no timer and no other CPU involved."""
    trips, alone = zip(*(switch_round(rounds) for _ in range(runs)), strict=True)
    return max(min(trips) - 2 * min(alone), 0.0) / 2 * 1e6


def switch_round(rounds: int) -> tuple[float, float]:
    """(seconds per round trip through a partner process on this CPU, per write and read
    of this process's own pipe)."""
    cpu = sorted(os.sched_getaffinity(0))[0]
    a, b = os.pipe(), os.pipe()
    pid = os.fork()
    if pid == 0:  # the partner: bounce each byte back
        os.sched_setaffinity(0, {cpu})
        for _ in range(rounds):
            os.write(b[1], os.read(a[0], 1))
        os._exit(0)
    mask = os.sched_getaffinity(0)
    os.sched_setaffinity(0, {cpu})
    try:
        start = time.perf_counter()
        for _ in range(rounds):
            os.write(a[1], b"x")
            os.read(b[0], 1)
        trip = (time.perf_counter() - start) / rounds
        os.waitpid(pid, 0)
        start = time.perf_counter()
        for _ in range(rounds):
            os.write(a[1], b"x")
            os.read(a[0], 1)
        alone = (time.perf_counter() - start) / rounds
    finally:
        os.sched_setaffinity(0, mask)
        for fd in (*a, *b):
            os.close(fd)
    return trip, alone


def ctypes_call_us(n: int = 200_000) -> float:
    """The same loop's Python and ctypes cost per turn, with a call that does no system call."""
    labs = ctypes.CDLL(None).labs
    cpu = time.thread_time()
    end = time.monotonic() + 1e9
    for _ in range(n):
        labs(-1)
        if time.monotonic() > end:
            break
    return (time.thread_time() - cpu) / n * 1e6


class StandInSPI:
    """The outermost edge: Blinka's SPI bus as neopixel_spi uses it, keeping the last write."""

    frequency = 6_400_000

    def __init__(self) -> None:
        self.written = 0

    def try_lock(self) -> bool:
        return True

    def unlock(self) -> None:
        pass

    def configure(self, **settings: Any) -> None:
        pass

    def write(self, buf: bytes, start: int = 0, end: int | None = None) -> None:
        self.written = len(buf)


def real_strip(table: bool = True) -> tuple[LedStrip, StandInSPI]:
    """The strip as the service opens it (``table``: its frame from hw.leds.table_bits, the
    library's loop otherwise), on the stand-in bus."""
    import neopixel_spi

    config = default_config(10).leds
    pixel_map = PixelMap(10, config.layout)
    bus = StandInSPI()
    pixels = neopixel_spi.NeoPixel_SPI(bus, pixel_map.count, brightness=config.brightness,
                                       auto_write=False, pixel_order=config.pixel_order)
    if table and not table_bits(pixels):
        raise SystemExit("hw.leds.table_bits refused this neopixel_spi")
    return LedStrip(pixels, pixel_map, config.colours), bus


def pictures(strip: LedStrip) -> dict[str, dict[str, str]]:
    squares = list(strip.map.pixel)
    meaning = next(iter(strip.colours))
    return {"empty": {}, "a move (4 squares)": dict.fromkeys(squares[:4], meaning),
            "every dark square": dict.fromkeys(squares, meaning)}


def cpu_us(fn: Callable[[], object], n: int) -> float:
    """CPU microseconds per call, best of 7 runs of n."""
    best = float("inf")
    for _ in range(7):
        t = time.process_time()
        for _ in range(n):
            fn()
        best = min(best, (time.process_time() - t) / n)
    return best * 1e6


class Repeated:
    """The strip drawn ``times`` times per picture: a redraw as long as a slower Pi's. With
    ``guarded``, the whole redraw holds a ``drawing`` lock, as one real redraw holds the
    strip's (hw/leds.py); without, no lock: the sensing thread then scans whenever it gets
    the GIL (as before the lock)."""

    def __init__(self, strip: LedStrip, times: int, guarded: bool) -> None:
        self.strip, self.times = strip, times
        self.drawn = threading.Event()
        self.lock = threading.Lock()
        if guarded:
            self.drawing = self.lock

    def show(self, picture: dict[str, str]) -> None:
        with self.lock:
            for _ in range(self.times):
                self.strip.show(picture)
        self.drawn.set()

    def close(self) -> None:
        self.strip.close()


@dataclasses.dataclass
class ScanTiming:
    starts: list[int]
    spans: list[int]
    period_ns: int
    overruns: int
    redraws: int

    def jitter(self) -> list[float]:
        """How late each scan started against its slot, in ms: the slots are the first scan's
        time plus whole periods (a skipped slot is counted apart); a start a hair before its
        slot (the two clocks' reading) counts as on time."""
        first, period = self.starts[0], self.period_ns
        late = [(s - first) % period for s in self.starts]
        return [0.0 if x > period - 200_000 else x / 1e6 for x in late]


def realtime(thread: threading.Thread | None, priority: int) -> bool:
    """The thread (None: this one) scheduled SCHED_FIFO where allowed: the other processes on
    this shared machine then do not stretch its timings (an idle Pi's four cores would not)."""
    try:
        tid = 0 if thread is None else thread.native_id or 0
        os.sched_setscheduler(tid, os.SCHED_FIFO, os.sched_param(priority))
    except (OSError, AttributeError):
        return False
    return True


def timed_scans(seconds: float, settle_us: float, redraw_repeat: int | None,
                now: bool = True, fifo: bool = False) -> ScanTiming:
    """The sensing thread at the config's rate for ``seconds``, every row's select and read
    timed; with ``redraw_repeat``, the display thread redrawing the real strip meanwhile
    (``now``: under the strip's lock, its frame from the table; else as before: no lock, the
    library's loop)."""
    config = default_config(10)
    config = dataclasses.replace(config, matrix=dataclasses.replace(
        config.matrix, settle_us=round(settle_us)))
    hw: Any = sim_hardware(10, config)  # its parts swapped for the benchmark's
    hw.faces = None
    matrix: Any = hw.scanner.matrix
    marks: list[tuple[int, int]] = []  # (kind 0 select / 1 read, ns)
    clock = time.perf_counter_ns
    write, read = matrix._write, matrix._read

    def timed_write(*a: int) -> int:
        marks.append((0, clock()))
        return write(*a)

    def timed_read(*a: int) -> Any:
        answer = read(*a)
        marks.append((1, clock()))
        return answer

    matrix._write, matrix._read = timed_write, timed_read
    hw.sim.set_pieces(["a1", "c3", "e5", "g7"])
    display = None
    if redraw_repeat:
        strip, _ = real_strip(table=now)
        hw.leds = Repeated(strip, redraw_repeat, guarded=now)
        display = Display(hw, faces_ns=100_000_000, clock=time.monotonic_ns)
        display.start()
    sensing = Sensing(hw, None, EventMerge([SENSORS, BUTTONS]), lambda: 0)
    redraws = 0
    policy = os.sched_getscheduler(0)
    sensing.start()
    if fifo:
        realtime(sensing._thread, 10)
        realtime(None, 5)
        realtime(getattr(display, "_thread", None), 5)
    try:
        end = time.monotonic() + seconds
        shown = list(pictures(real_strip()[0]).values())
        while time.monotonic() < end:
            if display is None:
                time.sleep(0.05)
                continue
            display.show(shown[redraws % len(shown)])  # the next one once this one is drawn:
            redraws += 1  # a redraw always under way, this thread asleep meanwhile
            hw.leds.drawn.wait(1.0)
            hw.leds.drawn.clear()
    finally:
        if fifo:
            os.sched_setscheduler(0, policy, os.sched_param(0))
        sensing.stop()
        if display is not None:
            display.stop()
    if sensing.error is not None:
        raise sensing.error
    spans, starts, selected = [], [], None
    rows = matrix.layout.rows
    writes = 0
    for kind, at in marks:
        if kind == 0:
            if writes % (rows + 1) == 0:
                starts.append(at)
            selected = at if writes % (rows + 1) < rows else None
            writes += 1
        elif selected is not None:
            spans.append(at - selected)
    return ScanTiming(starts, spans, hw.scanner.period_ns, sensing.overruns, redraws)


def describe(values: list[float]) -> str:
    ordered = sorted(values)
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
    return f"median {statistics.median(ordered):.3f}, p99 {p99:.3f}, max {ordered[-1]:.3f}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    on_arm = platform.machine() in ("aarch64", "armv7l", "armv6l")
    ap.add_argument("--seconds", type=float, default=5.0, help="time per measurement")
    ap.add_argument("--slowdown", type=float, default=1.0 if on_arm else SLOWDOWN,
                    help="Python: this machine -> Pi Zero 2 W (1 on the Pi itself)")
    ap.add_argument("--kernel-factor", type=float, default=1.0 if on_arm else KERNEL_SLOWDOWN,
                    help="a bare core's kernel time -> Pi Zero 2 W (1 on the Pi itself)")
    ap.add_argument("--redraw-repeat", type=int, default=None,
                    help="draws per picture in part 3 (default: the Python slowdown)")
    ap.add_argument("--settle-us", type=float, default=None,
                    help="row settle busy-wait in part 3 (default: a Pi Zero 2 W's scan length)")
    ap.add_argument("--no-realtime", action="store_true",
                    help="part 3 at normal priority (default: SCHED_FIFO where allowed)")
    args = ap.parse_args()
    repeat = args.redraw_repeat or max(1, round(args.slowdown))
    print(f"python {platform.python_version()} on {platform.machine()}, switch interval "
          f"{sys.getswitchinterval() * 1e3:g} ms, load {os.getloadavg()[0]:.1f} on "
          f"{os.cpu_count()} CPUs; Python x{args.slowdown:g}, kernel x{args.kernel_factor:g} "
          "to a Pi Zero 2 W")

    wakes, per_wake = alert_thread(args.seconds, LGPIO_POLL_NS)
    _, per_zero = alert_thread(min(args.seconds, 1.0), 0)
    python_us = ctypes_call_us()
    kernel_us = max(per_wake - python_us, 0.0)
    bare_us = max(per_zero - python_us, 0.0)
    switch_us = context_switch_us()
    print(f"1. lgpio's alert loop (ppoll, 0.5 ms, {ALERT_LINES} lines): {wakes:,.0f} wake-ups/s; "
          f"CPU per wake-up {per_wake:.1f} us, of which the ctypes call {python_us:.2f} us: "
          f"{kernel_us:.1f} us in the kernel = {wakes * kernel_us / 1e4:.1f}% of a core here "
          f"(of it a bare ppoll {bare_us:.1f} us, a context switch {switch_us:.1f} us)")
    if args.kernel_factor == 1.0:
        low = high = kernel_us
    else:
        low = kernel_us
        high = max(low, (bare_us + 2 * switch_us + TIMER_US) * args.kernel_factor)
    span = f"{low:.0f}" if low == high else f"{low:.0f}-{high:.0f}"
    share = (f"{wakes * low / 1e4:.1f}" if low == high
             else f"{wakes * low / 1e4:.1f}-{wakes * high / 1e4:.1f}")
    print(f"   Pi Zero 2 W estimate: {span} us a wake-up x {wakes:,.0f}/s = {share}% of one of "
          "its four cores, outside the GIL, for as long as a button alert exists (the whole "
          "time the service runs)")

    print("2. LED redraw, 100 pixels, neopixel_spi at 6.4 MHz, CPU per picture; its frame by "
          "the library's loop (before) / from hw.leds.table_bits (now):")
    strips = {table: real_strip(table) for table in (False, True)}
    for strip, _ in strips.values():  # warm-up: caches, the specialising interpreter
        for picture in pictures(strip).values():
            cpu_us(functools.partial(strip.show, picture), 20)
    for name in pictures(strips[True][0]):
        here = [cpu_us(functools.partial(strip.show, pictures(strip)[name]), 50)
                for strip, _ in strips.values()]
        bus = strips[True][1]
        print(f"   {name:<20} {here[0]:4.0f} / {here[1]:4.0f} us here, "
              f"{here[0] * args.slowdown / 1e3:4.1f} / {here[1] * args.slowdown / 1e3:4.1f} ms "
              f"on a Pi Zero 2 W (GIL held); then {bus.written:,} bytes over SPI: "
              f"{bus.written * 8 / bus.frequency * 1e3:.1f} ms in the kernel, GIL free")

    layout_rows = default_config(10).matrix.rows
    if args.settle_us is None:  # a Pi Zero 2 W's 10x10 group scan: 0.19 ms (bench_scan.py)
        args.settle_us = 190.0 / len(layout_rows)
    fifo = not args.no_realtime and realtime(None, 1)
    if fifo:
        os.sched_setscheduler(0, os.SCHED_OTHER, os.sched_param(0))
    print(f"3. scans at {default_config(10).matrix.scan_hz:g} Hz, rows {args.settle_us:.0f} us "
          f"each (a Pi Zero 2 W's scan length); redraws x{repeat} (a Pi Zero 2 W's length); "
          + ("threads SCHED_FIFO (this machine's other load kept out)" if fifo
             else "threads at normal priority"))
    for label, redraw, now in (("no redraws", None, True),
                               ("redrawing, now (the strip's lock, the table)", repeat, True),
                               ("redrawing, before (no lock, the library's loop)", repeat, False)):
        t = timed_scans(args.seconds, args.settle_us, redraw, now, fifo)
        spans = [s / 1e3 for s in t.spans]
        stretched = sum(1 for s in spans if s > args.settle_us + 500)
        print(f"   {label}: {len(t.starts)} scans, {t.redraws} pictures drawn; start late by "
              f"(ms) {describe(t.jitter())}; skipped slots {t.overruns}; row select->read (us) "
              f"{describe(spans)}; rows stretched over 0.5 ms: {stretched} of {len(spans)}")

if __name__ == "__main__":
    main()
