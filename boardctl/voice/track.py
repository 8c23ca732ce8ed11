"""The game as the voice follows it from the feed: the rule set, and the position before the
next move (so that a move is read with its whole route and its crowning), kept from the
``game``, ``snapshot``, ``move``, ``position`` and ``takeback`` records.

Only FEN texts are kept, one per ply (bounded), and a position is built when a move is read.
"""

from __future__ import annotations

import logging

from firmware.errors import BoardError
from firmware.rules.position import Position
from firmware.rules.sets import RuleSet, find_rules

logger = logging.getLogger(__name__)

#: Plies whose position is kept for a take-back (a game is far shorter).
MAX_PLIES = 2000
#: The longest FEN or game id kept (a 100-square FEN with every piece a king is ~200).
MAX_TEXT = 512


def _text(value: object) -> str | None:
    return value if isinstance(value, str) and len(value) <= MAX_TEXT else None


class GameTrack:
    """The rule set, the game's id, and the FEN after each ply since the last known start."""

    def __init__(self, rules: RuleSet | str = "international") -> None:
        self.rules = find_rules(rules)
        self.game: str | None = None
        #: The position now (FEN), or None when not known.
        self.fen: str | None = None
        #: ply -> FEN after it; 0 -> the position the plies start from.
        self._after: dict[int, str] = {}
        self._warned: set[str] = set()

    def set_rules(self, name: object) -> None:
        if not isinstance(name, str) or name == self.rules.name or len(name) > 40:
            return
        try:
            self.rules = find_rules(name)
        except BoardError as exc:
            if name not in self._warned and len(self._warned) < 16:
                self._warned.add(name)
                logger.warning(f"voice: {exc}: squares said as the feed names them")

    def new_game(self, game: object) -> bool:
        """Note the game's id; True when it is another game than the one followed."""
        game = _text(game)
        if game is None or game == self.game:
            return False
        self.game = game
        self.fen = None
        self._after.clear()
        return True

    def start_at(self, fen: object, ply: int = 0) -> None:
        """The position after ``ply`` plies (a game's start, a snapshot, an accepted board);
        the plies before it are forgotten unless it is the position already known there."""
        fen = _text(fen)
        if fen is not None and self._after.get(ply) == fen:
            self.take_back(ply)
            return
        self._after.clear()
        self.fen = fen
        if self.fen is not None:
            self._after[ply] = self.fen

    def after(self, ply: int, fen: object) -> None:
        """A move made: ``fen`` is the position after ply ``ply``."""
        self.fen = _text(fen)
        if self.fen is None:
            return
        if len(self._after) >= MAX_PLIES:
            del self._after[min(self._after)]
        self._after[ply] = self.fen

    def take_back(self, ply: int) -> None:
        """Plies after ``ply`` taken back: the position after ``ply`` again, when known."""
        for later in [p for p in self._after if p > ply]:
            del self._after[later]
        self.fen = self._after.get(ply)

    def position(self) -> Position | None:
        """The position now, or None when unknown or not a position of the rule set."""
        if self.fen is None:
            return None
        try:
            return Position.from_fen(self.rules, self.fen)
        except (BoardError, ValueError):
            return None
