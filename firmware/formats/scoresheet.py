"""The game as written down: the :class:`Scoresheet`, moves and accepted positions in order,
the one place the PDN movetext, the ``[%clock]`` readings, the snapshot's start and the move
list come from."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from firmware.clock.timecontrol import TimeControl
from firmware.formats.records import MoveRecord, PositionRecord
from firmware.pdn import ClockReading, Setup, rules_tags, write_game
from firmware.rules.sets import RuleSet


class Scoresheet:
    """The game as written down: move records and accepted positions, in order."""

    def __init__(self, start_fen: str) -> None:
        self.start_fen = start_fen
        self.entries: list[MoveRecord | PositionRecord] = []
        #: The move records, in order.
        self.played: list[MoveRecord] = []
        #: The same as feed lines (kept as written: ``status``, the engine and the gap search
        #: read them).
        self.moves: list[dict[str, Any]] = []
        self._setup_at: tuple[str, int] | None = None

    def add(self, entry: MoveRecord | PositionRecord) -> None:
        self.entries.append(entry)
        if isinstance(entry, MoveRecord):
            self.played.append(entry)
            self.moves.append(entry.to_json())
        else:
            self._setup_at = (entry.fen, len(self.moves))

    def take_back(self, plies: int) -> int:
        """Strike the last ``plies`` moves (all moves since the start or the last accepted
        position); how many moves are left. ValueError when there are not that many."""
        since = len(self.moves) - (self._setup_at[1] if self._setup_at is not None else 0)
        if not 1 <= plies <= since:
            raise ValueError(f"{since} {'ply' if since == 1 else 'plies'} can be taken back "
                             "(since the start or the last accepted position)")
        del self.entries[-plies:]
        del self.played[-plies:]
        del self.moves[-plies:]
        return len(self.moves)

    def movetext(self) -> list[str | Setup]:
        """PDN movetext items: move texts and ``/FEN "..."/`` setups."""
        return [e.move if isinstance(e, MoveRecord) else Setup(e.fen) for e in self.entries]

    def clocks(self) -> list[ClockReading | None]:
        """The ``[%clock]`` after each move, in move order."""
        return [m.reading() for m in self.played]

    def snapshot_start(self) -> tuple[str, tuple[MoveRecord, ...]]:
        """Where a snapshot starts: the start FEN or the last accepted position (000 5.7), and
        the move records since, so that replaying them gives the current position."""
        if self._setup_at is None:
            return self.start_fen, tuple(self.played)
        fen, first = self._setup_at
        return fen, tuple(self.played[first:])

    def pdn(self, rules: RuleSet, tags: Mapping[str, str], control: TimeControl | None,
            start_fen: str | None, result: str) -> str:
        """The game so far as PDN: the moves made, ``[%clock]`` after each with a time
        control, accepted positions as ``/FEN "..."/`` setups; ``start_fen`` for a game that
        did not start from the start position."""
        all_tags = {**rules_tags(rules), **tags}
        if control is not None:
            all_tags.setdefault("TimeControl", str(control))
        return write_game(all_tags, self.movetext(), start_fen=start_fen,
                          clocks=self.clocks() if control is not None else None, result=result)
