"""The board's configuration file (TOML), read into frozen dataclasses and checked on load.

The file lives at ``/etc/boardctl/config.toml`` (``SYSTEM_PATH``) unless ``--config`` names
another. Every section and key is optional: a missing key takes the default shown in
``hw/config.example.toml``. A wrong key or value raises :class:`ConfigError` whose message
names the file, the key (``matrix.rows``) and what is wrong; unknown keys are rejected with the
nearest known key as a suggestion, so that a typo never silently falls back to a default.

Pin numbers are Broadcom (BCM) GPIO numbers, as gpiozero takes them.
"""

from __future__ import annotations

import difflib
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from firmware.errors import ConfigError
from firmware.limits import clip

SYSTEM_PATH = Path("/etc/boardctl/config.toml")

#: The LED meanings of docs/DESIGN.md, each with its default colour.
DEFAULT_COLOURS: dict[str, tuple[int, int, int]] = {
    "restore": (0, 255, 0),
    "remove": (255, 0, 0),
    "must-move": (255, 160, 0),
    "wrong": (255, 0, 255),
    "last-move": (0, 64, 255),
}

#: GPIOs of the 40-pin header that a device may use (BCM 2..27; 0 and 1 hold the HAT EEPROM).
USABLE_GPIOS = range(2, 28)
_I2C_GPIOS = {2: "I2C SDA", 3: "I2C SCL"}
_SPI_MOSI = 10
#: What the kernel holds with SPI0 on (dtparam=spi=on), besides MOSI: "GPIO busy" for another
#: user. The chip selects are free with dtoverlay=spi0-0cs (``[leds] free_chip_selects``).
_SPI_HELD = {9: "SPI MISO", 11: "SPI SCLK"}
_SPI_CHIP_SELECTS = {8: "SPI CE0", 7: "SPI CE1"}
#: The header's UART (GPIO 14 TX, 15 RX). A button claimed there by lgpio takes the pin from
#: the UART without an error (the Pi's pin controller lets a GPIO request through), and the
#: feed then goes nowhere: refused while the feed is on that UART.
_UART_GPIOS = {14: "UART TX", 15: "UART RX"}
#: The header UART's devices: ttyS0 (Pi 0-4's mini UART) and ttyAMA0 (a Pi 0-4's PL011 with
#: Bluetooth moved, a Pi 5's UART0 with dtparam=uart0=on). ``serial0`` is the link to one of
#: them on a Pi 0-4; on a Pi 5 it names the debug connector (ttyAMA10), off the header.
_HEADER_UARTS = ("ttyS0", "ttyAMA0")
_PWM_GPIOS = (10, 12, 13, 18, 19, 21)  # the pins rpi_ws281x drives a strip from (18 usual)

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
class BrokerSection:
    """The hall's MQTT broker (boardctl/hall/broker.py, docs/HALL.md). ``url`` empty: no broker.
    ``hall`` and ``board`` name this board in the hall (never taken from the hostname);
    ``password_file``: a file holding the password (kept out of this file's readers)."""

    url: str = ""
    hall: str = ""
    board: str = ""
    username: str = ""
    password_file: str = ""
    ca_file: str = ""
    tls: bool = False
    keepalive: int = 10
    queue_lines: int = 10_000
    #: A file holding the hall's key: the arbiter's desk may act on this board (docs/HALL.md).
    hall_key_file: str = ""


@dataclass(frozen=True, slots=True)
class EngineSection:
    """The computer as a player (boardctl/engine/player.py, docs/ENGINE.md). ``engine``
    empty: nobody; ``builtin`` or ``hub:COMMAND``. ``side``: the engine's colour; ``level``
    1-10 or a name (the built-in engine); ``move_time``: seconds a move (0: from its clock)."""

    engine: str = ""
    side: str = "black"
    level: str = "10"
    move_time: float = 0.0


