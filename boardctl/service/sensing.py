"""Sensing on its own (issue 10 item 1): the scanner, the debouncer and the clock buttons run
at a fixed rate, stamp every event with the moment it happened, and hand it to one ordered
merge. Nothing here touches a file, a socket or the game's session.

Order. Each source of events has a *watermark*: a monotonic time before which it can deliver
nothing more. The debouncer reports a change ``samples - 1`` scans after the change's own time
stamp (the first scan of the run that confirmed it), so while a run is pending its watermark
is that run's first scan; with nothing pending, the next scan. A clock button's edge is stamped
on the pin backend's thread and queued; its watermark is the poll minus a grace of
:data:`BUTTON_GRACE_NS`. The simulated hand (``--sim --events``) has acted everything due.
:class:`EventMerge` releases an event only once every source's watermark has passed it, in time
stamp order; at one instant sensor events before presses (``firmware.formats.events.
same_instant_order``: the piece is set down before the hand reaches the button), else in
arrival order. So a press 4 ms after the set-down reaches the referee after that set-down, as
``boardctl replay`` reads the log, however late the debouncer confirms the set-down and however
busy the referee is.
"""

from __future__ import annotations

import contextlib
import heapq
import threading
import time
from collections.abc import Callable, Iterable
from typing import Any, Protocol, cast

from boardctl.service.doorbell import Bell
from boardctl.service.hardware import EventScript, Hardware
from boardctl.service.threadname import name_thread
from firmware.errors import BoardError
from firmware.formats.events import Event, Held, Press, Release
from hw import parts

#: How long after its edge a clock button's press may still be on its way to the queue, for
#: buttons that do not say (``grace_ns``: hw/buttons.py, 4 ms for lgpio's kernel stamps).
BUTTON_GRACE_NS = 1_000_000

SENSORS, BUTTONS, SCRIPT = "sensors", "buttons", "script"


class EventMerge:
    """Events from many sources, released in time stamp order below the sources' watermark.

    Thread-safe; :meth:`put` wakes whoever waits in :meth:`wait` (the referee), and so does
    :meth:`wake` (a control request, a journal alarm)."""

    def __init__(self, sources: Iterable[str]) -> None:
        self._marks = dict.fromkeys(sources, 0)
        self._heap: list[tuple[int, int, int, Event]] = []
        self._n = 0
        self._cond = threading.Condition()
        self._woken = False

    def put(self, source: str, events: Iterable[Event], mark: int) -> None:
        """Events (monotonic stamps) from ``source``, which will deliver nothing before
        ``mark`` from now on. Wakes the referee only when an event can be released (an idle
        board scanned at 100 Hz wakes nobody)."""
        self.put_all(((source, events, mark),))

    def put_all(self, batches: Iterable[tuple[str, Iterable[Event], int]]) -> None:
        """:meth:`put` for several sources at once (one scan's sensors and buttons): one
        lock and one look at the heap."""
        with self._cond:
            heap = self._heap
            marks = self._marks
            raised = False
            for source, events, mark in batches:
                for e in events:
                    self._n += 1
                    heapq.heappush(heap, (e.at, isinstance(e, Press), self._n, e))
                if mark > marks[source]:
                    marks[source] = mark
                    raised = True
            if raised and heap and heap[0][0] < min(marks.values()):
                self._cond.notify_all()

    def advance(self, source: str, mark: int, source2: str | None = None,
                mark2: int = 0) -> None:
        """:meth:`put_all` with no events (a scan that saw nothing new, 100 times a second on
        an idle board): the marks raised without the lock when no event waits. Only the
        sensing thread puts, and it raises a mark before it looks at the heap; an event
        another call puts afterwards is weighed against the raised mark."""
        marks = self._marks
        if mark > marks[source]:
            marks[source] = mark
        if source2 is not None and mark2 > marks[source2]:
            marks[source2] = mark2
        if self._heap:
            with self._cond:
                if self._heap and self._heap[0][0] < min(marks.values()):
                    self._cond.notify_all()

    def frontier(self) -> int:
        """The time up to which (exclusive) every source has delivered."""
        with self._cond:
            return min(self._marks.values())

    def take(self) -> list[Event]:
        """The events that can no longer be preceded by another, in order."""
        out: list[Event] = []
        with self._cond:
            mark = min(self._marks.values())
            heap = self._heap
            while heap and heap[0][0] < mark:
                out.append(heapq.heappop(heap)[3])
        return out

    def pending(self) -> int:
        with self._cond:
            return len(self._heap)

    def clear(self, before: int) -> None:
        """Forget events stamped before ``before`` (a new game's board starts from scratch)."""
        with self._cond:
            self._heap = [item for item in self._heap if item[0] >= before]
            heapq.heapify(self._heap)

    def wake(self) -> None:
        with self._cond:
            self._woken = True
            self._cond.notify_all()

    def wait(self, timeout: float) -> None:
        """Until something is put or woken, or ``timeout`` seconds."""
        with self._cond:
            if not self._woken:
                self._cond.wait(timeout)
            self._woken = False


