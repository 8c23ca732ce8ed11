"""The board's body as the service sees it (:class:`Hardware`, built on simulated parts by
:func:`sim_hardware` or on a Raspberry Pi by :func:`pi_hardware`), and :class:`EventScript`,
which acts an event log out on the simulated board for ``boardctl run --sim --events`` and
``boardctl demo``. Hardware libraries are imported inside the builders only."""

from __future__ import annotations

import dataclasses
import logging
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from firmware.formats.events import Event, Lift, Pause, Place, Press, Resume, Start
from hw import parts

if TYPE_CHECKING:
    from hw.config import BoardConfig
    from hw.gpio import GpioBackend

logger = logging.getLogger(__name__)


# --------------------------------------------------------------------------------------------
# The body, as the service sees it


class Hardware:
    """The board's parts behind the few calls the service makes. Built by :func:`sim_hardware`
    or :func:`pi_hardware`; any part but the scanner may be missing (None), and ``missing``
    then says which and why, one line each (the degraded mode)."""

    def __init__(
        self,
        *,
        size: int,
        scanner: parts.ScanLoop,
        samples: int,
        buttons: parts.Buttons | None = None,
        leds: parts.Leds | None = None,
        faces: parts.Faces | None = None,
        feed: parts.FeedOutput | None = None,
        sim: parts.Hands | None = None,
        factory: Any = None,
        button_pins: Mapping[str, int] | None = None,
        beeper: parts.Beeper | None = None,
        missing: Sequence[str] = (),
    ) -> None:
        self.size = size
        self.scanner = scanner
        self.samples = samples
        self.buttons = buttons
        self.leds = leds
        self.faces = faces
        self.feed = feed
        #: The simulated hands (``--sim``): None on a real board.
        self.sim = sim
        self.factory = factory
        self.button_pins = dict(button_pins or {})
        self.beeper = beeper  # hw.buzzer.Beeper: the service hands it every feed record
        self.missing = list(missing)

    def expect(self, squares: Iterable[str]) -> None:
        """Start debouncing from this settled state: whatever differs on the board is then
        reported as events (pieces moved while the service was down are not missed)."""
        from hw.debounce import Debouncer

        layout = self.scanner.matrix.layout
        known = [sq for sq in squares if sq in set(layout.squares)]
        self.scanner.debouncer = Debouncer(layout.squares, self.samples, initial=layout.mask(known))

    def scan(self) -> list[Any]:
        return list(self.scanner.step())

    def set_out(self, squares: Iterable[str]) -> None:
        """The pieces stand on exactly these squares: on a simulated board the arbiter's hands
        put them there; on a real board the arbiter does (nothing to do here)."""
        if self.sim is not None:
            self.sim.set_pieces(squares)

    def press(self, name: str, hold_ns: int = 0, release: bool = True) -> None:
        """Simulated hardware only: press a clock button (its real edge callback stamps the
        time; no sooner than its bounce lockout after its last edge) and, with ``release``,
        let it go; a button whose hold counts (the pause
        button's) is held ``hold_ns`` on the hand's own clock first, its hold reported with
        the pin still down (``hw.buttons.ClockButtons.hold``)."""
        settled_in = getattr(self.buttons, "settled_in", None)
        wait_ns = settled_in(name) if settled_in is not None else 0
        if wait_ns > 0:  # within the bounce lockout of its last edge: as a finger, a bit later
            time.sleep(wait_ns / 1e9)
        pin = self.factory.pin(self.button_pins[name])
        pin.drive_low()
        hold = getattr(self.buttons, "hold", None)
        if hold is not None:
            hold(name, hold_ns, release)
        if release:
            pin.drive_high()

    def release(self, name: str) -> None:
        """Simulated hardware only: let go of a clock button pressed without its release
        (:meth:`press`); one not down is left as it is."""
        pin = self.factory.pin(self.button_pins[name])
        let_go = getattr(self.buttons, "let_go", None)
        if let_go is not None:
            let_go(name)
        pin.drive_high()

    def close(self) -> None:
        for part in (self.buttons, self.faces, self.leds, self.beeper):
            if part is not None:
                try:
                    part.close()
                except Exception as exc:  # closing must go on with the other parts
                    logger.warning(f"closing {type(part).__name__}: {exc}")
        if self.feed is not None:
            self.feed.wait_idle(1.0)
            self.feed.close()
        self.scanner.matrix.close()


