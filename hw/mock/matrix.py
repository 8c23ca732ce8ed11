"""A simulated reed matrix on gpiozero's MockFactory: the real scanner reads it unchanged.

:class:`MatrixPin` is a ``MockPin`` whose level is computed from the simulated board: a column
pin reads low only while a row pin is driven low and the switch at that crossing is closed
(a piece stands there, or the switch is stuck closed). With ``diodes=False`` the model lets
current sneak backwards through closed switches, the way a matrix without diodes misreads
three corners of a rectangle as four; tests use it to show that the diode model is what keeps
the ghost square away.

:class:`SimulatedBoard` is the handle that tests, ``boardctl hwtest --sim`` and
``boardctl run --sim`` use: put pieces on squares and lift them, make a contact bounce for the
next few reads, weld a switch closed or open, short a column to ground. Thread-safe: the
service's scan thread reads while another thread moves pieces.
"""

from __future__ import annotations

import os
import threading
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from types import SimpleNamespace

from gpiozero.pins.mock import MockFactory, MockPin

from hw.config import MatrixConfig
from hw.layout import MatrixLayout
from hw.lgmatrix import GroupMatrix
from hw.matrix import ReedMatrix


class MatrixPin(MockPin):  # type: ignore[misc]  # gpiozero has no type hints
    """A mock GPIO wired into a :class:`SimulatedBoard` (plain MockPin behaviour otherwise)."""

    board: SimulatedBoard | None = None
    column: int = -1
    row: int = -1
    _state: bool
    _function: str

    def _get_state(self) -> bool:
        board = self.board
        if board is not None and self.column >= 0 and self._function == "input":
            answer = board._answer
            if answer is not None:  # the board's answer for the rows driven now, cached
                return answer[0][self.column]
            return board._column_level(self.column)
        return bool(self._state)

    def _set_state(self, value: bool) -> None:
        if self.board is None or self._function != "output":
            super()._set_state(value)  # MockPin's checks and errors
        elif bool(self._state) != bool(value):  # a row selected or released: the scan's path
            self._state = bool(value)
            if self.row >= 0:
                self.board._row_changed(self)

    def _change_state(self, value: bool) -> bool:
        # MockPin appends every change to ``states``: a scan loop would grow that list by
        # thousands of entries a second, so matrix pins keep only the level.
        if self.board is None:
            return bool(super()._change_state(value))
        if bool(self._state) != value:
            self._state = value
            if self.row >= 0:
                self.board._row_changed(self)
            return True
        return False

    def _set_function(self, value: str) -> None:
        super()._set_function(value)
        if self.board is not None and self.row >= 0:
            self.board._row_changed(self)


