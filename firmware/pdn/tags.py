"""What a game's PDN tags may be when they come from outside (a control request, a round's
setup, the command line): names the PDN writer can write, short single lines of real text, a
bounded number, and none of the tags the game sets itself. Bounded so that a game's journal
header always fits a journal line (``firmware.limits.MAX_LINE``: 32 values of 200 characters,
each up to 6 bytes in the journal's ASCII JSON, stay under 40 KiB)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from firmware.limits import is_text

#: At most this many tags, names this long, values this long.
MAX_TAGS = 32
MAX_NAME = 40
MAX_VALUE = 200
#: Set by the game itself (its start position, rule set, result, clock), never by a tag.
RESERVED = frozenset({"FEN", "SetUp", "GameType", "Result", "TimeControl"})

_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]*")


def tag_problem(name: object, value: object) -> str | None:
    """Why ``name: value`` cannot be a game's tag, or None when it can."""
    if not isinstance(name, str) or len(name) > MAX_NAME or not _NAME.fullmatch(name):
        return (f"{str(name)[:40]!r} is not a PDN tag name (a letter, then letters, digits or "
                f"_, at most {MAX_NAME})")
    if name in RESERVED:
        return f"the {name} tag is the game's own (its position, rules, result or clock)"
    if isinstance(value, bool) or not isinstance(value, str | int):
        return f"tag {name}: its value must be text"
    text = str(value)
    if len(text) > MAX_VALUE or any(ch < " " or ch == "\x7f" for ch in text):
        return f"tag {name}: not a line of at most {MAX_VALUE} characters"
    if not is_text(text):
        return f"tag {name}: not valid text (a lone UTF-16 surrogate)"
    return None


def tags_problem(tags: Mapping[Any, Any]) -> str | None:
    """Why ``tags`` cannot be a game's tags, or None."""
    if len(tags) > MAX_TAGS:
        return f"at most {MAX_TAGS} tags, not {len(tags)}"
    for name, value in tags.items():
        problem = tag_problem(name, value)
        if problem is not None:
            return problem
    return None


def fit_tags(tags: Mapping[Any, Any]) -> dict[str, str]:
    """The tags of ``tags`` a game may carry (:func:`tag_problem`), values as text, the first
    :data:`MAX_TAGS` of them: what a reader of records from outside (a relay, a live page)
    keeps of a game's tags it does not refuse whole."""
    out: dict[str, str] = {}
    for name, value in tags.items():
        if len(out) >= MAX_TAGS:
            break
        if tag_problem(name, value) is None:
            out[name] = str(value)
    return out