#: What the clock faces show for a missing part (degraded mode): White's face names the part,
#: Black's says "off", for :data:`NOTICE_SECONDS` after start. A 7-segment face has 4 places.
FACE_NOTICES = {"LED strip": "LEdS", "clock buttons": "butn"}
NOTICE_SECONDS = 10.0


class FacesWithNotice:
    """The clock faces that first name a missing part (:data:`FACE_NOTICES`), then show the
    clock as usual: :meth:`update` leaves the notice up until ``seconds`` have passed."""

    def __init__(self, faces: Any, part: str, *, clock: Callable[[], int] = time.monotonic_ns,
                 seconds: float = NOTICE_SECONDS) -> None:
        from firmware.clock.face import FaceText
        from firmware.rules.sets import Side

        self.faces = faces
        self._clock = clock
        self._until = clock() + round(seconds * 1e9)
        faces.show(Side.WHITE, FaceText(FACE_NOTICES[part], blink=True))
        faces.show(Side.BLACK, FaceText(" off", blink=True))

    def update(self, clock: Any, at: int) -> int:
        if self._clock() < self._until:
            return 0
        return int(self.faces.update(clock, at))

    def __getattr__(self, name: str) -> Any:  # show, shown, close ...: the faces' own
        return getattr(self.faces, name)


def sim_hardware(
    size: int,
    config: BoardConfig | None = None,
    *,
    clock: Callable[[], int] = time.monotonic_ns,
    feed_url: str | None = None,
    on_connect: Callable[[], Iterable[str] | None] | None = None,
) -> Hardware:
    """The whole board on simulated parts: the diode matrix and the buttons on gpiozero's
    MockFactory, the recording LED strip and faces; the real scanner (the one the config's
    GPIO backend scans with on a Pi), debouncer and drivers."""
    from gpiozero.pins.mock import MockFactory

    from hw.assemble import open_strip
    from hw.buttons import ClockButtons
    from hw.config import default_config
    from hw.debounce import Debouncer
    from hw.gpio import scans_by_groups
    from hw.matrix import Scanner
    from hw.mock.faces import simulated_faces
    from hw.mock.matrix import simulated_matrix
    from hw.serialport import FeedPort

    config = config or default_config(size)
    factory = MockFactory()
    matrix, board = simulated_matrix(size, config.matrix, factory,
                                     groups=scans_by_groups(config.gpio))
    samples = config.matrix.debounce_samples
    debouncer = Debouncer(matrix.layout.squares, samples, initial=0)
    scanner = Scanner(matrix, debouncer, lambda events: None, hz=config.matrix.scan_hz,
                      clock=clock)
    pins = {"white": config.buttons.white, "black": config.buttons.black,
            "pause": config.buttons.pause}
    buttons = ClockButtons(pins, clock=clock, pin_factory=factory)
    leds = open_strip(size, dataclasses.replace(config.leds, backend="sim"))
    faces = simulated_faces(config.faces.white_address, config.faces.black_address)
    feed = None
    if feed_url:
        feed = FeedPort(feed_url, baudrate=config.serial.baudrate,
                        write_timeout=config.serial.write_timeout,
                        queue_lines=config.serial.queue_lines,
                        reconnect_max_s=config.serial.reconnect_max_s, on_connect=on_connect)
    return Hardware(size=size, scanner=scanner, samples=samples, buttons=buttons, leds=leds,
                    faces=faces, feed=feed, sim=board, factory=factory,
                    button_pins={k: v for k, v in pins.items() if v},
                    beeper=_beeper(config, factory))


