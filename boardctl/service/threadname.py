"""Name the OS thread (Linux ``prctl(PR_SET_NAME)``) so that ``top -H``, ``ps -L`` and the
benchmarks tell the service's threads apart (issue 10); silently nothing elsewhere."""

from __future__ import annotations

import ctypes
import ctypes.util
import sys

_PR_SET_NAME = 15


def name_thread(name: str) -> None:
    """Call on the thread to be named (at most 15 bytes are kept)."""
    if not sys.platform.startswith("linux"):
        return
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        libc.prctl(_PR_SET_NAME, name.encode()[:15], 0, 0, 0)
    except (OSError, AttributeError):
        pass
