"""Stopping the processes the tests start: by pid, SIGTERM first (a clean stop: journals
closed, a broker's persistence saved), SIGKILL if it lingers."""

from __future__ import annotations

import os
import signal
import subprocess
from typing import Any


def stop_by_pid(proc: subprocess.Popen[Any] | None, timeout: float = 20.0) -> int | None:
    """Stop ``proc`` if it still runs and reap it; its exit status (None for no process)."""
    if proc is None:
        return None
    if proc.poll() is None:
        os.kill(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait(timeout=5)
    return proc.returncode
