"""The LEDs under the squares: a NeoPixel (WS2812) strip driven through adafruit PixelBuf.

:class:`LedStrip` turns an LED picture (``{algebraic square: meaning}``, as
``BoardSession.leds()`` returns it; meanings in docs/DESIGN.md) into pixel colours and shows
it. The pixels are any ``adafruit_pixelbuf.PixelBuf``:

* ``spi``: ``neopixel_spi.NeoPixel_SPI`` on SPI0 MOSI, GPIO10 (no root; every Pi), on
  Blinka's ``ExtendedSPI`` opened by bus number (``/dev/spidev0.0``, written through
  Adafruit_PureIO). Blinka still detects the board: ``neopixel_spi`` imports ``digitalio``
  (through ``adafruit_bus_device``), whose Raspberry Pi pin module imports ``gpiod`` (Blinka
  10), so the ``[pi]`` extra installs gpiod (tests/hw/test_hw_pi_stack.py imports it all as on
  a Pi 4B, 5 and Zero 2 W). PureIO writes at most 4,096 bytes per SPI transfer and the strip
  latches in the gap between two: a frame must fit one (``hw.config.spi_frame_refusal``:
  165 GRB pixels at most, where a 10x10 board needs 100, or 50 with ``dark_only``). On a
  Pi 0-4 the SPI clock follows the core clock: :func:`spi_clock_advice` says what
  config.txt needs (hwtest checks it).
* ``pwm``: ``neopixel.NeoPixel`` on GPIO18 through rpi_ws281x, which needs root: the service
  runs unprivileged and the installer does not install it; for experiments only.
* ``sim`` / ``none``: :class:`hw.mock.leds.RecordingPixels`, the real PixelBuf with a
  ``_transmit`` that records each frame, so tests see exactly the bytes a strip would receive.

The real backends import their libraries only inside :func:`open_real_strip`;
:func:`hw.assemble.open_strip` chooses between them and the twin.

:class:`PixelMap` says which pixel lies under which square: the strip starts at a corner,
runs along ranks or files, optionally serpentine, possibly only under the dark squares, and
the whole board may sit turned on the LED panel.

A redraw is milliseconds of Python holding the GIL (on a Pi Zero 2 W about 10 ms: adafruit
pixelbuf's colours, then neopixel_spi's byte per bit; benchmarks/bench_pi_threads.py), so it
is drawn under :attr:`LedStrip.drawing`, which the service's sensing thread holds through each
scan (boardctl.service.sensing): a redraw never lands in the middle of a scan's rows, and a
scan due during a redraw starts when it ends.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator, Mapping
from typing import Any

from firmware.errors import HardwareError
from hw.config import DEFAULT_COLOURS, LedConfig, LedLayout, spi_frame_refusal

Colour = tuple[int, int, int]
OFF: Colour = (0, 0, 0)


class PixelMap:
    """Square -> pixel index for a board size and a strip layout."""

    def __init__(self, size: int, layout: LedLayout) -> None:
        if size not in (8, 10):
            raise ValueError(f"board size must be 8 or 10, not {size}")
        self.size = size
        self.layout = layout
        order: list[str] = []  # board cells in the order the strip passes under them
        for line in range(size):
            for step in range(size):
                pos = size - 1 - step if layout.serpentine and line % 2 else step
                x, y = (pos, line) if layout.direction == "ranks" else (line, pos)
                if layout.origin in ("right-1", "right-top"):
                    x = size - 1 - x
                if layout.origin in ("a-top", "right-top"):
                    y = size - 1 - y
                f, r = _unrotate(x, y, layout.rotation, size)
                if layout.dark_only and (f + r) % 2:
                    continue
                order.append(f"{chr(ord('a') + f)}{r + 1}")
        self.cells = tuple(order)
        #: pixel[square]: the strip index under each dark square.
        self.pixel: dict[str, int] = {
            sq: layout.first_pixel + i for i, sq in enumerate(order)
            if (ord(sq[0]) - ord("a") + int(sq[1:]) - 1) % 2 == 0
        }
        #: The number of pixels the strip needs.
        self.count = layout.first_pixel + len(order)

    def square_at(self, index: int) -> str | None:
        """The dark square above pixel ``index`` (None for light squares and extra pixels)."""
        i = index - self.layout.first_pixel
        if 0 <= i < len(self.cells) and self.cells[i] in self.pixel:
            return self.cells[i]
        return None


def _unrotate(x: int, y: int, rotation: int, size: int) -> tuple[int, int]:
    """Panel cell (x, y) -> board cell (file, rank) when the board is turned ``rotation``
    degrees clockwise on the panel (seen from above, White's side down)."""
    m = size - 1
    if rotation == 90:
        return m - y, x
    if rotation == 180:
        return m - x, m - y
    if rotation == 270:
        return y, m - x
    return x, y


class LedStrip:
    """Shows LED pictures on a strip: one colour per meaning, everything else dark."""

    def __init__(self, pixels: Any, pixel_map: PixelMap,
                 colours: Mapping[str, Colour] | None = None) -> None:
        if len(pixels) < pixel_map.count:
            raise HardwareError(
                f"the LED layout needs {pixel_map.count} pixels, the strip has {len(pixels)}"
            )
        self.pixels = pixels
        self.map = pixel_map
        self.colours: dict[str, Colour] = dict(DEFAULT_COLOURS if colours is None else colours)
        #: Held while the pixels are drawn; whoever scans the matrix on another thread holds
        #: it through the scan, so that the two never overlap (module docstring).
        self.drawing = threading.Lock()

    @property
    def brightness(self) -> float:
        return float(self.pixels.brightness)

    @brightness.setter
    def brightness(self, value: float) -> None:
        self.pixels.brightness = max(0.0, min(1.0, value))

    def show(self, picture: Mapping[str, str]) -> None:
        """Light each square of ``picture`` in its meaning's colour; all others off.

        An unknown square or meaning raises HardwareError naming it, and nothing is shown
        (the previous picture stays up rather than a wrong one)."""
        frame: list[tuple[int, Colour]] = []
        for square, meaning in picture.items():
            try:
                index = self.map.pixel[square]
            except KeyError:
                raise HardwareError(f"no LED under square {square!r}") from None
            try:
                frame.append((index, self.colours[meaning]))
            except KeyError:
                raise HardwareError(
                    f"no colour for LED meaning {meaning!r} (known: {', '.join(self.colours)})"
                ) from None
        self._draw(frame)

    def light(self, square: str, colour: Colour) -> None:
        """One square in one colour, all others off (hwtest's walk)."""
        self._draw([(self.map.pixel[square], colour)])

    def off(self) -> None:
        self._draw([])

    def _draw(self, frame: list[tuple[int, Colour]]) -> None:
        with self.drawing:
            self.pixels.fill(OFF)
            for index, colour in frame:
                self.pixels[index] = colour
            self.pixels.show()

    def lit(self, colours: list[Colour] | None = None) -> dict[str, Colour]:
        """The squares lit in ``colours`` (a decoded frame; the pixels' buffer by default)."""
        if colours is None:
            colours = [tuple(self.pixels[i])[:3] for i in range(len(self.pixels))]
        return {sq: colours[i] for sq, i in self.map.pixel.items() if colours[i] != OFF}

    def walk(self, colour: Colour = (255, 255, 255)) -> Iterator[str]:
        """Light each dark square in turn in board order (a1, c1, ..., b2, d2, ...: rank by
        rank from White's side), whatever the strip's layout; yields the square lit. Along
        the board, a wrong ``[leds.layout]`` shows: the light jumps instead of stepping (in
        the strip's own order it would step along the strip whatever the layout said)."""
        for square in sorted(self.map.pixel, key=lambda sq: (int(sq[1:]), sq[0])):
            self.light(square, colour)
            yield square
        self.off()

    def close(self) -> None:
        self.off()
        deinit = getattr(self.pixels, "deinit", None)
        if deinit is not None:
            deinit()


def open_real_strip(size: int, config: LedConfig) -> LedStrip:
    """The real strip the config names: ``pwm`` and ``spi`` open the hardware (HardwareError
    with the reason when it cannot: not a Pi, not root for PWM, SPI not enabled, library
    missing)."""
    pixel_map = PixelMap(size, config.layout)
    n = pixel_map.count
    if config.backend in ("none", "sim"):
        raise HardwareError(f"LED backend {config.backend!r} is the simulated strip: "
                            "hw.assemble.open_strip opens it")
    if config.backend == "spi" and (why := spi_frame_refusal(size, config)):
        raise HardwareError(f"cannot open the LED strip: {why}")
    pixels: Any
    try:
        if config.backend == "pwm":
            # On a Pi, Blinka's board module offers on a terminal (hwtest) to pip-install the
            # backends it misses (rpi_ws281x, its PWM library) into this venv, Enter meaning
            # yes: never into /opt/boardctl. Its own switch turns the offer off.
            os.environ.setdefault("BLINKA_SKIP_DEPENDENCY_CHECK", "1")
            import board  # Adafruit Blinka's pin names (rpi_ws281x underneath)
            import neopixel

            pixels = neopixel.NeoPixel(getattr(board, f"D{config.pin}"), n,
                                       brightness=config.brightness, auto_write=False,
                                       pixel_order=config.pixel_order)
        else:
            import neopixel_spi
            from adafruit_extended_bus import ExtendedSPI

            pixels = neopixel_spi.NeoPixel_SPI(ExtendedSPI(*SPI_DEVICE), n,
                                               brightness=config.brightness, auto_write=False,
                                               pixel_order=config.pixel_order)
            table_bits(pixels)
    except ImportError as exc:
        hint = (f" ({PWM_HINT})" if config.backend == "pwm"
                else "; sudo ./systemd/install.sh installs it")
        raise HardwareError(
            f"leds.backend = {config.backend!r} needs {exc.name or 'a Pi library'}{hint}"
        ) from None
    except Exception as exc:  # Blinka and rpi_ws281x raise plain RuntimeError & co.
        text = (str(exc).splitlines() or [type(exc).__name__])[0]
        if config.backend == "pwm":  # rpi_ws281x or Blinka's Pi 5 library missing, not root
            hint = f" ({PWM_HINT})"
        elif "platform library" in text:  # Blinka's own check of gpiod on a Pi
            hint = " (sudo ./systemd/install.sh installs the [pi] extra's gpiod)"
        else:
            hint = " (is SPI enabled? sudo raspi-config nonint do_spi 0)"
        raise HardwareError(f"cannot open the LED strip: {text}{hint}") from None
    return LedStrip(pixels, pixel_map, config.colours)


def table_bits(pixels: Any) -> bool:
    """neopixel_spi's frame (one SPI byte per colour bit, ``bit1`` or ``bit0``) made from a
    table of each colour byte's eight, in one join, instead of its loop over every bit: the
    redraw's largest part (two thirds of its Python; benchmarks/bench_pi_threads.py). Tried
    once here, on a frame of every byte value, against the library's own ``_transmogrify``;
    only where they agree is the table used (True), else the library's loop stays."""
    try:
        bit0, bit1, spibuf = int(pixels._bit0), int(pixels._bit1), pixels._spibuf
        library = pixels._transmogrify
    except (AttributeError, TypeError, ValueError):
        return False
    table = [bytes(bit1 if value >> i & 1 else bit0 for i in range(7, -1, -1))
             for value in range(256)]

    def transmogrify(buffer: bytearray) -> None:
        spibuf[:] = b"".join(map(table.__getitem__, buffer))

    size = len(spibuf) // 8
    sample = bytearray((7 * i + 13) % 256 for i in range(size))
    sample[: min(size, 256)] = bytes(range(min(size, 256)))
    try:
        library(sample)
        theirs = bytes(spibuf)
        transmogrify(sample)
        same = bytes(spibuf) == theirs and len(spibuf) == 8 * size
    except Exception:  # noqa: BLE001 - any surprise: the library's own loop
        same = False
    if same:
        pixels._transmogrify = transmogrify
    return same


#: The strip's SPI device: bus 0, chip select 0 (/dev/spidev0.0; data on MOSI, GPIO10).
SPI_DEVICE = (0, 0)
#: What the ``pwm`` backend needs that install.sh never installs: on a Pi 0-4 rpi_ws281x and
#: root, on a Pi 5 Blinka's PIO library (Adafruit-Blinka-Raspberry-Pi5-Neopixel and /dev/pio0,
#: which the unit's DevicePolicy does not open). ``spi`` needs neither, on every model.
PWM_HINT = ("the pwm backend needs rpi_ws281x and root, on a Pi 5 Blinka's PIO library; "
            "install.sh installs neither: use leds.backend = \"spi\"")


def _model_filters(model: str) -> set[str]:
    """The config.txt model filters (``[pi4]``, ...) that apply on the Pi named ``model``
    (/proc/device-tree/model; Raspberry Pi documentation, config.txt "Conditional filters")."""
    filters = {"all"}
    for start, names in (("Raspberry Pi Zero 2", ("pi0", "pi02")), ("Raspberry Pi Zero", ("pi0",)),
                         ("Raspberry Pi 400", ("pi4", "pi400")), ("Raspberry Pi 4", ("pi4",)),
                         ("Raspberry Pi 3", ("pi3",)),
                         ("Raspberry Pi Compute Module 4", ("pi4", "cm4")),
                         ("Raspberry Pi Compute Module 3", ("pi3", "cm3"))):
        if model.startswith(start):
            filters.update(names)
            break
    if "Plus" in model and model.startswith("Raspberry Pi 3"):
        filters.add("pi3+")
    return filters


def _config_settings(config_txt: str, filters: set[str]) -> dict[str, str]:
    """config.txt's ``key=value`` lines that apply under ``filters``: those before any
    section, and those of a ``[...]`` section named in ``filters`` (``[all]`` included); a
    line in any other section (``[cm5]``, ``[none]``, ``[gpio4=1]``) is not counted."""
    settings: dict[str, str] = {}
    applies = True
    for line in config_txt.splitlines():
        text = line.split("#", 1)[0].strip()
        if text.startswith("[") and text.endswith("]"):
            applies = text[1:-1].strip().lower() in filters
            continue
        key, eq, value = text.partition("=")
        if eq and applies:
            settings[key.strip()] = value.strip()
    return settings


def spi_clock_advice(model: str, config_txt: str) -> str | None:
    """What a Pi's config.txt lacks for SPI NeoPixels, or None. On a Pi 0-4 the SPI clock is
    divided from the VPU core clock, which scales with load unless fixed: the strip's timing
    then drifts and pixels flicker or take wrong colours. The fix is ``core_freq`` and
    ``core_freq_min`` both at the core's nominal rate, 500 MHz on a Pi 4, 250 on the others
    (Raspberry Pi documentation, config.txt "Overclocking": core_freq, core_freq_min; the
    neopixel_spi README names the same settings). A Pi 5's SPI is on RP1, unaffected."""
    if not model.startswith("Raspberry Pi") or model.startswith("Raspberry Pi 5") \
            or "Compute Module 5" in model:
        return None
    want = 500 if model.startswith(("Raspberry Pi 4", "Raspberry Pi 400",
                                    "Raspberry Pi Compute Module 4")) else 250
    settings = _config_settings(config_txt, _model_filters(model))
    have = {key: settings.get(key) for key in ("core_freq", "core_freq_min")}
    if all(value == str(want) for value in have.values()):
        return None
    now = ", ".join(f"{k}={v}" for k, v in have.items() if v is not None) or "neither is set"
    return (f"SPI LEDs on a {model} need a fixed core clock: put core_freq={want} and "
            f"core_freq_min={want} in /boot/firmware/config.txt and reboot ({now})")
