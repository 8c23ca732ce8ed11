"""What the board shows: at the end of each referee's turn (:class:`BoardFace`) the LED
picture and the clock faces, straight to the parts under ``step()`` or through the display
thread (:class:`Display`) under ``run()``, only what changed; the journal's alarm and a round's
pairing on the faces (:func:`update_faces`).

:class:`Display` is the display thread: the referee posts a new LED picture when it changes and
a copy of the game clock after each event; the thread writes the LEDs at once and the faces
at their rate from that copy, so they keep counting whatever the disk or the referee is
doing (the journal writer is :mod:`boardctl.service.outputs`)."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from boardctl.service.door import PlayerDoor
from boardctl.service.games import CurrentGame
from boardctl.service.hardware import Hardware
from boardctl.service.threadname import name_thread
from firmware.errors import BoardError

if TYPE_CHECKING:
    from firmware.clock.face import FaceText, MoveOnFaces
    from firmware.clock.gameclock import GameClock
    from firmware.rules.sets import Side
    from hw.parts import Faces

logger = logging.getLogger(__name__)


class BoardFace:
    """The LEDs and faces of the game in play. ``on_alarm`` is the journal writer's one call
    into it (its thread); everything else runs on the referee's thread."""

    def __init__(self, hardware: Hardware, game: CurrentGame, door: PlayerDoor, *,
                 faces_ns: int, wake: Callable[[], None]) -> None:
        self.hw = hardware
        self.game = game
        #: A player not at the board: its LED picture under the referee's, a move on the faces.
        self.door = door
        self.faces_ns = faces_ns
        self.wake = wake
        #: The display thread under run() (None: the parts are written on the referee's).
        self.display: Display | None = None
        #: The journal's alarm (a full disk, a deleted state directory), or None.
        self.alarm: str | None = None
        #: What the faces show instead of the clock until it starts (a round's pairing).
        self.note: tuple[str, str] | None = None
        #: What the faces show over everything but the alarm while it is set (the menus at
        #: the board, boardctl.menu: White's face then Black's), clock or none.
        self.overlay: tuple[str, str] | None = None
        #: The LED picture last shown, and the session it was that of.
        self._leds: dict[str, str] | None = None
        self._leds_of: object = None
        self._next_faces = 0
        #: The clock last handed to the display, and its generation then (publish_clock).
        self._clock_shown: tuple[Any, int] | None = None

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
        if self.door.calls is not None:  # the player's picture (an engine's move, a hint)
            picture = {**self.door.leds(now), **picture}  # the referee's marks win
        if self.note is not None and session.clock is not None and session.clock.started:
            self.note = None  # a round's pairing shows until the game's clock starts
        note = self.overlay if self.overlay is not None else self.note
        changed = picture != self._leds or self._leds_of is not session
        if changed:
            self._leds_of = session
        move = self.door.face_move()
        if self.display is not None:  # threaded: the display thread writes them
            self.display.note = note
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
        told = session.clock is not None or note is not None or (
            move is not None and move.other is not None)
        if self.hw.faces is not None and told and now >= self._next_faces:
            self._next_faces = now + self.faces_ns
            try:
                update_faces(self.hw.faces, session.clock, at, self.alarm, note, move)
            except BoardError as exc:
                logger.warning(f"clock faces: {exc}")

    def texts(self, at: int) -> dict[str, str]:
        """What the two faces show at game time ``at`` (``status``'s ``faces``): the text a
        4-digit face prints, its points and colon included; "" where nothing is shown (a
        game without a clock)."""
        session = self.game.the_session
        note = self.overlay if self.overlay is not None else self.note
        move = self.door.face_move()
        if session.clock is None and note is None and (move is None or move.other is None):
            return {"white": "", "black": ""}
        shown = faces_at(session.clock, at, self.alarm, note, move)
        return {side.value: face.text for side, face in shown.items()}


#: What the faces show, every other second, while the journal has an alarm.
ALARM_FACE = "Err "


