"""The reed switch matrix scanned with lgpio's group calls: one system call per row select
and one per column read, instead of one per pin through gpiozero (hw/matrix.py's
:class:`ReedMatrix`, which stays for RPi.GPIO and for gpiozero's MockFactory).

The electrical scheme is the one of hw/matrix.py: rows are outputs, idle high, the selected
row driven low; columns are inputs with pull-ups, a column reading low when the selected row's
switch on it is closed. lgpio claims the rows as one output group (all high) and the columns
as one input group (pull-up): ``group_write(rows, value, mask)`` selects a row and deselects
the previous one in one call, ``group_read(columns)`` returns every column's level as bits
(bit k: the k-th column pin). lgpio's Python API: http://abyz.me.uk/lg/py_lgpio.html.

The bitmask a scan returns, :class:`hw.matrix.MatrixLayout` and the fault checks
(hw/diagnose.py) are the same as with :class:`ReedMatrix`.

lgpio's module functions are Python wrappers (mask the handle, convert the status, raise
``lgpio.error``) around the C functions of its extension module, ``lgpio._lgpio``. A scan makes
21 calls, 100 times a second (``scan_hz``), and on a Pi Zero 2 the wrappers' Python is most
of a scan's cost: the scan calls the C functions itself (less than half the Python per scan,
benchmarks/bench_scan.py) when this lgpio has them and, tried once at the start, they answer
as the wrappers do; else it calls the wrappers. Either way a failed call is a
:class:`HardwareError` naming lgpio's error, never a wrong reading.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from types import ModuleType
from typing import Any

from firmware.errors import HardwareError
from hw.config import MatrixConfig
from hw.layout import MatrixLayout


class GroupMatrix:
    """The matrix on one lgpio chip handle (``lgpio`` is the module, injected by tests)."""

    def __init__(
        self,
        layout: MatrixLayout,
        row_pins: Sequence[int],
        column_pins: Sequence[int],
        *,
        chip: int = 0,
        pin_factory: Any = None,
        settle_ns: int = 0,
        lgpio: ModuleType | None = None,
    ) -> None:
        layout.check_pins(row_pins, column_pins)
        if lgpio is None:
            from hw.gpio import import_lgpio

            lgpio = import_lgpio()
        self.layout = layout
        self.settle_ns = settle_ns
        #: The gpiozero pin factory of the other parts (the buttons), for hwtest.
        self.pin_factory = pin_factory
        #: The hw.gpio.GpioBackend it runs on, when open_matrix chose it.
        self.backend: Any = None
        self.chip = chip
        self._lg = lgpio
        self._rows = tuple(row_pins)
        self._cols = tuple(column_pins)
        self._all_rows = (1 << len(self._rows)) - 1
        self._handle: int | None = None
        try:
            self._handle = lgpio.gpiochip_open(chip)
            lgpio.group_claim_output(self._handle, list(self._rows), [1] * len(self._rows))
            lgpio.group_claim_input(self._handle, list(self._cols), lgpio.SET_PULL_UP)
        except Exception as exc:  # lgpio.error: busy line, no chip, no permission
            self.close()
            reason = str(exc).strip().strip("'\"")
            raise HardwareError(f"cannot claim the sensor matrix pins on /dev/gpiochip{chip} "
                                f"with lgpio: {reason}{self._held(reason)}") from None
        #: The scan's two calls: lgpio's C functions (``direct``) or its module's wrappers.
        self._write, self._read, self.direct = self._calls(lgpio, self._handle)
        ncols = layout.columns
        #: Per row: (the rows' levels selecting it, {column levels: this row's closed bits}).
        self._plan = tuple(
            (self._all_rows & ~(1 << r), self._row_table(layout, r, ncols))
            for r in range(layout.rows)
        )

    @staticmethod
    def _row_table(layout: MatrixLayout, row: int, ncols: int) -> tuple[int, ...]:
        """For each value of the column bits, the scan bits of this row's closed switches
        (a low column is a closed switch; light-square crossings never count)."""
        weights = [(1 << c, 1 << (row * ncols + c)) for c in range(ncols)
                   if layout.squares[row * ncols + c] is not None]
        return tuple(sum(w for bit, w in weights if not levels & bit)
                     for levels in range(1 << ncols))

    def _held(self, reason: str) -> str:
        """For a busy line (lgpio's "GPIO busy": the kernel's EBUSY; "already in use"), which
        of the matrix's pins another holder has, each tried alone, and what to do."""
        if "busy" not in reason and "in use" not in reason:
            return ""
        lg, held = self._lg, []
        try:
            handle = lg.gpiochip_open(self.chip)
        except Exception:  # noqa: BLE001 - the chip went away: the reason alone says it
            return ""
        try:
            for pin in (*self._rows, *self._cols):
                try:
                    lg.gpio_claim_input(handle, pin)
                except Exception:  # noqa: BLE001 - this one is held
                    held.append(f"GPIO{pin}")
                else:
                    lg.gpio_free(handle, pin)
        finally:
            lg.gpiochip_close(handle)
        pins = ", ".join(held) or "a pin"
        return (f" ({pins} held by another program or a kernel driver: boardctl.service, if "
                "it runs, holds them all (sudo systemctl stop boardctl); `gpioinfo` names "
                "each line's holder)")

    def _calls(self, lg: ModuleType, handle: int) -> tuple[Callable[..., int],
                                                           Callable[..., Sequence[int]], bool]:
        """lgpio's C group write and read where they answer as its wrappers do (one write
        releasing every row, one read of the columns, each made both ways), else the
        wrappers."""
        raw = getattr(lg, "_lgpio", None)
        write = getattr(raw, "_group_write", None)
        read = getattr(raw, "_group_read", None)
        if callable(write) and callable(read):
            rows, cols, every = self._rows[0], self._cols[0], self._all_rows
            h = handle & 0xFFFF
            try:
                same = (write(h, rows, every, every) == lg.group_write(handle, rows, every, every)
                        and list(read(h, cols)) == list(lg.group_read(handle, cols)))
            except Exception:  # noqa: BLE001 - any surprise: the wrappers, which are lgpio's API
                same = False
            if same:
                return write, read, True
        return lg.group_write, lg.group_read, False

    @classmethod
    def from_config(cls, size: int, config: MatrixConfig, *, chip: int = 0,
                    pin_factory: Any = None, lgpio: ModuleType | None = None) -> GroupMatrix:
        return cls(MatrixLayout(size, config.wiring), config.rows, config.columns, chip=chip,
                   pin_factory=pin_factory, settle_ns=config.settle_us * 1000, lgpio=lgpio)

    def scan(self) -> int:
        """Read every sensor once; bit set = switch closed (a piece stands there)."""
        write, read = self._write, self._read
        h = self._handle & 0xFFFF if self._handle is not None else -1
        rows, cols, every = self._rows[0], self._cols[0], self._all_rows
        levels = (1 << len(self._cols)) - 1
        settle = self.settle_ns
        mask = 0
        try:
            for select, table in self._plan:
                status = write(h, rows, select, every)
                if status < 0:
                    raise self._failed("select a row", status)
                if settle:
                    end = time.perf_counter_ns() + settle
                    while time.perf_counter_ns() < end:
                        pass
                status, bits = read(h, cols)
                if status < 0:
                    raise self._failed("read the columns", status)
                mask |= table[bits & levels]
            status = write(h, rows, every, every)
            if status < 0:
                raise self._failed("release the rows", status)
        except HardwareError:
            raise
        except Exception as exc:  # lgpio.error from its wrappers
            raise HardwareError(f"the sensor matrix on /dev/gpiochip{self.chip}: lgpio: "
                                f"{exc}") from None
        return mask

    def _failed(self, what: str, status: int) -> HardwareError:
        text = getattr(self._lg, "error_text", None)
        reason = text(status) if callable(text) else "error"
        return HardwareError(f"the sensor matrix on /dev/gpiochip{self.chip}: lgpio cannot "
                             f"{what}: {reason} ({status})")

    def column_gpio(self, column: int) -> str:
        return f"GPIO{self._cols[column]}"

    def row_gpio(self, row: int) -> str:
        return f"GPIO{self._rows[row]}"

    def idle_columns(self) -> list[int]:
        """Columns that read low with no row selected (shorted to ground)."""
        self._lg.group_write(self._handle, self._rows[0], self._all_rows, self._all_rows)
        levels = self._lg.group_read(self._handle, self._cols[0])[1]
        return [c for c in range(len(self._cols)) if not levels >> c & 1]

    def close(self) -> None:
        if self._handle is None:
            return
        handle, self._handle = self._handle, None
        for leader in (self._rows[0], self._cols[0]):
            try:
                self._lg.group_free(handle, leader)
            except Exception:  # noqa: S110 - not claimed (a failed open): nothing to free
                pass
        try:
            self._lg.gpiochip_close(handle)
        except Exception:  # noqa: S110 - closed already (the chip went away): nothing to do
            pass

    def __enter__(self) -> GroupMatrix:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
