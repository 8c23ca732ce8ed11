"""A real Mosquitto broker for the tests and benchmarks (Debian package ``mosquitto``), started on
a free loopback port with a config file written here, and stopped by its pid.

Without the program the MQTT tests are skipped on a developer's machine and fail under CI
(``CI=true``): ``tests/install-system-deps.sh`` installs it.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from support.processes import stop_by_pid

CANDIDATES = ("/usr/sbin/mosquitto", "/usr/bin/mosquitto")


def mosquitto_program() -> str | None:
    """The broker's program, or None when it is not installed."""
    found = shutil.which("mosquitto")
    if found:
        return found
    return next((p for p in CANDIDATES if os.access(p, os.X_OK)), None)


def require_mosquitto() -> str:
    """The program, or skip (fail under CI: the README's test command installs it)."""
    program = mosquitto_program()
    if program is None:
        message = "mosquitto is not installed (run tests/install-system-deps.sh)"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return program


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Mosquitto:
    """One broker process on 127.0.0.1:``port``. ``extra`` lines go into its config (an ACL,
    a password file ...); ``persistence`` keeps retained messages and QoS 1 sessions across
    :meth:`restart`, as a hall's broker would."""

    def __init__(self, workdir: Path, *, program: str | None = None, extra: str = "",
                 persistence: bool = True, anonymous: bool = True) -> None:
        self.program = program or require_mosquitto()
        self.workdir = Path(workdir)
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.port = free_port()
        self.conf = self.workdir / "mosquitto.conf"
        self.log = self.workdir / "mosquitto.log"
        lines = [
            f"listener {self.port} 127.0.0.1",
            f"allow_anonymous {'true' if anonymous else 'false'}",
            f"log_dest file {self.log}",
            "log_type error", "log_type warning", "log_type notice",
            "max_queued_messages 100000",
        ]
        if os.geteuid() == 0:
            # Started as root, Mosquitto drops to the `mosquitto` user, which may not enter
            # the test's private folder to write its log and persistence file.
            lines.append("user root")
        if persistence:
            lines += ["persistence true", f"persistence_location {self.workdir}/",
                      "autosave_interval 1"]
        self.conf.write_text("\n".join(lines) + "\n" + extra + "\n")
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"mqtt://127.0.0.1:{self.port}"

    def start(self, timeout: float = 10.0) -> Mosquitto:
        self.proc = subprocess.Popen([self.program, "-c", str(self.conf)],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                err = self.proc.stderr.read().decode() if self.proc.stderr else ""
                log = self.log.read_text() if self.log.exists() else ""
                if "Address already in use" in err + log and time.monotonic() < deadline - 1:
                    # A restart on the same port: another test's free_port() may hold it
                    # for an instant (bind to port 0, then close). Start again.
                    if self.proc.stderr is not None:
                        self.proc.stderr.close()
                    time.sleep(0.1)
                    self.proc = subprocess.Popen([self.program, "-c", str(self.conf)],
                                                 stdout=subprocess.DEVNULL,
                                                 stderr=subprocess.PIPE)
                    continue
                raise RuntimeError(f"mosquitto exited at once: {err}{log}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2):
                    return self
            except OSError:
                time.sleep(0.02)  # waiting for a real process to listen, not test timing
        self.stop()
        raise RuntimeError(f"mosquitto did not listen on port {self.port} in {timeout} s")

    def stop(self) -> None:
        """SIGTERM by pid (the broker saves its persistence file), SIGKILL if it lingers."""
        proc, self.proc = self.proc, None
        if proc is None:
            return
        stop_by_pid(proc, timeout=5)
        if proc.stderr is not None:
            proc.stderr.close()

    def restart(self) -> None:
        self.stop()
        self.start()

    def __enter__(self) -> Mosquitto:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


@pytest.fixture
def mosquitto(tmp_path: Path) -> Iterator[Mosquitto]:
    """A running broker for one test (``mosquitto.url``, ``.port``, ``.restart()``)."""
    with Mosquitto(tmp_path / "broker") as broker:
        yield broker
