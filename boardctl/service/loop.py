"""One turn of the referee's thread: the control requests waiting, the events the merge
releases in time stamp order, the clock ticked to the merge's frontier, the LEDs and faces,
the feed's snapshot, the watchdog; then the turn's batch to the journal."""

from __future__ import annotations

import dataclasses
import logging
import queue
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, cast

from boardctl.service import arbiter
from boardctl.service.arbiter import _Reply
from boardctl.service.base import DURABLE_RECORDS
from boardctl.service.control import Request
from boardctl.service.gamelife import GameLife
from boardctl.service.games import (  # re-exported: the service's callers import them from here
    snapshot_of,
)
from boardctl.service.outputs import update_faces
from firmware.errors import BoardError
from firmware.formats.events import (
    NS,
    Event,
    Pause,
    Press,
    Resume,
    Start,
)
from firmware.formats.journal import decision_record, note_record

if TYPE_CHECKING:
    from boardctl.service.service import Service

logger = logging.getLogger("boardctl.service.service")

#: Longest sleep of the referee's thread with nothing released while something is due soon
#: (a running clock, a board coming to rest): clock ticks, flags, heartbeats.
HOUSEKEEPING_S = 0.02
#: Longest sleep with nothing pending at all (an idle board before or between games): every
#: event, control request, alarm and reconnection wakes the thread at once anyway.
IDLE_S = 1.0

class RefereeLoop(GameLife):
    """The referee's turn (a layer of the service)."""

    def step(self, now: int | None = None) -> None:
        """One turn of sensing and one of the referee at monotonic ``now`` (read from the
        clock by default): the service without threads, on an injected clock."""
        now = self.clock() if now is None else now
        self.sensing.sense(now)
        if self.control is not None and self.control.handler is not self._via_referee:
            self.control.poll(0.0)
        self.turn(now)

    def turn(self, now: int) -> None:
        """One turn of the referee: the control requests waiting, the events the merge
        releases (in time stamp order), the clock up to the merge's frontier, the LEDs and
        faces, the feed's snapshot, the watchdog; then the turn's batch to the journal."""
        self.steps += 1
        replies: list[_Reply] = []
        while True:
            try:
                req, reply = self._inbox.get_nowait()
            except queue.Empty:
                break
            reply.answer(cast("Service", self), req)
            replies.append(reply)
        if replies:
            ticket = self.outbox.commit()
            for reply in replies:
                reply.send(ticket)
        while not self._soon.empty():  # work handed over by other threads (call_soon)
            self._soon.get_nowait()()
        for event in self.merge.take():
            event = dataclasses.replace(event, at=self.game_time(event.at))
            if isinstance(event, Press):
                event = self._press_event(event.side, event.at)
            self._try(self._before_start(event))  # a refused event is logged, not fatal
        at = max(self.frontier(), self.last_at)
        self._tick(at)
        self._publish_clock()
        self._show(at, now)
        if self.alarm != self._alarm_sent:
            self._alarm_sent = self.alarm
            self._emit({"type": "alarm", "alarm": self.alarm})
        if self._reconnected.is_set():
            self._reconnected.clear()
            self._announce(with_header=False)
        elif now - self.origin >= self._next_snapshot:
            self._emit(snapshot_of(self._session, self._header, at))
        self._watchdog(now)
        self.outbox.commit()
        if not self.merge.pending():  # idle: the next turn's move table, off the event's path
            self._session.referee.prepare()

    def _idle_wait(self, now: int) -> float:
        """How long the referee may sleep when nothing wakes it: :data:`HOUSEKEEPING_S` while
        the clock runs or the session waits for a moment (a board coming to rest, a flag),
        else until the next snapshot or watchdog ping, at most :data:`IDLE_S`."""
        session = self.session
        if session is None or session.wake_at() is not None:
            return HOUSEKEEPING_S
        clock = session.clock
        if clock is not None and clock.running is not None:
            return HOUSEKEEPING_S
        due = [self.origin + self._next_snapshot]
        if self.notifier.watchdog_ns is not None:
            due.append(self._next_watchdog)
        wait = (min(due) - now) / NS
        return min(IDLE_S, max(HOUSEKEEPING_S, wait))

    def frontier(self) -> int:
        """Game time up to which every source of events has delivered (the referee's now)."""
        return self.game_time(self.merge.frontier()) - 1

    def _press_event(self, name: str, at: int) -> Event:
        if name == "pause":
            clock = self._session.clock
            paused = clock is not None and clock.started and clock.running is None
            return Resume(at) if paused else Pause(at)
        return Press(at, name)

    def _before_start(self, event: Event) -> Event:
        """A clock press before the game has started starts it (the player with Black
        starts White's clock, seed 004 §32)."""
        if isinstance(event, Press) and not self._session.referee.started:
            return Start(event.at)
        return event

    def _try(self, event: Event) -> None:
        try:
            self._handle(event)
        except BoardError as exc:
            logger.warning(f"{event.type} refused: {exc}")

    def _tick(self, at: int) -> None:
        at = max(at, self.last_at)
        records = self._session.tick(at)
        out = self.outbox
        if records:
            durable = any(r["type"] in DURABLE_RECORDS for r in records)
            for rec in records:
                out.record(decision_record(rec, at / NS), durable=durable)
            for rec in records:
                self._emit(rec)
        clock = self._session.clock
        if clock is not None and clock.running is not None and at >= self._next_heartbeat:
            # Where the clocks stood, for a recovery after kill -9 (no fsync: a power cut may
            # lose up to the last fsync, a crash of the process loses nothing written).
            out.record(note_record("clock", t=at / NS))
            self._next_heartbeat = at + self.heartbeat_ns

    def _show(self, at: int, now: int) -> None:
        session = self._session
        picture = session.leds()
        if self.face_note is not None and session.clock is not None and session.clock.started:
            self.face_note = None  # a round's pairing shows until the game's clock starts
        if self.display is not None:  # threaded: the display thread writes them
            self.display.note = self.face_note
            if picture != self._leds:
                self.display.show(picture)
                self._leds = dict(picture)
            return
        if picture != self._leds and self.hw.leds is not None:
            try:
                self.hw.leds.show(picture)
            except BoardError as exc:
                logger.warning(f"LEDs: {exc}")
            self._leds = dict(picture)
        if self.hw.faces is not None and session.clock is not None and now >= self._next_faces:
            self._next_faces = now + self.faces_ns
            try:
                update_faces(self.hw.faces, session.clock, at, self.alarm, self.face_note)
            except BoardError as exc:
                logger.warning(f"clock faces: {exc}")

    def _watchdog(self, now: int) -> None:
        interval = self.notifier.watchdog_ns
        if interval is not None and now >= self._next_watchdog:
            self.notifier.watchdog()
            self._next_watchdog = now + interval

    def _via_referee(self, req: Request) -> Mapping[str, Any]:
        return arbiter.via_referee(cast("Service", self), req)

    def _on_request(self, req: Request) -> dict[str, Any]:
        return arbiter.on_request(cast("Service", self), req)