@dataclass(frozen=True, slots=True)
class HttpSection:
    """The board's own page (boardctl/page, docs/PAGE.md). ``listen`` empty: no page, else
    ``HOST:PORT`` (``0.0.0.0:8080``: every network the Pi is on). ``password_file``: a file
    holding the password every change (a new game) needs; none: anyone on the network may.
    ``read``: ``open`` (anyone may look) or ``password`` (looking needs it too)."""

    listen: str = ""
    password_file: str = ""
    read: str = "open"


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
    """The whole file."""

    size: int = 10
    state_dir: str = "/var/lib/boardctl"
    gpio: GpioConfig = field(default_factory=GpioConfig)
    matrix: MatrixConfig = field(default_factory=MatrixConfig)
    leds: LedConfig = field(default_factory=LedConfig)
    faces: FacesConfig = field(default_factory=FacesConfig)
    buttons: ButtonsConfig = field(default_factory=ButtonsConfig)
    serial: SerialConfig = field(default_factory=SerialConfig)
    #: Shortest lift of one's own piece that is a touch, seconds (firmware.referee TOUCH_NS).
    touch_min: float = 0.25
    buzzer: BuzzerConfig = field(default_factory=BuzzerConfig)
    broker: BrokerSection = field(default_factory=BrokerSection)
    engine: EngineSection = field(default_factory=EngineSection)
    http: HttpSection = field(default_factory=HttpSection)
    source: str = "<defaults>"

    def gpio_claims(self) -> list[tuple[int, str]]:
        """Every GPIO this configuration claims, with the key that claims it, in the order
        the keys are checked (buses first, then the matrix, then the buttons)."""
        claims: list[tuple[int, str]] = []
        if self.faces.enabled:
            claims += [(pin, f"faces ({what})") for pin, what in _I2C_GPIOS.items()]
        if self.leds.backend == "pwm":
            claims.append((self.leds.pin, "leds.pin"))
        elif self.leds.backend == "spi":
            held = {_SPI_MOSI: "SPI MOSI", **_SPI_HELD}
            if not self.leds.free_chip_selects:
                held.update(_SPI_CHIP_SELECTS)
            claims += [(pin, f"leds ({what})") for pin, what in held.items()]
        if uart_on_header(self.serial.port):
            claims += [(pin, f"serial.port ({self.serial.port}: {what})")
                       for pin, what in _UART_GPIOS.items()]
        claims += [(p, f"matrix.rows[{i}]") for i, p in enumerate(self.matrix.rows)]
        claims += [(p, f"matrix.columns[{i}]") for i, p in enumerate(self.matrix.columns)]
        claims += [(getattr(self.buttons, n), f"buttons.{n}") for n in ("white", "black", "pause")
                   if getattr(self.buttons, n)]
        if self.buzzer.pin:
            claims.append((self.buzzer.pin, "buzzer.pin"))
        return claims


def uart_on_header(port: str) -> bool:
    """Whether the feed ``port`` is the header's UART on GPIO 14/15 (``serial0`` by the device
    its link names; without the link, the UART off or not a Pi, as on a Pi 0-4)."""
    name = port.rstrip("/").rsplit("/", 1)[-1]
    if name == "serial0" and "://" not in port:
        try:
            name = Path(port).resolve(strict=True).name
        except (OSError, RuntimeError):
            return True
    return name in _HEADER_UARTS and "://" not in port


def default_config(size: int = 10) -> BoardConfig:
    """The built-in configuration for a board size (the example file's pin map)."""
    if size == 8:
        return BoardConfig(
            size=8,
            matrix=MatrixConfig(rows=(4, 5, 6, 12, 13, 16, 17, 19), columns=(22, 23, 24, 26)),
        )
    return BoardConfig(size=size)


# --- reading ------------------------------------------------------------------------------


