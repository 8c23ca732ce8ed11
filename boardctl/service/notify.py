"""systemd's notification protocol (sd_notify), written by hand: no dependency.

The service tells systemd ``READY=1`` once it scans and listens, ``WATCHDOG=1`` at half the
unit's ``WatchdogSec`` while its loop runs, ``STATUS=...`` for ``systemctl status``, and
``STOPPING=1`` on a clean stop. The protocol is one datagram per message to the Unix socket
named by ``$NOTIFY_SOCKET`` (a path, or ``@name`` for the abstract namespace); see
sd_notify(3). Outside systemd ``$NOTIFY_SOCKET`` is unset and every call does nothing.
"""

from __future__ import annotations

import os
import socket
from collections.abc import Mapping

from firmware.limits import ascii_digits


class Notifier:
    """Sends sd_notify messages; a no-op without ``$NOTIFY_SOCKET``."""

    def __init__(self, env: Mapping[str, str] | None = None) -> None:
        env = os.environ if env is None else env
        address = env.get("NOTIFY_SOCKET", "")
        self.address: str | None = None
        if address.startswith("@"):
            self.address = "\0" + address[1:]
        elif address.startswith("/"):
            self.address = address
        #: Watchdog interval in ns (half of WatchdogSec), or None when systemd set no watchdog
        #: for this process.
        self.watchdog_ns: int | None = None
        usec = env.get("WATCHDOG_USEC", "")
        pid = env.get("WATCHDOG_PID", "")
        if ascii_digits(usec) and int(usec) > 0 and (not pid or pid == str(os.getpid())):
            self.watchdog_ns = int(usec) * 1000 // 2
        self.sent: list[str] = []
        self._sock: socket.socket | None = None

    @property
    def enabled(self) -> bool:
        return self.address is not None

    def send(self, message: str) -> bool:
        """Send one message (``KEY=value`` lines); False when not under systemd or on error."""
        if self.address is None:
            return False
        try:
            if self._sock is None:
                self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC)
            self._sock.sendto(message.encode("utf-8"), self.address)
        except OSError:
            return False
        self.sent.append(message)
        return True

    def ready(self, status: str = "") -> bool:
        return self.send("READY=1" + (f"\nSTATUS={status}" if status else ""))

    def watchdog(self) -> bool:
        return self.send("WATCHDOG=1")

    def status(self, text: str) -> bool:
        return self.send(f"STATUS={text}")

    def stopping(self) -> bool:
        return self.send("STOPPING=1")

    def close(self) -> None:
        if self._sock is not None:
            self._sock.close()
            self._sock = None
