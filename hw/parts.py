"""The board's parts as the service uses them, one ``Protocol`` each, in one place: what a
real driver and its twin (``hw/mock/``) both provide. ``boardctl.service.hardware.Hardware`` holds
them; the assemblers (``boardctl.service.hardware``, ``hw.assemble``) choose real or simulated.

Only the calls the service makes are here: a part may do more (``hwtest`` uses more of it).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from contextlib import AbstractContextManager

    from firmware.clock.face import FaceText
    from firmware.clock.gameclock import GameClock
    from firmware.formats.records import FeedRecord
    from firmware.rules.sets import Side
    from hw.buttons import ButtonHeld, ButtonPress
    from hw.debounce import Debouncer, SquareEvent
    from hw.layout import MatrixLayout


class Matrix(Protocol):
    """A reed matrix scanner (``hw.matrix.ReedMatrix``, ``hw.lgmatrix.GroupMatrix``)."""

    layout: MatrixLayout
    backend: Any

    def scan(self) -> int: ...

    def idle_columns(self) -> list[int]:
        """The column lines that read low with no row selected (a short to ground)."""
        ...

    def column_gpio(self, column: int) -> str: ...

    def close(self) -> None: ...


class ScanLoop(Protocol):
    """A matrix with its debouncer at a fixed rate (``hw.matrix.Scanner``)."""

    debouncer: Debouncer
    period_ns: int
    scans: int

    @property
    def matrix(self) -> Matrix: ...

    def step(self) -> list[SquareEvent]: ...


class Buttons(Protocol):
    """The clock buttons (``hw.buttons.ClockButtons``, ``PolledButtons``): presses stamped by
    their edges, ``notify`` called on the backend's thread at each."""

    notify: Callable[[], None] | None
    #: How long after its stamp a press may still be on its way (hw/buttons.py: 1 ms, or 4 ms
    #: for lgpio's kernel-stamped alerts): the merge holds later events back that long.
    grace_ns: int

    def poll(self) -> list[ButtonPress | ButtonHeld]: ...

    def close(self) -> None: ...


class Leds(Protocol):
    """The LED strip under the squares (``hw.leds.LedStrip``). ``drawing`` is held while it is
    drawn; a thread that scans the matrix meanwhile holds it through each scan."""

    @property
    def drawing(self) -> AbstractContextManager[Any]: ...

    def show(self, picture: Mapping[str, str]) -> None: ...

    def close(self) -> None: ...


class Faces(Protocol):
    """The two clock faces (``hw.faces.ClockFaces``)."""

    def show(self, side: Side, face: FaceText) -> bool: ...

    def update(self, clock: GameClock, at: int) -> int: ...

    def close(self) -> None: ...


class FeedOutput(Protocol):
    """The broadcast feed's port (``hw.serialport.FeedPort``)."""

    url: str
    written: int
    dropped: int

    @property
    def connected(self) -> bool: ...

    def start(self) -> Any: ...

    def send(self, line: str) -> None: ...

    def wait_idle(self, timeout: float) -> bool: ...

    def wait_connected(self, count: int = 1, timeout: float = 5.0) -> bool: ...

    def close(self) -> None: ...


class Beeper(Protocol):
    """The buzzer's patterns on feed records (``hw.buzzer.Beeper``)."""

    def on_record(self, record: FeedRecord) -> str | None: ...

    def close(self) -> None: ...


class Hands(Protocol):
    """The simulated arbiter's and players' hands on a simulated board
    (``hw.mock.matrix.SimulatedBoard``); a real board has none."""

    def place(self, square: str) -> None: ...

    def lift(self, square: str) -> None: ...

    def set_pieces(self, squares: Iterable[str]) -> None: ...
