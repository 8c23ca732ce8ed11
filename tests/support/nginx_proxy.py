"""A real nginx for the tests and benchmarks (Debian package ``nginx-light``) in front of a relay,
with the shipped site file (docs/examples/nginx/kabelaud-relay.conf, docs/SCALE.md): its own
prefix, pid and temp folders on a free loopback port, not a daemon, stopped by its pid.

Without the program the tests are skipped on a developer's machine and fail under CI
(``CI=true``): ``tests/install-system-deps.sh`` installs it.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from pathlib import Path

import pytest

from support.mqtt_broker import free_port
from support.processes import stop_by_pid

ROOT = Path(__file__).resolve().parents[2]
SITE = ROOT / "docs" / "examples" / "nginx" / "kabelaud-relay.conf"
PATIENCE = 20.0


def nginx_program() -> str:
    found = shutil.which("nginx") or next(
        (p for p in ("/usr/sbin/nginx",) if os.access(p, os.X_OK)), None)
    if found is None:
        message = "nginx is not installed (run tests/install-system-deps.sh)"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return found


class Nginx:
    """nginx with the shipped site file, pointed at ``upstream`` and listening on a free
    loopback port."""

    def __init__(self, workdir: Path, upstream: int, connections: int = 4096) -> None:
        self.program = nginx_program()
        self.port = free_port()
        self.dir = workdir
        for sub in ("temp", "cache", "logs"):
            (workdir / sub).mkdir(parents=True, exist_ok=True)
        site = SITE.read_text()
        site = site.replace("server 127.0.0.1:8080;", f"server 127.0.0.1:{upstream};")
        site = site.replace("listen 80;", f"listen 127.0.0.1:{self.port};")
        site = site.replace("/var/cache/nginx/kabelaud", str(workdir / "cache"))
        assert str(upstream) in site and str(self.port) in site
        (workdir / "site.conf").write_text(site)
        temp = workdir / "temp"
        user = "user root;\n" if os.geteuid() == 0 else ""
        (workdir / "nginx.conf").write_text(
            f"{user}daemon off;\nworker_processes 1;\npid {workdir}/nginx.pid;\n"
            f"error_log {workdir}/logs/error.log warn;\n"
            f"worker_rlimit_nofile {2 * connections + 64};\n"
            f"events {{ worker_connections {connections}; }}\n"
            "http {\n  access_log off;\n"
            + "".join(f"  {kind}_temp_path {temp}/{kind};\n"
                      for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"))
            + f"  include {workdir}/site.conf;\n}}\n")
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> Nginx:
        self.proc = subprocess.Popen(
            [self.program, "-p", str(self.dir), "-c", str(self.dir / "nginx.conf"),
             "-e", str(self.dir / "logs" / "error.log")],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.monotonic() + PATIENCE
        while True:
            assert self.proc.poll() is None, self.log()
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return self
            except OSError:
                assert time.monotonic() < deadline, "nginx never listened"
                time.sleep(0.05)

    def log(self) -> str:
        path = self.dir / "logs" / "error.log"
        return path.read_text(errors="replace") if path.exists() else ""

    def stop(self) -> None:
        proc, self.proc = self.proc, None
        if proc is not None:
            stop_by_pid(proc)
