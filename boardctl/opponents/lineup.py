"""The opponent not at the board, seated for the whole run (``boardctl run --opponent``):
a :class:`boardctl.service.door.Lineup` whose player is made once, when the service starts,
and plays every game after (a ``new`` request chooses no other; the opponent starts its games
itself: lidraughts' through the service's ``new``)."""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from typing import Any

from boardctl.service.control.schema import ControlError
from boardctl.service.door import Pick, Seat

logger = logging.getLogger(__name__)


class OpponentLineup:
    """One opponent for the run: ``make(seat)`` makes it when the service starts."""

    def __init__(self, make: Callable[[Seat], object]) -> None:
        self.make = make
        self.player: object | None = None

    def first(self, rules: str, seat: Seat) -> object | None:
        if self.player is None:
            self.player = self.make(seat)
        return self.player

    def ready(self, args: Mapping[str, Any], rules: str) -> None:
        """Nothing slow to choose."""

    def choose(self, args: Mapping[str, Any], rules: str, seat: Seat) -> Pick | None:
        """The opponent plays on; a request choosing an engine is refused in one line."""
        if args:
            raise ControlError(f"new: {sorted(args)[0]!r}: this board plays an opponent not "
                               "at the board (--opponent); no other player per game")
        return None
