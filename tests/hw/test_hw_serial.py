"""The feed port on real pyserial: loop:// and pty pairs, including a pty that vanishes and
comes back. Waits are on the port's own conditions (with timeouts), never sleeps."""

from __future__ import annotations

import os
import select
from collections.abc import Iterator
from pathlib import Path

import pytest
import serial

from hw.serialport import FeedPort, Sink, open_sink


def _read_lines(fd: int, count: int, timeout: float = 5.0) -> list[bytes]:
    """Read from a pty master until ``count`` non-blank lines arrived. Blank lines are left
    out, as a feed reader does: after a write timeout the port starts the next line with a
    newline, and pyserial can report a timeout for a write that completed late under load."""
    lines: list[bytes] = []
    data = b""
    while len(lines) < count:
        ready, _, _ = select.select([fd], [], [], timeout)
        if not ready:
            break
        data += os.read(fd, 4096)
        *done, data = data.split(b"\n")
        lines += [line for line in done if line]
    return lines


class Pty:
    """A pty pair whose slave is reached through a stable symlink, like /dev/ttyGS0."""

    def __init__(self, link: Path) -> None:
        self.link = link
        self.master = -1
        self.open()

    def open(self) -> None:
        master, slave = os.openpty()
        name = os.ttyname(slave)
        os.close(slave)  # the port opens it by name
        self.master = master
        if self.link.is_symlink():
            self.link.unlink()
        self.link.symlink_to(name)

    def close(self) -> None:
        os.close(self.master)
        self.master = -1


@pytest.fixture
def pty(tmp_path: Path) -> Iterator[Pty]:
    p = Pty(tmp_path / "ttyGS0")
    yield p
    if p.master >= 0:
        p.close()


def test_lines_reach_a_loop_port() -> None:
    written: list[bytes] = []

    def opener(url: str, baudrate: int, timeout: float) -> Sink:
        port = serial.serial_for_url(url, baudrate=baudrate, write_timeout=timeout)
        real_write = port.write

        def write(data: bytes) -> int | None:
            written.append(data)
            return real_write(data)

        port.write = write  # type: ignore[method-assign]
        return port  # type: ignore[no-any-return]

    with FeedPort("loop://", opener=opener) as port:
        port.send('{"type": "move"}')
        port.send(b"second\n")
        assert port.wait_idle(5)
        assert written == [b'{"type": "move"}\n', b"second\n"]
        assert (port.written, port.dropped, port.connects) == (2, 0, 1)


def test_full_queue_drops_oldest_and_counts(pty: Pty) -> None:
    port = FeedPort(str(pty.link), queue_lines=3)  # not started: nothing is written yet
    for i in range(5):
        port.send(f"line {i}")
    assert port.dropped == 2
    port.start()
    try:
        assert port.wait_idle(5)
        assert _read_lines(pty.master, 3) == [b"line 2", b"line 3", b"line 4"]
    finally:
        port.close()


def test_writes_survive_a_pty_closed_and_reopened(pty: Pty) -> None:
    snapshots = []

    def on_connect() -> list[str]:
        snapshots.append(len(snapshots) + 1)
        return [f"snapshot {len(snapshots)}"]

    port = FeedPort(str(pty.link), reconnect_min_s=0.01, reconnect_max_s=0.05,
                    on_connect=on_connect).start()
    try:
        assert port.wait_connected(1)
        assert _read_lines(pty.master, 1) == [b"snapshot 1"]
        port.send("move 1")
        assert port.wait_idle(5)
        assert _read_lines(pty.master, 1) == [b"move 1"]
        pty.close()  # the cable is pulled: the next write fails with EIO
        port.send("move 2")
        assert port.wait_idle(5)
        assert not port.connected and port.last_error
        pty.open()  # plugged back in (a new pty behind the same path)
        assert port.wait_connected(2)
        port.send("move 3")
        assert port.wait_idle(5)
        assert _read_lines(pty.master, 2) == [b"snapshot 2", b"move 3"]
        assert port.dropped == 1  # move 2, superseded by snapshot 2
    finally:
        port.close()


