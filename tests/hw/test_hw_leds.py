"""The LED strip: square-to-pixel maps and the frames the simulated strip (the real adafruit
PixelBuf) records."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from firmware.errors import HardwareError
from firmware.rules.geometry import geometry
from hw.assemble import open_strip
from hw.config import LedConfig, LedLayout
from hw.leds import LedStrip, PixelMap
from hw.mock.leds import RecordingPixels


def _strip(size: int = 10, brightness: float = 1.0, **layout: object) -> LedStrip:
    return open_strip(size, LedConfig(backend="sim", brightness=brightness,
                                      layout=LedLayout(**layout)))  # type: ignore[arg-type]


@pytest.mark.parametrize("size", [8, 10])
@pytest.mark.parametrize("origin", ["a1", "right-1", "a-top", "right-top"])
@pytest.mark.parametrize("direction", ["ranks", "files"])
@pytest.mark.parametrize("serpentine", [True, False])
@pytest.mark.parametrize("dark_only", [True, False])
@pytest.mark.parametrize("rotation", [0, 90, 180, 270])
def test_every_layout_gives_each_dark_square_its_own_pixel(
        size: int, origin: str, direction: str, serpentine: bool, dark_only: bool,
        rotation: int) -> None:
    pm = PixelMap(size, LedLayout(origin=origin, direction=direction, serpentine=serpentine,
                                  dark_only=dark_only, rotation=rotation, first_pixel=2))
    squares = {geometry(size).algebraic(n) for n in geometry(size).squares}
    assert set(pm.pixel) == squares
    assert len(set(pm.pixel.values())) == len(squares)
    assert pm.count == 2 + (size * size // 2 if dark_only else size * size)
    assert all(pm.square_at(i) == sq for sq, i in pm.pixel.items())


def test_serpentine_from_a1_along_ranks() -> None:
    pm = PixelMap(10, LedLayout(origin="a1", direction="ranks", serpentine=True))
    # rank 1 runs a..j (pixels 0..9), rank 2 back j..a (10..19): b2 is the 9th of it
    assert (pm.pixel["a1"], pm.pixel["c1"], pm.pixel["j2"], pm.pixel["b2"]) == (0, 2, 10, 18)
    dark = PixelMap(10, LedLayout(origin="a1", dark_only=True, serpentine=True))
    assert (dark.pixel["a1"], dark.pixel["i1"], dark.pixel["j2"], dark.pixel["b2"]) == (0, 4, 5, 9)


def test_rotation_and_origin_move_the_first_pixel() -> None:
    assert PixelMap(8, LedLayout(rotation=180)).pixel["h8"] == 0
    assert PixelMap(8, LedLayout(origin="right-top")).pixel["h8"] == 0
    down_files = PixelMap(8, LedLayout(origin="a-top", direction="files"))
    assert (down_files.square_at(0), down_files.pixel["a7"], down_files.pixel["b8"]) == (
        None, 1, 15)
    # turned a quarter clockwise, j1 lies on the panel's first cell, a1 at its top left
    quarter = PixelMap(10, LedLayout(rotation=90, serpentine=False))
    assert (quarter.square_at(0), quarter.pixel["j2"], quarter.pixel["a1"]) == (None, 1, 90)


def test_show_lights_the_picture_squares_in_their_colours() -> None:
    strip = _strip()
    strip.show({"e5": "restore", "f6": "remove", "a1": "must-move"})
    pixels = strip.pixels
    assert isinstance(pixels, RecordingPixels)
    assert pixels.shown == 1
    assert strip.lit(pixels.colours()) == {
        "e5": (0, 255, 0), "f6": (255, 0, 0), "a1": (255, 160, 0)}
    # the bytes a GRB strip receives: green first
    e5 = strip.map.pixel["e5"]
    assert pixels.frames[-1][3 * e5: 3 * e5 + 3] == bytes([255, 0, 0])
    strip.show({})
    assert strip.lit(pixels.colours()) == {}
    assert len(pixels.frames) == 2


def test_brightness_and_configured_colours_reach_the_frame() -> None:
    strip = open_strip(8, LedConfig(backend="sim", brightness=0.5, pixel_order="RGB",
                                    colours={"wrong": (200, 100, 0)}))
    strip.show({"d4": "wrong"})
    assert strip.lit(strip.pixels.colours()) == {"d4": (100, 50, 0)}


def test_bad_picture_is_refused_and_the_old_one_stays() -> None:
    strip = _strip()
    strip.show({"c3": "restore"})
    with pytest.raises(HardwareError, match="'sparkle'"):
        strip.show({"c3": "sparkle"})
    with pytest.raises(HardwareError, match="'b1'"):
        strip.show({"b1": "restore"})
    assert strip.pixels.shown == 1
    assert strip.lit(strip.pixels.colours()) == {"c3": (0, 255, 0)}


def test_walk_lights_each_dark_square_once_then_off() -> None:
    strip = _strip(8, dark_only=True)
    walked = list(strip.walk((1, 2, 3)))
    assert sorted(walked) == sorted(strip.map.pixel)
    frames = list(strip.pixels.frames)
    assert [list(strip.lit(strip.pixels.colours(f))) for f in frames[:-1]] == [
        [sq] for sq in walked]
    assert strip.lit(strip.pixels.colours(frames[-1])) == {}


def test_walk_goes_along_the_board_whatever_the_strip_s_layout() -> None:
    """hwtest's walk shows the builder whether [leds.layout] is right: along the board (a1,
    c1, ... rank by rank), so a wrong layout makes the light jump. It used to go in the
    strip's order, stepping along the strip whatever the layout said."""
    strip = _strip(10, origin="right-top", direction="files", serpentine=True, rotation=90)
    walked = list(strip.walk())
    assert walked[:6] == ["a1", "c1", "e1", "g1", "i1", "b2"] and walked[-1] == "j10"
    assert len(walked) == 50