class _Reader:
    """Walks one TOML table against one dataclass, collecting values or raising ConfigError."""

    def __init__(self, source: str) -> None:
        self.source = source

    def fail(self, key: str, what: str) -> ConfigError:
        """The one-line error, a value of any size in it cut to a readable length."""
        return ConfigError(f"{self.source}: {clip(f'{key}: {what}', 300)}")

    def table(self, data: Any, key: str, cls: type) -> dict[str, Any]:
        if not isinstance(data, dict):
            raise self.fail(key, f"expected a table ([{key}]), got {_kind(data)}")
        known = [f.name for f in fields(cls) if f.name != "source"]
        for name in data:
            if name not in known:
                where = _join(key, name)
                hint = difflib.get_close_matches(name, known, n=1, cutoff=0.6)
                suggestion = f"; did you mean '{hint[0]}'?" if hint else ""
                raise self.fail(where, f"unknown key{suggestion} (known: {', '.join(known)})")
        return data

    def integer(self, data: dict[str, Any], key: str, name: str, default: int,
                lo: int | None = None, hi: int | None = None) -> int:
        if name not in data:
            return default
        value = data[name]
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.fail(_join(key, name), f"expected an integer, got {_kind(value)}")
        if (lo is not None and value < lo) or (hi is not None and value > hi):
            raise self.fail(_join(key, name), f"{value} is out of range {lo}..{hi}")
        return value

    def number(self, data: dict[str, Any], key: str, name: str, default: float,
               lo: float, hi: float) -> float:
        if name not in data:
            return default
        value = data[name]
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise self.fail(_join(key, name), f"expected a number, got {_kind(value)}")
        if not lo <= value <= hi:
            raise self.fail(_join(key, name), f"{value} is out of range {lo:g}..{hi:g}")
        return float(value)

    def boolean(self, data: dict[str, Any], key: str, name: str, default: bool) -> bool:
        if name not in data:
            return default
        value = data[name]
        if not isinstance(value, bool):
            raise self.fail(_join(key, name), f"expected true or false, got {_kind(value)}")
        return value

    def choice(self, data: dict[str, Any], key: str, name: str, default: str,
               choices: tuple[str, ...]) -> str:
        if name not in data:
            return default
        value = data[name]
        if value not in choices:
            hint = ""
            if isinstance(value, str):
                close = difflib.get_close_matches(value, choices, n=1, cutoff=0.5)
                hint = f"; did you mean '{close[0]}'?" if close else ""
            raise self.fail(
                _join(key, name), f"{value!r} is not one of {', '.join(choices)}{hint}"
            )
        return str(value)

    def string(self, data: dict[str, Any], key: str, name: str, default: str) -> str:
        if name not in data:
            return default
        value = data[name]
        if not isinstance(value, str) or not value.strip():
            raise self.fail(_join(key, name), f"expected a non-empty string, got {_kind(value)}")
        if len(value) > 4096 or any(ch < " " for ch in value):
            raise self.fail(_join(key, name), "expected one line of text (no control "
                            "characters, at most 4096)")
        return value

    def gpio(self, data: dict[str, Any], key: str, name: str, default: int,
             optional: bool = False) -> int:
        value = self.integer(data, key, name, default)
        if optional and value == 0:
            return 0
        if value not in USABLE_GPIOS:
            raise self.fail(_join(key, name), f"GPIO{value} is not a usable header GPIO (2..27)")
        return value

    def gpio_list(self, data: dict[str, Any], key: str, name: str,
                  default: tuple[int, ...], length: int) -> tuple[int, ...]:
        value = data.get(name, list(default))
        where = _join(key, name)
        if not isinstance(value, list):
            raise self.fail(where, f"expected a list of GPIO numbers, got {_kind(value)}")
        if len(value) != length:
            raise self.fail(where, f"expected {length} GPIO numbers, got {len(value)}")
        for i, pin in enumerate(value):
            if isinstance(pin, bool) or not isinstance(pin, int):
                raise self.fail(f"{where}[{i}]", f"expected a GPIO number, got {_kind(pin)}")
            if pin not in USABLE_GPIOS:
                raise self.fail(f"{where}[{i}]", f"GPIO{pin} is not a usable header GPIO (2..27)")
        return tuple(value)


