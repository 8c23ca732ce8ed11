"""Typed reads of the fields of a server's JSON object: what is read is checked once, here,
and nothing after it looks at raw JSON (STYLE.md lesson 18). A wrong field is a ProtocolError
naming the object and the field."""

from __future__ import annotations

import re
from typing import Any

from boardctl.online.errors import ProtocolError

#: Game and challenge ids as lidraughts makes them (8 letters and digits; a game id with the
#: player's 4 more): checked before one goes into a request's path.
_ID = re.compile(r"^[A-Za-z0-9]{8}(?:[A-Za-z0-9]{4})?$")
MAX_TEXT = 200


def section(obj: dict[str, Any], key: str, what: str) -> dict[str, Any]:
    value = obj.get(key)
    if not isinstance(value, dict):
        raise ProtocolError(f"{what} without its {key!r} object")
    return value


def maybe_section(obj: dict[str, Any], key: str, what: str) -> dict[str, Any] | None:
    value = obj.get(key)
    if value is None:
        return None
    if not isinstance(value, dict):
        raise ProtocolError(f"{what}: {key!r} is not an object")
    return value


def text(obj: dict[str, Any], key: str, what: str, default: str | None = None) -> str:
    value = obj.get(key, default)
    if not isinstance(value, str):
        raise ProtocolError(f"{what} without its {key!r} text")
    if len(value) > MAX_TEXT and key not in ("moves", "initialFen"):  # bounded by the line
        raise ProtocolError(f"{what}: {key!r} is longer than {MAX_TEXT} characters")
    return value


def maybe_text(obj: dict[str, Any], key: str, what: str) -> str | None:
    if obj.get(key) is None:
        return None
    return text(obj, key, what)


def number(obj: dict[str, Any], key: str, what: str, default: int | None = None) -> int:
    value = obj.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ProtocolError(f"{what} without its {key!r} number")
    if not -(2**53) < value < 2**53:
        raise ProtocolError(f"{what}: {key!r} is out of range")
    return int(value)


def flag(obj: dict[str, Any], key: str, what: str) -> bool:
    value = obj.get(key, False)
    if not isinstance(value, bool):
        raise ProtocolError(f"{what}: {key!r} is not true or false")
    return value


def ident(obj: dict[str, Any], key: str, what: str) -> str:
    value = text(obj, key, what)
    if not _ID.match(value):
        raise ProtocolError(f"{what}: {key!r} {value[:20]!r} is not a lidraughts id")
    return value

