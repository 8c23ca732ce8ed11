"""The games a former run of the relay kept (boardctl.relay.store), taken back into its state.

Pure: the store reads its file and folds its records into games (boardctl.relay.ledger.fold);
:func:`restore_games` takes them into a :class:`boardctl.relay.state.RelayState` as they were
written, before anything is served.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from boardctl.relay.games import (
    PDN_FORM,
    RelayGame,
    _clean,
    _good_move,
    _unpacked,
    move_records,
)
from boardctl.relay.state import GAMES_PER_SOURCE, RelayState
from firmware.formats.records import SnapshotRecord
from firmware.rules.game import RESULTS

__all__ = ["restore_games"]


def restore_games(state: RelayState, kept: Sequence[Mapping[str, Any]]) -> int:
    """Take back into ``state`` the games a former run kept (boardctl.relay.store), as they
    were written (their moves were checked when taken; a game's position is worked out again
    at its next move, which checks them once more), with their PDN text when kept: a restart
    serves a whole event again in about a second. Records that are not well-formed end a
    game's moves there (it waits for a snapshot); the relay's bounds hold. The number taken."""
    before = len(state.games)
    for item in kept:
        saved = item["game"]
        ident = saved.get("game")
        if not isinstance(ident, str | int) or isinstance(ident, bool):
            continue
        source, ident = str(item["source"]), _clean(str(ident))[:80]
        src = state.source(source, topic=bool(item["topic"]))
        key = f"{source}/{ident}" if src.topic else ident
        if src.ignored or key in state.games or src.games >= GAMES_PER_SOURCE:
            continue
        board = saved.get("board")
        if not src.topic and isinstance(board, str) and _clean(board):
            src.board = _clean(board)
        order = saved.get("order")
        game = RelayGame(board=src.board, game=ident, key=key, source=source, version=1,
                         order=order if type(order) is int and order > 0 else 0)
        start = _take(state, game, saved)
        text = saved.get("pdn")
        # the text of exactly what was kept, as this version writes it (else written anew)
        fresh = isinstance(text, str) and not game.gap and saved.get("pdn_form") == PDN_FORM
        state.adopt(src, game, text if fresh else None)
        for observer in state.observers:  # the live page: the game as a snapshot
            observer(src.board, SnapshotRecord(
                ident, game.rules, start, None, dict(game.tags), move_records(game.moves),
                game.time_control, result=game.result, reason=game.reason), ident)
    return len(state.games) - before


def _take(state: RelayState, game: RelayGame, saved: Mapping[str, Any]) -> str | None:
    """A kept game's rules, moves (up to the first that is not well-formed: then it waits for
    a snapshot), result and clocks (only on the ply they were for) into ``game``; its start
    position's FEN (None: the rule set's own)."""
    state.checks.setup(game, saved.get("rules"), saved.get("start_fen"),
                       saved.get("time_control"), saved.get("tags"))
    start = game.start()
    moves = _unpacked(saved.get("moves"), start.turn.value if start else "white")
    good = next((k for k, m in enumerate(moves) if not (_good_move(m) and m["ply"] == k + 1)),
                len(moves))
    state.checks.hold(game, [dict(m) for m in moves[:good]])
    game.gap = good < len(moves) or len(game.moves) < good
    result = saved.get("result")
    game.result = result if isinstance(result, str) and result in RESULTS else None
    game.reason = str(saved.get("reason") or "") if game.result else None
    game.shown = bool(game.moves) or game.result is not None or saved.get("shown") is True
    since = saved.get("clock_since")  # the clocks after the last move, if any
    if isinstance(since, list) and len(since) == 4 and since[0] == len(game.moves):
        state.checks.clock_since(game, since[1], since[2], since[3])
    return start.fen() if start is not None else None