class Sensing:
    """One turn of sensing (:meth:`sense`), or a thread doing it at the scan rate
    (:meth:`start`). ``origin`` gives the monotonic time of game time 0 (the simulated
    hand's log is in game time)."""

    def __init__(self, hardware: Hardware, script: EventScript | None, merge: EventMerge,
                 origin: Callable[[], int], clock: Callable[[], int] = time.monotonic_ns) -> None:
        self.hw = hardware
        self.script = script
        self.merge = merge
        self.origin = origin
        self.clock = clock
        self.period_ns = hardware.scanner.period_ns
        self.scans = 0
        self.overruns = 0
        self.error: Exception | None = None
        self.lock = threading.Lock()  # held while scanning; expect() swaps the debouncer
        #: Set by stop(); the thread looks at it after every scan and every wake-up.
        self._stopping = False
        #: What the thread sleeps on: rung by a button's edge (a press) and by stop().
        self._bell: Bell | None = None
        self._thread: threading.Thread | None = None

    @property
    def running(self) -> bool:
        """The sensing thread is running (:meth:`start`)."""
        return self._thread is not None

    @property
    def grace_ns(self) -> int:
        """The buttons' grace: how long after its stamp a press may still reach the queue."""
        return int(getattr(self.hw.buttons, "grace_ns", BUTTON_GRACE_NS))

    def report(self) -> dict[str, Any]:
        """The matrix as this thread sees it (the ``sensors`` command, ``boardctl watch
        --sensors``): the size, the squares whose debounced sensor is closed, and the column
        lines shorted (hw.diagnose.column_shorts), read between two scans."""
        from hw.diagnose import column_shorts

        scanner = self.hw.scanner
        with self.lock:
            closed = sorted(scanner.debouncer.occupied())
            faults = column_shorts(scanner.matrix)
        return {"size": self.hw.size, "closed": closed,
                "faults": [{"kind": f.kind, "squares": list(f.squares), "message": f.message}
                           for f in faults]}

    def expect(self, squares: Iterable[str]) -> None:
        """Debounce from this settled board on (a new game, a recovery)."""
        with self.lock:
            self.hw.expect(squares)

    def sense(self, now: int, next_scan: int | None = None) -> None:
        """Act the simulated hand's due events, scan, poll the buttons: all at ``now``.
        ``next_scan``: when the next scan will be, at the earliest (the thread's schedule):
        a change not seen yet will carry that stamp or a later one, so with nothing pending
        the sensors' watermark is there (a press between two scans is released at once);
        None (whoever calls sense() at will): the watermark stays at ``now``."""
        merge = self.merge
        with self.lock:
            script = self.script
            if script is not None:
                origin = self.origin()
                acted = script.act(now - origin, self.hw)
                merge.put(SCRIPT, [_shift(e, origin) for e in acted], now + 1)
            scanner = self.hw.scanner
            raw = scanner.matrix.scan()
            scanner.scans += 1
            self.scans += 1
            debouncer = scanner.debouncer
            changes = debouncer.feed(raw, now)
            since = debouncer.pending_since()
            if since is None:
                since = now + 1 if next_scan is None else next_scan
            buttons = self.hw.buttons
            presses = buttons.poll() if buttons is not None else None
            if changes or presses:
                sensed = (SENSORS, [c.to_event() for c in changes], since)
                if buttons is None:
                    merge.put_all((sensed,))
                else:
                    merge.put_all((sensed, (BUTTONS, self._presses(presses or ()),
                                            now - self.grace_ns)))
            elif buttons is None:  # the common turn: nothing new, the watermarks move on
                merge.advance(SENSORS, since)
            else:
                merge.advance(SENSORS, since, BUTTONS, now - self.grace_ns)

    def poll_buttons(self, now: int) -> None:
        """The presses queued by the buttons' edge callbacks (a press wakes the thread for
        this at once: :meth:`_pressed`)."""
        buttons = self.hw.buttons
        if buttons is not None:
            self.merge.put(BUTTONS, self._presses(buttons.poll()), now - self.grace_ns)

    @staticmethod
    def _presses(presses: Iterable[Any]) -> list[Event]:
        """The buttons' presses (hw.buttons.ButtonPress) as the referee's events; a held
        button's hold (hw.buttons.ButtonHeld) as a ``Held``, its release before the hold as
        a ``Release`` (the menus at the board read them, nothing else)."""
        from hw.buttons import ButtonHeld

        return [Held(p.at, p.name, p.held_ns) if isinstance(p, ButtonHeld)
                else Press(p.at, p.name) if p.held_ns is None
                else Release(p.at, p.name, p.held_ns) for p in presses]

    def _pressed(self) -> None:
        """A button's edge callback queued a press (on the pin backend's thread)."""
        bell = self._bell
        if bell is not None:
            bell.ring()

    # -- the thread -----------------------------------------------------------------------

    def start(self) -> None:
        self._stopping = False
        self._bell = Bell()
        if self.hw.buttons is not None:
            self.hw.buttons.notify = self._pressed
        self._thread = threading.Thread(target=self._run, name="sensing", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        name_thread("boardctl-sense")
        bell = self._bell
        assert bell is not None
        period, clock, script = self.period_ns, self.clock, self.script
        drawing = getattr(self.hw.leds, "drawing", None) or contextlib.nullcontext()
        next_at = clock()
        while not self._stopping:
            now = clock()
            if now >= next_at:  # a turn of the fixed schedule (not an early one)
                next_at += period
                if now > next_at:  # fell behind: skip the missed slots rather than burst
                    missed = (now - next_at) // period + 1
                    self.overruns += missed
                    next_at += missed * period
            wake = next_at
            if script is not None:  # the simulated hand acts on time, not a scan later
                due = script.next_at()
                if due is not None:
                    wake = min(wake, self.origin() + due)
            try:
                with drawing:  # no LED redraw in the middle of a scan (hw/leds.py), and the
                    now = clock()  # scan stamped when it runs, after a redraw it waited for
                    self.sense(now, max(now + 1, wake))
            except Exception as exc:  # a pin read failing: stop and say so, never spin
                self.error = exc
                self.merge.wake()
                return
            while True:
                wait = wake - clock()
                if wait <= 0 or not bell.wait(wait):
                    break
                if self._stopping:
                    return
                # A press: poll the buttons once its grace is over, then go on waiting.
                time.sleep(self.grace_ns / 1e9)
                with self.lock:
                    self.poll_buttons(clock())

    def stop(self) -> None:
        self._stopping = True
        bell = self._bell
        if bell is not None:
            bell.ring()
        if self._thread is not None:
            self._thread.join(timeout=2.0)
            self._thread = None
        if bell is not None:
            bell.close()


def _shift(event: Event, origin: int) -> Event:
    import dataclasses

    return dataclasses.replace(event, at=event.at + origin)


#: Longest wait of the simulated hand for the scan that sees its act.
SEEN_S = 1.0


class _Board(parts.Hands, Protocol):
    """A simulated board's hands, and the pieces it holds (``hw.mock.matrix.SimulatedBoard``)."""

    @property
    def pieces(self) -> frozenset[str]: ...


class SimHand:
    """The simulated hand at the control socket (``{"cmd": "sim", ...}``, ``boardctl run
    --sim``): a lift or a place moves a piece of the simulated board, a press presses a
    simulated clock button; each then reaches the referee the way the sensors' and buttons'
    events do (scanned, debounced, stamped, merged in time order), never by a path of its own.

    A lift or a place is answered once a scan has seen it: the sensing thread's next scan,
    at most one scan period (10 ms at 100 Hz) after the request (without the thread, under
    ``Service.step``: a scan at once). So its stamp is the request's arrival to within one
    scan, as a real sensor's is to the move, and a client that waits for each answer (the
    socket's clients do) has its acts stamped in the order it made them: a press after a
    place comes after it, however soon. Thread-safe: the sensing lock guards the board."""

    def __init__(self, hardware: Hardware, sensing: Sensing, clock: Callable[[], int]) -> None:
        self.hw = hardware
        self.sensing = sensing
        self.clock = clock

    def act(self, kind: str, square: str | None = None, side: str | None = None,
            hold_ms: int = 0, release: bool = True) -> dict[str, Any]:
        """One act; BoardError (nothing done) for a real board or an act that cannot be. A
        press is held ``hold_ms`` on the hand's clock (the pause button's hold of 2 s opens
        the menus, reported with the button still down: no time is waited) and let go,
        unless ``release`` is False: then the act ``release`` lets go."""
        hands = self.hw.sim
        if hands is None:
            raise BoardError("sim: this board is not simulated (the simulated hand works on "
                             "`boardctl run --sim` only)")
        if kind in ("press", "release"):
            return self._button(kind, side, hold_ms, release)
        if kind not in ("lift", "place"):
            raise BoardError(f"sim: {kind!r} is not an act (lift, place, press or release)")
        if square is None:
            raise BoardError(f"sim: a {kind} needs 'square' (an algebraic square name)")
        layout = self.hw.scanner.matrix.layout
        if square not in layout.squares:
            raise BoardError(f"sim: {square!r} is not a square with a sensor on this "
                             f"{self.hw.size}x{self.hw.size} board")
        board = cast(_Board, hands)
        with self.sensing.lock:
            occupied = square in board.pieces
            if kind == "lift" and not occupied:
                raise BoardError(f"sim: no piece on {square} to lift")
            if kind == "place" and occupied:
                raise BoardError(f"sim: {square} is occupied already")
            now = self.clock()
            board.lift(square) if kind == "lift" else board.place(square)
            scans = self.sensing.scans
        if self.sensing.running:
            self._seen(scans)
        else:
            self.sensing.sense(now)
        return {"sim": kind, "square": square, "t": self._t(now)}

    def _button(self, kind: str, side: str | None, hold_ms: int,
                release: bool) -> dict[str, Any]:
        if side is None:
            raise BoardError(f"sim: a {kind} needs 'side' (white, black or pause)")
        if side not in self.hw.button_pins:
            raise BoardError(f"sim: this board has no {side} clock button")
        now = self.clock()
        if kind == "release":
            self.hw.release(side)
            return {"sim": kind, "side": side, "t": self._t(now)}
        self.hw.press(side, hold_ms * 1_000_000, release)
        done = {"sim": kind, "side": side, "t": self._t(now)}
        held = {"hold_ms": hold_ms} if hold_ms else {}
        return {**done, **held} if release else {**done, **held, "release": False}

    def _seen(self, scans: int) -> None:
        """Until the sensing thread has scanned since ``scans`` (one scan period at most; a
        thread stopped meanwhile: at once)."""
        deadline = time.monotonic() + SEEN_S
        while self.sensing.scans == scans and self.sensing.running:
            if time.monotonic() > deadline:
                raise BoardError(f"sim: the sensors did not scan within {SEEN_S} s")
            time.sleep(self.sensing.period_ns / 4e9)

    def _t(self, now: int) -> float:
        """Monotonic ``now`` as the game's time in seconds (the feed's ``t``)."""
        return round((now - self.sensing.origin()) / 1e9, 3)
