"""The buzzer's twin: it keeps the name of every pattern sounded (``hw.buzzer.Beeper`` plays on
it unchanged)."""

from __future__ import annotations


class RecordingBuzzer:
    """The simulated twin: keeps the name of every pattern sounded."""

    def __init__(self) -> None:
        self.played: list[str] = []
        self.closed = False

    def sound(self, pattern: str) -> None:
        self.played.append(pattern)

    def close(self) -> None:
        self.closed = True
