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

The header's gpiochip is found by its label (:func:`find_header_chip`), never guessed by number:
``pinctrl-bcm2835`` (Pi Zero 2 W, 3), ``pinctrl-bcm2711`` (Pi 4, 400), ``pinctrl-rp1`` (Pi 5),
as libgpiod's ``gpiodetect`` shows them. The number moves with the kernel: a Pi 5 had it on
gpiochip4 before 6.6.45, on gpiochip0 (with a gpiochip4 link) after, and some 6.12 kernels show
only gpiochip11-15 (Adafruit_Blinka#1119, pironman5#95). The label comes from the chip itself
(the GPIO_GET_CHIPINFO ioctl of linux/gpio.h), else from sysfs (``of_node/compatible``).
``[gpio] chip`` (0 or more) names it instead; a chip whose label is another's, or none there
while the header's is found elsewhere, is refused for good (:class:`WrongChip`). On a Pi, a
header chip not there yet (a Pi 5's RP1 sits behind PCIe) is waited for :data:`CHIP_WAIT_S`
seconds, then :class:`GpioChipMissing` ends ``boardctl run`` with a status systemd restarts on;
only "no GPIO library" or "not a Pi" (:class:`NoGpioBackend`) is final. A chip that is there
but that this process may not open (at boot, before udev has given ``/dev/gpiochipN`` to the
``gpio`` group; a user not in ``gpio``) is a chip not ready, waited for the same way: the wait
opens it as lgpio will (``O_RDWR``, lgGpiochipOpen in lgGpio.c), since lgpio's own failure says
only "can not open gpiochip". Nothing here imports a Pi-only library at module level.
"""

from __future__ import annotations

import errno
import fcntl
import grp
import importlib
import os
import pwd
import re
import stat
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from firmware.errors import HardwareError
from hw.config import GpioConfig

MODEL_FILE = Path("/proc/device-tree/model")
DEV = Path("/dev")
SYS = Path("/sys")
INSTALL_HINT = "not installed (sudo ./systemd/install.sh installs it)"


class BackendUnavailable(Exception):
    """One backend cannot be used here; the message is the reason."""


class NoGpioBackend(HardwareError):
    """No backend can be used on this machine (not a Pi, or no GPIO library): not something
    a restart mends, so ``boardctl run`` exits with :data:`EXIT_NO_GPIO` for it and the unit
    does not restart on that status (``RestartPreventExitStatus``)."""


class GpioChipMissing(HardwareError):
    """A Pi whose header gpiochip is not there (yet): ``boardctl run`` fails with an ordinary
    status, and systemd starts it again (``Restart=on-failure``)."""


class ChipNotReady(BackendUnavailable):
    """lgpio is there, the header's gpiochip cannot be used yet: on a Pi a restart may mend
    it (:class:`GpioChipMissing`)."""


class ChipNotFound(ChipNotReady):
    """lgpio is there, the header's gpiochip is not."""


class ChipNotPermitted(ChipNotReady):
    """The header's gpiochip is there, but this process may not open it: not (yet) in the
    ``gpio`` group's hands, or the user not in that group."""


class WrongChip(BackendUnavailable):
    """``[gpio] chip`` names a chip that is not the header's (another chip's label, or none
    there while the header's is found by its label elsewhere): a restart cannot mend it."""


#: ``boardctl run``'s exit status without any GPIO backend: 69, EX_UNAVAILABLE (sysexits.h).
EXIT_NO_GPIO = 69

#: The labels of the 40-pin header's gpiochip (the kernel's pinctrl driver names), by model.
HEADER_LABELS = ("pinctrl-rp1", "pinctrl-bcm2711", "pinctrl-bcm2835")
#: The same chips by their device-tree ``compatible`` (sysfs, when the chip cannot be asked).
_COMPATIBLE_LABELS = {
    "raspberrypi,rp1-gpio": "pinctrl-rp1",
    "brcm,bcm2711-gpio": "pinctrl-bcm2711",
    "brcm,bcm2835-gpio": "pinctrl-bcm2835",
}
#: GPIO_GET_CHIPINFO_IOCTL, _IOR(0xB4, 0x01, struct gpiochip_info) (linux/gpio.h): the struct
#: is char name[32], char label[32], __u32 lines: 68 bytes.
GPIO_GET_CHIPINFO_IOCTL = 0x8044B401
_CHIPINFO_SIZE = 68
#: How long a Pi waits for its header chip before failing (systemd then restarts the
#: service): under the unit's TimeoutStartSec=30 with the start-up's own seconds.
CHIP_WAIT_S = 15.0
_CHIP_NAME = re.compile(r"gpiochip([0-9]+)")

Ioctl = Callable[[int, int, bytearray, bool], Any]


def chip_numbers(dev: Path = DEV) -> list[int]:
    """The gpiochips in ``dev``, each once: a link (a Pi 5's gpiochip4 -> gpiochip0) counts
    as the chip it names."""
    numbers = set()
    try:
        entries = list(dev.iterdir())
    except OSError:
        return []
    for entry in entries:
        if not _CHIP_NAME.fullmatch(entry.name):
            continue
        try:
            target = entry.resolve(strict=True)
        except (OSError, RuntimeError):  # a dangling or looping link
            continue
        match = _CHIP_NAME.fullmatch(target.name)
        if match and target.parent == dev.resolve():
            numbers.add(int(match.group(1)))
    return sorted(numbers)


def parse_chip_info(info: bytes) -> tuple[str, str, int]:
    """(name, label, lines) of a ``struct gpiochip_info``."""
    def text(raw: bytes) -> str:
        return raw.split(b"\0", 1)[0].decode("ascii", "replace")

    return text(info[:32]), text(info[32:64]), int.from_bytes(info[64:68], "little")


def chip_label_ioctl(path: Path, ioctl: Ioctl = fcntl.ioctl) -> str | None:
    """The chip's label as the kernel gives it (what ``gpiodetect`` prints), None when the
    chip cannot be asked (no permission, not a GPIO character device)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        info = bytearray(_CHIPINFO_SIZE)
        ioctl(fd, GPIO_GET_CHIPINFO_IOCTL, info, True)
    except OSError:
        return None
    finally:
        os.close(fd)
    return parse_chip_info(bytes(info))[1] or None


def chip_label_sysfs(number: int, sys: Path = SYS) -> str | None:
    """The header label of ``gpiochipN`` from its device-tree node's ``compatible`` in sysfs,
    None for another chip or none there."""
    try:
        raw = (sys / "bus/gpio/devices" / f"gpiochip{number}" / "of_node/compatible").read_bytes()
    except OSError:
        return None
    for name in raw.decode("ascii", "replace").split("\0"):
        if name in _COMPATIBLE_LABELS:
            return _COMPATIBLE_LABELS[name]
    return None


def chip_labels(dev: Path = DEV, sys: Path = SYS, ioctl: Ioctl = fcntl.ioctl
                ) -> dict[int, str | None]:
    """Each gpiochip's label (None: unknown), by number."""
    return {n: chip_label_ioctl(dev / f"gpiochip{n}", ioctl) or chip_label_sysfs(n, sys)
            for n in chip_numbers(dev)}


def chip_label(number: int, dev: Path = DEV, sys: Path = SYS, ioctl: Ioctl = fcntl.ioctl
               ) -> str | None:
    """The label of ``/dev/gpiochipN`` (a link: of the chip it names), None when unknown."""
    path = dev / f"gpiochip{number}"
    try:
        match = _CHIP_NAME.fullmatch(path.resolve(strict=True).name)
    except (OSError, RuntimeError):
        return None
    target = int(match.group(1)) if match else number
    return chip_label_ioctl(path, ioctl) or chip_label_sysfs(target, sys)


def _name(table: Callable[[int], Any], number: int) -> str:
    try:
        return str(table(number)[0])
    except (KeyError, OverflowError):
        return str(number)


def chip_refusal(path: Path, after: str = "") -> str | None:
    """Why this process may not open the chip as lgpio does (``O_RDWR``), in one line naming
    its owner, group and mode (``after``: how long it was waited for); None when it may, or
    when it fails otherwise (lgpio then says why). EACCES is the file's mode and groups;
    EPERM, a device list (the unit's ``DeviceAllow``)."""
    try:
        fd = os.open(path, os.O_RDWR | os.O_CLOEXEC)
    except PermissionError as exc:
        try:
            st = os.stat(path)
            mode = (f"{_name(pwd.getpwuid, st.st_uid)}:{_name(grp.getgrgid, st.st_gid)} "
                    f"{stat.S_IMODE(st.st_mode):04o}, ")
        except OSError:
            mode = ""
        user = _name(pwd.getpwuid, os.geteuid())
        how = ("the unit's device list (DeviceAllow) must take it in" if exc.errno == errno.EPERM
               else f"it must belong to group gpio (udev gives it at boot: 99-boardctl.rules) "
               f"and user {user} be in gpio")
        return (f"{path} is there, but user {user} may not open it ({mode}"
                f"{os.strerror(exc.errno or errno.EACCES)}){after}: {how}")
    except OSError:
        return None
    os.close(fd)
    return None


def find_header_chip(dev: Path = DEV, sys: Path = SYS, ioctl: Ioctl = fcntl.ioctl) -> int | None:
    """The number of the 40-pin header's gpiochip, found by its label; None when no chip
    has one of :data:`HEADER_LABELS`."""
    for number, label in chip_labels(dev, sys, ioctl).items():
        if label in HEADER_LABELS:
            return number
    return None


@dataclass
class ChipFinder:
    """Where the header chip is looked for, and how long a Pi waits for it (tests inject a
    fake tree and clock)."""

    dev: Path = DEV
    sys: Path = SYS
    wait_s: float = CHIP_WAIT_S
    ioctl: Ioctl = fcntl.ioctl
    sleep: Callable[[float], None] = time.sleep
    clock: Callable[[], float] = time.monotonic

    def _look(self, config: GpioConfig) -> int | None:
        if config.chip < 0:
            return find_header_chip(self.dev, self.sys, self.ioctl)
        if not (self.dev / f"gpiochip{config.chip}").exists():
            return None
        label = chip_label(config.chip, self.dev, self.sys, self.ioctl)
        if label is not None and label not in HEADER_LABELS:  # unknown: taken as given
            raise WrongChip(f"[gpio] chip = {config.chip} is {label}, not the 40-pin "
                            f"header's ({' / '.join(HEADER_LABELS)}){self._header_at()}")
        return config.chip

    def _header_at(self) -> str:
        """Where the header's chip is by its label, and the fix, for a wrong ``chip``."""
        found = find_header_chip(self.dev, self.sys, self.ioctl)
        where = "" if found is None else f", which is gpiochip{found}"
        return f"{where}: set chip = -1 in [gpio] (found by its label)"

    def locate(self, config: GpioConfig, model: str) -> int:
        """The chip lgpio opens: ``[gpio] chip`` or the header's by label, once this process
        may open it; on a Pi, waited for up to ``wait_s`` seconds. ChipNotFound says what is
        missing, ChipNotPermitted which chip may not be opened and why."""
        waited = f" after {self.wait_s:g} s" if model else ""
        end = self.clock() + (self.wait_s if model else 0.0)
        while True:
            found = self._look(config)
            refusal = None if found is None else chip_refusal(self.dev / f"gpiochip{found}",
                                                              waited)
            if found is not None and refusal is None:
                return found
            if self.clock() >= end:
                break
            self.sleep(0.25)
        if refusal is not None:  # there, and this process may not open it
            raise ChipNotPermitted(refusal)
        if config.chip >= 0:
            missing = f"no {self.dev}/gpiochip{config.chip} ([gpio] chip){waited}"
            if find_header_chip(self.dev, self.sys, self.ioctl) is not None:
                raise WrongChip(f"{missing}{self._header_at()}")
            raise ChipNotFound(missing)
        seen = ", ".join(f"gpiochip{n} {label or '(label unknown)'}" for n, label
                         in chip_labels(self.dev, self.sys, self.ioctl).items()) or "none"
        raise ChipNotFound(f"no header gpiochip ({' / '.join(HEADER_LABELS)}){waited}; "
                           f"chips: {seen}")


@dataclass(frozen=True)
class GpioBackend:
    """A chosen backend: its name, the gpiozero pin factory, lgpio's chip (for group access)
    and whether the buttons may rely on edge detection."""

    name: str
    factory: Any
    chip: int | None = None
    edges: bool = True


def board_model(path: Path | None = None) -> str:
    """The board's model string (``Raspberry Pi Zero 2 W Rev 1.0``), empty when unknown."""
    try:
        raw = (MODEL_FILE if path is None else path).read_bytes()
    except OSError:
        return ""
    return raw.rstrip(b"\0").decode("ascii", "replace")


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


def _lgpio(config: GpioConfig, model: str, finder: ChipFinder) -> GpioBackend:
    try:
        import_lgpio()
        factory_module = importlib.import_module("gpiozero.pins.lgpio")
    except ImportError:
        raise BackendUnavailable(INSTALL_HINT) from None
    except Exception as exc:  # lgpio's import opens its notification pipe: any error
        raise BackendUnavailable(f"import failed: {_text(exc)}") from None
    chip = finder.locate(config, model)
    try:
        factory = factory_module.LGPIOFactory(chip=chip)
    except Exception as exc:  # lgpio.error for a missing chip, PermissionError, ...
        refusal = chip_refusal(finder.dev / f"gpiochip{chip}")  # changed since it was found
        if refusal is not None:
            raise ChipNotPermitted(refusal) from None
        raise BackendUnavailable(f"cannot open /dev/gpiochip{chip}: {_text(exc)}") from None
    opened = getattr(factory, "_chip", chip)
    if opened != chip:  # gpiozero before 2.0.1.post1 replaced chip= with its own guess
        factory.close()
        raise BackendUnavailable(f"this gpiozero opens gpiochip{opened} whatever it is asked; "
                                 f"gpiochip{chip} needs gpiozero 2.0.1.post1 or later ("
                                 "sudo ./systemd/install.sh installs it)")
    return GpioBackend("lgpio", factory, chip=chip, edges=True)


def _rpigpio(config: GpioConfig, model: str, finder: ChipFinder) -> GpioBackend:
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


def open_backend(config: GpioConfig, model: str | None = None,
                 finder: ChipFinder | None = None) -> GpioBackend:
    """The first available backend of :func:`backend_order`, or a HardwareError naming why
    each one is unavailable: :class:`GpioChipMissing` on a Pi whose lgpio found no header
    chip, or one it may not open (a restart may find it ready), else :class:`NoGpioBackend`."""
    model = board_model() if model is None else model
    finder = ChipFinder(DEV, SYS, CHIP_WAIT_S) if finder is None else finder
    reasons = []
    chip_missing = False
    for name in backend_order(config):
        try:
            return _OPENERS[name](config, model, finder)
        except BackendUnavailable as exc:
            chip_missing = chip_missing or isinstance(exc, ChipNotReady)
            reasons.append(f"{_NAMES[name]}: {exc}")
    where = f"on a {model}" if model else "(not a Raspberry Pi?)"
    text = f"no GPIO backend {where}: {'; '.join(reasons)}"
    if chip_missing and model:
        raise GpioChipMissing(f"{text}; systemd starts the service again")
    raise NoGpioBackend(f"{text}; --sim runs on the simulated board")


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
