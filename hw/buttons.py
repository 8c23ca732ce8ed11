"""The clock buttons: White's, Black's and the arbiter's pause button, on gpiozero ``Button``.

A press is timed by its first edge, not by when the service loop gets to it. gpiozero calls a
pin's ``when_changed`` handler from the pin backend's event thread with the edge; ``Button``
installs its ``_pin_changed`` method there, and :class:`StampedButton` overrides exactly that
method so that its first statement reads the monotonic clock. Nothing in gpiozero runs before
it on that thread (``when_pressed`` runs later, after gpiozero's own state bookkeeping), so the
stamp is the earliest moment Python sees the edge: the error is the backend's event latency
(tens of µs), never the service loop's latency. (Backends' ``ticks`` are not used: their units
and origin differ between RPi.GPIO, lgpio and the mock pins.)

Contact bounce: the first edge of a press counts; edges within ``lockout_ns`` of the previous
edge are bounce and are ignored, in our own code (gpiozero's ``bounce_time`` is not reliable on
lgpio and not implemented on mock pins).

Presses queue up (thread-safe) as :class:`ButtonPress` records; the service loop takes them with
:meth:`ClockButtons.poll` and passes ``press.at`` to the clock.
"""

from __future__ import annotations

import queue
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from gpiozero import Button

from firmware.errors import HardwareError

#: Button names: the players' buttons are named after the side that presses them.
NAMES = ("white", "black", "pause")
DEFAULT_LOCKOUT_NS = 30_000_000


@dataclass(frozen=True, slots=True)
class ButtonPress:
    """A press: which button and the monotonic ns of its first edge."""

    name: str
    at: int


class StampedButton(Button):  # type: ignore[misc]
    """A gpiozero Button that stamps each edge with ``clock()`` first thing in the edge
    callback and reports the first edge of each press to ``on_press(at)``."""

    def __init__(
        self,
        pin: Any,
        *,
        clock: Callable[[], int] = time.monotonic_ns,
        on_press: Callable[[int], None] | None = None,
        lockout_ns: int = DEFAULT_LOCKOUT_NS,
        pull_up: bool = True,
        pin_factory: Any = None,
    ) -> None:
        self._clock = clock
        self._on_press = on_press
        self._lockout_ns = lockout_ns
        self._last_edge: int | None = None
        super().__init__(pin, pull_up=pull_up, bounce_time=None, pin_factory=pin_factory)

    def _pin_changed(self, ticks: Any, state: Any) -> None:
        at = self._clock()  # first statement: the edge's time (see the module docstring)
        last, self._last_edge = self._last_edge, at
        active = bool(self._state_to_value(state))
        if active and (last is None or at - last >= self._lockout_ns):
            if self._on_press is not None:
                self._on_press(at)
        super()._pin_changed(ticks, state)


class ClockButtons:
    """The clock's buttons by name (``white``, ``black``, optional ``pause``), each pin to
    ground with the internal pull-up unless ``pull_up`` is False. Pins are BCM numbers (or
    gpiozero pin names); a pin of 0 or None means the button is not fitted."""

    def __init__(
        self,
        pins: Mapping[str, int | str | None],
        *,
        pull_up: bool = True,
        clock: Callable[[], int] = time.monotonic_ns,
        lockout_ns: int = DEFAULT_LOCKOUT_NS,
        pin_factory: Any = None,
    ) -> None:
        unknown = set(pins) - set(NAMES)
        if unknown:
            raise HardwareError(f"unknown clock button {sorted(unknown)[0]!r}; use {NAMES}")
        fitted = {name: pin for name, pin in pins.items() if pin not in (None, 0)}
        for name in ("white", "black"):
            if name not in fitted:
                raise HardwareError(f"the {name} clock button needs a pin")
        seen: dict[Any, str] = {}
        for name, pin in fitted.items():
            if pin in seen:
                raise HardwareError(f"clock buttons {seen[pin]} and {name} share pin {pin}")
            seen[pin] = name
        self._queue: queue.SimpleQueue[ButtonPress] = queue.SimpleQueue()
        #: Called (on the edge callback's thread) after a press is queued: wakes a poller.
        self.notify: Callable[[], None] | None = None
        self.buttons: dict[str, StampedButton] = {}
        try:
            for name, pin in fitted.items():
                self.buttons[name] = StampedButton(
                    pin,
                    clock=clock,
                    on_press=self._make_handler(name),
                    lockout_ns=lockout_ns,
                    pull_up=pull_up,
                    pin_factory=pin_factory,
                )
        except HardwareError:
            self.close()
            raise
        except Exception as exc:  # gpiozero raises many kinds: bad pin, pin in use, no backend
            self.close()
            raise HardwareError(f"cannot set up clock button on pin {pin}: {exc}") from None

    def _make_handler(self, name: str) -> Callable[[int], None]:
        def handler(at: int) -> None:
            self._queue.put(ButtonPress(name, at))
            if self.notify is not None:
                self.notify()

        return handler

    def poll(self) -> list[ButtonPress]:
        """The presses since the last poll, in the order of their first edges."""
        presses = []
        while True:
            try:
                presses.append(self._queue.get_nowait())
            except queue.Empty:
                break
        return sorted(presses, key=lambda p: p.at)

    def close(self) -> None:
        for button in self.buttons.values():
            button.close()
        self.buttons = {}

    def __enter__(self) -> ClockButtons:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