def faces_at(game_clock: GameClock | None, at: int, alarm: str | None,
             note: tuple[str, str] | None = None,
             move: MoveOnFaces | None = None) -> dict[Side, FaceText]:
    """What each face shows at game time ``at`` (``firmware.clock.face.FaceText`` by side);
    with an alarm, every other second ``Err`` on both (blinking) in turn with the times,
    which keep counting; with a ``note`` (a round's pairing, the menus at the board: White's
    face then Black's) and no alarm, the note instead of the times; with a ``move`` (an
    engine's, ``firmware.clock.face.MoveOnFaces``) it with the times."""
    from firmware.clock.face import FaceText, clockless_view, face_view, move_face_view
    from firmware.rules.sets import Side

    sides = (Side.WHITE, Side.BLACK)
    if alarm is not None and (at // 1_000_000_000) % 2 == 1:
        return dict.fromkeys(sides, FaceText(ALARM_FACE, blink=True))
    if note is not None and (alarm is None or game_clock is None):
        return {Side.WHITE: FaceText(note[0]), Side.BLACK: FaceText(note[1])}
    if move is not None and (move.other is not None or game_clock is None):
        return {side: clockless_view(side, move) for side in sides}
    if game_clock is None:  # no clock, no note, no move: nothing to show
        return dict.fromkeys(sides, FaceText(""))
    if move is not None:
        return {side: move_face_view(game_clock, side, at, move) for side in sides}
    return {side: face_view(game_clock, side, at) for side in sides}


def update_faces(faces: Faces, game_clock: GameClock | None, at: int, alarm: str | None,
                 note: tuple[str, str] | None = None,
                 move: MoveOnFaces | None = None) -> None:
    """The clock faces at game time ``at`` (:func:`faces_at`); the times themselves through
    the faces' own ``update`` (which may hold a notice up first)."""
    if alarm is None and note is None and move is None and game_clock is not None:
        faces.update(game_clock, at)
        return
    for side, face in faces_at(game_clock, at, alarm, note, move).items():
        faces.show(side, face)


class Display:
    """The LEDs and the clock faces on their own thread: the referee posts a new LED picture
    when it changes and a copy of the game clock after each event; the thread writes the LEDs
    at once and the faces ``faces_hz`` times a second from that copy (the faces write only
    what changed), so they keep counting whatever the disk or the referee is doing."""

    def __init__(self, hardware: Hardware, faces_ns: int, clock: Callable[[], int]) -> None:
        self.hw = hardware
        self.faces_ns = faces_ns
        self.clock = clock
        self._cond = threading.Condition()
        self._picture: dict[str, str] | None = None
        self._game_clock: GameClock | None = None
        self._origin = 0
        self._alarm: str | None = None
        self._note: tuple[str, str] | None = None
        #: An engine's move on the faces (BoardFace.face_move), or None.
        self._move: MoveOnFaces | None = None
        #: Something was posted since the faces were last drawn.
        self._posted = False
        self._stop = False
        self._thread: threading.Thread | None = None

    @property
    def alarm(self) -> str | None:
        """The journal's alarm (boardctl.service.outputs.Outbox), shown on the faces."""
        return self._alarm

    @alarm.setter
    def alarm(self, message: str | None) -> None:
        with self._cond:
            if message != self._alarm:
                self._alarm = message
                self._posted = True
                self._cond.notify()

    @property
    def note(self) -> tuple[str, str] | None:
        """A round's pairing shown instead of the times (Service.face_note)."""
        return self._note

    @note.setter
    def note(self, note: tuple[str, str] | None) -> None:
        with self._cond:
            if note != self._note:
                self._note = note
                self._posted = True
                self._cond.notify()

    @property
    def move(self) -> MoveOnFaces | None:
        """An engine's move shown on the faces with the times (BoardFace.face_move)."""
        return self._move

    @move.setter
    def move(self, move: MoveOnFaces | None) -> None:
        with self._cond:
            if move != self._move:
                self._move = move
                self._posted = True
                self._cond.notify()

    def show(self, picture: Mapping[str, str]) -> None:
        with self._cond:
            self._picture = dict(picture)
            self._cond.notify()

    def publish(self, game_clock: GameClock, origin: int) -> None:
        snapshot = game_clock.copy()
        with self._cond:
            self._game_clock, self._origin = snapshot, origin
            self._posted = True
            self._cond.notify()

    def wait_s(self) -> float | None:
        """How long the thread may sleep with nothing posted: the faces' period while they
        count, blink or alternate; None (until something is posted) while they stand still:
        no clock yet, or one not started (the set times, or a round's pairing)."""
        game_clock = self._game_clock
        if self._alarm is None and (game_clock is None or not game_clock.started):
            return None
        return self.faces_ns / 1e9

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="display", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        name_thread("boardctl-display")
        while True:
            with self._cond:
                if self._picture is None and not self._posted and not self._stop:
                    self._cond.wait(self.wait_s())
                picture, self._picture = self._picture, None
                self._posted = False
                game_clock, origin, stop = self._game_clock, self._origin, self._stop
            if picture is not None and self.hw.leds is not None:
                try:
                    self.hw.leds.show(picture)
                except Exception as exc:
                    logger.warning(f"LEDs: {exc}")
            move = self.move
            told = game_clock is not None or self.note is not None or (
                move is not None and move.other is not None)
            if told and self.hw.faces is not None:
                try:
                    update_faces(self.hw.faces, game_clock, self.clock() - origin, self.alarm,
                                 self.note, move)
                except Exception as exc:
                    logger.warning(f"clock faces: {exc}")
            if stop:
                return

    def stop(self) -> None:
        with self._cond:
            self._stop = True
            self._cond.notify()
        if self._thread is not None:
            self._thread.join(2.0)
            self._thread = None
