"""The relay's delayed views after a restart (pure: no I/O): with a broadcast delay, the public
view goes on from where it stood before the restart, rebuilt from when each game's moves and
result came (the marks the relay's store keeps), showing nothing earlier than the delay allows
and never less than before the restart."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from boardctl.relay.http import GameText, View
from boardctl.relay.state import RelayState
from firmware.rules.game import RESULTS

__all__ = ["MAX_MARKS", "delayed_views"]

#: Changes of one game remembered (for the delayed view after a restart; the oldest go).
MAX_MARKS = 1000


def _mark(m: Any) -> bool:
    """A stored mark: [moves, result or null, wall time]."""
    return (isinstance(m, list) and len(m) == 3 and isinstance(m[0], int)
            and (m[1] is None or m[1] in RESULTS) and isinstance(m[2], int | float)
            and not isinstance(m[0], bool))


def delayed_views(state: RelayState, marks: Mapping[str, list[tuple[int, str | None, float]]],
                  now: float, delay: float) -> list[View]:
    """After a restart with a broadcast delay: the views of the last ``delay`` seconds rebuilt
    from each game's marks (when its moves and result came), so that the public view goes on
    from where it stood, showing nothing earlier than the delay allows and never less than
    before the restart. A game without marks counts as old (public at once)."""
    cut = now - delay
    texts: dict[str, GameText] = {}
    changes: list[tuple[float, str, int, str | None]] = []
    for key, game in state.games.items():
        if not game.shown:
            continue
        known = marks.get(key) or [(len(game.moves), game.result, 0.0)]
        for n, result, t in known:
            changes.append((max(t, cut), key, min(n, len(game.moves)), result))
    changes.sort(key=lambda c: c[0])
    views: list[View] = []
    for t, key, n, result in changes:
        game = state.games[key]
        whole = (n, result) == (len(game.moves), game.result)
        shown = game
        if not whole:
            shown = replace(game, moves=game.moves[:n], result=result)
            setattr(shown, "clock_since", None)  # noqa: B010 (the clocks after the last move)
        if n == 0 and result is None:  # not played yet then: not served
            texts.pop(key, None)
        else:
            texts[key] = GameText(key, game.round_tag(), game.tags.get("Board") or game.board,
                                  shown.pdn(), t)
        view = View(tuple(texts[k] for k in state.games if k in texts), t)
        if views and t - views[-1].stamp < 1.0:
            views[-1] = view  # within a second, as the timeline keeps them
        else:
            views.append(view)
    return views
