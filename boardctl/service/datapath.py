"""The one data path of the board service, on the referee's thread: an event through the
session (``firmware.session.session.BoardSession``), its records into the journal, then onto
the feed (:class:`boardctl.service.feed.Feed`); the clock ticked the same way; and the
announcement a reader starts from (header, game, snapshot)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from boardctl.service.feed import Feed
from boardctl.service.games import CurrentGame, snapshot_of
from boardctl.service.hardware import Hardware
from boardctl.service.outputs import Outbox
from firmware.formats.events import NS, Event
from firmware.formats.journal import decision_record, note_record
from firmware.formats.records import (
    AdjournedRecord,
    ClockRecord,
    GameRecord,
    GapRecord,
    HardwareRecord,
    MoveRecord,
    PositionRecord,
    Record,
    ResultRecord,
    TakeBackRecord,
)

#: Records after which the journal is made durable at once (committed moves and results).
DURABLE_RECORDS = (MoveRecord, ResultRecord, PositionRecord, AdjournedRecord, TakeBackRecord)
#: Events after which the journal is made durable at once (pause and every arbiter act).
DURABLE_EVENTS = frozenset(
    {"start", "pause", "resume", "accept", "clock-set", "moves-set", "adjourn",
     "resume-adjourned", "result", "takeback"}
)  # fmt: skip
#: Events after which the feed tells the clocks (a broadcast shows them stopped or corrected).
CLOCK_EVENTS = frozenset({"start", "pause", "resume", "clock-set", "moves-set"})


class DataPath:
    """Event -> session -> journal -> feed (LEDs and faces follow at the end of the referee's
    turn: :class:`boardctl.service.showing.BoardFace`)."""

    def __init__(self, game: CurrentGame, feed: Feed, outbox: Outbox, hardware: Hardware, *,
                 heartbeat_ns: int, clock: Callable[[], int]) -> None:
        self.game = game
        self.feed = feed
        self.outbox = outbox
        self.hw = hardware
        self.heartbeat_ns = heartbeat_ns
        self.clock = clock
        #: Plies a power cut lost, found at the start (``boardctl.service.gamelife``): the
        #: feed's ``gap`` line, sent with every announcement until a new game.
        self.gap: dict[str, Any] | None = None

    def handle(self, event: Event) -> list[Record]:
        """One event (game time) through the session, the journal and the feed; BoardError:
        refused, nothing written."""
        game = self.game
        session = game.the_session
        if event.at < game.last_at:
            event = dataclasses.replace(event, at=game.last_at)
        records = session.handle(event)
        game.last_at = event.at
        durable = event.type in DURABLE_EVENTS or any(isinstance(r, DURABLE_RECORDS)
                                                      for r in records)
        out = self.outbox
        out.record(event.record(), durable=durable)
        t = event.at / NS
        for rec in records:
            out.record(decision_record(rec, t))
        emit = self.feed.emit
        for rec in records:
            emit(rec)
        clocked = any(isinstance(r, ClockRecord) for r in records)
        if event.type in CLOCK_EVENTS and session.clock is not None and not clocked:
            timing = session.timing
            emit(ClockRecord(event.type, timing.values_json(event.at), timing.running()))
        return records

    def tick(self, at: int) -> None:
        """The session's clock and waits up to game time ``at`` (a flag, a board at rest), and
        the clocks' heartbeat in the journal while they run."""
        game = self.game
        session = game.the_session
        at = max(at, game.last_at)
        records = session.tick(at)
        out = self.outbox
        if records:
            durable = any(isinstance(r, DURABLE_RECORDS) for r in records)
            for rec in records:
                out.record(decision_record(rec, at / NS), durable=durable)
            for rec in records:
                self.feed.emit(rec)
        clock = session.clock
        if clock is not None and clock.running is not None and at >= game.next_heartbeat:
            # Where the clocks stood, for a recovery after kill -9 (no fsync: a power cut may
            # lose up to the last fsync, a crash of the process loses nothing written).
            out.record(note_record("clock", t=at / NS))
            game.next_heartbeat = at + self.heartbeat_ns

    def announce(self, with_header: bool = True) -> None:
        """Header, game and snapshot: what a reader needs to start from nothing."""
        game = self.game
        header = game.the_header
        at = max(game.game_time(self.clock()), game.last_at)
        emit = self.feed.emit
        if with_header:
            emit(self.feed.header_record())
        emit(GameRecord(header.rules, header.fen, header.time_control, dict(header.tags)))
        emit(snapshot_of(game.the_session, header, at))
        if self.hw.missing:  # degraded mode (boardctl.service.hardware.pi_hardware)
            emit(HardwareRecord(tuple(self.hw.missing)))
        gap = self.gap
        if gap is not None:
            recovered = gap["recovered"]
            emit(GapRecord(gap["ply"], tuple(recovered) if recovered is not None else None,
                           tuple(tuple(c) for c in gap["candidates"]), gap["count"],
                           gap.get("text")))
