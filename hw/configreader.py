"""Reading the board's configuration file (TOML): the file read with bounds
(:func:`read_document`) and each table checked against the keys its owner knows
(:class:`TableReader`), every mistake a :class:`ConfigError` whose message names the file, the
key (``matrix.rows``) and what is wrong; an unknown key is refused with the nearest known key as
a suggestion, so that a typo never silently falls back to a default.

The file has several owners: the hardware's sections (:mod:`hw.config`) and the service's
settings (:mod:`boardctl.settings`, which reads the file once and hands each its tables).
"""

from __future__ import annotations

import difflib
import tomllib
from collections.abc import Sequence
from dataclasses import fields
from pathlib import Path
from typing import Any

from firmware.errors import ConfigError
from firmware.limits import clip
from hw.header import USABLE_GPIOS

#: A board's configuration is a few KiB.
MAX_CONFIG = 256 * 1024


def read_document(path: str | Path) -> dict[str, Any]:
    """The TOML document in the file at ``path`` (bounded: /dev/zero is not a configuration);
    ConfigError naming the file when it cannot be read or is not TOML."""
    p = Path(path)
    try:
        with open(p, "rb") as f:
            raw = f.read(MAX_CONFIG + 1)
        if len(raw) > MAX_CONFIG:
            raise ConfigError(f"{p}: larger than {MAX_CONFIG >> 10} KiB: not a configuration")
        text = raw.decode("utf-8")
    except FileNotFoundError:
        raise ConfigError(f"{p}: no such configuration file") from None
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{p}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    except OSError as exc:
        raise ConfigError(f"{p}: cannot read: {exc.strerror}") from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{p}: not valid TOML: {exc}") from None
    except RecursionError:
        raise ConfigError(f"{p}: not valid TOML: nested too deeply") from None


class TableReader:
    """Walks one TOML table against the keys its owner knows (a dataclass's fields), collecting
    values or raising ConfigError naming the file and the key."""

    def __init__(self, source: str) -> None:
        self.source = source

    def fail(self, key: str, what: str) -> ConfigError:
        """The one-line error, a value of any size in it cut to a readable length."""
        return ConfigError(f"{self.source}: {clip(f'{key}: {what}', 300)}")

    def table(self, data: Any, key: str, owner: type | Sequence[str]) -> dict[str, Any]:
        """``data`` as the table ``key`` whose keys are ``owner``'s: a dataclass's fields
        (``source`` aside), or the names given."""
        if not isinstance(data, dict):
            raise self.fail(key, f"expected a table ([{key}]), got {kind_of(data)}")
        known = [f.name for f in fields(owner) if f.name != "source"] \
            if isinstance(owner, type) else list(owner)
        for name in data:
            if name not in known:
                where = join_key(key, name)
                hint = difflib.get_close_matches(name, known, n=1, cutoff=0.6)
                suggestion = f"; did you mean '{hint[0]}'?" if hint else ""
                raise self.fail(where, f"unknown key{suggestion} (known: {', '.join(known)})")
        return data

    def integer(self, data: dict[str, Any], key: str, name: str, default: int,
                lo: int | None = None, hi: int | None = None) -> int:
        if name not in data:
            return default
        value = data[name]
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.fail(join_key(key, name), f"expected an integer, got {kind_of(value)}")
        if (lo is not None and value < lo) or (hi is not None and value > hi):
            raise self.fail(join_key(key, name), f"{value} is out of range {lo}..{hi}")
        return value

    def number(self, data: dict[str, Any], key: str, name: str, default: float,
               lo: float, hi: float) -> float:
        if name not in data:
            return default
        value = data[name]
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise self.fail(join_key(key, name), f"expected a number, got {kind_of(value)}")
        if not lo <= value <= hi:
            raise self.fail(join_key(key, name), f"{value} is out of range {lo:g}..{hi:g}")
        return float(value)

    def boolean(self, data: dict[str, Any], key: str, name: str, default: bool) -> bool:
        if name not in data:
            return default
        value = data[name]
        if not isinstance(value, bool):
            raise self.fail(join_key(key, name), f"expected true or false, got {kind_of(value)}")
        return value

    def choice(self, data: dict[str, Any], key: str, name: str, default: str,
               choices: tuple[str, ...]) -> str:
        if name not in data:
            return default
        value = data[name]
        if value not in choices:
            hint = ""
            if isinstance(value, str):
                close = difflib.get_close_matches(value, choices, n=1, cutoff=0.5)
                hint = f"; did you mean '{close[0]}'?" if close else ""
            raise self.fail(
                join_key(key, name), f"{value!r} is not one of {', '.join(choices)}{hint}"
            )
        return str(value)

    def string(self, data: dict[str, Any], key: str, name: str, default: str) -> str:
        if name not in data:
            return default
        value = data[name]
        if not isinstance(value, str) or not value.strip():
            raise self.fail(join_key(key, name),
                            f"expected a non-empty string, got {kind_of(value)}")
        if len(value) > 4096 or any(ch < " " for ch in value):
            raise self.fail(join_key(key, name), "expected one line of text (no control "
                            "characters, at most 4096)")
        return value

    def gpio(self, data: dict[str, Any], key: str, name: str, default: int,
             optional: bool = False) -> int:
        value = self.integer(data, key, name, default)
        if optional and value == 0:
            return 0
        if value not in USABLE_GPIOS:
            raise self.fail(join_key(key, name), f"GPIO{value} is not a usable header GPIO (2..27)")
        return value

    def gpio_list(self, data: dict[str, Any], key: str, name: str,
                  default: tuple[int, ...], length: int) -> tuple[int, ...]:
        value = data.get(name, list(default))
        where = join_key(key, name)
        if not isinstance(value, list):
            raise self.fail(where, f"expected a list of GPIO numbers, got {kind_of(value)}")
        if len(value) != length:
            raise self.fail(where, f"expected {length} GPIO numbers, got {len(value)}")
        for i, pin in enumerate(value):
            if isinstance(pin, bool) or not isinstance(pin, int):
                raise self.fail(f"{where}[{i}]", f"expected a GPIO number, got {kind_of(pin)}")
            if pin not in USABLE_GPIOS:
                raise self.fail(f"{where}[{i}]", f"GPIO{pin} is not a usable header GPIO (2..27)")
        return tuple(value)


def join_key(key: str, name: str) -> str:
    return f"{key}.{name}" if key else name


def kind_of(value: object) -> str:
    if isinstance(value, dict):
        return "a table"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, bool):
        return "a boolean"
    return f"{type(value).__name__} {value!r}"

