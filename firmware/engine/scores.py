"""Scores: their unit, the band of forced wins, and what a person reads of them
(docs/ENGINE.md "Scores").

A score is in hundredths of a man, for the side to move: the evaluation's unit
(firmware.engine.evaluate), the search's, the feed's ``analysis`` lines' and the ``status``
answer's. The Hub protocol writes it in men (protocol.txt: "score in men"), and that is
converted in one place, :func:`firmware.engine.hub.score_text` and
:func:`firmware.engine.hub.read_score`.

The band of forced wins follows Scan's scores (its ``score.hpp``: ``Inf`` 10000, its endgame
database's wins ``9000 - ply``, evaluations within 8000), so that a score read from Scan and one
from the built-in engine mean the same:

- an evaluation stays within ±:data:`EVAL_MAX` (80 men; the built-in engine's largest, twenty
  kings against nothing, is about 72);
- a forced win in N plies (the side to move makes the last move of the game, N odd) scores
  :data:`WIN` - N, a forced loss in N plies (N even) -(WIN - N): beyond ±:data:`WIN_IN_MAX`
  (90 men) a score is a win announced, ``wins in M`` with M the winner's moves
  (:func:`win_moves`);
- between 80 and 90 men (Scan's endgame database wins, which count plies to the database
  position, not to the end) a score is a win without a distance: it is told as its score.
"""

from __future__ import annotations

#: A win now (the opponent has no move): forced wins in N plies score WIN - N.
WIN = 10_000
#: Scores beyond this are forced wins (within 1000 plies).
WIN_IN_MAX = WIN - 1000
#: No evaluation goes beyond this.
EVAL_MAX = 8000


def win_plies(score: int) -> int | None:
    """Plies to the end of the game in a forced win (positive: the side to move wins) or loss
    (negative); None outside the band. At least 1 either way (a position searched has a
    move)."""
    if score > WIN_IN_MAX:
        return max(1, WIN - score)
    if score < -WIN_IN_MAX:
        return -max(1, WIN + score)
    return None


def win_moves(score: int) -> int | None:
    """``wins in M``: the winner's moves to the end, positive when the side to move wins (its
    M-th move ends the game), negative when it loses (the opponent's M-th move does); None
    outside the band."""
    plies = win_plies(score)
    if plies is None:
        return None
    return (plies + 1) // 2 if plies > 0 else -max(1, -plies // 2)


def won_score(moves: int) -> int:
    """The score of a win (``moves`` > 0) or loss (< 0) in that many of the winner's moves, as
    :func:`win_moves` reads it back."""
    if moves > 0:
        return WIN - (2 * moves - 1)
    return -(WIN - 2 * -moves)
