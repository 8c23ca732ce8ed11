"""Players of a tournament: reading the organizer's list, and the drawing of numbers.

Seed 004, appendix: "Esmalt saavad kõik turniirist osavõtjad loosimise teel numbri" (first every
participant draws a number, 1 to the number of participants). The drawing takes an injected
random generator so that a drawing can be repeated (``random.Random(seed)``) and tested.
"""

from __future__ import annotations

import csv
import io
import random
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from firmware.errors import TournamentError
from firmware.limits import ascii_digits

MAX_NAME = 80
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


@dataclass(frozen=True, slots=True)
class Player:
    """A participant: the name as the PDN ``White``/``Black`` tags carry it, rating and club
    when the organizer's list has them."""

    name: str
    rating: int | None = None
    club: str | None = None


def check_name(name: str, where: str = "player") -> str:
    """A usable player name: trimmed, non-empty, printable, at most 80 characters."""
    text = name.strip()
    if not text:
        raise TournamentError(f"{where}: empty name")
    if len(text) > MAX_NAME:
        raise TournamentError(f"{where}: name longer than {MAX_NAME} characters")
    if _CONTROL.search(text):
        raise TournamentError(f"{where}: name {text[:20]!r} has control characters")
    return text


def parse_players(text: str, source: str = "<players>") -> list[Player]:
    """Players from a list: one name a line, or CSV with a header naming ``name`` and
    optionally ``rating`` and ``club``. Blank lines and ``#`` comments are skipped. A duplicate
    name, a bad rating or a row with too many fields is a TournamentError naming the line."""
    lines = text.splitlines()
    first = next((ln for ln in lines if ln.strip() and not ln.lstrip().startswith("#")), "")
    header = [h.strip().lower() for h in first.split(",")]
    if "name" in header and ("," in first or first.strip().lower() == "name"):
        players = _parse_csv(lines, source)
    else:
        players = []
        for number, line in enumerate(lines, 1):
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            if "," in line:
                raise TournamentError(
                    f"{source}:{number}: a comma in a plain list (a CSV needs a header "
                    "line naming name, rating, club)"
                )
            players.append(Player(check_name(line, f"{source}:{number}")))
    check_unique(players, source)
    return players


def _parse_csv(lines: Sequence[str], source: str) -> list[Player]:
    rows = csv.reader(io.StringIO("\n".join(lines)))
    try:
        return _csv_players(rows, source)
    except csv.Error as exc:  # a field over csv's limit, a quote left open at the end, ...
        raise TournamentError(f"{source}:{rows.line_num}: not CSV: {exc}") from None


def _csv_players(rows: Any, source: str) -> list[Player]:
    header: list[str] | None = None
    players = []
    for row in rows:
        number = rows.line_num
        if not any(cell.strip() for cell in row) or row[0].lstrip().startswith("#"):
            continue
        if header is None:
            header = [cell.strip().lower() for cell in row]
            unknown = set(header) - {"name", "rating", "club"}
            if unknown or len(set(header)) != len(header):
                raise TournamentError(
                    f"{source}:{number}: CSV header must name name, rating, club (each once),"
                    f" not {', '.join(header)[:80]!r}"
                )
            continue
        if len(row) > len(header):
            raise TournamentError(f"{source}:{number}: {len(row)} fields, header has "
                                  f"{len(header)}")
        cells = dict(zip(header, (c.strip() for c in row), strict=False))
        where = f"{source}:{number}"
        rating = None
        if cells.get("rating"):
            rating_text = cells["rating"]
            if not ascii_digits(rating_text) or len(rating_text) > 5:
                raise TournamentError(f"{where}: rating {cells['rating'][:20]!r} is not a "
                                      "whole number")
            rating = int(cells["rating"])
        club = cells.get("club") or None
        if club is not None:
            club = check_name(club, f"{where}: club")
        players.append(Player(check_name(cells.get("name", ""), where), rating, club))
    return players


def check_unique(players: Iterable[Player], source: str = "players") -> None:
    seen: set[str] = set()
    for player in players:
        key = player.name.casefold()
        if key in seen:
            raise TournamentError(f"{source}: duplicate player {player.name!r}")
        seen.add(key)


def draw_numbers(names: Sequence[str], rng: random.Random) -> dict[str, int]:
    """The drawing of lots (seed 004, appendix): each name gets one number 1..len(names)."""
    numbers = list(range(1, len(names) + 1))
    rng.shuffle(numbers)
    return dict(zip(names, numbers, strict=True))
