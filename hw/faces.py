"""The two clock faces: 4-digit 7-segment HT16K33 backpacks on I2C, one address each.

The driver is Adafruit's ``adafruit_ht16k33.segments.Seg7x4`` in every case; only the I2C bus
changes (gpiozero's lesson: swap the bus, not the driver):

- :meth:`ClockFaces.real` opens the Pi's I2C bus by number with Blinka's ``ExtendedI2C``
  (imported there only; no board detection, so nothing ``import board`` needs);
- :func:`hw.mock.faces.simulated_faces` gives the driver a ``RecordingI2C``, a fake bus at the
  outermost edge that holds each chip's display RAM as the driver writes it and records what
  each face showed, read back from the segment bits.

What to show comes from :mod:`firmware.clock.face`; a face is written only when its text
changes, so the service can call :meth:`ClockFaces.update` on every loop.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from firmware.clock.face import FaceText, face_view
from firmware.clock.gameclock import GameClock
from firmware.errors import HardwareError
from firmware.rules.sets import Side

DEFAULT_ADDRESSES = {Side.WHITE: 0x70, Side.BLACK: 0x71}

#: Digit positions in the HT16K33 RAM of a 4-digit backpack, and the colon's byte and bit.
DIGIT_BYTES = (0, 2, 6, 8)
COLON_BYTE, COLON_BIT = 4, 0x02
DECIMAL_POINT = 0x80
#: Segment patterns read back as characters (the driver's font, first meaning kept).
_PATTERNS: dict[int, str] = {0x00: " ", 0x40: "-"}
for _char, _bits in (
    ("0", 0x3F), ("1", 0x06), ("2", 0x5B), ("3", 0x4F), ("4", 0x66), ("5", 0x6D), ("6", 0x7D),
    ("7", 0x07), ("8", 0x7F), ("9", 0x6F), ("A", 0x77), ("b", 0x7C), ("C", 0x39), ("d", 0x5E),
    ("E", 0x79), ("F", 0x71), ("G", 0x3D), ("H", 0x76), ("I", 0x30), ("J", 0x1E), ("L", 0x38),
    ("n", 0x54), ("o", 0x5C), ("P", 0x73), ("q", 0x67), ("r", 0x50), ("t", 0x78), ("U", 0x3E),
    ("v", 0x1C), ("y", 0x6E),
):  # fmt: skip
    _PATTERNS.setdefault(_bits, _char)


class ClockFaces:
    """White's and Black's faces on one I2C bus, driven by Adafruit's Seg7x4 driver."""

    def __init__(
        self,
        i2c: Any,
        white_address: int = 0x70,
        black_address: int = 0x71,
        brightness: float = 0.5,
        closer: Callable[[], None] | None = None,
    ) -> None:
        from adafruit_ht16k33.segments import Seg7x4

        if white_address == black_address:
            raise HardwareError(f"both clock faces are at I2C address 0x{white_address:02x}")
        if not 0.0 <= brightness <= 1.0:
            raise HardwareError(f"face brightness must be 0.0 to 1.0, not {brightness}")
        self.i2c = i2c
        self.addresses = {Side.WHITE: white_address, Side.BLACK: black_address}
        self._closer = closer
        self._faces: dict[Side, Any] = {}
        for side, address in self.addresses.items():
            try:
                face = Seg7x4(i2c, address=address, auto_write=False)
                face.brightness = brightness
            except (ValueError, OSError) as exc:
                raise HardwareError(
                    f"no {side.value} clock face at I2C address 0x{address:02x} ({exc})"
                ) from None
            self._faces[side] = face
        self._shown: dict[Side, FaceText | None] = {Side.WHITE: None, Side.BLACK: None}

    @classmethod
    def real(
        cls,
        bus: int = 1,
        white_address: int = 0x70,
        black_address: int = 0x71,
        brightness: float = 0.5,
    ) -> ClockFaces:
        """Faces on the Pi's I2C bus ``bus`` (1 is the header's SDA/SCL, GPIO 2 and 3)."""
        try:
            from adafruit_extended_bus import ExtendedI2C  # by bus number: no board detection

            i2c: Any = ExtendedI2C(bus)
        except ImportError as exc:
            raise HardwareError(f"cannot open I2C bus {bus}: {exc.name or exc} is not "
                                "installed; sudo ./systemd/install.sh installs it") from None
        except Exception as exc:  # ValueError "No device found for /dev/i2c-1", OSError ...
            raise HardwareError(f"cannot open I2C bus {bus} for the clock faces: {exc} "
                                "(is I2C enabled? sudo raspi-config nonint do_i2c 0)") from None
        return cls(i2c, white_address, black_address, brightness, closer=i2c.deinit)

    def show(self, side: Side, face: FaceText) -> bool:
        """Put ``face`` on ``side``'s display; False (and no I2C traffic) if it shows already."""
        if self._shown[side] == face:
            return False
        display = self._faces[side]
        previous = self._shown[side]
        try:
            if previous is None or previous.blink != face.blink:
                display.blink_rate = 2 if face.blink else 0
            display.print(face.text)
            display.show()
        except OSError as exc:
            self._shown[side] = None
            raise HardwareError(
                f"{side.value} clock face at 0x{self.addresses[side]:02x} failed: {exc}"
            ) from None
        self._shown[side] = face
        return True

    def update(self, clock: GameClock, at: int) -> int:
        """Show both sides of ``clock`` at ``at``; the number of faces written."""
        return sum(self.show(side, face_view(clock, side, at)) for side in self._faces)

    def shown(self, side: Side) -> FaceText:
        """The text last put on the side's face (empty text before the first)."""
        return self._shown[side] or FaceText("")

    def close(self) -> None:
        for side in self._faces:
            try:
                self._faces[side].fill(0)
                self._faces[side].show()
            except OSError:
                pass
        if self._closer is not None:
            self._closer()
            self._closer = None
