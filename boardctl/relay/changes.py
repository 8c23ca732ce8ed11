"""What changed in the relay's games between two publishes, and the view that serves them.

:class:`Changes` (one a relay, on its state thread) finds the games whose PDN changed since
the last publish with one pass over them, and does every other piece of work for those only:
their PDN text (written anew by the state for a changed game alone), the marks of when each
changed (for the delayed view after a restart: boardctl.relay.state.delayed_views, kept by the
store), the store's records (boardctl.relay.ledger) and the served view, in which the games
that did not change are the very same :class:`GameText` objects as before. So a move costs
the same late in an event as in its first round (docs/SCALE.md).
"""

from __future__ import annotations

from boardctl.relay.games import RelayGame
from boardctl.relay.http import GameText, View
from boardctl.relay.ledger import Mark
from boardctl.relay.state import MAX_MARKS, RelayState

__all__ = ["Changes"]


class Changes:
    """Each game's looks (what its text is made of) and PDN text as last published, when that
    text last changed, its marks, and the games served (module docstring)."""

    def __init__(self) -> None:
        self._looks: dict[str, tuple[int, str]] = {}
        #: Each game's PDN text and when it last changed (the store keeps that text too).
        self.texts: dict[str, tuple[str, float]] = {}
        #: Each game's changes: (moves, result, wall time), for a delayed view after a restart.
        self.marks: dict[str, list[Mark]] = {}
        self._served: dict[str, GameText] = {}
        #: The view last served (None: none yet).
        self.view: View | None = None

    def since(self, state: RelayState, now: float) -> list[RelayGame]:
        """The games whose PDN changed since the last call, their texts and marks noted (the
        marks of a game whose text is the same are not); games no longer held forgotten."""
        looks = self._looks
        changed = [g for g in state.games.values() if looks.get(g.key) != (g.version, g.board)]
        for game in changed:
            key = game.key
            looks[key] = (game.version, game.board)
            body = state.text(game)
            seen = self.texts.get(key)
            if seen is None or seen[0] != body:
                self.texts[key] = (body, now)
                marks = self.marks.setdefault(key, [])
                marks.append((len(game.moves), game.result, now))
                del marks[:-MAX_MARKS]
        if len(looks) > len(state.games):
            for key in [k for k in looks if k not in state.games]:
                del looks[key]
                self.texts.pop(key, None)
                self.marks.pop(key, None)
        return changed

    def serve(self, state: RelayState, changed: list[RelayGame], now: float) -> View | None:
        """The view to serve now, or None when no game served changed (nor went)."""
        served = self._served
        placed = self.view is not None and served.keys() <= state.games.keys()
        if self.view is not None and placed and not any(g.shown for g in changed):
            return None
        for game in changed:
            if game.shown:
                placed &= game.key in served
                served[game.key] = self._game_text(game)
        if not placed:  # a game served anew (it goes last) or gone: the order made again
            served = self._served = {key: served.get(key) or self._game_text(game)
                                     for key, game in state.games.items() if game.shown}
        self.view = View(tuple(served.values()), now)
        return self.view

    def _game_text(self, game: RelayGame) -> GameText:
        text, changed = self.texts[game.key]
        return GameText(game.key, game.round_tag(), game.tags.get("Board") or game.board, text,
                        changed)
