"""Choosing the GPIO backend: the one place it is decided (``[gpio] backend``).

* ``auto`` (default) and ``lgpio``: lgpio, on every model (Pi Zero 2 W to Pi 5). It talks to
  the kernel's GPIO character device, so it works on kernel 6.6+ where RPi.GPIO's edge
  detection fails ("Failed to add edge detection"), and on the Pi 5's RP1 chip. The matrix is
  scanned with lgpio's group calls (one write and one read per row, :class:`hw.matrix.
  GroupMatrix`); the clock buttons use its edge alerts, stamped by the kernel.
* ``rpigpio``: RPi.GPIO (Pi 0-4 only). Its register reads cost no system call, but its edge
  detection is broken on current kernels, so the buttons are *polled* (hw/buttons.py
  :class:`PolledButtons`). Choose it only on an old kernel (before 6.6) with a board whose
  scan must be as cheap as possible, or where lgpio cannot be installed.
* ``auto`` falls back to RPi.GPIO (Pi 0-4) when lgpio is unavailable, and says why not.
* ``gpiozero`` is kept as a synonym of ``auto`` (older configurations): gpiozero's own
  search order is never used, since it ends at pigpio, whose module prints a 12-line "Can't
  connect to pigpio" banner on stdout.

Any exception from a backend's import or initialisation, not only ImportError, makes that
backend "unavailable: <reason>"; with none left, :func:`open_backend` raises one HardwareError
naming each backend's reason. lgpio creates its notification pipe in its working directory
(``LG_WD``, else the current directory) when it is imported: :func:`import_lgpio` sets
``LG_WD`` to the runtime directory first and keeps the caller's current directory.

``[gpio] chip`` names the gpiochip for lgpio (a Pi 5 has its header on gpiochip4 with kernels
before 6.6.45, gpiochip0 after). Nothing here imports a Pi-only library at module level.
"""

from __future__ import annotations

import importlib
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from firmware.errors import HardwareError
from hw.config import GpioConfig

MODEL_FILE = Path("/proc/device-tree/model")
DEV = Path("/dev")
INSTALL_HINT = "not installed (sudo ./systemd/install.sh installs it)"


class BackendUnavailable(Exception):
    """One backend cannot be used here; the message is the reason."""


class NoGpioBackend(HardwareError):
    """No backend can be used on this machine (not a Pi, or no GPIO library): not something
    a restart mends, so ``boardctl run`` exits with :data:`EXIT_NO_GPIO` for it and the unit
    does not restart on that status (``RestartPreventExitStatus``)."""


#: ``boardctl run``'s exit status without any GPIO backend: 69, EX_UNAVAILABLE (sysexits.h).
EXIT_NO_GPIO = 69


@dataclass(frozen=True)
class GpioBackend:
    """A chosen backend: its name, the gpiozero pin factory, lgpio's chip (for group access)
    and whether the buttons may rely on edge detection."""

    name: str
    factory: Any
    chip: int | None = None
    edges: bool = True


def board_model(path: Path = MODEL_FILE) -> str:
    """The board's model string (``Raspberry Pi Zero 2 W Rev 1.0``), empty when unknown."""
    try:
        return path.read_bytes().rstrip(b"\0").decode("ascii", "replace")
    except OSError:
        return ""


def is_pi5(model: str) -> bool:
    return model.startswith(("Raspberry Pi 5", "Raspberry Pi Compute Module 5"))


def lgpio_workdir() -> str:
    """Where lgpio may create its notification pipe: the service's runtime directory
    (``$RUNTIME_DIRECTORY``, set by the unit), else the user's, else the temporary directory."""
    for name in ("RUNTIME_DIRECTORY", "XDG_RUNTIME_DIR"):
        value = os.environ.get(name, "").split(":")[0]
        if value and os.path.isdir(value) and os.access(value, os.W_OK | os.X_OK):
            return value
    return tempfile.gettempdir()


def import_lgpio() -> ModuleType:
    """Import lgpio with ``LG_WD`` set (an explicit ``LG_WD`` is kept) and the current
    directory unchanged (lgpio's library may change to ``LG_WD``)."""
    os.environ.setdefault("LG_WD", lgpio_workdir())
    try:
        cwd: str | None = os.getcwd()
    except OSError:
        cwd = None
    try:
        return importlib.import_module("lgpio")
    finally:
        if cwd is not None:
            try:
                if os.getcwd() != cwd:
                    os.chdir(cwd)
            except OSError:
                os.chdir(cwd)


