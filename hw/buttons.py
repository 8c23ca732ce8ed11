"""The clock buttons: White's, Black's and the arbiter's pause button, on gpiozero's
``DigitalInputDevice`` with ``Button``'s names (``is_pressed``, ``when_pressed``). Not on
``Button`` itself: each ``Button`` keeps a thread that wakes ten times a second to time a hold,
which a clock button never needs (three buttons: 30 wake-ups a second on an idle board).

A press is timed by its first edge, not by when the service loop gets to it. gpiozero calls a
pin's ``when_changed`` handler from the pin backend's event thread with the edge;
``DigitalInputDevice`` installs its ``_pin_changed`` method there, and :class:`StampedButton`
overrides exactly that method so that its first statement reads the monotonic clock. Nothing
in gpiozero runs before it on that thread (``when_pressed`` runs later, after gpiozero's own
state bookkeeping), so the stamp is the earliest moment Python sees the edge: the error is the
backend's event latency (tens of µs), never the service loop's latency. (Backends' ``ticks``
are not used: their units and origin differ between RPi.GPIO, lgpio and the mock pins.)

Contact bounce: the first edge of a press counts; edges within ``lockout_ns`` of the previous
edge are bounce and are ignored, in our own code (gpiozero's ``bounce_time`` is not reliable on
lgpio and not implemented on mock pins).

Presses queue up (thread-safe) as :class:`ButtonPress` records; the service loop takes them with
:meth:`ClockButtons.poll` and passes ``press.at`` to the clock.

On lgpio the edge comes with the kernel's own timestamp of the interrupt (lgpio alerts, read
by gpiozero as ``ticks``); :func:`kernel_time` puts it on the monotonic clock, so even the
backend's event latency drops out. lgpio leaves the timestamp's origin open (boot time on
current kernels, the Epoch on early ones: http://abyz.me.uk/lg/py_lgpio.html#callback), so
the origin is recognised by comparing it with both clocks when the edge is handled.

Grace: how long after its stamp a press may still be on its way to the queue
(:attr:`ClockButtons.grace_ns`; the service's merge waits that long before it lets later
events pass the press, ``boardctl.service.sensing``). Stamped by the handler itself, a press
is queued within the same callback: :data:`EDGE_GRACE_NS`, 1 ms. Stamped by the kernel on
lgpio, a press is older when it arrives: lgpio's alert thread polls its lines every 0.5 ms and
hands an alert on only once it is 0.5 ms old (``emit(count, nowGT-500000)``, "delay 500
microseconds before reporting a GPIO to make sure the events are sorted in time order",
lgPthAlerts.c), so 0.5-1 ms after the edge; then lgpio's Python thread reads its
notification pipe and gpiozero dispatches to the handler, after the sensing thread lets go of
the GIL. benchmarks/bench_press_latency.py puts it all at about 1.3 ms on a Pi Zero 2 W (over
the old 1 ms grace); :data:`LGPIO_GRACE_NS` is 4 ms, the rest being for another thread
holding the GIL (the referee on a move: Python hands the GIL over within its 5 ms switch
interval). A press later than its grace is still taken, at the merge's watermark (clamped):
its kernel stamp's precision is what is lost. The cost: a press reaches the referee 4 ms
after its edge instead of 1 ms (the clock still switches at the press's stamp).

On RPi.GPIO, whose edge detection fails on kernel 6.6+ ("Failed to add edge detection"),
:class:`PolledButtons` reads the buttons ``POLL_HZ`` times a second instead (a press is then
stamped up to one poll period late: 5 ms). :func:`open_buttons` picks by backend.

Holds: the pause button held :data:`HOLD_NS` (2 s) opens the menus at the board (boardctl.menu)
while it is still down, as a clock's own menu does. A hold is reported once, as a
:class:`ButtonHeld`, when the hold reaches 2 s with the button still down; its release then
reports nothing (not a press, not a release); a release before 2 s is a :class:`ButtonPress`
with ``held_ns`` (the short press). This is gpiozero ``Button``'s ``hold_time`` and
``when_held`` (with ``hold_repeat`` off), without ``Button``'s hold thread (its
``HoldThread`` wakes ten times a second and waits on the wall clock): the hold is checked at
each :meth:`ClockButtons.poll` (the sensing thread polls every scan, 10 ms at 100 Hz) and each
:meth:`PolledButtons.sample`, against the injected clock, so a test moves the clock instead
of waiting. A release found 2 s or more after its press that no poll saw held (nobody polled)
is reported as the hold, at the press + 2 s, and nothing more.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from gpiozero import DigitalInputDevice

from firmware.errors import HardwareError

#: Button names: the players' buttons are named after the side that presses them.
NAMES = ("white", "black", "pause")
DEFAULT_LOCKOUT_NS = 30_000_000
#: Polled buttons (RPi.GPIO): reads a second.
POLL_HZ = 200.0
#: A kernel timestamp older than this when handled is not trusted (the handler's own time is).
MAX_KERNEL_LAG_NS = 1_000_000_000
#: Grace of a press stamped by its handler (mock pins, polled buttons): queued at once.
EDGE_GRACE_NS = 1_000_000
#: Grace of a press stamped by the kernel on lgpio: 1 ms of lgpio's alert thread (0.5 ms poll,
#: 0.5 ms hold-back), ~0.3 ms to the handler on a Pi Zero 2 W, and a margin (above).
LGPIO_GRACE_NS = 4_000_000


def kernel_time(ticks: float, now: int, wall_now: int) -> int:
    """An edge's kernel timestamp (``ticks`` seconds, on the monotonic clock or since the
    Epoch) as monotonic ns; ``now`` (monotonic) and ``wall_now`` (Epoch) are read when the
    edge is handled. A stamp that fits neither clock within a second gives ``now``."""
    stamp = round(ticks * 1e9)
    lag = min(now - stamp, wall_now - stamp, key=abs)
    return now - lag if 0 <= lag <= MAX_KERNEL_LAG_NS else now


@dataclass(frozen=True, slots=True)
class ButtonPress:
    """A press: which button and the monotonic ns of its first edge; or, with ``held_ns``,
    its release (the edge that lets it go, ``held_ns`` after the press: a hold)."""

    name: str
    at: int
    held_ns: int | None = None


@dataclass(frozen=True, slots=True)
class ButtonHeld:
    """A hold: the button pressed at ``at - held_ns`` is still down ``held_ns`` later (at
    ``at``); its release then reports nothing."""

    name: str
    at: int
    held_ns: int


#: The buttons whose holds and releases are reported too (:class:`ButtonHeld`,
#: :class:`ButtonPress` with ``held_ns``): the pause button, held to open the menus at the
#: board (boardctl.menu).
HELD = frozenset({"pause"})
#: How long a hold is (the menus' 2 s, docs/MENUS.md).
HOLD_NS = 2_000_000_000

Report = ButtonPress | ButtonHeld


class StampedButton(DigitalInputDevice):  # type: ignore[misc]
    """A gpiozero button (a ``DigitalInputDevice``: no hold thread) that stamps each edge
    with ``clock()`` first thing in the edge callback (or, with ``kernel_stamps``, with the
    kernel's timestamp of the edge) and reports the first edge of each press to ``on_press(at)``."""

    def __init__(
        self,
        pin: Any,
        *,
        clock: Callable[[], int] = time.monotonic_ns,
        on_press: Callable[[int], None] | None = None,
        lockout_ns: int = DEFAULT_LOCKOUT_NS,
        pull_up: bool = True,
        pin_factory: Any = None,
        kernel_stamps: bool = False,
        wall: Callable[[], int] = time.time_ns,
        on_release: Callable[[int, int], None] | None = None,
    ) -> None:
        self._clock = clock
        self._on_release = on_release
        #: The stamp of the press not yet let go (a release is its first edge up that is
        #: not the press's own bounce), and whether its hold was reported; under ``_hold``
        #: (the edge thread and the poller both look at them).
        self.pressed_at: int | None = None
        self.held = False
        self._hold = threading.Lock()
        self._kernel_stamps = kernel_stamps
        self._wall = wall
        self._on_press = on_press
        self._lockout_ns = lockout_ns
        self._last_edge: int | None = None
        super().__init__(pin, pull_up=pull_up, bounce_time=None, pin_factory=pin_factory)

    #: ``Button``'s names for the same things (gpiozero defines them so on ``Button``).
    is_pressed = DigitalInputDevice.is_active
    when_pressed = DigitalInputDevice.when_activated
    when_released = DigitalInputDevice.when_deactivated

    def _pin_changed(self, ticks: Any, state: Any) -> None:
        at = self._clock()  # first statement: the edge's time (see the module docstring)
        if self._kernel_stamps and isinstance(ticks, int | float):
            at = kernel_time(ticks, at, self._wall())
        last, self._last_edge = self._last_edge, at
        active = bool(self._state_to_value(state))
        if active and (last is None or at - last >= self._lockout_ns):
            with self._hold:
                self.pressed_at, self.held = at, False
            if self._on_press is not None:
                self._on_press(at)
        elif not active:
            self._released(at)
        super()._pin_changed(ticks, state)

    def _released(self, at: int) -> None:
        """An edge up: the release of the press not yet let go, unless it is that press's
        bounce (within the lockout)."""
        with self._hold:
            pressed = self.pressed_at
            if pressed is None or at - pressed < self._lockout_ns:
                return
        self.let_go(at, at - pressed)

    def settled_at(self) -> int | None:
        """When an edge no longer falls in the bounce lockout of the last one (None: no
        edge yet): a press before then is taken for bounce."""
        last = self._last_edge
        return None if last is None else last + self._lockout_ns

    def let_go(self, at: int, held_ns: int) -> None:
        """The press not yet let go let go at ``at``, ``held_ns`` after it: nothing after its
        hold was reported, else the release (``on_release(at, held_ns)``)."""
        with self._hold:
            held, self.held = self.held, False
            self.pressed_at = None
        if not held and self._on_release is not None:
            self._on_release(at, held_ns)

    def hold_reached(self, now: int, hold_ns: int) -> int | None:
        """The press's stamp if, at ``now``, it is down and held ``hold_ns`` and its hold not
        yet reported (it is then reported: the caller says so), else None."""
        with self._hold:
            pressed = self.pressed_at
            if pressed is None or self.held or now - pressed < hold_ns or not self.is_active:
                return None
            self.held = True
            return pressed


def _drain(presses: queue.SimpleQueue[Report]) -> list[Report]:
    if presses.empty():  # the usual case, once a scan: no exception raised and caught
        return []
    out = []
    while True:
        try:
            out.append(presses.get_nowait())
        except queue.Empty:
            return sorted(out, key=lambda p: p.at)


def fitted_pins(pins: Mapping[str, int | str | None]) -> dict[str, int | str]:
    """The fitted buttons' pins, checked: known names, white and black present, no pin
    shared."""
    unknown = set(pins) - set(NAMES)
    if unknown:
        raise HardwareError(f"unknown clock button {sorted(unknown)[0]!r}; use {NAMES}")
    fitted = {name: pin for name, pin in pins.items() if pin is not None and pin != 0}
    for name in ("white", "black"):
        if name not in fitted:
            raise HardwareError(f"the {name} clock button needs a pin")
    seen: dict[Any, str] = {}
    for name, pin in fitted.items():
        if pin in seen:
            raise HardwareError(f"clock buttons {seen[pin]} and {name} share pin {pin}")
        seen[pin] = name
    return fitted


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
        kernel_stamps: bool = False,
        grace_ns: int | None = None,
        hold_ns: int = HOLD_NS,
    ) -> None:
        fitted = fitted_pins(pins)
        self._clock = clock
        self.hold_ns = hold_ns
        #: How long after its stamp a press may still reach the queue (the module text).
        self.grace_ns = grace_ns if grace_ns is not None else (
            LGPIO_GRACE_NS if kernel_stamps else EDGE_GRACE_NS)
        self._queue: queue.SimpleQueue[Report] = queue.SimpleQueue()
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
                    kernel_stamps=kernel_stamps,
                    on_release=self._make_release(name) if name in HELD else None,
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

    def _make_release(self, name: str) -> Callable[[int, int], None]:
        def handler(at: int, held: int) -> None:
            if held >= self.hold_ns:  # a hold no poll saw: the hold, and nothing more
                self._queue.put(ButtonHeld(name, min(at, at - held + self.hold_ns),
                                           self.hold_ns))
            else:
                self._queue.put(ButtonPress(name, at, held))
            if self.notify is not None:
                self.notify()

        return handler

    def settled_in(self, name: str) -> int:
        """Nanoseconds until a press of ``name`` is no bounce of its last edge (0: now): the
        simulated hand presses no faster than a finger can (a press 10 ms after the last
        release would be lost as a real one is)."""
        button = self.buttons.get(name)
        settled = button.settled_at() if button is not None else None
        return 0 if settled is None else max(0, settled - self._clock())

    def hold(self, name: str, held_ns: int, release: bool = True) -> None:
        """The simulated hand's hold (``boardctl run --sim``): the press just made on
        ``name``'s pin held ``held_ns`` on the hand's own clock (a test's hold takes no
        time; its hold, if it reaches :attr:`hold_ns`, reported now, the pin still down),
        then, with ``release``, let go (the edge up that follows is not reported)."""
        button = self.buttons.get(name)
        if button is None or name not in HELD:
            return
        if held_ns >= self.hold_ns and button.hold_reached(
                (button.pressed_at or 0) + self.hold_ns, self.hold_ns) is not None:
            self._queue.put(ButtonHeld(name, (button.pressed_at or 0) + 1, self.hold_ns))
        if release:
            self.let_go(name, held_ns)

    def let_go(self, name: str, held_ns: int | None = None) -> None:
        """The simulated hand lets go of ``name`` (held ``held_ns`` on its clock; None: as
        long as the clock says): its release as any release is reported, nothing after a
        hold; the edge up that follows is not reported."""
        button = self.buttons.get(name)
        pressed = button.pressed_at if button is not None else None
        if button is None or pressed is None:
            return
        if held_ns is None:
            now = self._clock()
            button.let_go(now, max(now - pressed, 1))
        else:
            button.let_go(pressed + 1, held_ns)

    def poll(self) -> list[Report]:
        """The presses, the held buttons' holds (checked now: :attr:`hold_ns` reached, the
        button still down) and releases since the last poll, in the order of their edges."""
        now = self._clock()
        for name in HELD.intersection(self.buttons):
            pressed = self.buttons[name].hold_reached(now, self.hold_ns)
            if pressed is not None:
                self._queue.put(ButtonHeld(name, pressed + self.hold_ns, self.hold_ns))
        return _drain(self._queue)

    def close(self) -> None:
        for button in self.buttons.values():
            button.close()
        self.buttons = {}

    def __enter__(self) -> ClockButtons:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class PolledButtons:
    """The clock buttons read ``hz`` times a second on their own thread (no edge detection:
    RPi.GPIO's fails on kernel 6.6+). Same interface as :class:`ClockButtons`; a press is
    stamped at the first poll that sees it, with the same bounce lockout. :meth:`sample`
    is one poll (tests call it with an injected clock, ``start=False``)."""

    def __init__(
        self,
        pins: Mapping[str, int | str | None],
        *,
        pull_up: bool = True,
        clock: Callable[[], int] = time.monotonic_ns,
        lockout_ns: int = DEFAULT_LOCKOUT_NS,
        pin_factory: Any = None,
        hz: float = POLL_HZ,
        start: bool = True,
        hold_ns: int = HOLD_NS,
    ) -> None:
        from gpiozero import InputDevice

        fitted = fitted_pins(pins)
        #: Stamped at the poll that queues it: the handler's own grace.
        self.grace_ns = EDGE_GRACE_NS
        self._clock = clock
        self._lockout_ns = lockout_ns
        self._period = 1.0 / hz
        self.hold_ns = hold_ns
        #: The held buttons whose hold was reported, not yet let go.
        self._held: set[str] = set()
        self._queue: queue.SimpleQueue[Report] = queue.SimpleQueue()
        self.buttons: dict[str, Any] = {}
        try:
            for name, pin in fitted.items():
                self.buttons[name] = InputDevice(pin, pull_up=pull_up, pin_factory=pin_factory)
        except Exception as exc:  # gpiozero raises many kinds: bad pin, pin in use
            self.close()
            raise HardwareError(f"cannot set up clock button on pin {pin}: {exc}") from None
        self._down = {name: bool(b.value) for name, b in self.buttons.items()}
        self._last_edge: dict[str, int | None] = dict.fromkeys(self.buttons)
        self._pressed_at: dict[str, int | None] = dict.fromkeys(self.buttons)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        if start:
            self._thread = threading.Thread(target=self._run, name="buttons", daemon=True)
            self._thread.start()

    def sample(self) -> None:
        """One poll: a button found down that was up is a press (unless within the lockout
        of its last change); a held button down :attr:`hold_ns` since its press is held
        (the module docstring)."""
        at = self._clock()
        for name, button in self.buttons.items():
            down = bool(button.value)
            if down != self._down[name]:
                self._down[name] = down
                self._edge(name, down, at)
            pressed = self._pressed_at[name]
            if down and pressed is not None and name in HELD and name not in self._held \
                    and at - pressed >= self.hold_ns:
                self._held.add(name)
                self._queue.put(ButtonHeld(name, pressed + self.hold_ns, self.hold_ns))

    def _edge(self, name: str, down: bool, at: int) -> None:
        last, self._last_edge[name] = self._last_edge[name], at
        if down and (last is None or at - last >= self._lockout_ns):
            self._pressed_at[name] = at
            self._held.discard(name)
            self._queue.put(ButtonPress(name, at))
        elif not down and name in HELD:
            pressed = self._pressed_at[name]
            if pressed is None or at - pressed < self._lockout_ns:
                return
            self._pressed_at[name] = None
            if name in self._held:  # let go after its hold: nothing more
                self._held.discard(name)
            elif at - pressed >= self.hold_ns:  # held through one poll: the hold all the same
                self._queue.put(ButtonHeld(name, pressed + self.hold_ns, self.hold_ns))
            else:
                self._queue.put(ButtonPress(name, at, at - pressed))

    def _run(self) -> None:
        while not self._stop.wait(self._period):
            try:
                self.sample()
            except Exception:  # pins closed under us at shutdown
                return

    def poll(self) -> list[Report]:
        """The presses, holds and releases since the last poll, in time order."""
        return _drain(self._queue)

    def close(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=1.0)
            self._thread = None
        for button in self.buttons.values():
            button.close()
        self.buttons = {}

    def __enter__(self) -> PolledButtons:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def open_buttons(config: Any, backend: Any, *,
                 clock: Callable[[], int] = time.monotonic_ns) -> ClockButtons | PolledButtons:
    """The buttons of a ``[buttons]`` config on a hw.gpio.GpioBackend: edge-driven where the
    backend's edges work (kernel-stamped on lgpio), polled on RPi.GPIO."""
    pins = {"white": config.white, "black": config.black, "pause": config.pause}
    if not backend.edges:
        return PolledButtons(pins, pull_up=config.pull_up, clock=clock,
                             pin_factory=backend.factory)
    return ClockButtons(pins, pull_up=config.pull_up, clock=clock, pin_factory=backend.factory,
                        kernel_stamps=backend.name == "lgpio")
