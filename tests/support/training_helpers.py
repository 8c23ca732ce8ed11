"""The person at the simulated board for the training tests (issue 42): the control socket's
``sim`` acts on a service stepped on an injected clock, the LED strip read back as meanings,
the feed's lines read once into their records."""

from __future__ import annotations

from pathlib import Path

from boardctl.service.service import Service
from firmware.formats.reader import FeedLine, read_line
from firmware.formats.records import FeedRecord
from firmware.rules.position import Move
from hw.config import DEFAULT_COLOURS
from support.service_helpers import VirtualClock

MEANING = {colour: name for name, colour in DEFAULT_COLOURS.items()}


class Hand:
    """The person: acts through the control socket's ``sim`` command, the service stepped
    one scan period at a time."""

    def __init__(self, service: Service, clock: VirtualClock, lines: list[str]) -> None:
        self.service = service
        self.clock = clock
        self.lines = lines

    def act(self, kind: str, where: str) -> None:
        key = "side" if kind == "press" else "square"
        answer = self.service.command({"cmd": "sim", "type": kind, key: where})
        assert answer["ok"], answer
        self.clock.now += 3_000_000

    def step(self) -> None:
        self.clock.now += self.service.hw.scanner.period_ns
        self.service.step(self.clock.now)

    def steps(self, n: int = 8) -> None:
        for _ in range(n):
            self.step()

    def alg(self, square: int) -> str:
        return self.service.game.the_session.rules.geometry.algebraic(square)

    def carry_out(self, move: Move, press: str | None) -> None:
        self.act("lift", self.alg(move.start))
        for sq in move.captured:
            self.act("lift", self.alg(sq))
        self.act("place", self.alg(move.end))
        if press is not None:
            self.steps(2)
            self.act("press", press)
        self.steps()

    def lit(self) -> dict[str, str]:
        strip = self.service.hw.leds
        assert strip is not None
        return {sq: MEANING[colour] for sq, colour in strip.lit().items()}  # type: ignore

    def records(self, kind: type | None = None) -> list[FeedRecord]:
        out = []
        for line in self.lines:
            read = read_line(line)
            assert isinstance(read, FeedLine), read
            if kind is None or isinstance(read.record, kind):
                out.append(read.record)
        return out

    def status(self) -> dict:
        answer = self.service.command({"cmd": "status"})
        assert answer["ok"], answer
        return answer


def only_pdn(state_dir: Path) -> str:
    """The one training PDN the session wrote in its state directory."""
    files = sorted((state_dir / "training").glob("*.pdn"))
    assert len(files) == 1, files
    return files[0].read_text()