def default_chip(model: str, dev: Path = DEV) -> int:
    """The gpiochip of the 40-pin header: 4 on a Pi 5 with a kernel before 6.6.45, else 0."""
    return 4 if is_pi5(model) and (dev / "gpiochip4").exists() else 0


def _lgpio(config: GpioConfig, model: str) -> GpioBackend:
    chip = config.chip if config.chip >= 0 else default_chip(model)
    try:
        import_lgpio()
        factory_module = importlib.import_module("gpiozero.pins.lgpio")
    except ImportError:
        raise BackendUnavailable(INSTALL_HINT) from None
    except Exception as exc:  # lgpio's import opens its notification pipe: any error
        raise BackendUnavailable(f"import failed: {_text(exc)}") from None
    try:
        factory = factory_module.LGPIOFactory(chip=chip)
    except Exception as exc:  # lgpio.error for a missing chip, PermissionError, ...
        raise BackendUnavailable(f"cannot open /dev/gpiochip{chip}: {_text(exc)}") from None
    return GpioBackend("lgpio", factory, chip=chip, edges=True)


def _rpigpio(config: GpioConfig, model: str) -> GpioBackend:
    if is_pi5(model):
        raise BackendUnavailable("cannot drive a Raspberry Pi 5 (its GPIOs are on the RP1 "
                                 "chip); use lgpio")
    if config.chip >= 0:
        raise BackendUnavailable("has no gpiochip setting ([gpio] chip is lgpio's)")
    try:
        factory_module = importlib.import_module("gpiozero.pins.rpigpio")
    except ImportError:
        raise BackendUnavailable(INSTALL_HINT) from None
    except Exception as exc:  # RuntimeError "can only be run on a Raspberry Pi", ...
        raise BackendUnavailable(f"import failed: {_text(exc)}") from None
    try:
        factory = factory_module.RPiGPIOFactory()
    except Exception as exc:
        raise BackendUnavailable(f"cannot start: {_text(exc)}") from None
    return GpioBackend("rpigpio", factory, edges=False)


_OPENERS = {"lgpio": _lgpio, "rpigpio": _rpigpio}
_NAMES = {"lgpio": "lgpio", "rpigpio": "RPi.GPIO"}


def backend_order(config: GpioConfig) -> tuple[str, ...]:
    """The backends tried, in order, for ``[gpio] backend``."""
    if config.backend in ("auto", "gpiozero"):
        return ("lgpio",) if config.chip >= 0 else ("lgpio", "rpigpio")
    return (config.backend,)


def scans_by_groups(config: GpioConfig) -> bool:
    """Whether a Pi with this config scans the matrix with lgpio's group calls (the backend
    order starts with lgpio), which the simulated board then does too."""
    return backend_order(config)[0] == "lgpio"


def open_backend(config: GpioConfig, model: str | None = None) -> GpioBackend:
    """The first available backend of :func:`backend_order`, or a HardwareError naming why
    each one is unavailable."""
    model = board_model() if model is None else model
    reasons = []
    for name in backend_order(config):
        try:
            return _OPENERS[name](config, model)
        except BackendUnavailable as exc:
            reasons.append(f"{_NAMES[name]}: {exc}")
    where = f"on a {model}" if model else "(not a Raspberry Pi?)"
    raise NoGpioBackend(f"no GPIO backend {where}: {'; '.join(reasons)}; "
                        "--sim runs on the simulated board")


def real_pin_factory(config: GpioConfig, model: str | None = None) -> Any:
    """The gpiozero pin factory of :func:`open_backend` (never gpiozero's own choice)."""
    return open_backend(config, model).factory


def mock_backend(factory: Any = None) -> GpioBackend:
    """gpiozero's MockFactory as a backend (the simulated board's pins are made on it)."""
    if factory is None:
        from gpiozero.pins.mock import MockFactory

        factory = MockFactory()
    return GpioBackend("mock", factory)


def mock_pin_factory() -> Any:
    """A fresh gpiozero MockFactory."""
    return mock_backend().factory


def _text(exc: BaseException) -> str:
    text = str(exc).strip().strip("'\"") or type(exc).__name__
    return " ".join(text.split())