class SimulatedBoard:
    """Pieces on a simulated sensor matrix, wired to MockFactory pins."""

    def __init__(
        self,
        layout: MatrixLayout,
        row_pins: Sequence[int],
        column_pins: Sequence[int],
        factory: MockFactory,
        *,
        diodes: bool = True,
    ) -> None:
        self.layout = layout
        self.diodes = diodes
        self.factory = factory
        self._lock = threading.Lock()
        self._pieces: set[str] = set()
        self._stuck: dict[str, bool] = {}
        self._bounce: dict[tuple[int, int], deque[bool]] = {}
        self._shorted_columns: set[int] = set()
        self._rows: list[MatrixPin] = []
        #: Bit r set = row r driven low (an output at level 0), kept by the row pins.
        self._driven_mask = 0
        #: The columns' answer for each driven-rows mask seen since the switches last
        #: changed: their levels, and the same as bits (bit c: column c high), and the entry
        #: for the rows driven now (None: reckon, or bouncing contacts pending). A scan
        #: selects one row after another over the same switches: after the first scan each
        #: column read is an index (a group read the bits), which keeps the idle service's
        #: simulated matrix cheap (benchmarks/bench_realtime.py).
        self._level_cache: dict[int, tuple[list[bool], int]] = {}
        self._answer: tuple[list[bool], int] | None = None
        self._cols: list[MatrixPin] = []
        #: closed[row][col]: the switch state the pins see (pieces and stuck switches).
        self._closed = [[False] * layout.columns for _ in range(layout.rows)]
        for r, number in enumerate(row_pins):
            pin = self._wire(factory, number)
            pin.row = r
            self._rows.append(pin)
            self._row_changed(pin)
            pin._set_state = self._row_writer(pin)  # type: ignore[method-assign,assignment]
        for c, number in enumerate(column_pins):
            pin = self._wire(factory, number)
            pin.column = c
            self._cols.append(pin)
            pin._get_state = self._column_reader(pin)  # type: ignore[method-assign]

    def _wire(self, factory: MockFactory, number: int) -> MatrixPin:
        """The mock pin GPIO``number``, wired into this board."""
        pin = factory.pin(f"GPIO{number}", pin_class=MatrixPin)
        if not isinstance(pin, MatrixPin):
            raise ValueError(f"GPIO{number} was already made as a plain mock pin")
        pin.board = self
        return pin

    # The scan's own path. A scan selects and releases every row and reads every column
    # (70 pin calls on a 100-square board, 100 scans a second on an idle service): each row
    # pin's ``_set_state`` and each column pin's ``_get_state`` is a closure over the board,
    # its bit and its column, which halves the simulated scan's cost against the MatrixPin
    # methods (benchmarks/bench_scan.py). A pin in any other role (a row read back, a column
    # made an output) takes the MatrixPin method, so the model stays the same. The row writer
    # takes no lock: a piece moved on another thread during one row's selection is seen at
    # that row's release, as if it had moved a few microseconds later.

    def _row_writer(self, pin: MatrixPin) -> Callable[[bool], None]:
        board, bit, slow = self, 1 << pin.row, pin._set_state

        def write(value: bool) -> None:
            if pin._function != "output":
                slow(value)
                return
            level = bool(value)
            if pin._state == level:
                return
            pin._state = level
            mask = board._driven_mask & ~bit if level else board._driven_mask | bit
            board._driven_mask = mask
            board._answer = board._level_cache.get(mask)

        return write

    def _column_reader(self, pin: MatrixPin) -> Callable[[], bool]:
        board, column, slow = self, pin.column, pin._get_state

        def read() -> bool:
            answer = board._answer
            if answer is not None and pin._function == "input":
                return answer[0][column]
            return slow()

        return read

    @classmethod
    def from_config(cls, size: int, config: MatrixConfig, factory: MockFactory | None = None,
                    *, diodes: bool = True) -> SimulatedBoard:
        return cls(MatrixLayout(size, config.wiring), config.rows, config.columns,
                   factory or MockFactory(), diodes=diodes)

    def scanner(self, settle_ns: int = 0) -> ReedMatrix:
        """The real scanner on this board's pins."""
        rows = [int(p.info.name[4:]) for p in self._rows]
        cols = [int(p.info.name[4:]) for p in self._cols]
        return ReedMatrix(self.layout, rows, cols, pin_factory=self.factory, settle_ns=settle_ns)

    # --- the pieces ----------------------------------------------------------------------

    @property
    def pieces(self) -> frozenset[str]:
        with self._lock:
            return frozenset(self._pieces)

    def place(self, square: str) -> None:
        """A piece set down on ``square`` (its reed switch closes)."""
        self.layout.bit(square)
        with self._lock:
            self._pieces.add(square)
            self._refresh(square)

    def lift(self, square: str) -> None:
        """The piece on ``square`` taken up (its reed switch opens)."""
        self.layout.bit(square)
        with self._lock:
            self._pieces.discard(square)
            self._refresh(square)

    def set_pieces(self, squares: Iterable[str]) -> None:
        """Exactly these squares occupied."""
        wanted = set(squares)
        for sq in wanted:
            self.layout.bit(sq)
        with self._lock:
            changed = wanted ^ self._pieces
            self._pieces = wanted
            for sq in changed:
                self._refresh(sq)

    # --- faults and contact behaviour ------------------------------------------------------

    def bounce(self, square: str, readings: Sequence[bool]) -> None:
        """The next ``len(readings)`` times the scanner reads ``square``'s switch, it sees
        these states (True = closed) instead of the settled one: contact bounce."""
        pos = self.layout.position(square)
        with self._lock:
            self._bounce.setdefault(pos, deque()).extend(bool(r) for r in readings)
            self._switches_changed()

    def stick(self, square: str, closed: bool | None) -> None:
        """A faulty switch: stuck ``closed`` (True), stuck open (False), or repaired (None)."""
        self.layout.bit(square)
        with self._lock:
            if closed is None:
                self._stuck.pop(square, None)
            else:
                self._stuck[square] = closed
            self._refresh(square)

    def short_column(self, column: int, shorted: bool = True) -> None:
        """A column line shorted to ground: it reads low whatever row is selected."""
        with self._lock:
            if shorted:
                self._shorted_columns.add(column)
            else:
                self._shorted_columns.discard(column)
            self._switches_changed()

    # --- what the pins see ----------------------------------------------------------------

    def _refresh(self, square: str) -> None:
        row, col = self.layout.position(square)
        closed = self._stuck.get(square, square in self._pieces)
        self._closed[row][col] = closed
        self._switches_changed()

    def _switches_changed(self) -> None:
        """Pieces, stuck switches, shorts or bounce changed: every cached level is stale."""
        self._level_cache = {}
        self._answer = None

    def _row_changed(self, pin: MatrixPin) -> None:
        bit = 1 << pin.row
        with self._lock:  # against a piece moved on another thread meanwhile
            if pin._function == "output" and not pin._state:
                self._driven_mask |= bit
            else:
                self._driven_mask &= ~bit
            self._answer = self._level_cache.get(self._driven_mask)

    def _driven_rows(self) -> list[int]:
        mask = self._driven_mask
        return [r for r in range(len(self._rows)) if mask >> r & 1]

    def _column_level(self, column: int) -> bool:
        """The level a column pin reads: False (low) = a closed path to a driven row."""
        with self._lock:
            if not any(self._bounce.values()):  # no bounce due: reckon every column once
                mask = self._driven_mask
                levels = [self._level(c) for c in range(self.layout.columns)]
                answer = (levels, sum(1 << c for c, high in enumerate(levels) if high))
                self._level_cache[mask] = answer
                if mask == self._driven_mask:
                    self._answer = answer
                return levels[column]
            return self._level(column)

    def _level(self, column: int) -> bool:
        if column in self._shorted_columns:
            return False
        driven = self._driven_rows()
        if not driven:
            return True
        if self.diodes:
            for r in driven:
                if self._switch(r, column):
                    return False
            return True
        return not self._sneak_path(column, set(driven))

    def _switch(self, row: int, column: int) -> bool:
        queue = self._bounce.get((row, column))
        if queue:
            return queue.popleft()
        return self._closed[row][column]

    def _sneak_path(self, column: int, driven: set[int]) -> bool:
        """Without diodes: any path column -> switch -> row -> switch -> column ... reaching
        a driven row pulls the column low."""
        seen_cols = {column}
        seen_rows: set[int] = set()
        todo = [column]
        while todo:
            c = todo.pop()
            for r in range(self.layout.rows):
                if r in seen_rows or not self._closed[r][c]:
                    continue
                if r in driven:
                    return True
                seen_rows.add(r)
                for c2 in range(self.layout.columns):
                    if c2 not in seen_cols and self._closed[r][c2]:
                        seen_cols.add(c2)
                        todo.append(c2)
        return False


