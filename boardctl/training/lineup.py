"""The training session's lineup for the player door (:class:`boardctl.service.door.Lineup`):
one training player for the whole run (``--train`` or ``--puzzles``), made once the service
has its seat; a ``new`` request keeps it (a new game is the line again, or the next puzzle)
and chooses no other player."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from boardctl.service.control.schema import ControlError
from boardctl.service.door import Pick, Seat


class TrainingLineup:
    """``make(seat)`` makes the training player (a :class:`~boardctl.training.players.GuessPlayer`
    or :class:`~boardctl.training.players.PuzzlePlayer`) of a run of ``rules``."""

    def __init__(self, make: Callable[[Seat], object], rules: str) -> None:
        self.make = make
        self.rules = rules

    def first(self, rules: str, seat: Seat) -> object | None:
        if rules != self.rules:  # a resumed game of another rule set: no training in it
            return None
        return self.make(seat)

    def ready(self, args: Mapping[str, Any], rules: str) -> None:
        return None

    def choose(self, args: Mapping[str, Any], rules: str, seat: Seat) -> Pick | None:
        if args:
            raise ControlError(f"new: {sorted(args)[0]!r}: this board trains (--train or "
                               "--puzzles): it chooses no other player")
        if rules != self.rules:
            raise ControlError(f"new: this board trains on {self.rules} games, not {rules}")
        return None