def _join(key: str, name: str) -> str:
    return f"{key}.{name}" if key else name


def _kind(value: object) -> str:
    if isinstance(value, dict):
        return "a table"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, bool):
        return "a boolean"
    return f"{type(value).__name__} {value!r}"


_HEX_COLOUR = re.compile(r"#?([0-9a-fA-F]{6})")


def _colour(r: _Reader, where: str, value: object) -> tuple[int, int, int]:
    if isinstance(value, str):
        m = _HEX_COLOUR.fullmatch(value.strip())
        if m:
            n = int(m.group(1), 16)
            return (n >> 16) & 0xFF, (n >> 8) & 0xFF, n & 0xFF
    if (isinstance(value, list) and len(value) == 3
            and all(isinstance(c, int) and not isinstance(c, bool) and 0 <= c <= 255
                    for c in value)):
        return value[0], value[1], value[2]
    raise r.fail(where, f'expected a colour as "#rrggbb" or [r, g, b] (0..255), got {_kind(value)}')


def parse_config(data: dict[str, Any], source: str = "<config>") -> BoardConfig:
    """Check a TOML document (already parsed) and build the configuration."""
    r = _Reader(source)
    top = r.table(data, "", BoardConfig)
    size = top.get("size", 10)
    if size not in (8, 10) or isinstance(size, bool):
        raise r.fail("size", f"{size!r} is not a board size (8 or 10)")
    base = default_config(size)
    state_dir = r.string(top, "", "state_dir", base.state_dir)
    if not Path(state_dir).is_absolute():
        raise r.fail("state_dir", f"{state_dir!r} is not an absolute path")

    gpio = _gpio(r, top.get("gpio", {}))
    matrix = _matrix(r, top.get("matrix", {}), size, base)
    leds = _leds(r, top.get("leds", {}))
    faces = _faces(r, top.get("faces", {}))
    buttons = _buttons(r, top.get("buttons", {}), base)
    serial = _serial(r, top.get("serial", {}))
    touch_min = r.number(top, "", "touch_min", 0.25, 0.02, 2.0)
    buzzer = _buzzer(r, top.get("buzzer", {}))
    config = BoardConfig(size=size, state_dir=state_dir, gpio=gpio, matrix=matrix, leds=leds,
                         faces=faces, buttons=buttons, serial=serial, touch_min=touch_min,
                         buzzer=buzzer, broker=_broker(r, top.get("broker", {})),
                         engine=_engine(r, top.get("engine", {})),
                         http=_http(r, top.get("http", {})), source=source)
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


def _gpio(r: _Reader, data: Any) -> GpioConfig:
    g = r.table(data, "gpio", GpioConfig)
    gpio = GpioConfig(
        backend=r.choice(g, "gpio", "backend", "auto", ("auto", "rpigpio", "lgpio", "gpiozero")),
        chip=r.integer(g, "gpio", "chip", -1, -1, 63),  # a Pi 5 on 6.12: gpiochip11-15
    )
    if gpio.chip >= 0 and gpio.backend == "rpigpio":
        raise r.fail("gpio.chip", "a gpiochip is an lgpio setting; RPi.GPIO has none "
                     "(set gpio.backend = \"lgpio\")")
    return gpio


def _matrix(r: _Reader, data: Any, size: int, base: BoardConfig) -> MatrixConfig:
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


