"""A round's setup reaching a board over the broker (docs/HALL.md, "Starting a round").

``kabelaud/HALL/BOARD/setup`` carries, retained, what the board's next game is::

    {"type": "setup", "id": "HALL-r3-b12", "rules": "international",
     "time_control": "5400+30" | null, "fen": FEN | null,
     "tags": {"Event": ..., "Round": "3", "Board": "12", "White": ..., "Black": ...}}

The board applies it as the control command ``new`` would (the same code path, on the
service's own thread), but only between games: when no move has been made yet, or the game has
a result. A setup that arrives during a game is refused for now and kept pending; it is applied
as soon as the game has a result. Each id is applied once (a retained message comes again on
every reconnection and after a reboot: applied ids are kept in STATE_DIR/hall-setup.json). The
board says what it did on its feed: ``{"type": "setup", "id", "status": "applied" | "pending" |
"refused", "reason"}``. An empty payload clears a pending setup. A bad message (not JSON, too
big, a wrong field) is dropped with a one-line log and counted.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from firmware.errors import BoardError
from firmware.formats.records import FeedRecord, ResultRecord, SetupRecord
from firmware.pdn.tags import tags_problem

MAX_SETUP = 16 * 1024


class SetupError(ValueError):
    """A setup message that cannot be used (the text says why, in one line)."""


@dataclass(frozen=True)
class RoundSetup:
    id: str
    rules: str
    time_control: str | None = None
    fen: str | None = None
    tags: dict[str, str] = field(default_factory=dict)

    def command(self, board: str) -> dict[str, Any]:
        """The control request that sets this game up."""
        tags = dict(self.tags)
        tags.setdefault("Board", board)
        request: dict[str, Any] = {"cmd": "new", "rules": self.rules, "tags": tags,
                                   "time_control": self.time_control or "none"}
        if self.fen:
            request["fen"] = self.fen
        return request


def _text(data: Mapping[str, Any], key: str, limit: int, required: bool) -> str | None:
    value = data.get(key)
    if value is None and not required:
        return None
    if not isinstance(value, str) or not value.strip() or len(value) > limit \
            or any(ch < " " for ch in value):
        raise SetupError(f"setup: {key!r} must be a line of text of at most {limit} characters")
    return value.strip()


def parse_setup(payload: bytes) -> RoundSetup | None:
    """The setup a payload carries; None for an empty payload (clear); SetupError if bad."""
    from firmware.clock.timecontrol import TimeControl
    from firmware.rules.sets import find_rules

    if not payload.strip():
        return None
    if len(payload) > MAX_SETUP:
        raise SetupError(f"setup: {len(payload)} bytes (at most {MAX_SETUP})")
    try:
        data = json.loads(payload.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise SetupError(f"setup: not UTF-8 JSON ({type(exc).__name__})") from None
    if not isinstance(data, dict) or data.get("type") != "setup":
        raise SetupError('setup: expected a JSON object with "type": "setup"')
    ident = _text(data, "id", 100, True)
    rules = _text(data, "rules", 40, True)
    tc = _text(data, "time_control", 200, False)
    fen = _text(data, "fen", 1000, False)
    assert ident is not None and rules is not None
    try:
        find_rules(rules)
        if tc is not None:
            TimeControl.parse(tc)
    except BoardError as exc:
        raise SetupError(f"setup {ident}: {exc}") from None
    raw = data.get("tags", {})
    if not isinstance(raw, dict):
        raise SetupError(f"setup {ident}: 'tags' must be an object of PDN tags")
    problem = tags_problem(raw)
    if problem is not None:
        raise SetupError(f"setup {ident}: {problem}")
    return RoundSetup(ident, rules, tc, fen, {key: str(value) for key, value in raw.items()})


def faces_for(round_tag: str, board: str) -> tuple[str, str]:
    """The pairing on the two 4-digit faces until the clock starts: ``r  3`` on White's,
    ``b 12`` on Black's (what a 7-segment digit can show: digits, the rest as ``-``)."""

    def face(letter: str, text: str) -> str:
        text = "".join(ch if ch.isdigit() else "-" for ch in text.strip())[-3:] or "-"
        return f"{letter}{text:>3}"

    return face("r", round_tag), face("b", board)


class SetupApplier:
    """Applies setups on the service's thread (``call_soon``) through its control path
    (``command``) and reports on the feed (``emit``). ``receive`` may be called from any
    thread (the broker link's); ``on_record`` is told each record on the feed (the journal
    writer's thread)."""

    def __init__(self, state_dir: Path, board: str, *,
                 command: Callable[[Mapping[str, Any]], dict[str, Any]],
                 call_soon: Callable[[Callable[[], None]], None],
                 emit: Callable[[FeedRecord], None],
                 log: Callable[[str], None],
                 show: Callable[[tuple[str, str]], None] | None = None) -> None:
        self.path = Path(state_dir) / "hall-setup.json"
        self.board = board
        self.command = command
        self.call_soon = call_soon
        self.emit = emit
        self.log = log
        self.show = show
        self.pending: RoundSetup | None = None
        self.dropped = 0
        self.applied = self._load()

    def _load(self) -> str | None:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError, UnicodeDecodeError):
            return None
        applied = data.get("applied") if isinstance(data, dict) else None
        return applied if isinstance(applied, str) else None

    def _save(self, ident: str) -> None:
        tmp = self.path.with_name(".hall-setup.tmp")
        try:
            with open(tmp, "w", encoding="utf-8") as f:
                json.dump({"applied": ident}, f)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, self.path)
        except OSError as exc:
            self.log(f"setup {ident}: cannot record it as applied in {self.path}: {exc}")

    # -- any thread ------------------------------------------------------------------------

    def receive(self, payload: bytes) -> None:
        try:
            setup = parse_setup(payload)
        except SetupError as exc:
            self.dropped += 1
            self.log(f"{exc} (dropped)")
            return
        self.call_soon(lambda: self._offer(setup))

    # -- the service's thread ----------------------------------------------------------------

    def on_record(self, record: FeedRecord) -> None:
        """A result on the feed: a pending setup may go now (after this turn)."""
        if self.pending is not None and isinstance(record, ResultRecord):
            self.call_soon(self._retry)

    def _retry(self) -> None:
        if self.pending is not None:
            self._offer(self.pending)

    def _offer(self, setup: RoundSetup | None) -> None:
        if setup is None:
            if self.pending is not None:
                self.log(f"setup {self.pending.id}: cleared before it was applied")
            self.pending = None
            return
        if setup.id == self.applied:
            self.pending = None
            return  # a retained message seen again: applied once only
        status = self.command({"cmd": "status"})
        if status.get("ply") and status.get("result") is None:
            first = self.pending is None or self.pending.id != setup.id
            self.pending = setup
            if first:
                self._report(setup, "pending", f"refused for now: game {status.get('game')} "
                             f"is in play (ply {status.get('ply')}); applied when it has a result")
            return
        self.pending = None
        response = self.command(setup.command(self.board))
        if not response.get("ok"):
            self._report(setup, "refused", str(response.get("error", "refused")))
            return
        self.applied = setup.id
        self._save(setup.id)
        pairing = " - ".join(setup.tags.get(k, "?") for k in ("White", "Black"))
        self._report(setup, "applied", f"game {response.get('game')}: {pairing}")
        if self.show is not None:
            self.show(faces_for(setup.tags.get("Round", ""), setup.tags.get("Board", "")))

    def _report(self, setup: RoundSetup, status: str, reason: str) -> None:
        self.log(f"setup {setup.id}: {status}: {reason}")
        self.emit(SetupRecord(setup.id, status, reason))
