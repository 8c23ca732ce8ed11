"""The relay's games kept across restarts: its store (boardctl.relay.store) written with the
records of what changed (boardctl.relay.ledger), read back before anything is served.

:class:`Keeper` is the relay's part that talks to the store: :meth:`restore` takes back what a
former run kept, :meth:`keep` appends and fsyncs the records of the games that changed (before
the relay serves them), :meth:`close` writes the store anew at a clean stop. A store that
cannot be written is told once (and once more when it can be again); the relay serves all the
same: a board's next snapshot is the other copy of its game.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from boardctl.relay.changes import Changes
from boardctl.relay.delayed import MAX_MARKS, _mark
from boardctl.relay.games import RelayGame, _clean
from boardctl.relay.ledger import Ledger
from boardctl.relay.restore import restore_games
from boardctl.relay.state import RelayState
from boardctl.relay.store import GameStore

__all__ = ["Keeper"]

logger = logging.getLogger(__name__)


class Keeper:
    """The store and what it holds (module docstring)."""

    def __init__(self, store: GameStore, log: Callable[[str], None] | None = None) -> None:
        self.store = store
        self.ledger = Ledger()
        self.log = log
        self._error: str | None = None

    def _tell(self, message: str) -> None:
        if self.log is not None:
            self.log(message)
        else:
            logger.warning(message)

    def restore(self, state: RelayState, changes: Changes) -> int:
        """What the store kept, taken back into ``state`` with each game's marks; the games
        taken."""
        kept = self.store.load()
        taken = restore_games(state, kept)
        for item in kept:
            ident = _clean(str(item["game"].get("game")))[:80]
            key = f"{item['source']}/{ident}" if item["topic"] else ident
            marks = item["game"].get("marks")
            if key in state.games and isinstance(marks, list):
                changes.marks[key] = [(m[0], m[1], m[2]) for m in marks if _mark(m)][-MAX_MARKS:]
        self.ledger.prime(state.games.values(), changes.marks)  # as they are on disk
        if kept:
            self._tell(f"relay: {taken} games restored from {self.store.folder}")
        return taken

    def keep(self, state: RelayState, changes: Changes, changed: list[RelayGame]) -> None:
        """The records of the ``changed`` games appended and fsync'd (or the store written
        anew, when that is due), before they are served."""
        games, texts, marks = state.games, changes.texts, changes.marks

        def topic(source: str) -> bool:
            return state.source(source).topic

        try:
            kept = self.store.keep(
                lambda: self.ledger.records(changed, games, texts, marks, topic),
                lambda: self.ledger.whole(games.values(), texts, marks, topic))
            self.store.sync()
        except OSError as exc:
            message = (f"relay: games cannot be kept in {self.store.folder}: "
                       f"{exc.strerror or exc} (served all the same; a restart now would serve "
                       "them only from the boards' snapshots)")
            if message != self._error:
                self._tell(message)
            self._error = message
            return
        if kept and self._error is not None:
            self._tell(f"relay: games kept in {self.store.folder} again")
            self._error = None

    def close(self, state: RelayState, changes: Changes) -> None:
        """The store written anew (every game whole: a fast start next time) and closed."""
        try:
            self.store.compact(self.ledger.whole(state.games.values(), changes.texts,
                                                 changes.marks,
                                                 lambda s: state.source(s).topic))
        except OSError as exc:
            self._tell(f"relay: {self.store.folder}: not written anew at the stop: "
                       f"{exc.strerror or exc} (read back as it is)")
        self.store.close()