def _leds(r: _Reader, data: Any) -> LedConfig:
    led = r.table(data, "leds", LedConfig)
    layout = _led_layout(r, led.get("layout", {}))
    colours = _led_colours(r, led.get("colours", {}))
    backend = r.choice(led, "leds", "backend", "none", ("none", "sim", "pwm", "spi"))
    pixel_order = r.choice(led, "leds", "pixel_order", "GRB", ("GRB", "RGB", "GRBW", "RGBW"))
    pin = r.gpio(led, "leds", "pin", 18)
    if backend == "pwm" and pin not in _PWM_GPIOS:
        raise r.fail("leds.pin", f"GPIO{pin} cannot drive a NeoPixel strip "
                     f"(use one of {', '.join(map(str, _PWM_GPIOS))}; 18 is usual)")
    return LedConfig(
        backend=backend, pin=pin, pixel_order=pixel_order,
        free_chip_selects=r.boolean(led, "leds", "free_chip_selects", False),
        brightness=r.number(led, "leds", "brightness", 0.3, 0.0, 1.0),
        layout=layout, colours=colours,
    )


def _led_layout(r: _Reader, data: Any) -> LedLayout:
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


def _led_colours(r: _Reader, col: Any) -> dict[str, tuple[int, int, int]]:
    colours = dict(DEFAULT_COLOURS)
    if not isinstance(col, dict):
        raise r.fail("leds.colours", f"expected a table, got {_kind(col)}")
    for meaning, value in col.items():
        if meaning not in DEFAULT_COLOURS:
            hint = difflib.get_close_matches(meaning, list(DEFAULT_COLOURS), n=1)
            suggestion = f"; did you mean '{hint[0]}'?" if hint else ""
            raise r.fail(f"leds.colours.{meaning}", f"unknown LED meaning{suggestion} "
                         f"(known: {', '.join(DEFAULT_COLOURS)})")
        colours[meaning] = _colour(r, f"leds.colours.{meaning}", value)
    return colours


def _faces(r: _Reader, data: Any) -> FacesConfig:
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


def _buttons(r: _Reader, data: Any, base: BoardConfig) -> ButtonsConfig:
    b = r.table(data, "buttons", ButtonsConfig)
    return ButtonsConfig(
        white=r.gpio(b, "buttons", "white", base.buttons.white),
        black=r.gpio(b, "buttons", "black", base.buttons.black),
        pause=r.gpio(b, "buttons", "pause", base.buttons.pause, optional=True),
        pull_up=r.boolean(b, "buttons", "pull_up", True),
    )


def _serial(r: _Reader, data: Any) -> SerialConfig:
    s = r.table(data, "serial", SerialConfig)
    return SerialConfig(
        port=r.string(s, "serial", "port", "/dev/ttyGS0"),
        baudrate=r.integer(s, "serial", "baudrate", 115200, 300, 4_000_000),
        write_timeout=r.number(s, "serial", "write_timeout", 0.5, 0.001, 60.0),
        queue_lines=r.integer(s, "serial", "queue_lines", 2000, 1, 1_000_000),
        reconnect_max_s=r.number(s, "serial", "reconnect_max_s", 5.0, 0.01, 600.0),
    )


def _buzzer(r: _Reader, data: Any) -> BuzzerConfig:
    z = r.table(data, "buzzer", BuzzerConfig)
    return BuzzerConfig(
        pin=r.gpio(z, "buzzer", "pin", 0, optional=True),
        tonal=r.boolean(z, "buzzer", "tonal", False),
        ten_seconds=r.boolean(z, "buzzer", "ten_seconds", False),
    )


def _broker(r: _Reader, data: Any) -> BrokerSection:
    """``[broker]``: names as MQTT topics allow them, an mqtt:// or mqtts:// URL."""
    k = r.table(data, "broker", BrokerSection)
    strings = {name: r.string(k, "broker", name, "") if name in k else ""
               for name in ("url", "hall", "board", "username", "password_file", "ca_file",
                            "hall_key_file")}
    url = strings["url"]
    if url and not re.fullmatch(r"mqtts?://[^/?#\s]+", url):
        raise r.fail("broker.url", f"{url!r} is not mqtt://HOST:PORT or mqtts://HOST:PORT")
    for name in ("hall", "board"):
        if strings[name] and not re.fullmatch(r"[A-Za-z0-9_-]{1,64}", strings[name]):
            raise r.fail(f"broker.{name}", f"{strings[name]!r} is not 1-64 letters, digits, "
                         "'-' or '_'")
    return BrokerSection(
        **strings,
        tls=r.boolean(k, "broker", "tls", False),
        keepalive=r.integer(k, "broker", "keepalive", 10, 1, 3600),
        queue_lines=r.integer(k, "broker", "queue_lines", 10_000, 100, 1_000_000),
    )


