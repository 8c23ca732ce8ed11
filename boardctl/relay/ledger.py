"""The records of the relay's store (boardctl.relay.store): what a change of a game is written
as, and the records read back as games.

Three records (each a sealed line of the store's file):

- ``{"type": "game", "key", "source", "topic", "game": {...}}``: a game whole, as
  :func:`boardctl.relay.games.kept` writes it, with its marks (when it changed), its PDN text
  and the text's form: a new game, and any change that is not moves added (a snapshot that
  changed earlier moves, a takeback, a result, tags, the board's name), and every game when
  the store is compacted;
- ``{"type": "moves", "key", "from": N, "moves": [...], "clock_since", "marks": [...]}``: the
  moves after the first N (packed, as in a whole game) and the marks since the last record
  of the game: a move costs a line of some 100 bytes, whatever the board has played before;
- ``{"type": "drop", "key"}``: a game no longer held (announced, then left without a move).

:class:`Ledger` remembers what was written of each game, so that a change is written as the
smallest record that says it; :func:`fold` reads the records back into whole games, in the
form :func:`boardctl.relay.restore.restore_games` takes (a game whose last record added moves
comes back without its text, which the relay writes anew). Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from boardctl.relay.delayed import MAX_MARKS
from boardctl.relay.games import PDN_FORM, RelayGame, _packed, kept

__all__ = ["Ledger", "Mark", "fold"]

Mark = tuple[int, str | None, float]


@dataclass
class _Written:
    """What the store holds of one game: what its PDN is made of besides its moves, its
    moves (the very move records written) and how many of its marks."""

    head: tuple[Any, ...]
    moves: list[Any]
    marks: int
    looks: tuple[int, str]


def _head(game: RelayGame) -> tuple[Any, ...]:
    return (game.rules, game.start_fen, dict(game.tags), game.time_control, game.result,
            game.reason, game.board, game.order, game.shown, game.source)


class Ledger:
    """What the store holds of each game (module docstring). ``records`` gives the records of
    the games that changed since they were last written (boardctl.relay.changes says which),
    ``whole`` every game whole (a compaction); both take the games as the store will then
    hold them."""

    def __init__(self) -> None:
        self._games: dict[str, _Written] = {}

    def prime(self, games: Iterable[RelayGame], marks: Mapping[str, Sequence[Mark]]) -> None:
        """The games as read back from the store: held there already."""
        for game in games:
            self._note(game, len(marks.get(game.key, ())))

    def _note(self, game: RelayGame, marks: int) -> None:
        self._games[game.key] = _Written(_head(game), list(game.moves), marks,
                                         (game.version, game.board))

    def records(self, changed: Iterable[RelayGame], games: Mapping[str, RelayGame],
                texts: Mapping[str, tuple[str, float]], marks: Mapping[str, Sequence[Mark]],
                topic: Callable[[str], bool]) -> list[dict[str, Any]]:
        """The records of the ``changed`` games (of all ``games``, keyed as the state keys
        them: those no longer there are dropped) since the last records: ``texts`` each game's
        PDN text (first of a pair), ``marks`` its marks, ``topic`` whether a source is a hall
        board."""
        out: list[dict[str, Any]] = []
        written = self._games
        for game in changed:
            was = written.get(game.key)
            if was is not None and was.looks == (game.version, game.board):
                continue  # as written (a game read back at a restart)
            game_marks = marks.get(game.key, ())
            added = self._added(was, game, len(game_marks))
            if added is None:
                text = texts.get(game.key)
                out.append(_whole(game, text[0] if text else None, game_marks,
                                  topic(game.source)))
            elif was is not None:
                out.append({"type": "moves", "key": game.key, "from": added,
                            "moves": [_packed(m) for m in game.moves[added:]],
                            "clock_since": list(game.clock_since) if game.clock_since else None,
                            "marks": [list(m) for m in game_marks[was.marks:]]})
            self._note(game, len(game_marks))
        if len(written) > len(games):  # the games before and the changed ones: the rest gone
            for key in [k for k in written if k not in games]:
                del written[key]
                out.append({"type": "drop", "key": key})
        return out

    @staticmethod
    def _added(was: _Written | None, game: RelayGame, marks: int) -> int | None:
        """How many of the game's moves the store holds already, when the change is only
        moves (and clocks) added; None when the game must be written whole."""
        if was is None or marks < was.marks or marks >= MAX_MARKS:
            return None
        held = len(was.moves)
        if len(game.moves) < held or game.moves[:held] != was.moves or was.head != _head(game):
            return None
        return held

    def whole(self, games: Iterable[RelayGame], texts: Mapping[str, tuple[str, float]],
              marks: Mapping[str, Sequence[Mark]],
              topic: Callable[[str], bool]) -> list[dict[str, Any]]:
        """Every game whole, in the order given (the store rewritten: a compaction)."""
        self._games.clear()
        out = []
        for game in games:
            text = texts.get(game.key)
            game_marks = marks.get(game.key, ())
            out.append(_whole(game, text[0] if text else None, game_marks, topic(game.source)))
            self._note(game, len(game_marks))
        return out


def _whole(game: RelayGame, text: str | None, marks: Sequence[Mark],
           topic: bool) -> dict[str, Any]:
    return {"type": "game", "key": game.key, "source": game.source, "topic": topic,
            "game": {**kept(game), "marks": [list(m) for m in marks], "pdn": text,
                     "pdn_form": PDN_FORM}}


def fold(records: Iterable[Mapping[str, Any]]) -> tuple[list[dict[str, Any]], int]:
    """The games the records say, as ``{"source", "topic", "game": {...}}`` in the order the
    relay first heard of them, and how many records did not fit (moves of a game not held,
    from a ply it does not have): those are left out, and the game they were for waits for
    its board's next snapshot."""
    games: dict[str, dict[str, Any]] = {}
    unfit = 0
    for record in records:
        kind, key = record.get("type"), record.get("key")
        if not isinstance(key, str):
            unfit += 1
        elif kind == "game" and _fits_whole(record):
            games[key] = {"source": record["source"], "topic": bool(record.get("topic")),
                          "game": dict(record["game"])}
        elif kind == "moves" and key in games and _add(games[key]["game"], record):
            pass
        elif kind == "drop":
            games.pop(key, None)
        else:
            unfit += 1
    found = list(games.values())
    found.sort(key=lambda item: _order(item["game"]))
    return found, unfit


