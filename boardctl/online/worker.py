"""A thread that runs the jobs it is given, one at a time, in order: the link's requests go
through one so that the player's calls return at once."""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Callable

log = logging.getLogger(__name__)


class Worker:
    """Runs submitted callables on its own thread until stopped."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._jobs: queue.SimpleQueue[Callable[[], None] | None] = queue.SimpleQueue()
        self.stopping = threading.Event()
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)

    def start(self) -> None:
        self._thread.start()

    def submit(self, job: Callable[[], None]) -> None:
        self._jobs.put(job)

    def stop(self) -> None:
        self.stopping.set()
        self._jobs.put(None)

    def join(self, timeout: float = 5.0) -> None:
        if self._thread.is_alive() and self._thread is not threading.current_thread():
            self._thread.join(timeout)

    def _run(self) -> None:
        while not self.stopping.is_set():
            job = self._jobs.get()
            if job is None or self.stopping.is_set():
                return
            try:
                job()
            except Exception:  # a bug in a job must not end the link's requests
                log.exception("lidraughts %s: a request failed", self.name)
