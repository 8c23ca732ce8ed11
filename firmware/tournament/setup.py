"""A round's setup messages, one a board (HALL-INTERFACES section 1, kept in docs/CONTRACT.md):
topic ``kabelaud/HALL/BOARD/setup``, a UTF-8 JSON object published retained with QoS 1."""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass

from firmware.errors import TournamentError
from firmware.tournament.state import Tournament

NAME = re.compile(r"[A-Za-z0-9_-]+")
MAX_PAYLOAD = 16 * 1024


@dataclass(frozen=True, slots=True)
class SetupMessage:
    topic: str
    payload: bytes
    board: str
    white: str
    black: str


def setup_topic(hall: str, board: str) -> str:
    for what, value in (("hall", hall), ("board", board)):
        if not NAME.fullmatch(value):
            raise TournamentError(f"{what} name {value[:40]!r} must match [A-Za-z0-9_-]+")
    return f"kabelaud/{hall}/{board}/setup"


def round_setups(t: Tournament, hall: str, number: int) -> list[SetupMessage]:
    """One setup per game of round ``number``, boards in table order. Games of a player who
    has withdrawn (seed 004 §38) are not set up: they are not played.

    The id is ``HALL-rR-BOARD-XXXXXX``, the last part a digest of the setup's content: a board
    applies an id once only, so publishing the same round again is harmless, while a changed
    setup (another time control, a corrected name) gets a new id and is applied."""
    games, _ = t.games(number)
    gone = t.withdrawn()
    messages = []
    for g in games:
        if any(name in gone and number > gone[name] for name in (g.white, g.black)):
            continue
        tags = {"Event": t.event, "Site": t.site, "Date": t.date}
        tags = {k: v for k, v in tags.items() if v}  # an unknown tag is left out, not blank
        tags.update({"Round": str(number), "Board": g.board, "White": g.white,
                     "Black": g.black})
        board_id = f"b{g.board}" if g.board.isdigit() else g.board
        content = {"rules": t.rules, "time_control": t.time_control, "fen": None, "tags": tags}
        digest = hashlib.sha256(json.dumps(content, sort_keys=True).encode()).hexdigest()[:6]
        body = {"type": "setup", "id": f"{hall}-r{number}-{board_id}-{digest}", **content}
        payload = json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode()
        if len(payload) > MAX_PAYLOAD:
            raise TournamentError(f"board {g.board}: setup message over {MAX_PAYLOAD} bytes")
        messages.append(SetupMessage(setup_topic(hall, g.board), payload, g.board,
                                     g.white, g.black))
    return messages


def clear_messages(t: Tournament, hall: str) -> list[tuple[str, bytes]]:
    """An empty retained payload on every board's setup topic: nothing left to apply."""
    boards = t.boards or [str(i) for i in range(1, len(t.players) // 2 + 1)]
    return [(setup_topic(hall, board), b"") for board in boards]