def pi_hardware(
    config: BoardConfig,
    *,
    clock: Callable[[], int] = time.monotonic_ns,
    feed_url: str | None = None,
    on_connect: Callable[[], Iterable[str] | None] | None = None,
    backend: GpioBackend | None = None,
) -> Hardware:
    """The real board from its configuration. Only the sensor matrix is essential: without it
    a HardwareError says why in one line. Any other part that cannot start (no clock faces
    on the I2C bus, no LED strip, buttons on a busy pin) is left out and named in
    ``Hardware.missing``, and the board referees on (degraded mode). ``backend``: a
    hw.gpio.GpioBackend instead of the one ``[gpio]`` chooses (tests)."""
    from firmware.errors import HardwareError
    from hw.assemble import open_matrix, open_strip
    from hw.buttons import open_buttons
    from hw.debounce import Debouncer
    from hw.faces import ClockFaces
    from hw.matrix import Scanner
    from hw.serialport import FeedPort, modem_manager_warning

    try:
        matrix, _ = open_matrix(config, backend=backend)
    except HardwareError as exc:  # the class kept: NoGpioBackend ends `boardctl run` for good
        raise type(exc)(f"the sensor matrix cannot start: {exc}") from None
    samples = config.matrix.debounce_samples
    scanner = Scanner(matrix, Debouncer(matrix.layout.squares, samples, initial=0),
                      lambda events: None, hz=config.matrix.scan_hz, clock=clock)
    missing: list[str] = []

    def optional(name: str, opener: Callable[[], Any]) -> Any:
        try:
            return opener()
        except Exception as exc:  # any failure of a non-essential part: degraded, named
            reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            missing.append(f"{name}: {reason}")
            logger.warning(f"running without the {name}: {reason}")
            return None

    buttons = optional("clock buttons", lambda: open_buttons(config.buttons, matrix.backend,
                                                             clock=clock))
    leds = optional("LED strip", lambda: open_strip(config.size, config.leds))
    faces = None
    if config.faces.enabled:
        f = config.faces
        faces = optional("clock faces", lambda: ClockFaces.real(
            f.i2c_bus, f.white_address, f.black_address, f.brightness))
    beeper = optional("buzzer", lambda: _beeper(config, matrix.backend.factory))
    noticed = [m.split(":")[0] for m in missing if m.split(":")[0] in FACE_NOTICES]
    if faces is not None and noticed:
        faces = FacesWithNotice(faces, noticed[0], clock=clock)
    port = feed_url or config.serial.port
    feed = FeedPort.from_config(dataclasses.replace(config.serial, port=port),
                                on_connect=on_connect) if port else None
    warning = modem_manager_warning(port) if port else None
    if warning:
        logger.warning(warning)
    return Hardware(size=config.size, scanner=scanner, samples=samples, buttons=buttons,
                    leds=leds, faces=faces, feed=feed, missing=missing,
                    beeper=beeper)


def _beeper(config: BoardConfig | None, factory: Any) -> parts.Beeper | None:
    """The ``[buzzer]`` of the config on the board's pin factory (None: none fitted)."""
    from hw.buzzer import open_beeper

    return open_beeper(config.buzzer if config is not None else None, pin_factory=factory)


# --------------------------------------------------------------------------------------------
# A log acted out on the simulated board


class EventScript:
    """Acts out an event log on simulated hardware: lifts and places move the simulated pieces
    (the real scanner and debouncer then see them, bounce included), presses press the
    simulated buttons, and the arbiter's events go straight to the service."""

    def __init__(self, events: Sequence[Event]) -> None:
        self.events = sorted(events, key=lambda e: e.at)
        self.pos = 0
        #: The log's own arbiter had paused the clocks (at the point reached by board_at).
        self.paused = False

    @property
    def has_start(self) -> bool:
        return any(isinstance(e, Start) for e in self.events)

    @property
    def has_presses(self) -> bool:
        return any(isinstance(e, Press) for e in self.events)

    @property
    def done(self) -> bool:
        return self.pos >= len(self.events)

    def next_at(self) -> int | None:
        return self.events[self.pos].at if self.pos < len(self.events) else None

    def board_at(self, start: Iterable[str], at: int) -> set[str]:
        """The pieces on the board at game time ``at``, and skip the events up to it."""
        pieces = set(start)
        while self.pos < len(self.events) and self.events[self.pos].at <= at:
            e = self.events[self.pos]
            if isinstance(e, Lift):
                pieces.discard(e.square)
            elif isinstance(e, Place):
                pieces.add(e.square)
            elif isinstance(e, Pause | Resume):
                self.paused = isinstance(e, Pause)
            self.pos += 1
        return pieces

    def act(self, at: int, hardware: Hardware) -> list[Event]:
        """Perform every event due by ``at``; returns the arbiter's events for the service."""
        arbiter: list[Event] = []
        hands = hardware.sim
        assert hands is not None, "an event script acts on a simulated board"
        while self.pos < len(self.events) and self.events[self.pos].at <= at:
            e = self.events[self.pos]
            self.pos += 1
            if isinstance(e, Lift):
                hands.lift(e.square)
            elif isinstance(e, Place):
                hands.place(e.square)
            elif isinstance(e, Press) and e.side in hardware.button_pins:
                hardware.press(e.side)
            else:
                arbiter.append(e)
        return arbiter