def test_strip_too_short_for_the_layout() -> None:
    with pytest.raises(HardwareError, match="needs 100 pixels"):
        LedStrip(RecordingPixels(50), PixelMap(10, LedLayout()))


def test_real_backend_off_the_pi_is_a_clear_error() -> None:
    with pytest.raises(HardwareError):
        open_strip(10, LedConfig(backend="spi"))


def test_the_referees_picture_lights_its_squares() -> None:
    """A piece of the side not to move taken off (a7, Black's, with White to move): the
    session asks for it back, and the strip lights a7 in the restore colour, nothing else."""
    from firmware.formats.events import Lift
    from firmware.session.session import BoardSession

    session = BoardSession("international", started=True)
    session.handle(Lift(at=1, square="a7"))
    session.tick(3_000_000_000)
    strip = _strip(dark_only=True, origin="right-top")
    strip.show(session.leds())
    assert strip.lit(strip.pixels.colours()) == {"a7": (0, 255, 0)}


def test_an_spi_frame_longer_than_one_transfer_is_refused() -> None:
    """Blinka's SPI writes 4,096 bytes per transfer and a WS2812 latches in the gap: a
    layout made in code (not through the config file's check) is refused at open too."""
    from hw.config import spi_frame_bytes
    from hw.leds import open_real_strip

    assert spi_frame_bytes(100) == 2528 and spi_frame_bytes(50) == 1328  # 10x10: full, dark
    assert spi_frame_bytes(165) == 4088 and spi_frame_bytes(166) == 4112
    with pytest.raises(HardwareError, match=r"^cannot open the LED strip: 166 GRB pixels take "
                       r"4112 bytes a frame over SPI"):
        open_real_strip(10, LedConfig(backend="spi", layout=LedLayout(first_pixel=66)))


class _WatchedPixels(RecordingPixels):  # type: ignore[misc]
    """The recording strip, noting at each write whether ``guard`` is held."""

    guard: Any = None

    def fill(self, color: Any) -> None:
        self.seen.append(self.guard.locked())
        super().fill(color)

    def show(self) -> None:
        self.seen.append(self.guard.locked())
        super().show()


def test_the_strip_is_drawn_under_its_lock() -> None:
    """A redraw holds the GIL for milliseconds of Python (about 10 ms on a Pi Zero 2 W:
    benchmarks/bench_pi_threads.py); it is drawn under ``drawing``, which the sensing thread
    holds through each scan (next test): every write of show, light and off is under it."""
    pm = PixelMap(10, LedLayout())
    pixels = _WatchedPixels(pm.count)
    pixels.seen = []
    strip = LedStrip(pixels, pm)
    pixels.guard = strip.drawing
    strip.show({"e5": "last-move"})
    strip.light("a1", (1, 2, 3))
    strip.off()
    assert pixels.seen == [True] * 6 and not strip.drawing.locked()
    with pytest.raises(HardwareError):  # a refused picture takes nothing and keeps nothing
        strip.show({"b1": "last-move"})
    assert not strip.drawing.locked() and len(pixels.seen) == 6


