"""The games the board holds: one journal each in ``STATE_DIR/games/ID.jsonl``.

- :meth:`GameArchive.games`: every game, newest first, each ``{"id", "white", "black",
  "result", "plies", "started", "rules", "current"}`` read from its journal's header and the
  decisions it recorded (moves, take-backs, results), kept per file until the file changes;
  the game in play as the service has it now (``current``, from the page's live state).
- :meth:`GameArchive.pdn`: a game's PDN exactly as ``boardctl export`` gives it
  (boardctl.service.archive.export_game: the journal rebuilt through a fresh session).
- :func:`replay_pdn`: that PDN read back, with the position after each ply and the clocks,
  for the page to step through.

Work is bounded: one game rebuilt at a time (a crowd asking waits its turn, not the board's
CPU in parallel), each PDN and replay kept until its journal changes (:data:`KEEP` of them).
A game id is checked before it is made into a path; an unknown one is ``None`` (404).
"""

from __future__ import annotations

import logging
import re
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from boardctl.relay.live.diagram import move_squares, pieces
from boardctl.service.archive import export_game
from boardctl.service.journal_file import GAMES, load_journal
from firmware.errors import BoardError
from firmware.formats.reader import dispatch, read_record
from firmware.formats.records import MoveRecord, ResultRecord, TakeBackRecord

log = logging.getLogger(__name__)

#: A game's id as the service makes them (and nothing that could leave the games folder).
GAME_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,63}")
#: PDNs and replays kept (a phone stepping through games back and forth asks again).
KEEP = 16
_STAMP = re.compile(r"([0-9]{4})([0-9]{2})([0-9]{2})T([0-9]{2})([0-9]{2})([0-9]{2})-")


class GameArchive:
    """The state directory's games (module docstring); thread-safe."""

    def __init__(self, state_dir: Path) -> None:
        self.folder = Path(state_dir) / GAMES
        self._summaries: dict[str, tuple[tuple[int, int], dict[str, Any]]] = {}
        self._texts: OrderedDict[tuple[str, int, int], str] = OrderedDict()
        self._work = threading.Lock()  # one journal read or rebuilt at a time

    def path(self, game_id: str) -> Path | None:
        """The journal of ``game_id``, or None for an id that names none."""
        if not GAME_ID.fullmatch(game_id):
            return None
        path = self.folder / f"{game_id}.jsonl"
        return path if path.is_file() else None

    def games(self, current: Mapping[str, Any] | None = None) -> list[dict[str, Any]]:
        """Every game, newest first; ``current``: the page's state of the game in play."""
        out: list[tuple[tuple[bool, str, int], dict[str, Any]]] = []
        try:
            paths = list(self.folder.glob("*.jsonl"))
        except OSError:
            paths = []
        for path in paths:
            if not GAME_ID.fullmatch(path.stem):
                continue
            try:
                changed = path.stat().st_mtime_ns
            except OSError:
                continue
            if current is not None and path.stem == current.get("game"):
                entry: dict[str, Any] | None = in_play(current)  # its journal grows: as the
            else:  # service has it now
                entry = self._summary(path)
            if entry is not None:  # the game in play was set up last; of two games set up
                out.append(((entry["current"], entry["started"], changed), entry))  # within a
        # second, the one written last is taken as the newer
        if current is not None and current.get("game") and not any(
                entry["id"] == current["game"] for _, entry in out):
            out.append(((True, "", 0), in_play(current)))  # its journal not written yet
        out.sort(key=lambda pair: pair[0], reverse=True)
        return [entry for _, entry in out]

    def _summary(self, path: Path) -> dict[str, Any] | None:
        try:
            st = path.stat()
        except OSError:
            return None
        key = (st.st_mtime_ns, st.st_size)
        kept = self._summaries.get(path.stem)
        if kept is not None and kept[0] == key:
            return kept[1]
        with self._work:
            entry = summary(path, st.st_mtime)
        self._summaries[path.stem] = (key, entry)
        return entry

    def pdn(self, game_id: str) -> str | None:
        """The game's PDN as ``boardctl export`` gives it; None for an unknown id;
        BoardError for a journal that cannot be read."""
        path = self.path(game_id)
        if path is None:
            return None
        st = path.stat()
        key = (game_id, st.st_mtime_ns, st.st_size)
        with self._work:
            text = self._texts.get(key)
            if text is None:
                _, rebuilt = export_game(path)
                text = rebuilt.session.pdn()
                self._texts[key] = text
                while len(self._texts) > KEEP:
                    self._texts.popitem(last=False)
            self._texts.move_to_end(key)
        return text


