"""The menus' items and their values, each with what a 4-digit 7-segment face can show of it
(the faces' font: digits, ``A b C d E F G H I J L n o P q r t U v y``, ``-``, a point after
any digit, the colon between the second and the third digit).

======================  ========  ===============================================================
item                    face      values (their faces)
======================  ========  ===============================================================
time control            ``CLoC``  ``none`` (``nonE``) and the presets federations use
                                  (firmware.clock.timecontrol.PRESETS), by minutes and
                                  seconds of bonus: ``fmjd-blitz`` ``5.3``, ``fmjd-rapid``
                                  ``20.5``, ``fmjd-classical`` ``80.60`` ... (:data:`TIME_FACES`)
play the computer       ``CoPU``  ``off`` (``oFF``), ``white`` (``UHtE``), ``black`` (``bLAC``)
its level               ``LEUL``  ``1`` to ``10``
rule set                ``rULE``  those of the board's size (:data:`RULES_FACES`)
new game                ``nEU``   ``Go``: stop the game in play, start the next with the choices
the page's address      ``Addr``  the address, four characters a page (only when known)
======================  ========  ===============================================================

In a game under way only the new game (and the address) are offered: nothing else changes a
game in play.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from firmware.clock.timecontrol import PRESETS
from firmware.engine.levels import LEVELS
from firmware.rules.sets import RULESETS

#: A preset's face: minutes and the bonus's seconds (``5.3``: 5 min + 3 s a move), moves an
#: hour for the 1953 controls (``15H``), ``2H.50`` for 2 h for 50 moves.
TIME_FACES = {
    "fmjd-classical": "80.60", "fmjd-classical-periods": "2H.50", "fmjd-rapid": "20.5",
    "fmjd-blitz": "5.3", "fmjd-worldcup": "90.30", "russian-classical": "45",
    "russian-classical-fischer": "30.30", "russian-classical-40": "40.5",
    "russian-rapid": "8.4", "russian-rapid-20": "20", "russian-blitz": "3.2",
    "1953-15": "15H", "1953-18": "18H", "1953-20": "20H", "1953-25": "25H",
}
RULES_FACES = {
    "international": "IntL", "international1953": "In53", "russian": "rUS",
    "russian1953": "rU53", "brazilian": "brA", "international64": "In64", "home": "Ho",
}
COMPUTER_FACES = {"off": "oFF", "white": "UHtE", "black": "bLAC"}
NO_CLOCK = "none"


@dataclass(frozen=True, slots=True)
class Value:
    """One value of an item: its name (``status``, the choices file) and its face."""

    name: str
    face: str


@dataclass(frozen=True, slots=True)
class Item:
    """One item: its name, its face, the choice it sets (``key``, a field of
    ``boardctl.menu.choices.MenuChoices``; None: an act) and its values."""

    name: str
    face: str
    key: str | None
    values: Callable[[], list[Value]]


def face_of(text: str) -> str:
    """Any text as a face can show it: 4 digits, a point after any (``C3.d4``); a character
    the font lacks becomes ``-``."""
    font = set("0123456789AbCdEFGHIJLnoPqrtUvy -")
    glyphs = 0
    out: list[str] = []
    for ch in text:
        if ch == "." and out and out[-1] != ".":
            out.append(".")
            continue
        if glyphs == 4:
            break
        out.append(next((c for c in (ch, ch.upper(), ch.lower()) if c in font), "-"))
        glyphs += 1
    return "".join(out)


def time_values(current: str | None) -> list[Value]:
    values = [Value(NO_CLOCK, "nonE")] + [Value(name, TIME_FACES.get(name, face_of(name)))
                                          for name in PRESETS]
    if current is not None and current not in PRESETS:  # the board's own, kept too
        values.insert(1, Value(current, face_of(current.replace("+", "."))))
    return values


def rules_values(size: int) -> list[Value]:
    names = dict.fromkeys(r.name for r in RULESETS.values() if r.size == size)
    return [Value(name, RULES_FACES.get(name, face_of(name))) for name in names]


def level_values() -> list[Value]:
    return [Value(str(n), str(n)) for n in sorted(LEVELS)]


def computer_values() -> list[Value]:
    return [Value(name, face) for name, face in COMPUTER_FACES.items()]


def address_pages(address: str) -> list[Value]:
    """The address in pages of four characters (a point rides on the digit before it, a
    colon is a ``-``): ``192.168.1.50:8080`` -> ``192.1``, ``68.1.5``, ``0-80``, ``80``."""
    glyphs: list[str] = []
    for ch in address[:80]:
        if ch == "." and glyphs and not glyphs[-1].endswith("."):
            glyphs[-1] += "."
        else:
            glyphs.append(face_of(ch) or "-")
    pages = ["".join(glyphs[i:i + 4]) for i in range(0, len(glyphs), 4)]
    return [Value(address, page) for page in pages] or [Value(address, "----")]
