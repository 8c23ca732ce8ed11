"""What changed in the relay's games between two publishes, and the view that serves them.

:class:`Changes` (one a relay, on its state thread) finds the games whose PDN changed since
the last publish among the games of the feeds that sent anything meanwhile (every game only
when that cannot tell: a game gone, or a feed with more than one new game), and does every
other piece of work for those only:
their PDN text (written anew by the state for a changed game alone), the marks of when each
changed (for the delayed view after a restart: boardctl.relay.state.delayed_views, kept by the
store), the store's records (boardctl.relay.ledger) and the served view, in which the games
that did not change are the very same :class:`GameText` objects as before. So a move costs
the same late in an event as in its first round (docs/SCALE.md).
"""

from __future__ import annotations

from collections.abc import Collection

from boardctl.relay.delayed import MAX_MARKS
from boardctl.relay.games import RelayGame
from boardctl.relay.http import GameText, View, round_places
from boardctl.relay.ledger import Mark
from boardctl.relay.state import RelayState

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
        #: Each feed's games (their keys), for :meth:`since` given the feeds that sent.
        self._by_source: dict[str, list[str]] = {}
        #: Where each round's games are in the view (the same until the order changes).
        self._places: dict[str, list[int]] | None = None
        #: The view last served (None: none yet).
        self.view: View | None = None

    def since(self, state: RelayState, now: float,
              sources: Collection[str] | None = None) -> list[RelayGame]:
        """The games whose PDN changed since the last call, their texts and marks noted (the
        marks of a game whose text is the same are not); games no longer held forgotten.
        ``sources``: the feeds that sent anything since (only their games can have changed),
        None: every game looked at."""
        changed = self._of(state, sources) if sources is not None else None
        if changed is None:
            changed = self._every(state)
        for game in changed:
            key = game.key
            self._looks[key] = (game.version, game.board)
            body = state.text(game)
            seen = self.texts.get(key)
            if seen is None or seen[0] != body:
                self.texts[key] = (body, now)
                marks = self.marks.setdefault(key, [])
                marks.append((len(game.moves), game.result, now))
                del marks[:-MAX_MARKS]
        return changed

    def _every(self, state: RelayState) -> list[RelayGame]:
        """Every game looked at (and the games of each feed noted)."""
        looks = self._looks
        if len(looks) > len(state.games):
            for key in [k for k in looks if k not in state.games]:
                del looks[key]
                self.texts.pop(key, None)
                self.marks.pop(key, None)
        self._by_source = {}
        for key, game in state.games.items():
            self._by_source.setdefault(game.source, []).append(key)
        return [g for g in state.games.values() if looks.get(g.key) != (g.version, g.board)]

    def _of(self, state: RelayState, sources: Collection[str]) -> list[RelayGame] | None:
        """The games of ``sources`` that changed; None when that cannot be told so (a game
        gone, or more games than each source's newest: every game is looked at then)."""
        looks, games, changed, new = self._looks, state.games, [], 0
        if self.view is None:
            return None
        for name in sources:
            keys = self._by_source.setdefault(name, [])
            last = state.source(name).last
            if last is not None and last not in looks and last not in keys:
                keys.append(last)
                new += 1
            for key in keys:
                game = games.get(key)
                if game is None:
                    return None
                if looks.get(key) != (game.version, game.board):
                    changed.append(game)
        return changed if len(games) == len(looks) + new else None

    def serve(self, state: RelayState, changed: list[RelayGame], now: float) -> View | None:
        """The view to serve now, or None when no game served changed (nor went)."""
        served = self._served
        placed = self.view is not None and served.keys() <= state.games.keys()
        if self.view is not None and placed and not any(g.shown for g in changed):
            return None
        for game in changed:
            if game.shown:
                was, now_served = served.get(game.key), self._game_text(game)
                placed &= was is not None and was.round == now_served.round
                served[game.key] = now_served
        if not placed:  # a game served anew (it goes last), gone, or in another round
            served = self._served = {key: served.get(key) or self._game_text(game)
                                     for key, game in state.games.items() if game.shown}
        games = tuple(served.values())
        if not placed or self._places is None:
            self._places = round_places(games)
        self.view = View(games, now, places=self._places)
        return self.view

    def _game_text(self, game: RelayGame) -> GameText:
        text, changed = self.texts[game.key]
        return GameText(game.key, game.round_tag(), game.tags.get("Board") or game.board, text,
                        changed)
