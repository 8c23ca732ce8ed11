"""The choices the menus at the board keep for the next game and the next start: a small JSON
file in the state directory (``menu.json``), written whole and fsync'd (a temporary file, its
fsync, a rename, the directory's fsync), so a power cut leaves the old choices or the new,
never half of them. A file that does not read (damaged, hand-edited wrong, too big) gives the
defaults and one line in the log; the next choice writes it anew."""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

from firmware.clock.timecontrol import TimeControl
from firmware.engine.levels import find_level
from firmware.errors import BoardError
from firmware.limits import clip
from firmware.rules.sets import find_rules

logger = logging.getLogger(__name__)

FILE = "menu.json"
#: A choices file larger than this is not one the board wrote.
MAX_BYTES = 4096
COMPUTER = ("off", "white", "black")


@dataclass(frozen=True, slots=True)
class MenuChoices:
    """The next game's settings as the menus hold them: its rule set, its time control (a
    preset's name, a PDN TimeControl, or None: no clock), the computer's side (``off``: none)
    and level."""

    rules: str = "international"
    time_control: str | None = None
    computer: str = "off"
    level: str = "10"

    def checked(self) -> MenuChoices:
        """These choices, each read as the board reads it (BoardError naming the bad one)."""
        find_rules(self.rules)
        if self.time_control is not None:
            TimeControl.parse(self.time_control)
        if self.computer not in COMPUTER:
            raise BoardError(f"computer: {clip(self.computer, 20)!r} is not off, white or black")
        find_level(self.level)
        return self


def _member(data: Mapping[str, Any], key: str, default: Any) -> Any:
    value = data.get(key, default)
    if value is not None and not isinstance(value, str):
        raise BoardError(f"{key}: {clip(repr(value), 30)} is not a text")
    return value


def read_choices(path: Path, defaults: MenuChoices) -> MenuChoices:
    """The choices kept in ``path``; ``defaults`` when there are none, or (one line in the
    log) when the file does not read."""
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_BYTES + 1)
    except FileNotFoundError:
        return defaults
    except OSError as exc:
        logger.warning(f"{path}: the menu's choices cannot be read ({exc.strerror or exc}); "
                       "the defaults instead")
        return defaults
    try:
        if len(data) > MAX_BYTES:
            raise BoardError(f"larger than {MAX_BYTES} bytes")
        obj = json.loads(data.decode("utf-8"))
        if not isinstance(obj, dict):
            raise BoardError("not a JSON object")
        choices = MenuChoices(*(_member(obj, key, getattr(defaults, key))
                                for key in ("rules", "time_control", "computer", "level")))
        return choices.checked()
    except (ValueError, BoardError) as exc:
        logger.warning(f"{path}: the menu's choices do not read ({clip(str(exc), 120)}); "
                       "the defaults instead")
        return defaults


def write_choices(path: Path, choices: MenuChoices,
                  fsync: Callable[[int], None] = os.fsync) -> None:
    """Keep ``choices`` in ``path``: written whole and fsync'd, then renamed over the old
    file, the directory fsync'd (module docstring)."""
    tmp = path.with_name(path.name + ".tmp")
    data = json.dumps(asdict(choices), sort_keys=True).encode() + b"\n"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o640)
    try:
        os.write(fd, data)
        fsync(fd)
    finally:
        os.close(fd)
    os.replace(tmp, path)
    dir_fd = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        fsync(dir_fd)
    finally:
        os.close(dir_fd)


def with_choice(choices: MenuChoices, key: str, value: str | None) -> MenuChoices:
    """``choices`` with one more choice made (``key`` a field of :class:`MenuChoices`)."""
    changes: dict[str, Any] = {key: value}
    return replace(choices, **changes)
