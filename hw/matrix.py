"""The reed switch matrix under the board, scanned through gpiozero.

Electrically: each row line is an output, held high when idle and driven low when selected,
one at a time. Each column line is an input with a pull-up. The reed switch of a square joins
its row to its column through a diode (anode on the column, cathode on the row), so a column
reads low exactly when the selected row's switch on that column is closed: the diodes stop the
current sneaking back through other closed switches, which is what would otherwise make a
"ghost" square appear at the fourth corner of a rectangle of three occupied squares.

Two wirings (``[matrix] wiring``):

* ``dark``: a sensor on each dark square only: ``size`` rows (rank 1 first) by ``size // 2``
  columns; column ``k`` of rank ``r`` (both 0-based) is file ``2k + r % 2`` (``a1`` is dark).
  The 50 squares of a 100-square board take 15 GPIOs, the 32 of a 64-square board 12.
* ``full``: ``size`` rows by ``size`` columns (file ``a`` first); only dark squares carry a
  sensor, the light-square crossings are not read.

A scan returns a bitmask: bit ``row * columns + column`` is set when that sensor is closed.
:class:`MatrixLayout` names the bits with algebraic squares (CONTRACT.md "Squares").
"""

from __future__ import annotations

import threading
import time
import warnings
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from firmware.errors import HardwareError
from hw.config import MatrixConfig
from hw.debounce import Debouncer, SquareEvent
from hw.layout import MatrixLayout

__all__ = ["MatrixLayout", "ReedMatrix", "Scanner"]  # MatrixLayout: from hw.layout, kept here

if TYPE_CHECKING:
    from hw.parts import Matrix

NO_GPIO = "no GPIO backend (hw/gpio.py chooses one); --sim runs on the simulated board"


