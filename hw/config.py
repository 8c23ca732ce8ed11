"""The board's hardware as the configuration file describes it: its size and the sections
``[gpio]``, ``[matrix]``, ``[leds]``, ``[faces]``, ``[buttons]``, ``[serial]``, ``[buzzer]``, read
into frozen dataclasses and checked (:func:`parse_config`), no GPIO claimed twice against the
Pi's header (:mod:`hw.header`).

The file itself is read once by ``boardctl.settings.load_config``, which hands these tables
here and keeps the service's own settings; every section and key is optional: a missing key
takes the default shown in ``hw/config.example.toml``. A wrong key or value raises
:class:`ConfigError` naming the file and the key (:class:`hw.configreader.TableReader`).

Pin numbers are Broadcom (BCM) GPIO numbers, as gpiozero takes them.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any

from hw.configreader import TableReader, kind_of
from hw.header import (
    I2C_GPIOS,
    PWM_GPIOS,
    SPI_CHIP_SELECTS,
    SPI_HELD,
    SPI_MOSI,
    UART_GPIOS,
    uart_on_header,
)

#: The LED meanings of docs/DESIGN.md, each with its default colour.
DEFAULT_COLOURS: dict[str, tuple[int, int, int]] = {
    "restore": (0, 255, 0),
    "remove": (255, 0, 0),
    "must-move": (255, 160, 0),
    "wrong": (255, 0, 255),
    "last-move": (0, 64, 255),
    "land": (0, 255, 255),
    "link-down": (128, 128, 128),
}

_CORNERS = ("a1", "right-1", "a-top", "right-top")

#: The most bytes Blinka's SPI (Adafruit_PureIO) writes in one transfer (its chunk size, and
#: the kernel spidev driver's default bufsiz). Between two transfers the data line rests low
#: long enough for a WS2812 to latch, so a longer frame would show in two halves.
SPI_FRAME_MAX = 4096
#: neopixel_spi at its 6.4 MHz: one SPI byte per data bit, and 80 us of reset (64 bytes)
#: before and after each frame.
_SPI_RESET_BYTES = 64


def spi_frame_bytes(pixels: int, pixel_order: str = "GRB") -> int:
    """The bytes neopixel_spi sends over SPI for one frame of ``pixels``."""
    return 2 * _SPI_RESET_BYTES + 8 * len(pixel_order) * pixels


def spi_frame_limit(pixel_order: str = "GRB") -> int:
    """The most pixels one SPI transfer carries in ``pixel_order`` (165 GRB, 124 GRBW)."""
    return (SPI_FRAME_MAX - 2 * _SPI_RESET_BYTES) // (8 * len(pixel_order))


def led_pixels(size: int, layout: LedLayout) -> int:
    """The strip's pixels for a board: those before the board, then one per square (per dark
    square with ``dark_only``)."""
    return layout.first_pixel + (size * size // 2 if layout.dark_only else size * size)


#: Microseconds between selecting a row and reading the columns: a column that a closed switch
#: held low on the previous row must rise through its pull-up first (the RC arithmetic:
#: hw/README.md "Timing"). 10 us covers the internal ~50-65 kOhm pull-ups on a column of up to
#: 100 pF; the 10 kOhm external ones need far less.
SETTLE_US = 10


@dataclass(frozen=True, slots=True)
class MatrixConfig:
    """The reed switch matrix (hw/matrix.py).

    ``wiring = "dark"``: one sensor per dark square, ``size`` rows (one per rank, rank 1 first)
    by ``size // 2`` columns (column k of rank r is the k-th dark square from the a-file).
    ``wiring = "full"``: ``size`` rows by ``size`` columns (file a first); light squares unused.
    """

    wiring: str = "dark"
    rows: tuple[int, ...] = (4, 5, 6, 12, 13, 16, 17, 19, 20, 21)
    columns: tuple[int, ...] = (22, 23, 24, 26, 27)
    scan_hz: float = 100.0
    debounce_samples: int = 3
    settle_us: int = SETTLE_US


@dataclass(frozen=True, slots=True)
class LedLayout:
    """Where each square's pixel sits along the strip (hw/leds.py).

    ``origin``: the corner where the strip starts, from White's side: ``"a1"``, ``"right-1"``
    (h1 or j1), ``"a-top"`` (a8 or a10), ``"right-top"``. ``direction``: the first line of
    pixels runs along a rank (``"ranks"``) or along a file (``"files"``). ``serpentine``: every
    other line runs back. ``dark_only``: pixels under the dark squares only (32 or 50).
    ``rotation``: the board turned on the LED panel by 0, 90, 180 or 270 degrees clockwise.
    ``first_pixel``: pixels before the board's first one (status LEDs, a cut strip).
    """

    origin: str = "a1"
    direction: str = "ranks"
    serpentine: bool = True
    dark_only: bool = False
    rotation: int = 0
    first_pixel: int = 0


@dataclass(frozen=True, slots=True)
class LedConfig:
    """The NeoPixel strip under the squares (hw/leds.py).

    ``backend``: ``"none"``, ``"sim"`` (recording twin), ``"pwm"`` (adafruit-circuitpython-
    neopixel on ``pin``, needs root) or ``"spi"`` (neopixel_spi on SPI0 MOSI, GPIO10, no root;
    SPI0 then holds GPIO 7-11). ``free_chip_selects``: config.txt has dtoverlay=spi0-0cs, so
    the kernel leaves GPIO 7 and 8 (CE1, CE0) free for other uses.
    """

    backend: str = "none"
    pin: int = 18
    free_chip_selects: bool = False
    pixel_order: str = "GRB"
    brightness: float = 0.3
    layout: LedLayout = field(default_factory=LedLayout)
    colours: Mapping[str, tuple[int, int, int]] = field(
        default_factory=lambda: dict(DEFAULT_COLOURS)
    )


@dataclass(frozen=True, slots=True)
class FacesConfig:
    """The two clock faces, HT16K33 backpacks on I2C (hw/faces.py)."""

    enabled: bool = True
    i2c_bus: int = 1
    white_address: int = 0x70
    black_address: int = 0x71
    brightness: float = 0.5


@dataclass(frozen=True, slots=True)
class ButtonsConfig:
    """The clock buttons (hw/buttons.py): each pin to ground, internal pull-up by default.

    ``pause`` (the arbiter's button) is optional: 0 means not fitted.
    """

    white: int = 14
    black: int = 15
    pause: int = 25
    pull_up: bool = True


@dataclass(frozen=True, slots=True)
class SerialConfig:
    """The broadcast feed port (hw/serialport.py): a device path or a pyserial URL."""

    port: str = "/dev/ttyGS0"
    baudrate: int = 115200
    write_timeout: float = 0.5
    queue_lines: int = 2000
    reconnect_max_s: float = 5.0


@dataclass(frozen=True, slots=True)
class GpioConfig:
    """GPIO backend (hw/gpio.py). ``backend``: ``auto`` (lgpio on every model, else RPi.GPIO
    on a Pi 0-4), ``lgpio``, ``rpigpio`` (buttons polled), or ``gpiozero`` (kept for older
    files: the same as ``auto``). ``chip``: the gpiochip for lgpio; -1 (the default): the
    header's, found by its label whatever its number (hw/gpio.py find_header_chip)."""

    backend: str = "auto"
    chip: int = -1


@dataclass(frozen=True, slots=True)
class BuzzerConfig:
    """A buzzer (hw/buzzer.py) on one GPIO: 0 means not fitted. ``tonal``: a passive piezo
    driven by PWM (gpiozero TonalBuzzer), else an active buzzer (gpiozero Buzzer).
    ``ten_seconds``: also beep when a running clock reaches 10 s left."""

    pin: int = 0
    tonal: bool = False
    ten_seconds: bool = False


@dataclass(frozen=True, slots=True)
class BoardConfig:
    """The board's hardware: its size and the hardware's sections of the file."""

    size: int = 10
    gpio: GpioConfig = field(default_factory=GpioConfig)
    matrix: MatrixConfig = field(default_factory=MatrixConfig)
    leds: LedConfig = field(default_factory=LedConfig)
    faces: FacesConfig = field(default_factory=FacesConfig)
    buttons: ButtonsConfig = field(default_factory=ButtonsConfig)
    serial: SerialConfig = field(default_factory=SerialConfig)
    buzzer: BuzzerConfig = field(default_factory=BuzzerConfig)
    source: str = "<defaults>"

    def gpio_claims(self) -> list[tuple[int, str]]:
        """Every GPIO this configuration claims, with the key that claims it, in the order
        the keys are checked (buses first, then the matrix, then the buttons)."""
        claims: list[tuple[int, str]] = []
        if self.faces.enabled:
            claims += [(pin, f"faces ({what})") for pin, what in I2C_GPIOS.items()]
        if self.leds.backend == "pwm":
            claims.append((self.leds.pin, "leds.pin"))
        elif self.leds.backend == "spi":
            held = {SPI_MOSI: "SPI MOSI", **SPI_HELD}
            if not self.leds.free_chip_selects:
                held.update(SPI_CHIP_SELECTS)
            claims += [(pin, f"leds ({what})") for pin, what in held.items()]
        if uart_on_header(self.serial.port):
            claims += [(pin, f"serial.port ({self.serial.port}: {what})")
                       for pin, what in UART_GPIOS.items()]
        claims += [(p, f"matrix.rows[{i}]") for i, p in enumerate(self.matrix.rows)]
        claims += [(p, f"matrix.columns[{i}]") for i, p in enumerate(self.matrix.columns)]
        claims += [(getattr(self.buttons, n), f"buttons.{n}") for n in ("white", "black", "pause")
                   if getattr(self.buttons, n)]
        if self.buzzer.pin:
            claims.append((self.buzzer.pin, "buzzer.pin"))
        return claims


def default_config(size: int = 10) -> BoardConfig:
    """The built-in configuration for a board size (the example file's pin map)."""
    if size == 8:
        return BoardConfig(
            size=8,
            matrix=MatrixConfig(rows=(4, 5, 6, 12, 13, 16, 17, 19), columns=(22, 23, 24, 26)),
        )
    return BoardConfig(size=size)


# --- reading ------------------------------------------------------------------------------


_HEX_COLOUR = re.compile(r"#?([0-9a-fA-F]{6})")


def _colour(r: TableReader, where: str, value: object) -> tuple[int, int, int]:
    if isinstance(value, str):
        m = _HEX_COLOUR.fullmatch(value.strip())
        if m:
            n = int(m.group(1), 16)
            return (n >> 16) & 0xFF, (n >> 8) & 0xFF, n & 0xFF
    if (isinstance(value, list) and len(value) == 3
            and all(isinstance(c, int) and not isinstance(c, bool) and 0 <= c <= 255
                    for c in value)):
        return value[0], value[1], value[2]
    raise r.fail(where, 'expected a colour as "#rrggbb" or [r, g, b] (0..255), got '
                 f'{kind_of(value)}')


#: The file's top-level keys that are the hardware's (the others are the service's).
HARDWARE_KEYS = tuple(f.name for f in fields(BoardConfig) if f.name != "source")


def parse_config(data: dict[str, Any], source: str = "<config>") -> BoardConfig:
    """Check the hardware's part of a TOML document (already parsed: the file's top-level
    table, or those of its keys that are :data:`HARDWARE_KEYS`) and build the configuration."""
    r = TableReader(source)
    top = r.table(data, "", BoardConfig)
    size = top.get("size", 10)
    if size not in (8, 10) or isinstance(size, bool):
        raise r.fail("size", f"{size!r} is not a board size (8 or 10)")
    base = default_config(size)
    gpio = _gpio(r, top.get("gpio", {}))
    matrix = _matrix(r, top.get("matrix", {}), size, base)
    leds = _leds(r, top.get("leds", {}))
    faces = _faces(r, top.get("faces", {}))
    buttons = _buttons(r, top.get("buttons", {}), base)
    serial = _serial(r, top.get("serial", {}))
    buzzer = _buzzer(r, top.get("buzzer", {}))
    config = BoardConfig(size=size, gpio=gpio, matrix=matrix, leds=leds, faces=faces,
                         buttons=buttons, serial=serial, buzzer=buzzer, source=source)
    _check_pins(r, config)
    if config.leds.backend == "spi" and (why := spi_frame_refusal(config.size, config.leds)):
        raise r.fail("leds.layout", why)
    return config


def spi_frame_refusal(size: int, leds: LedConfig) -> str | None:
    """Why the SPI strip of this layout cannot show a frame whole, or None."""
    pixels = led_pixels(size, leds.layout)
    frame = spi_frame_bytes(pixels, leds.pixel_order)
    if frame <= SPI_FRAME_MAX:
        return None
    return (f"{pixels} {leds.pixel_order} pixels take {frame} bytes a frame over SPI, more "
            f"than the {SPI_FRAME_MAX} Blinka's SPI sends in one transfer: the strip would "
            f"latch mid-frame; at most {spi_frame_limit(leds.pixel_order)} pixels (fewer "
            "first_pixel, or dark_only = true)")


def _gpio(r: TableReader, data: Any) -> GpioConfig:
    g = r.table(data, "gpio", GpioConfig)
    gpio = GpioConfig(
        backend=r.choice(g, "gpio", "backend", "auto", ("auto", "rpigpio", "lgpio", "gpiozero")),
        chip=r.integer(g, "gpio", "chip", -1, -1, 63),  # a Pi 5 on 6.12: gpiochip11-15
    )
    if gpio.chip >= 0 and gpio.backend == "rpigpio":
        raise r.fail("gpio.chip", "a gpiochip is an lgpio setting; RPi.GPIO has none "
                     "(set gpio.backend = \"lgpio\")")
    return gpio


def _matrix(r: TableReader, data: Any, size: int, base: BoardConfig) -> MatrixConfig:
    m = r.table(data, "matrix", MatrixConfig)
    wiring = r.choice(m, "matrix", "wiring", "dark", ("dark", "full"))
    ncols = size // 2 if wiring == "dark" else size
    default_cols = base.matrix.columns if wiring == "dark" else ()
    if wiring == "full" and "columns" not in m:
        raise r.fail("matrix.columns", f"full wiring needs {size} column GPIOs, none given")
    return MatrixConfig(
        wiring=wiring,
        rows=r.gpio_list(m, "matrix", "rows", base.matrix.rows, size),
        columns=r.gpio_list(m, "matrix", "columns", default_cols, ncols),
        scan_hz=r.number(m, "matrix", "scan_hz", 100.0, 10.0, 2000.0),
        debounce_samples=r.integer(m, "matrix", "debounce_samples", 3, 1, 50),
        settle_us=r.integer(m, "matrix", "settle_us", SETTLE_US, 0, 1000),
    )


def _leds(r: TableReader, data: Any) -> LedConfig:
    led = r.table(data, "leds", LedConfig)
    layout = _led_layout(r, led.get("layout", {}))
    colours = _led_colours(r, led.get("colours", {}))
    backend = r.choice(led, "leds", "backend", "none", ("none", "sim", "pwm", "spi"))
    pixel_order = r.choice(led, "leds", "pixel_order", "GRB", ("GRB", "RGB", "GRBW", "RGBW"))
    pin = r.gpio(led, "leds", "pin", 18)
    if backend == "pwm" and pin not in PWM_GPIOS:
        raise r.fail("leds.pin", f"GPIO{pin} cannot drive a NeoPixel strip "
                     f"(use one of {', '.join(map(str, PWM_GPIOS))}; 18 is usual)")
    return LedConfig(
        backend=backend, pin=pin, pixel_order=pixel_order,
        free_chip_selects=r.boolean(led, "leds", "free_chip_selects", False),
        brightness=r.number(led, "leds", "brightness", 0.3, 0.0, 1.0),
        layout=layout, colours=colours,
    )


def _led_layout(r: TableReader, data: Any) -> LedLayout:
    lay = r.table(data, "leds.layout", LedLayout)
    layout = LedLayout(
        origin=r.choice(lay, "leds.layout", "origin", "a1", _CORNERS),
        direction=r.choice(lay, "leds.layout", "direction", "ranks", ("ranks", "files")),
        serpentine=r.boolean(lay, "leds.layout", "serpentine", True),
        dark_only=r.boolean(lay, "leds.layout", "dark_only", False),
        rotation=r.integer(lay, "leds.layout", "rotation", 0),
        first_pixel=r.integer(lay, "leds.layout", "first_pixel", 0, 0, 10000),
    )
    if layout.rotation not in (0, 90, 180, 270):
        raise r.fail("leds.layout.rotation", f"{layout.rotation} is not 0, 90, 180 or 270")
    return layout


def _led_colours(r: TableReader, col: Any) -> dict[str, tuple[int, int, int]]:
    colours = dict(DEFAULT_COLOURS)
    if not isinstance(col, dict):
        raise r.fail("leds.colours", f"expected a table, got {kind_of(col)}")
    for meaning, value in col.items():
        if meaning not in DEFAULT_COLOURS:
            hint = difflib.get_close_matches(meaning, list(DEFAULT_COLOURS), n=1)
            suggestion = f"; did you mean '{hint[0]}'?" if hint else ""
            raise r.fail(f"leds.colours.{meaning}", f"unknown LED meaning{suggestion} "
                         f"(known: {', '.join(DEFAULT_COLOURS)})")
        colours[meaning] = _colour(r, f"leds.colours.{meaning}", value)
    return colours


def _faces(r: TableReader, data: Any) -> FacesConfig:
    f = r.table(data, "faces", FacesConfig)
    faces = FacesConfig(
        enabled=r.boolean(f, "faces", "enabled", True),
        i2c_bus=r.integer(f, "faces", "i2c_bus", 1, 0, 31),
        white_address=r.integer(f, "faces", "white_address", 0x70, 0x70, 0x77),
        black_address=r.integer(f, "faces", "black_address", 0x71, 0x70, 0x77),
        brightness=r.number(f, "faces", "brightness", 0.5, 0.0, 1.0),
    )
    if faces.enabled and faces.white_address == faces.black_address:
        raise r.fail("faces.black_address", f"0x{faces.black_address:02x} is also "
                     "faces.white_address; solder an address jumper on one face")
    return faces


def _buttons(r: TableReader, data: Any, base: BoardConfig) -> ButtonsConfig:
    b = r.table(data, "buttons", ButtonsConfig)
    return ButtonsConfig(
        white=r.gpio(b, "buttons", "white", base.buttons.white),
        black=r.gpio(b, "buttons", "black", base.buttons.black),
        pause=r.gpio(b, "buttons", "pause", base.buttons.pause, optional=True),
        pull_up=r.boolean(b, "buttons", "pull_up", True),
    )


def _serial(r: TableReader, data: Any) -> SerialConfig:
    s = r.table(data, "serial", SerialConfig)
    return SerialConfig(
        port=r.string(s, "serial", "port", "/dev/ttyGS0"),
        baudrate=r.integer(s, "serial", "baudrate", 115200, 300, 4_000_000),
        write_timeout=r.number(s, "serial", "write_timeout", 0.5, 0.001, 60.0),
        queue_lines=r.integer(s, "serial", "queue_lines", 2000, 1, 1_000_000),
        reconnect_max_s=r.number(s, "serial", "reconnect_max_s", 5.0, 0.01, 600.0),
    )


def _buzzer(r: TableReader, data: Any) -> BuzzerConfig:
    z = r.table(data, "buzzer", BuzzerConfig)
    return BuzzerConfig(
        pin=r.gpio(z, "buzzer", "pin", 0, optional=True),
        tonal=r.boolean(z, "buzzer", "tonal", False),
        ten_seconds=r.boolean(z, "buzzer", "ten_seconds", False),
    )


def _check_pins(r: TableReader, config: BoardConfig) -> None:
    """No GPIO claimed twice (a row also a button, a column on the I2C or LED line)."""
    seen: dict[int, str] = {}
    for pin, what in config.gpio_claims():
        if pin in seen:
            raise r.fail(what, f"GPIO{pin} is already used by {seen[pin]}")
        seen[pin] = what
