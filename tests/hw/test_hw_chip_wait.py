"""A Pi's first boot: the header's gpiochip appears, or becomes open to the service's user,
some seconds after the service starts, and the service then plays.

Everything below the GPIO library is real: the chip is a real file in a fake /dev (its label
in a fake sysfs, as on a Pi 5), opened as lgpio opens it (hw.mock.matrix.SimulatedChip with
``dev``: O_RDWR, lgpio's "can not open gpiochip" on failure), under gpiozero's real lgpio pin
factory; the kernel's own permission check refuses it while its mode shuts the user out
(tests/support/unprivileged.py: as root too). The wait runs on an injected clock: no sleep."""

from __future__ import annotations

import dataclasses
import json
import sys
from pathlib import Path

import pytest
from support.service_helpers import VirtualClock
from support.unprivileged import shared_folder, unprivileged_files

from boardctl.service.hardware import pi_hardware
from boardctl.service.service import GameSetup, Service
from hw.config import default_config
from hw.gpio import ChipFinder, GpioChipMissing, NoGpioBackend, open_backend
from hw.mock.matrix import SimulatedBoard, SimulatedChip

PI5 = "Raspberry Pi 5 Model B Rev 1.0"
RP1 = b"raspberrypi,rp1-gpio\0"


def _rp1(root: Path, number: int) -> Path:
    """A Pi 5's header chip: /dev/gpiochipN (a real file) and its sysfs node."""
    node = root / "sys/bus/gpio/devices" / f"gpiochip{number}" / "of_node"
    node.mkdir(parents=True)
    (node / "compatible").write_bytes(RP1)
    chip = root / "dev" / f"gpiochip{number}"
    chip.touch()
    return chip


@pytest.fixture
def lgpio_on_files(monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    """``install(board, dev)``: the simulated chip as the ``lgpio`` module, opening chips in
    ``dev`` as lgpio does; gpiozero's lgpio factory imported afresh over it."""
    def install(board: SimulatedBoard, dev: Path) -> SimulatedChip:
        chip = SimulatedChip(board, dev=dev)
        monkeypatch.setitem(sys.modules, "lgpio", chip)  # type: ignore[arg-type]
        monkeypatch.delitem(sys.modules, "gpiozero.pins.lgpio", raising=False)
        return chip
    return install


@pytest.mark.parametrize("arrival", ["appears", "becomes readable"])
def test_the_service_plays_once_its_chip_is_there_and_open_to_it(
        lgpio_on_files, arrival: str) -> None:  # type: ignore[no-untyped-def]
    config = default_config(10)
    config = dataclasses.replace(config, faces=dataclasses.replace(config.faces, enabled=False))
    board = SimulatedBoard.from_config(10, config.matrix)
    with shared_folder() as root:
        with unprivileged_files():  # the process's files as the service user's: no root
            (root / "dev").mkdir()
            if arrival == "becomes readable":  # there from the start, root:root 0600 before udev
                _rp1(root, 0).chmod(0o000)
            lgpio_on_files(board, root / "dev")
            now = [0.0]

            def sleep(seconds: float) -> None:
                now[0] += seconds
                if now[0] >= 10.0 and not (root / "dev/gpiochip0").exists():
                    _rp1(root, 0)
                elif now[0] >= 10.0:
                    (root / "dev/gpiochip0").chmod(0o660)

            finder = ChipFinder(dev=root / "dev", sys=root / "sys", wait_s=15.0, sleep=sleep,
                                clock=lambda: now[0])
            backend = open_backend(config.gpio, model=PI5, finder=finder)
        assert (backend.name, backend.chip, now[0]) == ("lgpio", 0, 10.0)

        clock = VirtualClock()
        hw = pi_hardware(config, clock=clock, backend=backend)
        # gpiozero's lgpio pins want a Pi's revision: the buttons are missing here, and the
        # board referees on without them (their watermark held every event back before)
        assert [m.split(":")[0] for m in hw.missing] == ["clock buttons"]
        service = Service(root / "state", GameSetup("international", "300+5"), hw, clock=clock)
        service.boot()
        try:
            board.set_pieces(["e5", "f6"])
            for _ in range(5):
                clock.now += hw.scanner.period_ns
                service.step(clock.now)
        finally:
            service.close()
            backend.factory.close()
        journal = "".join(p.read_text() for p in (root / "state").rglob("*.jsonl"))
    seen = {json.loads(line).get("square") for line in journal.splitlines()}
    assert {"e5", "f6"} <= seen


def test_a_chip_never_opened_to_the_service_is_restarted_not_given_up(lgpio_on_files) -> None:  # type: ignore[no-untyped-def]
    """A Pi 5 has no second backend (RPi.GPIO cannot drive it): lgpio's failure on a chip it
    may not open was "no GPIO backend", status 69, which the unit never restarts. Now it is a
    chip not ready: status 1, systemd starts the service again, and the line names gpio."""
    board = SimulatedBoard.from_config(10, default_config(10).matrix)
    with shared_folder() as root, unprivileged_files():
        (root / "dev").mkdir()
        _rp1(root, 0).chmod(0o000)
        lgpio_on_files(board, root / "dev")
        now = [0.0]
        finder = ChipFinder(dev=root / "dev", sys=root / "sys", wait_s=15.0,
                            sleep=lambda s: now.__setitem__(0, now[0] + s), clock=lambda: now[0])
        with pytest.raises(GpioChipMissing) as err:
            open_backend(default_config(10).gpio, model=PI5, finder=finder)
    text = str(err.value)
    assert not isinstance(err.value, NoGpioBackend) and "\n" not in text
    assert "gpiochip0 is there, but user" in text and "Permission denied) after 15 s" in text
    assert "must belong to group gpio" in text and "RPi.GPIO: cannot drive a Raspberry Pi 5" \
        in text and text.endswith("systemd starts the service again")