class ReedMatrix:
    """The scanner: gpiozero devices on the configured pins, read through their pins.

    Rows are ``DigitalOutputDevice(active_high=False)`` (idle high, selected low), columns
    ``InputDevice(pull_up=True)`` (no edge detection: the scan polls them, and edge callbacks
    on ten lines toggled a thousand times a second would only cost CPU). The devices own the
    pin reservations and close cleanly; the scan loop writes and reads their pins through
    gpiozero's pin interface, so the same code runs on lgpio, RPi.GPIO and MockFactory.
    """

    def __init__(
        self,
        layout: MatrixLayout,
        row_pins: Sequence[int],
        column_pins: Sequence[int],
        *,
        pin_factory: Any | None = None,
        settle_ns: int = 0,
    ) -> None:
        layout.check_pins(row_pins, column_pins)
        from gpiozero import (
            BadPinFactory,
            DigitalOutputDevice,
            GPIOZeroError,
            InputDevice,
            PinFactoryFallback,
        )

        self.layout = layout
        self.settle_ns = settle_ns
        self._devices: list[Any] = []
        #: The gpiozero pin factory in use (buttons on the same board share it).
        self.pin_factory: Any = pin_factory
        #: The hw.gpio.GpioBackend it runs on, when open_matrix chose it.
        self.backend: Any = None
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", PinFactoryFallback)
                for pin in row_pins:
                    self._devices.append(DigitalOutputDevice(
                        pin, active_high=False, initial_value=False, pin_factory=pin_factory))
                for pin in column_pins:
                    self._devices.append(InputDevice(pin, pull_up=True,
                                                     pin_factory=pin_factory))
        except BadPinFactory:
            self.close()
            raise HardwareError(NO_GPIO) from None
        except (GPIOZeroError, OSError, RuntimeError) as exc:
            self.close()
            raise HardwareError(f"cannot open the sensor matrix pins: {exc}") from None
        self.pin_factory = self._devices[0].pin_factory
        self._row_pins = tuple(d.pin for d in self._devices[: layout.rows])
        self._col_pins = tuple(d.pin for d in self._devices[layout.rows:])
        self._plan = self._scan_plan()

    def _scan_plan(self) -> tuple[tuple[Any, tuple[tuple[Any, int], ...]], ...]:
        """(row writer, [(column reader, bit weight)]) per row, light-square crossings left
        out. The pins' ``_set_state``/``_get_state`` are gpiozero's backend interface (what
        every pin class implements); ``Pin.state`` is a property over them, and skipping that
        one layer saves a third of the scan's Python cost (benchmarks/bench_scan.py)."""
        layout = self.layout
        ncols = layout.columns
        return tuple(
            (rp._set_state,
             tuple((cp._get_state, 1 << (r * ncols + c)) for c, cp in enumerate(self._col_pins)
                   if layout.squares[r * ncols + c] is not None))
            for r, rp in enumerate(self._row_pins)
        )

    @classmethod
    def from_config(cls, size: int, config: MatrixConfig, *,
                    pin_factory: Any | None = None) -> ReedMatrix:
        return cls(MatrixLayout(size, config.wiring), config.rows, config.columns,
                   pin_factory=pin_factory, settle_ns=config.settle_us * 1000)

    def scan(self) -> int:
        """Read every sensor once; bit set = switch closed (a piece stands there)."""
        mask = 0
        settle = self.settle_ns
        for select, cols in self._plan:
            select(False)
            if settle:
                end = time.perf_counter_ns() + settle
                while time.perf_counter_ns() < end:
                    pass
            for read, weight in cols:
                if not read():
                    mask |= weight
            select(True)
        return mask

    def column_gpio(self, column: int) -> str:
        """The GPIO name of a column line, for messages."""
        return str(self._col_pins[column].info.name)

    def row_gpio(self, row: int) -> str:
        """The GPIO name of a row line, for messages."""
        return str(self._row_pins[row].info.name)

    def idle_columns(self) -> list[int]:
        """Columns that read low with no row selected: shorted to ground (or to a row held
        low by a fault). Every square of such a column would read occupied."""
        return [c for c, pin in enumerate(self._col_pins) if not pin.state]

    def close(self) -> None:
        for d in self._devices:
            d.close()
        self._devices.clear()

    def __enter__(self) -> ReedMatrix:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class Scanner:
    """Scans at a fixed rate on its own thread and hands debounced events to ``on_events``.

    :meth:`step` does one scan; tests call it directly with an injected clock. The thread
    keeps a fixed schedule (no drift); if it falls behind (a scan took longer than the
    period), it skips the missed slots rather than bursting. ``overruns`` counts those.
    If a scan raises, the thread stops and keeps the exception in :attr:`error`.
    """

    def __init__(
        self,
        matrix: Matrix,
        debouncer: Debouncer,
        on_events: Callable[[list[SquareEvent]], None],
        *,
        hz: float = 100.0,
        clock: Callable[[], int] = time.monotonic_ns,
    ) -> None:
        self.matrix = matrix
        self.debouncer = debouncer
        self.on_events = on_events
        self.period_ns = int(1e9 / hz)
        self.clock = clock
        self.scans = 0
        self.overruns = 0
        #: The exception that stopped the scan thread (a failing pin or ``on_events``), if any.
        self.error: Exception | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def step(self) -> list[SquareEvent]:
        """One scan, debounced; events carry this scan's monotonic timestamp (ns)."""
        at = self.clock()
        raw = self.matrix.scan()
        self.scans += 1
        events = self.debouncer.feed(raw, at)
        if events:
            self.on_events(events)
        return events

    def start(self) -> None:
        if self._thread is not None:
            return
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, name="matrix-scan", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        next_at = self.clock()
        while not self._stop.is_set():
            try:
                self.step()
            except Exception as exc:  # a pin read failing: stop and say so, never spin
                self.error = exc
                return
            next_at += self.period_ns
            now = self.clock()
            if now > next_at:
                missed = (now - next_at) // self.period_ns + 1
                self.overruns += missed
                next_at += missed * self.period_ns
            self._stop.wait((next_at - now) / 1e9)

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=2.0)
            self._thread = None