def _engine(r: _Reader, data: Any) -> EngineSection:
    """``[engine]``: ``builtin`` or ``hub:COMMAND``, a side, a level, a move time."""
    k = r.table(data, "engine", EngineSection)
    engine = r.string(k, "engine", "engine", "").strip()
    if engine and engine != "builtin" and not (engine.startswith("hub:") and engine[4:].strip()):
        raise r.fail("engine.engine", f"{engine[:80]!r} is not builtin or hub:COMMAND")
    side = r.string(k, "engine", "side", "black")
    if side not in ("white", "black"):
        raise r.fail("engine.side", f"{side[:20]!r} is not white or black")
    level = k.get("level", "10")
    if isinstance(level, bool) or not isinstance(level, int | str) or not str(level).strip():
        raise r.fail("engine.level", f"{level!r} is not a level (1-10 or a name)")
    return EngineSection(engine=engine, side=side, level=str(level).strip(),
                         move_time=r.number(k, "engine", "move_time", 0.0, 0.0, 3600.0))


#: ``[http] listen``: a host name or IPv4 address, or an IPv6 one in brackets, then a port.
_LISTEN = re.compile(r"(\[[0-9A-Fa-f:.]{2,45}\]|[A-Za-z0-9.-]{0,253}):([0-9]{1,5})")


def _http(r: _Reader, data: Any) -> HttpSection:
    """``[http]``: where the board's page listens, its password file, who may read it."""
    k = r.table(data, "http", HttpSection)
    listen = r.string(k, "http", "listen", "").strip()
    m = _LISTEN.fullmatch(listen)
    if listen and (m is None or int(m.group(2)) > 65535):  # 0: any free port
        raise r.fail("http.listen", f"{listen[:80]!r} is not HOST:PORT (e.g. \"0.0.0.0:8080\")")
    return HttpSection(listen=listen,
                       password_file=r.string(k, "http", "password_file", ""),
                       read=r.choice(k, "http", "read", "open", ("open", "password")))


def _check_pins(r: _Reader, config: BoardConfig) -> None:
    """No GPIO claimed twice (a row also a button, a column on the I2C or LED line)."""
    seen: dict[int, str] = {}
    for pin, what in config.gpio_claims():
        if pin in seen:
            raise r.fail(what, f"GPIO{pin} is already used by {seen[pin]}")
        seen[pin] = what


#: A board's configuration is a few KiB.
MAX_CONFIG = 256 * 1024


def load_config(path: str | Path | None = None) -> BoardConfig:
    """Read the configuration: ``path`` if given, else the system file if it exists, else the
    built-in defaults (a 10x10 board with the pin map of hw/config.example.toml)."""
    if path is None:
        if not SYSTEM_PATH.exists():
            return default_config()
        path = SYSTEM_PATH
    p = Path(path)
    try:
        with open(p, "rb") as f:
            raw = f.read(MAX_CONFIG + 1)  # bounded: /dev/zero is not a configuration
        if len(raw) > MAX_CONFIG:
            raise ConfigError(f"{p}: larger than {MAX_CONFIG >> 10} KiB: not a configuration")
        text = raw.decode("utf-8")
    except FileNotFoundError:
        raise ConfigError(f"{p}: no such configuration file") from None
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{p}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    except OSError as exc:
        raise ConfigError(f"{p}: cannot read: {exc.strerror}") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{p}: not valid TOML: {exc}") from None
    except RecursionError:
        raise ConfigError(f"{p}: not valid TOML: nested too deeply") from None
    return parse_config(data, str(p))
