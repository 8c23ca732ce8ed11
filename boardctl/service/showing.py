"""What the board shows at the end of each referee's turn: the LED picture and the clock
faces, straight to the parts under ``step()`` or through the display thread
(``boardctl.service.outputs.Display``) under ``run()``, only what changed; the journal's alarm
and a round's pairing on the faces."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from boardctl.service.games import CurrentGame
from boardctl.service.hardware import Hardware
from boardctl.service.outputs import Display, update_faces
from firmware.errors import BoardError

logger = logging.getLogger("boardctl.service.service")


class BoardFace:
    """The LEDs and faces of the game in play. ``on_alarm`` is the journal writer's one call
    into it (its thread); everything else runs on the referee's thread."""

    def __init__(self, hardware: Hardware, game: CurrentGame, *, faces_ns: int,
                 wake: Callable[[], None]) -> None:
        self.hw = hardware
        self.game = game
        self.faces_ns = faces_ns
        self.wake = wake
        #: The display thread under run() (None: the parts are written on the referee's).
        self.display: Display | None = None
        #: The journal's alarm (a full disk, a deleted state directory), or None.
        self.alarm: str | None = None
        #: What the faces show instead of the clock until it starts (a round's pairing).
        self.note: tuple[str, str] | None = None
        #: The LED picture last shown, and the session it was that of.
        self._leds: dict[str, str] | None = None
        self._leds_of: object = None
        self._next_faces = 0
        #: The clock last handed to the display, and its generation then (publish_clock).
        self._clock_shown: tuple[Any, int] | None = None
        #: More LED pictures under the referee's (an engine's move, a hint), each called with
        #: the monotonic time; the referee's marks win a square both light.
        self.overlays: list[Callable[[int], dict[str, str]]] = []
        #: A move the faces show with the times (an engine's waiting to be carried out:
        #: ``firmware.clock.face.MoveOnFaces``), or None; asked at every turn.
        self.face_move: Callable[[], Any] | None = None

    def on_alarm(self, message: str | None) -> None:
        """The journal writer's thread: an alarm raised or cleared (the referee shows it)."""
        self.alarm = message
        if self.display is not None:
            self.display.alarm = message
        self.wake()

    def publish_clock(self) -> None:
        """Hand the display a copy of the clock when it is another game's or one of its own
        changes moved its generation (a press, a pause, the arbiter's correction); a turn of
        lifts and places costs no copy. A flag falling needs none: the copy works it out from
        the time as the clock does (tests/clock/test_clock_properties.py)."""
        clock = self.game.the_session.clock
        if self.display is None or clock is None:
            return
        shown = self._clock_shown
        if shown is None or shown[0] is not clock or shown[1] != clock.generation:
            self.display.publish(clock, self.game.origin)
            self._clock_shown = (clock, clock.generation)

    def show(self, at: int, now: int) -> None:
        """The LED picture when it changed (or the game did), the faces at their rate."""
        session = self.game.the_session
        picture = session.leds()
        if self.overlays:
            merged: dict[str, str] = {}
            for overlay in self.overlays:
                merged.update(overlay(now))
            picture = {**merged, **picture}
        if self.note is not None and session.clock is not None and session.clock.started:
            self.note = None  # a round's pairing shows until the game's clock starts
        changed = picture != self._leds or self._leds_of is not session
        if changed:
            self._leds_of = session
        move = self.face_move() if self.face_move is not None else None
        if self.display is not None:  # threaded: the display thread writes them
            self.display.note = self.note
            self.display.move = move
            if changed:
                self.display.show(picture)
                self._leds = dict(picture)
            return
        if changed and self.hw.leds is not None:
            try:
                self.hw.leds.show(picture)
            except BoardError as exc:
                logger.warning(f"LEDs: {exc}")
            self._leds = dict(picture)
        if self.hw.faces is not None and session.clock is not None and now >= self._next_faces:
            self._next_faces = now + self.faces_ns
            try:
                update_faces(self.hw.faces, session.clock, at, self.alarm, self.note, move)
            except BoardError as exc:
                logger.warning(f"clock faces: {exc}")
