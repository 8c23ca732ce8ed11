"""Shared fixtures: gpiozero's MockFactory swapped in and reset after each test (gpiozero's own
tests/conftest.py pattern), and the repository's data folders."""

from __future__ import annotations

import compileall
import os
import signal
import sys
import types
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import pytest
from gpiozero import Device
from gpiozero.pins.mock import MockFactory
from support.browser import browser  # noqa: F401  (fixture: headless Chromium)
from support.mqtt_broker import mosquitto  # noqa: F401  (fixture: a real Mosquitto broker)

DATA = Path(__file__).resolve().parent / "data"
ROOT = Path(__file__).resolve().parents[1]

# pytest caches each test module with its asserts rewritten (a third of collecting's time)
# unless the interpreter writes no bytecode: where PYTHONDONTWRITEBYTECODE is set (as in many
# CI images) every worker would rewrite every test module again at every run. The cache is
# checked against the source's time stamp; the programs the tests start are not concerned.
sys.dont_write_bytecode = False

# A suite started in the background of a script (`pytest &`) inherits SIGINT ignored, and so
# would every process a test starts and then interrupts (`watch` stopped by Ctrl-C): the
# processes the tests start get the default, as from a terminal.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


def pytest_configure(config: pytest.Config) -> None:
    """Byte-compile the project's sources once, before any worker starts (xdist's workers
    have ``workerinput``). The suite starts some hundreds of Python programs (boards, relays,
    the stand-in servers); where ``PYTHONDONTWRITEBYTECODE`` is set (as in many CI images)
    each would otherwise compile every module it imports from source again, a third of a
    second of CPU each. Python still checks each cached file against its source's time
    stamp, so an edited module is read from its source as ever."""
    if hasattr(config, "workerinput"):
        return
    for folder in ("firmware", "hw", "boardctl", "tests/support"):
        compileall.compile_dir(ROOT / folder, quiet=1, workers=1)


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """``-n auto`` (pyproject's addopts): three workers for every two cores. Most long tests
    wait on real programs (boards playing in real time, brokers, browsers, relays) rather
    than compute, so two workers on two cores leave them idle a good part of the run
    (measured on 2 cores: 7 min 39 s with 2 workers, 5 min 44 s with 3)."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (
        os.cpu_count() or 1)
    return max(2, cores * 3 // 2)


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


# -- the fast core and the integration tests ----------------------------------------------------

#: Fixtures that start a real program (a Mosquitto broker, headless Chromium).
INTEGRATION_FIXTURES = frozenset({"mosquitto", "browser"})
#: Modules whose use means a test starts programs (service processes, relays, brokers,
#: browsers, terminals, engines, espeak-ng) or runs a whole service on its threads.
INTEGRATION_MODULES = frozenset({
    "subprocess", *(f"support.{name}" for name in (
        "processes", "terminal_helpers", "hall_helpers", "live_helpers", "mqtt_broker",
        "browser", "nginx_proxy", "pty_helpers", "lidraughts_standin", "py_draughts_reader",
        "hand_helpers", "page_helpers")),
    "boardctl.engine.client", "boardctl.engine.player",
    "boardctl.engine.lineup", "boardctl.service.service", "boardctl.voice.speaker",
    "boardctl.terminal.play",
})
#: The support functions that run a whole service (support.service_helpers' others are small
#: parts).
INTEGRATION_HELPERS = frozenset({"sim_service", "run_until", "RealClock"})


@cache
def _drives_programs(module: types.ModuleType) -> bool:
    """Does a test module start programs or whole services: a module of
    :data:`INTEGRATION_MODULES` imported, a name taken from one, a whole-service helper, or a
    helper of another test module that does? A module may also say so itself
    (``pytestmark = pytest.mark.integration``: the sweeps of whole game collections)."""
    for name, value in vars(module).items():
        source = value.__name__ if isinstance(value, types.ModuleType) else getattr(
            value, "__module__", None)
        if source in INTEGRATION_MODULES or name in INTEGRATION_HELPERS:
            return True
        if (isinstance(source, str) and source.startswith("test_") and source != module.__name__
                and (other := sys.modules.get(source)) is not None and _drives_programs(other)):
            return True
    return False


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Every test that starts a real program (a service process, a broker, a browser, a relay,
    a terminal) is marked ``integration``: ``pytest -m "not integration"`` runs the fast core
    (the rules, the referee, the clock, the formats, the parts on MockFactory, in-process
    services on an injected clock), while ``pytest`` still runs everything. Tests marked
    ``slow`` (long soaks) run only when the ``-m`` expression names them (``pytest -m slow``)."""
    if "slow" not in (config.option.markexpr or ""):
        slow = [item for item in items if item.get_closest_marker("slow") is not None]
        if slow:
            config.hook.pytest_deselected(items=slow)
            items[:] = [item for item in items if item.get_closest_marker("slow") is None]
    for item in items:
        module = getattr(item, "module", None)
        fixtures = set(getattr(item, "fixturenames", ()))
        if fixtures & INTEGRATION_FIXTURES or (module is not None and _drives_programs(module)):
            item.add_marker(pytest.mark.integration)
    # The tests that start programs first: they are the long ones, and xdist hands tests out
    # in this order, so the many short ones fill the workers' last minute rather than one
    # long test running alone at the end (a stable sort: each module's tests stay together).
    items.sort(key=lambda item: item.get_closest_marker("integration") is None)
