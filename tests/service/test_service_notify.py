"""boardctl.service.notify: sd_notify by hand, on a real datagram socket."""

from __future__ import annotations

import os
import socket
from pathlib import Path

from boardctl.service.notify import Notifier


def test_messages_reach_the_socket(tmp_path: Path) -> None:
    path = tmp_path / "notify"
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
        sock.bind(str(path))
        sock.settimeout(5)
        n = Notifier({"NOTIFY_SOCKET": str(path), "WATCHDOG_USEC": "10000000",
                      "WATCHDOG_PID": str(os.getpid())})
        assert n.enabled and n.watchdog_ns == 5_000_000_000
        assert n.ready("game g, ply 0")
        assert sock.recv(100) == b"READY=1\nSTATUS=game g, ply 0"
        assert n.watchdog() and sock.recv(100) == b"WATCHDOG=1"
        assert n.stopping() and sock.recv(100) == b"STOPPING=1"
        n.close()


def test_abstract_address_and_no_systemd() -> None:
    assert Notifier({"NOTIFY_SOCKET": "@/org/x"}).address == "\0/org/x"
    quiet = Notifier({})
    assert not quiet.enabled and not quiet.ready() and quiet.watchdog_ns is None
    other = Notifier({"NOTIFY_SOCKET": "/x", "WATCHDOG_USEC": "1000", "WATCHDOG_PID": "1"})
    assert other.watchdog_ns is None  # the watchdog is another process's
    gone = Notifier({"NOTIFY_SOCKET": "/nonexistent/socket"})
    assert not gone.ready()  # systemd went away: never an exception
