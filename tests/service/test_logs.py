"""The service's log lines (boardctl.logs): ``boardctl: MESSAGE`` on standard error, with the
syslog priority first (sd-daemon(3): ``<4>`` for a warning) only when standard error is the
systemd journal's stream (``JOURNAL_STREAM`` names its device and inode, systemd.exec(5))."""

from __future__ import annotations

import logging
import os
import sys
from pathlib import Path

import pytest

from boardctl import logs


def test_a_line_on_stderr_without_the_journal(capsys: pytest.CaptureFixture[str],
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("JOURNAL_STREAM", raising=False)
    logging.getLogger("boardctl.service.service").warning("LEDs: strip\nunplugged")
    logging.getLogger("hw.matrix").info("scanning")
    logging.getLogger("boardctl.service.service").debug("not shown at the default level")
    assert capsys.readouterr().err == "boardctl: LEDs: strip unplugged\nboardctl: scanning\n"


def test_priorities_when_stderr_is_the_journal(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    out = (tmp_path / "journal").open("w+")
    st = os.fstat(out.fileno())
    monkeypatch.setattr(sys, "stderr", out)
    monkeypatch.setenv("JOURNAL_STREAM", f"{st.st_dev}:{st.st_ino}")
    logging.getLogger("boardctl.service.outputs").error("journal /x: no space")
    logging.getLogger("boardctl.service.service").info("ready")
    monkeypatch.setenv("JOURNAL_STREAM", f"{st.st_dev}:{st.st_ino + 1}")  # another stream
    logging.getLogger("boardctl.service.service").warning("plain again")
    out.seek(0)
    assert out.read().splitlines() == ["<3>boardctl: journal /x: no space",
                                       "<6>boardctl: ready", "boardctl: plain again"]


def test_setup_is_idempotent() -> None:
    logs.setup()
    logs.setup()
    for name in logs.LOGGERS:
        handlers = [h for h in logging.getLogger(name).handlers
                    if isinstance(h, logs.StderrLine)]
        assert len(handlers) == 1 and not logging.getLogger(name).propagate
