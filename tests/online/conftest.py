"""Fixtures of the online tests: the stand-in server on a free loopback port and a link to it
(its token in a file of the test's own), with an event log the tests wait on."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import pytest
from support.lidraughts_standin import LidraughtsStandin

from boardctl.online.events import Event
from boardctl.online.link import LidraughtsLink
from boardctl.online.settings import OnlineSettings
from boardctl.online.streams import Backoff

E = TypeVar("E")
#: Retries come fast in the tests (the faults are injected, not waited for).
FAST = Backoff(first=0.01, factor=2.0, cap=0.05)


class Events:
    """The events a link put, kept in order; ``wait`` returns the earliest one not returned
    yet that fits, blocking until one arrived (a safety limit only: the tests wait on the
    event, never on time)."""

    def __init__(self, link: LidraughtsLink) -> None:
        self.link = link
        self.seen: list[Event] = []
        self._returned: set[int] = set()

    def wait(self, cls: type[E], where: Callable[[E], bool] = lambda e: True,
             timeout: float = 10.0) -> E:
        deadline = time.monotonic() + timeout
        while True:
            for i, event in enumerate(self.seen):
                if i not in self._returned and isinstance(event, cls) and where(event):
                    self._returned.add(i)
                    return event
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"no {cls.__name__} came; seen: {self.seen}")
            event = self.link.inbox.get(min(left, 0.5))
            if event is not None:
                self.seen.append(event)

    def of(self, cls: type[E]) -> list[E]:
        self.seen += self.link.poll()
        return [e for e in self.seen if isinstance(e, cls)]


@pytest.fixture
def standin() -> Iterator[LidraughtsStandin]:
    with LidraughtsStandin() as server:
        yield server


@pytest.fixture
def connect(standin: LidraughtsStandin, tmp_path: Path) -> Iterator[Callable[..., Events]]:
    """``connect(**options)``: a started link to the stand-in and its Events."""
    links: list[LidraughtsLink] = []

    def make(token: str | None = None, rules: str = "international", idle: float = 15.0,
             **options: Any) -> Events:
        token_file = tmp_path / f"token{len(links)}"
        token_file.write_text((token or standin.token) + "\n")
        settings = OnlineSettings.from_options(str(token_file), url=standin.url, rules=rules,
                                               **options)
        link = LidraughtsLink(settings, backoff=FAST, idle_timeout=idle)
        links.append(link)
        link.start()
        return Events(link)

    try:
        yield make
    finally:
        for link in links:
            link.close()
