"""Games and their journals: what an arbiter sets up (:class:`GameSetup`), a fresh session for
a journal's game, and :func:`rebuild`: a journal's events through a fresh session, the one code
path by which the service recovers and ``boardctl export`` prints a game."""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from typing import Any

from boardctl.service.journal_file import new_game_id
from firmware.errors import BoardError, EventLogError
from firmware.formats.events import NS, event_from_record
from firmware.formats.journal import GameHeader, Journal, StartMode
from firmware.formats.records import Record, SnapshotRecord
from firmware.pdn.tags import MAX_TAGS
from firmware.rules.geometry import a_board
from firmware.session.session import BoardSession


@dataclass
class GameSetup:
    """What an arbiter sets up before a game (issue 6 item 3)."""

    rules: str
    time_control: str | None = None
    fen: str | None = None
    tags: dict[str, str] = field(default_factory=dict)
    #: True: play from the first event; False: the game waits for ``start`` (or a press).
    started: bool = False
    settle: float | None = None
    #: Moves committed by presses (None: when there is a time control, the session's default).
    clocked: bool | None = None
    #: The shortest touch in seconds (``--touch-min``, config ``touch_min``; None: default).
    touch_min: float | None = None
    #: How the game starts: a press (the tournament clock), or the first move too (issue 36).
    start: StartMode = StartMode.PRESS

    def header(self, board: str, game_id: str | None = None,
               now: float | None = None) -> GameHeader:
        """The journal's header of the game set up now (``now``: wall-clock seconds): its
        ``Date`` tag, unless the arbiter gave one (or all the tags a game may have), is the
        local date (PDN's ``YYYY.MM.DD``), so that the journal, and ``export`` from it, say
        when it was played."""
        now = time.time() if now is None else now
        tags = dict(self.tags)
        if "Date" not in tags and len(tags) < MAX_TAGS:
            tags = {"Date": time.strftime("%Y.%m.%d", time.localtime(now)), **tags}
        return GameHeader(
            game_id or new_game_id(now), self.rules, self.fen, self.time_control, tags,
            board, self.settle, self.started, self.clocked, self.touch_min, self.start,
        )


def session_for(header: GameHeader) -> BoardSession:
    """A fresh session for a journal's game (BoardError for a bad rule set, FEN or control)."""
    kwargs: dict[str, Any] = {"started": header.started, "tags": dict(header.tags),
                              "clocked": header.clocked, "start_mode": header.start}
    if header.settle is not None:
        kwargs["settle_ns"] = round(header.settle * NS)
    if header.touch_min is not None:
        kwargs["touch_ns"] = round(header.touch_min * NS)
    return BoardSession(header.rules, header.time_control, header.fen, **kwargs)


@dataclass
class Rebuilt:
    """A game rebuilt from its journal."""

    session: BoardSession
    #: The feed records the replay produced, in order.
    records: list[Record]
    #: Game time (ns) the journal last recorded: where the game stands.
    at: int


def rebuild(journal: Journal, source: str = "journal") -> Rebuilt:
    """Replay a journal's events through a fresh session: the game, the clocks and the LEDs
    as they stood at the journal's last recorded time (the one code path: issue 6 item 6)."""
    session = session_for(journal.header)
    cells = set(session.rules.geometry.all_cells())
    size = session.rules.size
    records: list[Record] = []
    for rec, lineno in zip(journal.events, journal.lines, strict=True):
        where = f"{source}: line {lineno}"
        event = event_from_record(rec, where)
        square = getattr(event, "square", None)
        if square is not None and square not in cells:
            # A journal whose sensor squares do not fit its rule set's board is damaged (or
            # its header was edited): say so rather than rebuild some other game from it.
            raise EventLogError(f"{where}: square {square!r} is not on {a_board(size)}")
        try:
            records += session.handle(event)
        except BoardError:
            continue  # an arbiter event the session refused changed nothing then, nor now
    at = round(journal.last_t * NS)
    records += session.tick(at)
    return Rebuilt(session, records, max(at, session.last_at))


def sensed_squares(session: BoardSession) -> set[str]:
    """The squares the referee believes occupied (algebraic, light squares included)."""
    alg = session.rules.geometry.algebraic
    referee = session.referee
    return {alg(sq) for sq in referee.board()} | set(referee.light)


def snapshot_of(session: BoardSession, header: GameHeader, at: int) -> SnapshotRecord:
    """The feed's full-state record for a reader joining late: the session's own snapshot
    (which starts from an accepted position where there is one), with the journal's tags."""
    return replace(session.snapshot(header.id, at), tags=header.tags,
                   time_control=header.time_control)


class CurrentGame:
    """The game in play and its time line: the part every other part of the service reads
    (only the referee's thread changes it). Game time starts at 0 when a game is set up and
    runs on across restarts: ``origin`` is the monotonic time (ns) of game time 0."""

    def __init__(self) -> None:
        self.header: GameHeader | None = None
        self.session: BoardSession | None = None
        self.origin = 0
        #: Game time of the last event handled (events are never stamped before it).
        self.last_at = 0
        #: Game time of the next feed snapshot and of the next clock heartbeat in the journal.
        self.next_snapshot = 0
        self.next_heartbeat = 0

    def begin(self, header: GameHeader, session: BoardSession, origin: int, at: int) -> None:
        """A game set up (``at`` 0) or recovered (``at``: where its journal left it)."""
        self.header, self.session = header, session
        self.origin = origin
        self.last_at = at
        self.next_heartbeat = self.next_snapshot = at

    def game_time(self, mono: int) -> int:
        return mono - self.origin

    @property
    def the_header(self) -> GameHeader:
        assert self.header is not None, "no game yet (boot() sets one up)"
        return self.header

    @property
    def the_session(self) -> BoardSession:
        assert self.session is not None, "no game yet (boot() sets one up)"
        return self.session
