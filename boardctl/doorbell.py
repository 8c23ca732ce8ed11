"""A doorbell between threads: a pipe one thread sleeps on and any other rings.

The sensing thread sleeps on one between scans (a button's edge rings it), the control
socket's thread has one in its selector (``close()`` rings it): neither wakes on a timer for
nothing. Two rings before a wait wake it once; a ring after ``close`` writes nowhere."""

from __future__ import annotations

import os
import select
import threading


class Doorbell:
    """``wait`` sleeps until rung (True) or for the timeout (False): one poll(2) a wait, which
    at 200 waits a second costs about two thirds of ``threading.Event.wait(timeout)``, which
    builds and drops a lock each time (benchmarks/bench_service.py). ``fileno`` is for a
    selector of one's own, with :meth:`drain` once it reports the bell readable."""

    def __init__(self) -> None:
        self._lock = threading.Lock()  # ring() never writes to a closed (reused) descriptor
        self._closed = False
        self._read, self._write = os.pipe()
        os.set_blocking(self._read, False)
        os.set_blocking(self._write, False)
        self._poll = select.poll()
        self._poll.register(self._read, select.POLLIN)

    @property
    def closed(self) -> bool:
        return self._closed

    def fileno(self) -> int:
        return self._read

    def ring(self) -> None:
        with self._lock:
            if self._closed:
                return
            try:
                os.write(self._write, b"\0")
            except OSError:  # full: it rang already
                pass

    def drain(self) -> None:
        """Quiet again (after a selector found it rung)."""
        try:
            while os.read(self._read, 512):
                pass
        except OSError:  # empty (BlockingIOError), or closed meanwhile
            pass

    def wait(self, timeout_ns: int) -> bool:
        """Sleep up to ``timeout_ns`` (to the next whole ms at most later); True if rung
        (and the bell is quiet again)."""
        if self._closed or not self._poll.poll(timeout_ns / 1e6):
            return False
        self.drain()
        return True

    def close(self) -> None:
        with self._lock:
            if not self._closed:
                os.close(self._read)
                os.close(self._write)
            self._closed = True
