"""Doorbells between threads: one thread sleeps on it, any other rings it.

- :class:`Bell`, a lock, for a thread that sleeps on nothing else: the sensing thread between
  scans (a button's edge rings it).
- :class:`Doorbell`, a pipe, for a thread that sleeps in a selector: the control socket's
  (``close()`` rings it).

Neither wakes on a timer for nothing. Two rings before a wait wake it once; a ring after
``close`` does nothing."""

from __future__ import annotations

import os
import select
import threading


class Bell:
    """``wait`` sleeps until rung (True) or for the timeout (False).

    A wait is one acquire with a timeout of a lock that a ring releases: one futex wait, which
    the kernel charges no more than a ``time.sleep`` (200 waits a second on an idle board:
    benchmarks/bench_realtime.py, figure 4). A poll(2) of a pipe costs a sixth more, and
    ``threading.Event.wait(timeout)`` builds and drops a lock each time."""

    __slots__ = ("_lock", "_closed")

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._lock.acquire()  # held: quiet; released: rung
        self._closed = False

    def ring(self) -> None:
        if self._closed:
            return
        try:
            self._lock.release()
        except RuntimeError:  # released already: it rang already
            pass

    def wait(self, timeout_ns: int) -> bool:
        """Sleep up to ``timeout_ns``; True if rung (and the bell is quiet again)."""
        if self._closed:
            return False
        return self._lock.acquire(True, max(timeout_ns, 0) / 1e9)

    def close(self) -> None:
        """Wake a waiter once more (rung) and stay quiet from now on."""
        if not self._closed:
            self.ring()
            self._closed = True


class Doorbell:
    """``wait`` sleeps until rung (True) or for the timeout (False): one poll(2) a wait.
    ``fileno`` is for a selector of one's own, with :meth:`drain` once it reports the bell
    readable."""

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
