"""``boardctl clock`` in a terminal: the keys, the status line and the faces (issue 11).

The status line fits the terminal's width (one column kept free, so that it never wraps and
scrolls: ``firmware.clock.face.fit_line``) and is drawn again at once when the terminal is
resized (SIGWINCH). ``--plain`` draws nothing in place: it writes one plain sentence per event
(a press, the arbiter's keys, a flag) and whenever ``t`` is typed, so that a screen reader reads
each line once (``firmware.clock.face.plain_line``).
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from firmware.errors import BoardError

if TYPE_CHECKING:
    from firmware.clock.gameclock import GameClock

NS = 1_000_000_000
#: Erase from the cursor to the end of the line (ECMA-48 EL).
CLEAR_EOL = "\x1b[K"

KEYS = """keys: z = White presses   m = Black presses   space = pause/resume   s = start
      1/2 = White -/+ 1 min   9/0 = Black -/+ 1 min
      [/] = White moves -/+1  ,/. = Black moves -/+1
      j = adjourn   r = resume adjourned   t = tell the times   q = quit"""


class Screen:
    """Where the status goes: redrawn in place to the terminal's width, or plain lines."""

    def __init__(self, out: Any, plain: bool, width: int) -> None:
        self.out = out
        self.plain = plain
        self.width = width
        self.resized = False
        self._said = ""

    def on_resize(self, width: int) -> None:
        self.width = width
        self.resized = True

    def status(self, clock: GameClock, at: int, origin: int, prefix: str = "") -> None:
        from firmware.clock.face import fit_line

        if self.plain:
            return
        line = fit_line(clock, at, self.width, origin, prefix)
        self.out.write("\r" + line + CLEAR_EOL)
        self.resized = False
        self.out.flush()

    def say(self, clock: GameClock, at: int, origin: int, force: bool = False) -> None:
        """Plain mode: the sentence, when it changed (or ``force``: the t key)."""
        from firmware.clock.face import plain_line

        if not self.plain:
            return
        text = plain_line(clock, at, origin)
        key = text if not clock.running else text.split(";", 1)[1]  # times tick: not news
        if force or key != self._said:
            self.out.write(text + "\n")
            self.out.flush()
        self._said = key

    def message(self, text: str) -> None:
        self.out.write(("" if self.plain else "\r\n") + text + "\n")
        self.out.flush()


def interactive(args: argparse.Namespace, control: Any) -> int:
    import os
    import select
    import signal
    import termios
    import time
    import tty

    from firmware.clock.gameclock import GameClock

    if not sys.stdin.isatty():
        raise BoardError("the interactive clock needs a terminal; use --script FILE")
    clock = GameClock(control)
    faces, buttons, factory, pins = _devices(args)
    origin = time.monotonic_ns()
    screen = Screen(sys.stdout, args.plain, terminal_width())
    print(f"time control {clock.control} ({clock.control.describe()})")
    print(KEYS)
    fd = sys.stdin.fileno()
    saved = termios.tcgetattr(fd)
    previous = signal.signal(
        signal.SIGWINCH, lambda *_: screen.on_resize(terminal_width())
    )
    try:
        tty.setcbreak(fd, termios.TCSANOW)  # keep keys typed ahead
        screen.say(clock, origin, origin, force=True)
        while True:
            _refresh(clock, screen, buttons, faces, origin, args.sim)
            ready, _, _ = select.select([sys.stdin], [], [], 0.05)
            if not ready:
                continue
            key = os.read(fd, 1).decode(errors="replace")
            if key in ("q", ""):
                break
            try:
                _on_key(key, clock, screen, factory, pins, origin)
            except BoardError as exc:
                screen.message(str(exc))
    finally:
        termios.tcsetattr(fd, termios.TCSADRAIN, saved)
        signal.signal(signal.SIGWINCH, previous)
        print()
        if buttons is not None:
            buttons.close()
        if faces is not None:
            faces.close()
    return 0


def _act(clock: GameClock, name: str, at: int) -> None:
    """A button: a player's press, or the arbiter's start/pause/resume."""
    from firmware.rules.sets import Side

    if name == "white" or name == "black":
        clock.press(Side(name), at)
    elif name == "pause":
        if not clock.started:
            clock.start(at)
        elif clock.running is not None:
            clock.pause(at)
        elif clock.adjournment is None:
            clock.resume(at)