#: lgpio's status numbers (lgpio.h) the simulated chip answers with, and their texts.
LG_BAD_HANDLE = -5
LG_NOT_GROUP_LEADER = -87
LG_ERRORS = {LG_BAD_HANDLE: "unknown handle", LG_NOT_GROUP_LEADER: "GPIO not the group leader"}


class SimulatedChip:
    """lgpio's module interface (the part :class:`hw.lgmatrix.GroupMatrix` calls) over a
    :class:`SimulatedBoard`'s pins: the lgpio group path is tested and measured on the same
    simulated diode matrix as the gpiozero path, and ``boardctl run --sim`` scans through it
    as the Pi's default backend does. ``calls`` counts the calls into "lgpio".

    The group of all the board's rows, in order, is written as the board's driven rows (the
    row pins' own levels follow when the group is freed); the group of all its columns, in
    order, is read as the bits of the board's cached answer for those rows. Anything else
    (no answer cached, bouncing contacts pending, a group of other pins) goes pin by pin
    through the MatrixPin model, so both ways read the same (tests/hw/test_hw_backends.py).

    As in lgpio, the module's group calls wrap those of its C extension, ``_lgpio``
    (``_c_group_write``/``_c_group_read`` here), which answer a negative status where the
    module's functions raise ``error``: the scan's direct calls and their checks run here too.

    ``chips`` are the chip numbers that open; with ``dev``, a chip opens as lgpio's does
    (lgGpiochipOpen): ``dev/gpiochipN`` opened for reading and writing, a real file whose
    absence or mode fails the open with lgpio's own words. The module's constants are
    lgpio 0.2.2.0's, so gpiozero's lgpio pin factory imports over it."""

    SET_PULL_UP, SET_PULL_DOWN, SET_PULL_NONE = 32, 64, 128  # lgpio's names and values
    SET_BIAS_PULL_UP, SET_BIAS_PULL_DOWN, SET_BIAS_DISABLE = 32, 64, 128
    RISING_EDGE, FALLING_EDGE, BOTH_EDGES = 1, 2, 3

    class error(Exception):  # noqa: N801 - lgpio's name
        """lgpio.error"""

    def __init__(self, board: SimulatedBoard, chips: Iterable[int] = (0,),
                 dev: Path | None = None) -> None:
        self.board = board
        self.chips = set(chips)
        self.dev = dev
        self.calls = 0
        self._pins = {int(p.info.name[4:]): p for p in (*board._rows, *board._cols)}
        self._groups: dict[tuple[int, int], list[MatrixPin]] = {}
        #: The group of all the board's rows in order, if claimed (the scan's path; while it
        #: is claimed, the row pins' own levels stand still until group_free).
        self._row_group: _RowGroup | None = None
        #: The group of all the board's columns in order (the scan's path), if claimed.
        self._column_leader = self._column_handle = -1
        self._columns = len(board._cols)
        self._claimed: set[int] = set()
        self._handles: dict[int, int] = {}
        #: lgpio's C extension as the module holds it (``lgpio._lgpio``): GroupMatrix's scan
        #: calls its group functions directly when they answer as the module's do.
        self._lgpio = SimpleNamespace(_group_write=self._c_group_write,
                                      _group_read=self._c_group_read)

    def gpiochip_open(self, chip: int) -> int:
        self.calls += 1
        if self.dev is not None:
            try:
                os.close(os.open(self.dev / f"gpiochip{chip}", os.O_RDWR | os.O_CLOEXEC))
            except OSError:
                raise self.error("can not open gpiochip") from None
        elif chip not in self.chips:
            raise self.error("can not open gpiochip")
        handle = len(self._handles) + 1
        self._handles[handle] = chip
        return handle

    def gpiochip_close(self, handle: int) -> int:
        """Close the handle; the groups it claimed are freed (their lines released)."""
        self.calls += 1
        if handle not in self._handles:
            raise self.error(LG_ERRORS[LG_BAD_HANDLE])
        for h, leader in [key for key in self._groups if key[0] == handle]:
            self.group_free(h, leader)
        self._handles.pop(handle)
        return 0

    def _claim(self, handle: int, gpios: Sequence[int], function: str) -> list[MatrixPin]:
        self.calls += 1
        if handle not in self._handles:
            raise self.error("unknown handle")
        if any(g not in self._pins for g in gpios):
            raise self.error("bad GPIO number")  # lgpio's text for a line the chip lacks
        if any(g in self._claimed for g in gpios):
            raise self.error("GPIO busy")  # lgpio's text for the kernel's EBUSY
        pins = [self._pins[g] for g in gpios]
        for pin in pins:
            pin.function = function
        self._claimed.update(gpios)
        self._groups[handle, gpios[0]] = pins
        return pins

    def group_claim_output(self, handle: int, gpios: Sequence[int],
                           levels: Sequence[int] = (0,), lFlags: int = 0) -> int:  # noqa: N803
        pins = self._claim(handle, gpios, "output")
        for pin, level in zip(pins, levels, strict=False):
            pin.state = bool(level)
        if pins == self.board._rows:
            self._row_group = _RowGroup(handle, gpios[0], pins)
        return 0

    def group_claim_input(self, handle: int, gpios: Sequence[int],
                          lFlags: int = 0) -> int:  # noqa: N803
        pins = self._claim(handle, gpios, "input")
        if pins == self.board._cols:
            self._column_leader, self._column_handle = gpios[0], handle
        return 0

    def gpio_claim_input(self, handle: int, gpio: int, lFlags: int = 0) -> int:  # noqa: N803
        self._claim(handle, [gpio], "input")
        return 0

    def gpio_free(self, handle: int, gpio: int) -> int:
        return self.group_free(handle, gpio)

    # lgpio's module functions are Python wrappers around its C extension (``lgpio._lgpio``):
    # they mask the handle, turn a negative status into ``lgpio.error`` and return the rest.

    def group_write(self, handle: int, leader: int, bits: int, mask: int = -1) -> int:
        return self._checked(self._c_group_write(handle & 0xFFFF, leader, bits, mask))

    def group_read(self, handle: int, leader: int) -> list[int]:
        answer = self._c_group_read(handle & 0xFFFF, leader)
        self._checked(answer[0])
        return answer

    def error_text(self, status: int) -> str:
        return LG_ERRORS.get(status, f"unknown error {status}")

    def _checked(self, status: int) -> int:
        if status < 0:
            raise self.error(self.error_text(status))
        return status

    # -- the C extension: lgGroupWrite and lgGroupRead answer with status numbers, no exceptions

    def _c_group_write(self, handle: int, leader: int, bits: int, mask: int) -> int:
        """The group's size, or a negative lgpio status."""
        self.calls += 1
        rows = self._row_group
        if rows is None or leader != rows.leader or handle != rows.handle:
            pins = self._groups.get((handle, leader))
            if pins is None:
                return self._missing(handle)
            for k, pin in enumerate(pins):
                if mask >> k & 1:
                    pin.state = bool(bits >> k & 1)
            return len(pins)
        every = rows.every
        levels = (rows.written & ~mask | bits & mask) & every
        rows.written = levels
        board = self.board
        driven = board._driven_mask = ~levels & every  # a low row is driven
        board._answer = board._level_cache.get(driven)  # no lock: see the row writer
        return rows.size

    def _c_group_read(self, handle: int, leader: int) -> list[int]:
        """[the group's size, its levels], or [a negative lgpio status, 0]."""
        self.calls += 1
        answer = self.board._answer
        if answer is None or leader != self._column_leader or handle != self._column_handle:
            pins = self._groups.get((handle, leader))
            if pins is None:
                return [self._missing(handle), 0]
            return [len(pins), sum(1 << k for k, pin in enumerate(pins) if pin.state)]
        return [self._columns, answer[1]]

    def _missing(self, handle: int) -> int:
        return LG_NOT_GROUP_LEADER if handle in self._handles else LG_BAD_HANDLE

    def group_free(self, handle: int, leader: int) -> int:
        self.calls += 1
        pins = self._groups.pop((handle, leader))
        rows = self._row_group
        if rows is not None and leader == rows.leader:  # the rows take the levels last written
            for k, pin in enumerate(pins):
                pin._state = bool(rows.written >> k & 1)
            self._row_group = None
        if leader == self._column_leader:
            self._column_leader = self._column_handle = -1
        for pin in pins:
            self._claimed.discard(int(pin.info.name[4:]))
            pin.function = "input"
        return 0


class _RowGroup:
    """A claimed output group of all the board's row pins: the levels last written."""

    __slots__ = ("handle", "leader", "size", "every", "written")

    def __init__(self, handle: int, leader: int, pins: list[MatrixPin]) -> None:
        self.handle = handle
        self.leader = leader
        self.size = len(pins)
        self.every = (1 << len(pins)) - 1
        self.written = sum(1 << k for k, pin in enumerate(pins) if pin._state)


def simulated_matrix(size: int, config: MatrixConfig, factory: MockFactory | None = None,
                     *, diodes: bool = True,
                     groups: bool = False) -> tuple[ReedMatrix | GroupMatrix, SimulatedBoard]:
    """A simulated board and the real scanner reading it, on one MockFactory: the gpiozero
    pin scanner (:class:`ReedMatrix`), or with ``groups`` lgpio's group scanner
    (:class:`GroupMatrix`) over a :class:`SimulatedChip`."""
    board = SimulatedBoard.from_config(size, config, factory, diodes=diodes)
    if not groups:
        return board.scanner(config.settle_us * 1000), board
    matrix = GroupMatrix.from_config(size, config, pin_factory=board.factory,
                                     lgpio=SimulatedChip(board))  # type: ignore[arg-type]
    return matrix, board
