"""The buzzer: a beep on a flag, on an irregularity and, if configured, at 10 s left.

Parts: an active buzzer on one GPIO (gpiozero ``Buzzer``: on/off) or a passive piezo
(gpiozero ``TonalBuzzer``: a PWM tone); ``pin = 0`` in the ``[buzzer]`` config means none is
fitted. :class:`hw.mock.buzzer.RecordingBuzzer` is the simulated twin: it keeps what was sounded.

:class:`Beeper` is what the service calls: ``on_record(record)`` with every feed record it
emits (``boardctl.service.service`` ``_emit``). It sounds

- ``flag``: a result by time forfeit (004 §32) or by lateness default: one long beep;
- ``irregularity``: any irregularity record (000 5.4): two short beeps;
- ``ten-seconds``: the running clock reaching 10 s left, when ``ten_seconds`` is set: one
  short beep. The move, clock and snapshot records say whose clock runs and its time; the
  beeper arms a timer for the moment 10 s remain and disarms it on the next record: the
  watch is ``firmware.formats.tenseconds.TenSeconds``, the voice's too (one place).

Timers come from an injected ``schedule(delay_ns, callback) -> cancel`` (threads on the board;
the tests pass their own), so nothing here sleeps.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from firmware.formats.reader import dispatch
from firmware.formats.records import (
    AdjournedRecord,
    ClockRecord,
    FeedRecord,
    GameRecord,
    IrregularityRecord,
    MoveRecord,
    ResultRecord,
    SnapshotRecord,
)
from firmware.formats.tenseconds import TenSeconds

if TYPE_CHECKING:
    from hw.config import BuzzerConfig

NS = 1_000_000_000
#: Beep patterns: (on seconds, off seconds) per beep.
PATTERNS: dict[str, tuple[tuple[float, float], ...]] = {
    "flag": ((1.0, 0.0),),
    "irregularity": ((0.08, 0.08), (0.08, 0.0)),
    "ten-seconds": ((0.05, 0.0),),
    "test": ((0.2, 0.1), (0.2, 0.0)),
}
TEN_SECONDS_NS = 10 * NS
#: A passive piezo's tone (Hz), inside TonalBuzzer's default range (220-880 Hz around A4).
TONE_HZ = 660.0

Cancel = Callable[[], None]
Schedule = Callable[[int, Callable[[], None]], Cancel]


class GpioBuzzer:
    """A buzzer on a GPIO through gpiozero (a real pin, or MockFactory's)."""

    def __init__(self, pin: int, tonal: bool = False, pin_factory: Any = None) -> None:
        from gpiozero import Buzzer, TonalBuzzer

        self.pin = pin
        self.tonal = tonal
        if tonal:
            self.device: Any = TonalBuzzer(pin, pin_factory=pin_factory)
        else:
            self.device = Buzzer(pin, pin_factory=pin_factory)
        self.played: list[str] = []
        self._worker: threading.Thread | None = None
        self._stop = threading.Event()

    def sound(self, pattern: str) -> None:
        """Start ``pattern`` and return at once (the beeps go on in gpiozero's or our own
        background thread; a new pattern cuts the one sounding)."""
        steps = PATTERNS[pattern]
        self.played.append(pattern)
        if not self.tonal:
            on, off = steps[0]
            self.device.beep(on_time=on, off_time=off or on, n=len(steps), background=True)
            return
        self._stop.set()
        if self._worker is not None:
            self._worker.join(timeout=1.0)
        self._stop = threading.Event()
        self.device.play(TONE_HZ)  # the first tone starts now, in the caller's thread
        self._worker = threading.Thread(
            target=self._tones, args=(steps, self._stop), daemon=True, name="buzzer"
        )
        self._worker.start()

    def _tones(self, steps: tuple[tuple[float, float], ...], stop: threading.Event) -> None:
        for index, (on, off) in enumerate(steps):
            if index:
                self.device.play(TONE_HZ)
            if stop.wait(on):
                break
            self.device.stop()
            if off and stop.wait(off):
                break
        self.device.stop()

    def close(self) -> None:
        self._stop.set()
        if self._worker is not None:
            self._worker.join(timeout=1.0)
        self.device.close()


def _thread_schedule(delay_ns: int, callback: Callable[[], None]) -> Cancel:
    timer = threading.Timer(max(0, delay_ns) / NS, callback)
    timer.daemon = True
    timer.start()
    return timer.cancel


class Beeper:
    """Feed records in, beeps out (module docstring)."""

    def __init__(
        self, buzzer: Any, *, ten_seconds: bool = False, schedule: Schedule | None = None
    ) -> None:
        self.buzzer = buzzer
        self.ten_seconds = ten_seconds
        self._schedule = schedule or _thread_schedule
        self._cancel: Cancel | None = None
        #: When the running clock shows 10 s (the one watch, shared with the voice).
        self.ten = TenSeconds()

    def on_record(self, record: FeedRecord) -> str | None:
        """React to one feed record; the pattern sounded now, if any."""
        return dispatch(record, _ON_RECORD, self)

    def _on_irregularity(self, record: IrregularityRecord) -> str | None:
        return self._sound("irregularity")

    def _on_result(self, record: ResultRecord) -> str | None:
        self._disarm()
        self.ten.hear(record, 0.0)
        if record.reason.startswith(("time forfeit", "default")):
            return self._sound("flag")
        return None

    def _on_clock_said(self, record: FeedRecord) -> None:
        """A move, clock, snapshot, adjournment or new game: the 10 s watch armed anew
        (firmware.formats.tenseconds, the voice's too), its timer with it."""
        self._disarm()
        self.ten.hear(record, 0.0)
        if self.ten_seconds and self.ten.at is not None:
            self._cancel = self._schedule(round(self.ten.at * NS), self._ten_seconds)

    def close(self) -> None:
        self._disarm()
        self.buzzer.close()

    def _sound(self, pattern: str) -> str:
        self.buzzer.sound(pattern)
        return pattern

    def _disarm(self) -> None:
        if self._cancel is not None:
            self._cancel()
            self._cancel = None

    def _ten_seconds(self) -> None:
        self._cancel = None
        self._sound("ten-seconds")


#: What each record does to the beeper.
_ON_RECORD: dict[type[Any], Callable[..., str | None]] = {
    IrregularityRecord: Beeper._on_irregularity,
    ResultRecord: Beeper._on_result,
    MoveRecord: Beeper._on_clock_said,
    ClockRecord: Beeper._on_clock_said,
    SnapshotRecord: Beeper._on_clock_said,
    AdjournedRecord: Beeper._on_clock_said,
    GameRecord: Beeper._on_clock_said,
}


def open_beeper(config: BuzzerConfig | None, pin_factory: Any = None,
                schedule: Schedule | None = None) -> Beeper | None:
    """The beeper of a ``[buzzer]`` config section (``hw.config.BuzzerConfig``), or None when
    no buzzer is fitted (``pin = 0``)."""
    if config is None or not config.pin:
        return None
    buzzer = GpioBuzzer(config.pin, config.tonal, pin_factory=pin_factory)
    return Beeper(buzzer, ten_seconds=config.ten_seconds, schedule=schedule)
