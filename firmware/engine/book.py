"""The opening book: the first moves of real games, so that the engine answers the opening at
once and varies it as masters do.

The book (firmware.engine.openings) holds every position of the first :data:`BOOK_PLIES` plies
of the games of tests/data/pdn (the PDN 3.0 reference collection: 93 international games, 153
of the 1947 USSR championship) with the moves played in it and how often, as Hub positions and
moves (``32-28``, ``28x19x23``; 8x8 squares numbered as 10x10 are: firmware.rules.geometry).
``python -m boardctl.engine.bookmaker`` makes it (:func:`book_positions`, :func:`module_text`);
held as data, it costs the engine nothing to load. :meth:`Book.pick` draws one of a position's
moves, as often as it was played; a position the games never reached has no book move.

Each book serves the rule sets whose moves in the opening are those of its games (a book move
is checked legal all the same): the international book international and the 1953 rules for
100 squares (captures of the most pieces, kings flying, as FMJD's); the Russian book Russian
and the 1953 rules for 64 squares (captures as in Russian, seed 004 §8, §9).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable, Mapping

from firmware.engine.hub import HubError, move_text, parse_move, position_text
from firmware.rules.game import Game
from firmware.rules.position import Move, Position
from firmware.rules.sets import RuleSet, find_rules

#: Plies of each game the book holds.
BOOK_PLIES = 12
#: Which book serves a rule set (module docstring).
BOOK_OF = {"international": "international", "international1953": "international",
           "russian": "russian", "russian1953": "russian"}


class Book:
    """Hub positions -> ``"32-28:31 33-28:20"`` (the moves played there, how often)."""

    def __init__(self, rules: RuleSet | str, positions: Mapping[str, str]) -> None:
        self.rules = find_rules(rules)
        self.positions = positions

    def __len__(self) -> int:
        return len(self.positions)

    def moves(self, position: Position) -> dict[str, int]:
        """The book's moves of ``position`` (Hub text -> times played); none off the book."""
        if position.rules != self.rules:
            return {}
        out = {}
        for item in self.positions.get(position_text(position), "").split():
            text, _, count = item.partition(":")
            out[text] = int(count) if count.isdigit() else 1
        return out

    def pick(self, position: Position, rng: random.Random) -> Move | None:
        """A book move of ``position`` (each as often as the games played it), or None."""
        played = self.moves(position)
        if not played:
            return None
        texts = sorted(played)
        text = rng.choices(texts, weights=[played[t] for t in texts])[0]
        try:
            return parse_move(position, text)
        except HubError:
            return None


_BOOKS: dict[str, Book | None] = {}


def book_for(rules: RuleSet | str) -> Book | None:
    """The book that serves ``rules``, or None."""
    from firmware.engine.openings import BOOKS

    name = find_rules(rules).name
    if name not in _BOOKS:
        source = BOOK_OF.get(name)
        _BOOKS[name] = Book(name, BOOKS[source]) if source in BOOKS else None
    return _BOOKS[name]


def book_positions(games: Iterable[Game], plies: int = BOOK_PLIES) -> dict[str, Counter[str]]:
    """The positions of the first ``plies`` plies of games played from the start position
    (another start gives none), each with the moves played in it and how often."""
    out: dict[str, Counter[str]] = {}
    for game in games:
        record = game.record()
        if not record or game.history[0].fen() != Position.start(game.rules).fen():
            continue
        for (move, _), before in zip(record[:plies], game.history, strict=False):
            if move is None:
                break
            out.setdefault(position_text(before), Counter())[move_text(move)] += 1
    return out
