"""One turn of the referee's thread: the control requests waiting, the events the merge
releases in time stamp order, the clock ticked to the merge's frontier, the LEDs and faces,
the feed's snapshot, the watchdog; then the turn's batch to the journal."""

from __future__ import annotations

import dataclasses
import logging
import queue
import threading
from collections.abc import Callable
from typing import Protocol

from boardctl.service.datapath import DataPath
from boardctl.service.door import PlayerDoor
from boardctl.service.games import CurrentGame, snapshot_of
from boardctl.service.inbox import Answer, RefereeInbox
from boardctl.service.notify import Notifier
from boardctl.service.outputs import Outbox
from boardctl.service.sensing import EventMerge
from boardctl.service.showing import BoardFace
from firmware.errors import BoardError
from firmware.formats.events import NS, Event, Held, Pause, Press, Release, Resume, Start
from firmware.formats.records import AlarmRecord

logger = logging.getLogger(__name__)

#: Longest sleep of the referee's thread with nothing released while something is due soon
#: (a running clock, a board coming to rest): clock ticks, flags, heartbeats.
HOUSEKEEPING_S = 0.02
#: Longest sleep with nothing pending at all (an idle board before or between games): every
#: event, control request, alarm and reconnection wakes the thread at once anyway.
IDLE_S = 1.0


class Buttons(Protocol):
    """What a part that reads the clock's buttons before the clock does (the menus at the
    board, boardctl.menu) is handed, on the referee's thread, in the events' order."""

    def on_press(self, side: str, at: int) -> bool:
        """A press at game time ``at``; True: taken (the clock never sees it)."""
        ...

    def on_release(self, side: str, held: int, at: int) -> bool:
        """A held button let go ``held`` ns after its press (before its hold); True: the
        press it took is the clock's after all (a short press of pause), acted now, at
        ``at``."""
        ...

    def on_held(self, side: str, held: int, at: int) -> bool:
        """A held button still down ``held`` ns after its press (its hold: its release
        will be no event); True: the press it took is the clock's after all, acted now."""
        ...


def frontier(game: CurrentGame, merge: EventMerge) -> int:
    """Game time up to which every source of events has delivered (the referee's now)."""
    return game.game_time(merge.frontier()) - 1


class RefereeLoop:
    """The referee's turn over the parts it is handed: the merge it takes events from, the
    inbox of control requests (answered by ``answer``), the data path, the player door (a
    player not at the board: its press, its turn), the board's face, the outbox whose batch
    it commits, the notifier's watchdog."""

    def __init__(self, game: CurrentGame, merge: EventMerge, inbox: RefereeInbox,
                 path: DataPath, door: PlayerDoor, face: BoardFace, outbox: Outbox,
                 notifier: Notifier, *, answer: Answer) -> None:
        self.game = game
        self.merge = merge
        self.inbox = inbox
        self.path = path
        self.door = door
        self.face = face
        self.outbox = outbox
        self.notifier = notifier
        self.answer = answer
        self.steps = 0
        #: The menus at the board (boardctl.menu), or None: presses go to the clock.
        self.buttons: Buttons | None = None
        self._soon: queue.SimpleQueue[Callable[[], None]] = queue.SimpleQueue()  # hall (13)
        self._reconnected = threading.Event()
        self._alarm_sent: str | None = None
        self.next_watchdog = 0

    def call_soon(self, fn: Callable[[], None]) -> None:
        """From any thread: run ``fn`` on the referee's thread, on the next turn."""
        self._soon.put(fn)
        self.merge.wake()

    def request_snapshot(self) -> None:
        """From any thread: the game and a snapshot go out on the next turn."""
        self._reconnected.set()
        self.merge.wake()

    def turn(self, now: int) -> None:
        """One turn of the referee at monotonic ``now`` (module docstring)."""
        self.steps += 1
        self.inbox.answer(self.answer)
        while not self._soon.empty():  # work handed over by other threads (call_soon)
            self._soon.get_nowait()()
        game = self.game
        for event in self.merge.take():
            event = dataclasses.replace(event, at=game.game_time(event.at))
            if isinstance(event, Release | Held):  # the menus' alone: never journaled
                if not self._menus_give_back(event):
                    continue
                event = Press(event.at, event.side)
            elif isinstance(event, Press) and self.buttons is not None \
                    and self.buttons.on_press(event.side, event.at):
                continue
            if isinstance(event, Press):
                if self.door.on_press(event.side, event.at):  # the player's own button
                    continue
                event = self._press_event(event.side, event.at)
            self._try(self._before_start(event))  # a refused event is logged, not fatal
        at = max(self.frontier(), game.last_at)
        self.door.turn(at)  # a player not at the board: what it got, what the board shows
        self.path.tick(at)
        face = self.face
        face.publish_clock()
        face.show(at, now)
        if face.alarm != self._alarm_sent:
            self._alarm_sent = face.alarm
            self.path.feed.emit(AlarmRecord(face.alarm))
        if self._reconnected.is_set():
            self._reconnected.clear()
            self.path.announce(with_header=False)
        elif now - game.origin >= game.next_snapshot:
            self.path.feed.emit(snapshot_of(game.the_session, game.the_header, at))
        self.watchdog(now)
        self.outbox.commit()
        if not self.merge.pending():  # idle: the next turn's move table, off the event's path
            game.the_session.referee.prepare()

    def _menus_give_back(self, event: Release | Held) -> bool:
        """A held button's release or hold, handed to the menus: True when the press they
        held back is the clock's after all."""
        buttons = self.buttons
        if buttons is None:
            return False
        if isinstance(event, Held):
            return buttons.on_held(event.side, event.held, event.at)
        return buttons.on_release(event.side, event.held, event.at)

    def idle_wait(self, now: int) -> float:
        """How long the referee may sleep when nothing wakes it: :data:`HOUSEKEEPING_S` while
        the clock runs or the session waits for a moment (a board coming to rest, a flag),
        else until the next snapshot or watchdog ping, at most :data:`IDLE_S`."""
        session = self.game.session
        if session is None or session.wake_at() is not None:
            return HOUSEKEEPING_S
        clock = session.clock
        if clock is not None and clock.running is not None:
            return HOUSEKEEPING_S
        due = [self.game.origin + self.game.next_snapshot]
        if self.notifier.watchdog_ns is not None:
            due.append(self.next_watchdog)
        wait = (min(due) - now) / NS
        return min(IDLE_S, max(HOUSEKEEPING_S, wait))

    def frontier(self) -> int:
        return frontier(self.game, self.merge)

    def _press_event(self, name: str, at: int) -> Event:
        if name == "pause":
            clock = self.game.the_session.clock
            paused = clock is not None and clock.started and clock.running is None
            return Resume(at) if paused else Pause(at)
        return Press(at, name)

    def _before_start(self, event: Event) -> Event:
        """A clock press before the game has started starts it (the player with Black
        starts White's clock, seed 004 §32). In a game that starts by its first move
        (issue 36), that move's first lift starts it too: a ``start`` at its time, journaled
        before it."""
        session = self.game.the_session
        if isinstance(event, Press) and not session.referee.started:
            return Start(event.at)
        if session.starts_game(event):
            self._try(Start(event.at))
        return event

    def _try(self, event: Event) -> None:
        try:
            self.path.handle(event)
        except BoardError as exc:
            logger.warning(f"{event.type} refused: {exc}")

    def watchdog(self, now: int) -> None:
        interval = self.notifier.watchdog_ns
        if interval is not None and now >= self.next_watchdog:
            self.notifier.watchdog()
            self.next_watchdog = now + interval
