"""The service's feed on a serial line that is unplugged and plugged back in."""

from __future__ import annotations

import os
import pty
import select
import tty
from pathlib import Path

from support.service_helpers import S, game_log, replayed, run_until, sim_service

from boardctl.relay.serial import LineSplitter
from boardctl.relay.state import RelayState


def _pty() -> tuple[int, str]:
    master, slave = pty.openpty()
    tty.setraw(slave)
    name = os.ttyname(slave)
    os.close(slave)
    return master, name


def _drain(master: int, splitter: LineSplitter, relay: RelayState) -> None:
    while select.select([master], [], [], 0.2)[0]:
        try:
            data = os.read(master, 65536)
        except OSError:
            return
        if not data:
            return
        for line in splitter.feed(data):
            relay.feed_line("cable", line)


def test_unplugged_cable_loses_nothing(tmp_path: Path) -> None:
    events = game_log(10, seed=17)
    want = [m["move"] for m in replayed(events).moves]
    link = tmp_path / "ttyGS0"  # a stable name, as udev gives a USB gadget port
    master, name = _pty()
    link.symlink_to(name)
    service, clock = sim_service(tmp_path / "state", events, feed_url=str(link))
    service.boot()
    feed = service.hw.feed
    assert feed.wait_connected(1, 5.0)
    relay, splitter = RelayState(), LineSplitter()
    end = events[-1].at / S
    run_until(service, clock, end / 3)
    assert feed.wait_idle(5.0)
    _drain(master, splitter, relay)
    (game,) = relay.games.values()
    before = len(game.moves)
    assert 0 < before < len(want)
    # Unplugged: the other end goes away; the board plays on, its writes fail and are dropped.
    os.close(master)
    link.unlink()
    run_until(service, clock, 2 * end / 3)
    # Plugged back in: the port reappears under the same name.
    master, name = _pty()
    link.symlink_to(name)
    assert feed.wait_connected(2, 10.0)
    splitter.reset()
    run_until(service, clock, end + 2)
    assert feed.wait_idle(5.0)
    _drain(master, splitter, relay)
    (game,) = relay.games.values()
    assert [m["move"] for m in game.moves] == want
    service.close()
    os.close(master)


def _records(lines: list[str]) -> dict[int, dict]:
    from firmware.formats.feed import decode_line

    out = {}
    for line in lines:
        record = decode_line(line)
        assert record is not None, line
        out[record["seq"]] = record
    return out


def test_the_other_outputs_carry_every_line_the_port_does(tmp_path: Path) -> None:
    """The header a port's (re)connection sends goes to on_line and the sinks (the broker's
    feed) as well: they carry every line from seq 0, the serial line's headers included."""
    events = game_log(6, seed=5)
    master, name = _pty()
    link = tmp_path / "ttyGS0"
    link.symlink_to(name)
    beside: list[str] = []
    service, clock = sim_service(tmp_path / "state", events, feed_url=str(link), lines=beside)
    service.boot()
    feed = service.hw.feed
    assert feed.wait_connected(1, 5.0)
    end = events[-1].at / S
    run_until(service, clock, end / 2)
    os.close(master)  # unplugged, then back: a second header on the port
    link.unlink()
    run_until(service, clock, 2 * end / 3)
    master, name = _pty()
    link.symlink_to(name)
    assert feed.wait_connected(2, 10.0)
    splitter = LineSplitter()
    run_until(service, clock, end + 2)
    assert feed.wait_idle(5.0)
    port: list[str] = []
    while select.select([master], [], [], 0.2)[0]:
        port += [line.decode() for line in splitter.feed(os.read(master, 65536))]
    service.close()
    os.close(master)
    others, on_port = _records(beside), _records(port)
    assert sorted(others) == list(range(len(others)))  # from 0, no gap
    headers = [seq for seq, r in others.items() if r["type"] == "header"]
    assert headers[0] == 0 and len(headers) == 2
    assert on_port and all(others[seq] == r for seq, r in on_port.items())