def _refresh(clock: GameClock, screen: Screen, buttons: Any, faces: Any, origin: int,
             sim: bool) -> None:
    """The buttons' presses in, the faces and the terminal line out."""
    import time

    now = time.monotonic_ns()
    if buttons is not None:
        for press in buttons.poll():
            # an edge stamped just before the last keyboard action counts at that time
            _act(clock, press.name, max(press.at, clock.last_at or press.at))
    prefix = ""
    if faces is not None:
        faces.update(clock, now)
        if sim:
            chips = faces.i2c.chips
            prefix = f"[{chips[0x70].text():>6}] [{chips[0x71].text():>6}]  "
    screen.status(clock, now, origin, prefix)
    screen.say(clock, now, origin)


def _on_key(key: str, clock: GameClock, screen: Screen, factory: Any, pins: dict[str, Any],
            origin: int) -> None:
    """A key: ``t`` says the times; a button's key presses its (simulated) button, or acts
    at once without buttons; anything else is the arbiter's (:func:`arbiter_key`)."""
    import time

    at = time.monotonic_ns()
    button = {"z": "white", "m": "black", " ": "pause"}.get(key)
    if key == "t":
        screen.say(clock, at, origin, force=True)
    elif button is not None and factory is not None:
        pin = factory.pin(pins[button])
        pin.drive_low()
        pin.drive_high()
    elif button is not None:
        _act(clock, button, at)
    else:
        arbiter_key(clock, key, at)


def terminal_width() -> int:
    """The terminal's width now (the tty's own size: ``COLUMNS`` goes stale on a resize)."""
    import os

    try:
        columns = os.get_terminal_size(sys.stdout.fileno()).columns
    except (OSError, ValueError):
        columns = 0
    return columns if columns > 0 else 80


def _devices(args: argparse.Namespace) -> tuple[Any, Any, Any, dict[str, int]]:
    """Faces, buttons, the mock pin factory (``--sim``) and the button pins."""
    pins = {"white": 14, "black": 15, "pause": 25}
    if not (args.sim or args.hw):
        return None, None, None, pins
    from hw.buttons import ClockButtons
    from hw.faces import ClockFaces
    from hw.mock.faces import simulated_faces

    if args.sim:
        from gpiozero.pins.mock import MockFactory

        factory = MockFactory()
        return simulated_faces(), ClockButtons(pins, pin_factory=factory), factory, pins
    from boardctl.settings import load_config

    config = load_config(args.config).hardware
    pins = {"white": config.buttons.white, "black": config.buttons.black,
            "pause": config.buttons.pause}
    faces = ClockFaces.real(config.faces.i2c_bus, config.faces.white_address,
                            config.faces.black_address, config.faces.brightness)
    return faces, ClockButtons(pins, pull_up=config.buttons.pull_up), None, pins


#: The arbiter's keys: (side, change of time in minutes, change of move count).
_ARBITER_KEYS = {
    "1": ("white", -1, 0), "2": ("white", 1, 0), "9": ("black", -1, 0), "0": ("black", 1, 0),
    "[": ("white", 0, -1), "]": ("white", 0, 1), ",": ("black", 0, -1), ".": ("black", 0, 1),
}


def arbiter_key(clock: GameClock, key: str, at: int) -> None:
    """Start, corrections (004 §32: a count past a control adds its period, the 15-minute
    rule), adjournment and resumption (004 §34-35) from the keyboard."""
    from firmware.rules.sets import Side

    if key == "s" and not clock.started:
        clock.start(at)
    elif key == "j" and clock.started and clock.adjournment is None:
        clock.adjourn(at)
    elif key == "r" and clock.adjournment is not None:
        clock.resume_adjourned(at)
    elif key in _ARBITER_KEYS:
        name, minutes, moves = _ARBITER_KEYS[key]
        side = Side(name)
        if minutes:
            clock.set_remaining(side, max(0, clock.remaining(side, at) + minutes * 60 * NS), at)
        if moves:
            clock.correct_moves(side, max(0, clock.moves_made(side) + moves), at)
