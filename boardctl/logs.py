"""Logging for the service and its parts (STYLE.md lesson 14): each module logs through
``logging.getLogger(__name__)`` at a level; this module gives the ``boardctl`` and ``hw``
loggers their one handler.

Every record is one line on standard error, ``boardctl: MESSAGE``. Under systemd, when standard
error is the journal's stream (``JOURNAL_STREAM`` names its device and inode, as
systemd.exec(5) describes), each line starts with the syslog priority in angle brackets
(``<4>boardctl: ...`` for a warning: sd-daemon(3)), so ``journalctl -p warning`` finds them.
The handler writes to whatever ``sys.stderr`` is when the record is emitted (a test that
captures standard error sees the line).
"""

from __future__ import annotations

import logging
import os
import sys
from typing import Any

#: The loggers whose records this module prints (the packages that log).
LOGGERS = ("boardctl", "hw")
#: sd-daemon(3) priorities by logging level.
PRIORITY = {logging.DEBUG: 7, logging.INFO: 6, logging.WARNING: 4, logging.ERROR: 3,
            logging.CRITICAL: 2}


def journal_stream(stream: Any = None) -> bool:
    """True when standard error is connected to the systemd journal."""
    expected = os.environ.get("JOURNAL_STREAM")
    if not expected:
        return False
    try:
        fd = (stream or sys.stderr).fileno()
        st = os.fstat(fd)
    except (AttributeError, OSError, ValueError):
        return False
    return expected == f"{st.st_dev}:{st.st_ino}"


class StderrLine(logging.Handler):
    """One line a record on the current ``sys.stderr``, with the journal's priority prefix
    when standard error is the journal."""

    def emit(self, record: logging.LogRecord) -> None:
        try:
            stream = sys.stderr
            prefix = ""
            if journal_stream(stream):
                prefix = f"<{PRIORITY.get(record.levelno, 6)}>"
            message = record.getMessage().replace("\n", " ")
            stream.write(f"{prefix}boardctl: {message}\n")
            stream.flush()
        except Exception:  # a closed stderr must not stop the board
            self.handleError(record)


def setup(level: int = logging.INFO) -> None:
    """Give the project's loggers their handler (once; ``level`` may be changed later)."""
    for name in LOGGERS:
        logger = logging.getLogger(name)
        logger.setLevel(level)
        if not any(isinstance(h, StderrLine) for h in logger.handlers):
            logger.addHandler(StderrLine())
        logger.propagate = False
