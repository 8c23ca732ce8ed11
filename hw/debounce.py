"""Debouncing the reed matrix in our own code, on whole-board bitmasks.

gpiozero's ``bounce_time`` is not reliable on lgpio and does nothing on mock pins, and a
scanned matrix has no per-switch edge to debounce anyway. Here a square changes state only
after ``samples`` consecutive scans all show the new state; any scan showing the old state in
between starts the count again. A reed contact bounces for well under a millisecond, and a
piece slid across a square flickers its sensor for a few milliseconds: at 100 Hz, 3 samples
(confirmed 20 ms after the first) filter both, well below what a player notices.

Each event carries the monotonic timestamp (ns) of the first scan of the run that confirmed
it: the moment the contact stopped bouncing, not the moment the filter was sure. Events of one
scan come lifts first, then places, each in sensor order (rank 1 first): logs are deterministic.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from firmware.formats.events import Lift, Place


class SquareEvent(NamedTuple):
    """A debounced sensor change: ``kind`` is ``"lift"`` or ``"place"`` (CONTRACT.md event
    types), ``square`` algebraic, ``at`` monotonic nanoseconds."""

    kind: str
    square: str
    at: int

    def to_event(self) -> Lift | Place:
        """The firmware.formats.events dataclass for this change, as the referee takes it."""
        if self.kind == "lift":
            return Lift(at=self.at, square=self.square)
        return Place(at=self.at, square=self.square)


class Debouncer:
    """Turns raw scan bitmasks into debounced lift/place events.

    ``squares[bit]`` names each bit of a scan (None for bits with no sensor, which are
    ignored). ``initial`` is the settled state to start from; None (the default) learns it:
    the first ``samples`` identical scans become the state without any events, and
    :attr:`ready` turns true (until then :meth:`feed` returns no events).
    """

    __slots__ = ("squares", "samples", "state", "ready", "_mask", "_runs", "_candidate",
                 "_count")

    def __init__(self, squares: Sequence[str | None], samples: int = 3,
                 initial: int | None = None) -> None:
        if samples < 1:
            raise ValueError("samples must be at least 1")
        self.squares = tuple(squares)
        self.samples = samples
        self._mask = sum(1 << i for i, sq in enumerate(self.squares) if sq is not None)
        #: The debounced (settled) bitmask.
        self.state = (initial or 0) & self._mask
        self.ready = initial is not None
        #: bit -> (consecutive samples differing from state, timestamp of the first of them)
        self._runs: dict[int, tuple[int, int]] = {}
        self._candidate = 0
        self._count = 0

    def occupied(self) -> set[str]:
        """The squares whose debounced sensor is closed."""
        return {sq for i, sq in enumerate(self.squares) if sq is not None and self.state >> i & 1}

    def feed(self, raw: int, at: int) -> list[SquareEvent]:
        """One scan's bitmask taken at monotonic ``at`` ns; returns the confirmed changes."""
        raw &= self._mask
        if not self.ready:
            self._learn(raw)
            return []
        diff = raw ^ self.state
        runs = self._runs
        if not diff:
            if runs:
                runs.clear()
            return []
        confirmed: list[tuple[int, int]] = []  # (bit, since)
        new_runs: dict[int, tuple[int, int]] = {}
        need = self.samples
        while diff:
            low = diff & -diff
            bit = low.bit_length() - 1
            diff ^= low
            count, since = runs.get(bit, (0, at))
            count += 1
            if count >= need:
                confirmed.append((bit, since))
            else:
                new_runs[bit] = (count, since)
        self._runs = new_runs
        if not confirmed:
            return []
        lifts: list[SquareEvent] = []
        places: list[SquareEvent] = []
        for bit, since in confirmed:
            self.state ^= 1 << bit
            sq = self.squares[bit]
            assert sq is not None
            if self.state >> bit & 1:
                places.append(SquareEvent("place", sq, since))
            else:
                lifts.append(SquareEvent("lift", sq, since))
        events = lifts + places
        if len(events) > 1:
            events.sort(key=lambda e: e.at)  # stable: lifts before places at the same time
        return events

    def pending_since(self) -> int | None:
        """The earliest time stamp a change still being confirmed will carry (None: no change
        pending). Every event this debouncer has yet to report is stamped at or after it, or
        after the next scan: the watermark of ``boardctl.service.sensing``."""
        runs = self._runs
        return min(since for _, since in runs.values()) if runs else None

    def _learn(self, raw: int) -> None:
        if raw == self._candidate and self._count:
            self._count += 1
        else:
            self._candidate = raw
            self._count = 1
        if self._count >= self.samples:
            self.state = raw
            self.ready = True
