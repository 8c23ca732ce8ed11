"""Shared fixtures: gpiozero's MockFactory swapped in and reset after each test (gpiozero's own
tests/conftest.py pattern), and the repository's data folders."""

from __future__ import annotations

import signal
from collections.abc import Iterator
from pathlib import Path

import pytest
from browser import browser  # noqa: F401  (fixture: headless Chromium)
from gpiozero import Device
from gpiozero.pins.mock import MockFactory
from mqtt_broker import mosquitto  # noqa: F401  (fixture: a real Mosquitto broker)

DATA = Path(__file__).resolve().parent / "data"

# A suite started in the background of a script (`pytest &`) inherits SIGINT ignored, and so
# would every process a test starts and then interrupts (`watch` stopped by Ctrl-C): the
# processes the tests start get the default, as from a terminal.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


@pytest.fixture(autouse=True)
def _own_state_home(tmp_path_factory: pytest.TempPathFactory,
                    monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test's relays and boards keep their state (the relay's games, a board's spilled
    journal records) in a folder of their own, never the user's home or /run."""
    home = tmp_path_factory.mktemp("state-home")
    monkeypatch.setenv("XDG_STATE_HOME", str(home / "state"))
    monkeypatch.setenv("BOARDCTL_SPILL_DIR", str(home / "spill"))


@pytest.fixture
def mock_factory() -> Iterator[MockFactory]:
    """A fresh MockFactory as gpiozero's default pin factory for the duration of a test."""
    previous = Device.pin_factory
    factory = MockFactory()
    Device.pin_factory = factory
    try:
        yield factory
    finally:
        factory.reset()
        Device.pin_factory = previous


@pytest.fixture
def data_dir() -> Path:
    """tests/data: real games and logs used by the tests."""
    return DATA