def test_the_sensing_thread_scans_under_the_strip_s_lock() -> None:
    """The service's sensing thread (its real loop) holds the strip's lock through each
    scan: every lgpio call of the group scan (the simulated chip) finds it held, so no LED
    redraw can run in the middle of a scan's rows."""
    from boardctl.service.hardware import sim_hardware
    from boardctl.service.sensing import BUTTONS, SENSORS, EventMerge, Sensing
    from hw.config import default_config

    hw = sim_hardware(10, default_config(10))
    matrix: Any = hw.scanner.matrix
    assert hw.leds is not None and matrix.direct
    drawing = hw.leds.drawing
    held: list[bool] = []
    scanned = threading.Event()
    write, read = matrix._write, matrix._read

    def watched_write(*args: int) -> int:
        held.append(drawing.locked())
        return int(write(*args))

    def watched_read(*args: int) -> Any:
        held.append(drawing.locked())
        if len(held) >= 5 * 21:  # five scans of 21 calls
            scanned.set()
        return read(*args)

    matrix._write, matrix._read = watched_write, watched_read
    sensing = Sensing(hw, None, EventMerge([SENSORS, BUTTONS]), lambda: 0)
    sensing.start()
    try:
        assert scanned.wait(30), "the sensing thread did not scan"
    finally:
        sensing.stop()
        matrix.close()
    assert sensing.error is None and len(held) >= 105 and all(held)


class _SpiBus:
    """The outermost edge: Blinka's SPI bus as neopixel_spi drives it, keeping each write."""

    frequency = 6_400_000

    def __init__(self) -> None:
        self.writes: list[bytes] = []

    def try_lock(self) -> bool:
        return True

    def unlock(self) -> None:
        pass

    def configure(self, **settings: Any) -> None:
        pass

    def write(self, buf: bytes, start: int = 0, end: int | None = None) -> None:
        self.writes.append(bytes(buf[start:end]))


def _spi_strip(table: bool, pixel_class: Any = None) -> tuple[LedStrip, _SpiBus, bool]:
    import neopixel_spi

    from hw.leds import table_bits

    pm = PixelMap(10, LedLayout())
    bus = _SpiBus()
    pixels = (pixel_class or neopixel_spi.NeoPixel_SPI)(bus, pm.count, brightness=0.3,
                                                         auto_write=False, pixel_order="GRB")
    used = table_bits(pixels) if table else False
    return LedStrip(pixels, pm), bus, used


def test_the_spi_frame_from_a_table_is_the_library_s_own() -> None:
    """neopixel_spi turns each colour bit into an SPI byte in a Python loop (two thirds of a
    redraw); a table of each byte's eight gives the same frame in one join. On the real
    neopixel_spi: byte for byte the frames of its own loop, for every picture."""
    fast, fast_bus, used = _spi_strip(table=True)
    slow, slow_bus, _ = _spi_strip(table=False)
    assert used
    squares = list(fast.map.pixel)
    pictures = [{}, {"e5": "last-move", "c3": "wrong"}, dict.fromkeys(squares, "restore")]
    for picture in pictures:
        fast.show(picture)
        slow.show(picture)
    fast.light("j10", (255, 128, 1))
    slow.light("j10", (255, 128, 1))
    assert len(fast_bus.writes) == 4 and fast_bus.writes == slow_bus.writes
    assert len({len(w) for w in fast_bus.writes}) == 1 and len(set(fast_bus.writes)) == 4


def test_a_library_whose_frame_differs_keeps_its_own_loop() -> None:
    import neopixel_spi

    class LsbFirst(neopixel_spi.NeoPixel_SPI):  # type: ignore[misc]
        def _transmogrify(self, buffer: bytearray) -> None:
            for k, byte in enumerate(buffer):
                for i in range(8):
                    self._spibuf[8 * k + i] = self._bit1 if byte >> i & 1 else self._bit0

    strip, bus, used = _spi_strip(table=True, pixel_class=LsbFirst)
    assert not used
    strip.show({"a1": "last-move"})
    reference = LsbFirst(_SpiBus(), strip.map.count, brightness=0.3, auto_write=False,
                         pixel_order="GRB")
    reference[strip.map.pixel["a1"]] = strip.colours["last-move"]
    reference.show()
    assert bus.writes[-1] == reference._spi.spi.writes[-1]