def test_without_hook_the_failed_line_is_resent_after_reconnect(pty: Pty) -> None:
    port = FeedPort(str(pty.link), reconnect_min_s=0.01, reconnect_max_s=0.05).start()
    try:
        port.send("one")
        assert port.wait_idle(5)
        assert _read_lines(pty.master, 1) == [b"one"]
        pty.close()
        port.send("two")
        port.send("three")
        pty.open()
        assert port.wait_connected(2)
        assert port.wait_idle(5)
        assert _read_lines(pty.master, 2) == [b"two", b"three"]
    finally:
        port.close()


def test_a_reader_that_stops_reading_never_blocks_send(pty: Pty) -> None:
    """Nobody reads the pty: writes time out, lines are dropped and counted, send() returns at
    once; a reader that then wakes up gets the lines written, each whole or cut by a newline."""
    port = FeedPort(str(pty.link), write_timeout=0.01, queue_lines=50).start()
    try:
        big = "x" * 4000
        for _ in range(60):
            port.send(big)
        assert port.wait_idle(30)
        assert port.timeouts >= 1
        assert port.dropped >= port.timeouts
        assert port.written + port.dropped == 60
        lines = _read_lines(pty.master, 10_000, timeout=0.2)  # the reader wakes up
        port.send("end")
        assert port.wait_idle(5)
        lines += _read_lines(pty.master, 1)
        assert lines[-1] == b"end"
        assert all(set(line) <= {ord("x")} for line in lines[:-1])
        assert port.written + port.dropped == 61
    finally:
        port.close()


def test_missing_device_keeps_retrying_without_raising(tmp_path: Path) -> None:
    port = FeedPort(str(tmp_path / "nothing" / "ttyUSB0"), reconnect_min_s=0.01,
                    reconnect_max_s=0.02).start()
    try:
        port.send("kept")
        assert not port.wait_connected(1, timeout=0.2)
        assert "ttyUSB0" in (port.last_error or "")
    finally:
        port.close()


def test_a_plain_file_is_appended_to(tmp_path: Path) -> None:
    path = tmp_path / "feed.jsonl"
    path.write_bytes(b"old\n")
    sink = open_sink(str(path), 115200, 0.5)
    sink.write(b"new\n")
    sink.close()
    assert path.read_bytes() == b"old\nnew\n"
    with FeedPort(str(tmp_path / "fresh.jsonl")) as port:
        port.send("a")
        assert port.wait_idle(5)
    assert (tmp_path / "fresh.jsonl").read_bytes() == b"a\n"


def test_a_failing_hook_does_not_stop_the_writer(pty: Pty) -> None:
    def on_connect() -> list[str]:
        raise ValueError("snapshot not ready")

    port = FeedPort(str(pty.link), on_connect=on_connect).start()
    try:
        port.send("still here")
        assert port.wait_idle(5)
        assert _read_lines(pty.master, 1) == [b"still here"]
        assert "snapshot not ready" in (port.last_error or "")
    finally:
        port.close()


def test_the_feed_port_is_opened_exclusively(pty: Pty) -> None:
    """A device feed port is locked (pyserial's exclusive=True, flock): a second opener, a
    getty or ModemManager probing it, is refused rather than sharing the line unseen."""
    first = open_sink(str(pty.link), 115200, 0.5)
    try:
        with pytest.raises(serial.SerialException, match="exclusively"):
            open_sink(str(pty.link), 115200, 0.5)
        port = FeedPort(str(pty.link), reconnect_min_s=0.01, reconnect_max_s=0.02).start()
        try:
            assert not port.wait_connected(timeout=0.3)
            assert port.last_error is not None and "exclusively" in port.last_error
        finally:
            port.close()
    finally:
        first.close()
    again = open_sink(str(pty.link), 115200, 0.5)  # free again once the first lets go
    again.close()


def test_modem_manager_warning(tmp_path: Path) -> None:
    from hw.serialport import modem_manager_warning

    proc = tmp_path / "proc"
    for pid, comm in ((1, "systemd"), (412, "python3")):
        (proc / str(pid)).mkdir(parents=True)
        (proc / str(pid) / "comm").write_text(comm + "\n")
    (proc / "self").mkdir()
    assert modem_manager_warning("/dev/ttyGS0", proc) is None
    (proc / "97").mkdir()
    (proc / "97" / "comm").write_text("ModemManager\n")
    warning = modem_manager_warning("/dev/ttyGS0", proc)
    assert warning is not None and "/dev/ttyGS0" in warning and "disable --now" in warning
    assert modem_manager_warning("loop://", proc) is None
    assert modem_manager_warning("feed.jsonl", proc) is None