def summary(path: Path, mtime: float) -> dict[str, Any]:
    """One game's list entry from its journal (an unreadable one says why in ``error``)."""
    entry: dict[str, Any] = {"id": path.stem, "white": "", "black": "", "result": None,
                             "plies": 0, "started": started_at(path.stem, mtime),
                             "rules": None, "current": False}
    try:
        journal = load_journal(path, salvage=True)
    except (OSError, BoardError) as exc:
        entry["error"] = str(exc)[:200]
        return entry
    header = journal.header
    entry.update(id=header.id, rules=header.rules, white=header.tags.get("White", ""),
                 black=header.tags.get("Black", ""))
    tally = _Tally()
    for decision in journal.decisions:
        dispatch(read_record(decision), _TALLY, tally)  # each read once (STYLE.md lesson 18)
    entry.update(plies=tally.plies, result=tally.result)
    if journal.lost is not None:
        entry["error"] = f"damaged: {journal.lost}"[:200]
    return entry


class _Tally:
    """A game's plies and result, counted from its journal's decisions."""

    def __init__(self) -> None:
        self.plies = 0
        self.result: str | None = None

    def move(self, rec: MoveRecord) -> None:
        self.plies += 1

    def take_back(self, rec: TakeBackRecord) -> None:
        self.plies, self.result = rec.ply, None

    def end(self, rec: ResultRecord) -> None:
        self.result = rec.result


_TALLY: dict[type[Any], Callable[..., None]] = {
    MoveRecord: _Tally.move, TakeBackRecord: _Tally.take_back, ResultRecord: _Tally.end,
}


def in_play(state: Mapping[str, Any]) -> dict[str, Any]:
    """The list entry of the game in play, from the page's state of it."""
    game = str(state.get("game"))
    return {"id": game, "white": state.get("white") or "", "black": state.get("black") or "",
            "result": state.get("result"), "plies": state.get("ply") or 0,
            "started": started_at(game, time.time()), "rules": state.get("rules"),
            "current": True}


def started_at(game_id: str, mtime: float) -> str:
    """When a game was set up (UTC, ISO 8601): its id's stamp, else its journal's time."""
    m = _STAMP.match(game_id)
    if m is not None:
        y, mo, d, h, mi, s = m.groups()
        return f"{y}-{mo}-{d}T{h}:{mi}:{s}Z"
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(mtime))


def replay_pdn(game_id: str, text: str) -> dict[str, Any]:
    """The game a PDN (one game) holds, played through the rules, for the page to step
    through: its tags, the start and, per ply, the move, the position after it (``fen``,
    ``sq``), its squares (``hl``) and the clocks (seconds) after it."""
    from firmware.pdn import read_games

    game = next(read_games(text, game_id))
    played = game.replay()
    rules = played.rules.name
    clocks = game.clocks()
    texts = [m.text for m in game.moves]
    plies: list[dict[str, Any]] = []
    after = [position for move, position in played.record() if move is not None]
    turn = played.start.turn.value
    for i, (move_text, position) in enumerate(zip(texts, after, strict=False)):
        reading = clocks[i] if i < len(clocks) else None
        fen = position.fen()
        plies.append({"ply": i + 1, "side": turn, "move": move_text, "fen": fen,
                      "sq": pieces(rules, fen), "hl": move_squares(rules, move_text),
                      "clock": None if reading is None else [reading.white, reading.black]})
        turn = position.turn.value
    start = played.start.fen()
    return {"id": game_id, "rules": rules, "size": played.rules.size, "tags": dict(game.tags),
            "white": game.tags.get("White", ""), "black": game.tags.get("Black", ""),
            "result": game.tags.get("Result"),
            "start": {"fen": start, "sq": pieces(rules, start)}, "moves": plies}