def _order(game: Mapping[str, Any]) -> int:
    order = game.get("order")
    return order if isinstance(order, int) and not isinstance(order, bool) else 0


def _fits_whole(record: Mapping[str, Any]) -> bool:
    return isinstance(record.get("source"), str) and isinstance(record.get("game"), dict)


def _add(game: dict[str, Any], record: Mapping[str, Any]) -> bool:
    """A ``moves`` record's moves, clocks and marks added to ``game`` (a whole game's dict);
    False (nothing changed) when they do not follow from the moves it holds."""
    held, start, moves = game.get("moves"), record.get("from"), record.get("moves")
    if not (isinstance(held, list) and isinstance(start, int) and not isinstance(start, bool)
            and 0 <= start <= len(held) and isinstance(moves, list)):
        return False
    if start < len(held):
        held = game["moves"] = held[:start]
    held.extend(moves)
    game["clock_since"] = record.get("clock_since")
    marks = record.get("marks")
    if isinstance(marks, list) and marks:
        known = game.get("marks")
        if not isinstance(known, list):
            known = game["marks"] = []
        known.extend(marks)
        if len(known) > 2 * MAX_MARKS:  # the newest kept (the relay keeps MAX_MARKS)
            del known[:-MAX_MARKS]
    game["pdn"] = None  # the text of fewer moves: written anew
    return True
