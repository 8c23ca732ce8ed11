"""What the page offers for the next game, and what ``POST /api/new`` takes.

The choices come from where the rest of the project keeps them: the rule sets of the board's
size (firmware.rules.sets), the time-control presets with their sources (the table
``boardctl clock --list-presets`` prints: firmware.clock.timecontrol), the engine's levels
(firmware.engine.levels). :func:`new_request` turns the page's JSON into the control socket's
``new`` request; the service checks the values and refuses a wrong one in one line.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from typing import Any

from boardctl.page.replies import BadRequest

#: ``POST /api/new``'s keys (CONTRACT.md), and ``force``: abandon a game in play.
NEW_KEYS = ("rules", "time_control", "fen", "engine", "engine_side", "engine_level",
            "white", "black", "force")
#: The keys passed to the service's ``new`` as they are.
PASSED = ("rules", "time_control", "fen", "engine", "engine_side", "engine_level", "force")
#: Players' names at most (characters).
MAX_NAME = 80


@cache
def choices(size: int) -> dict[str, Any]:
    """The page's settings choices on a board of ``size``."""
    from firmware.clock.timecontrol import PRESETS, SOURCES
    from firmware.engine.levels import LEVELS, NAMES
    from firmware.rules.sets import RULESETS

    named = {number: name for name, number in NAMES.items() if name != "max"}
    return {
        "rules": [name for name, rules in RULESETS.items() if rules.size == size],
        "presets": [{"name": name, "control": str(control), "description": control.describe(),
                     "source": SOURCES.get(name, "")} for name, control in PRESETS.items()],
        "levels": [{"level": str(n), "name": named.get(n, "")} for n in LEVELS],
    }


def new_request(body: Mapping[str, Any]) -> dict[str, Any]:
    """The control socket's ``new`` request for a ``POST /api/new`` body; BadRequest (400)
    for an unknown key or a name that is no text. ``time_control`` null: no clock."""
    unknown = sorted(set(body) - set(NEW_KEYS))
    if unknown:
        raise BadRequest(400, f"unknown key {unknown[0][:40]!r} (known: {', '.join(NEW_KEYS)})")
    request: dict[str, Any] = {"cmd": "new"}
    for key in PASSED:
        if key in body:
            request[key] = body[key]
    if "time_control" in body and body["time_control"] is None:
        request["time_control"] = "none"
    tags = {}
    for key in ("white", "black"):
        name = body.get(key)
        if name is None:
            continue
        if not isinstance(name, str) or len(name) > MAX_NAME:
            raise BadRequest(400, f"{key!r} must be a player's name (text, at most {MAX_NAME} "
                             "characters)")
        if name.strip():
            tags[key.capitalize()] = name.strip()
    if tags:
        request["tags"] = tags
    return request
