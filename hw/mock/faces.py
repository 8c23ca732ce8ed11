"""The clock faces' twin: HT16K33 chips as the I2C bus sees them, on a recording bus that
the real driver (``hw.faces.ClockFaces``) writes to unchanged."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from hw.faces import _PATTERNS, COLON_BIT, COLON_BYTE, DECIMAL_POINT, DIGIT_BYTES, ClockFaces


@dataclass
class SimulatedChip:
    """One HT16K33 as the bus sees it: 16 bytes of display RAM and the command state."""

    ram: bytearray = field(default_factory=lambda: bytearray(16))
    oscillator: bool = False
    display_on: bool = False
    blink: int = 0
    brightness: int = 15

    def receive(self, data: bytes) -> None:
        if not data:
            return  # the bus device probing for the chip
        command = data[0]
        if len(data) == 1:
            high = command & 0xF0
            if high == 0x20:
                self.oscillator = bool(command & 0x01)
            elif high == 0x80:
                self.display_on = bool(command & 0x01)
                self.blink = (command >> 1) & 0x03
            elif high == 0xE0:
                self.brightness = command & 0x0F
            return
        start = command & 0x0F
        payload = data[1:]
        end = min(16, start + len(payload))
        self.ram[start:end] = payload[: end - start]

    def text(self) -> str:
        """The face as a reader sees it: four characters, ``.`` after a lit point, ``:`` for
        the colon (after the second digit)."""
        out = []
        for index, byte_index in enumerate(DIGIT_BYTES):
            bits = self.ram[byte_index]
            out.append(_PATTERNS.get(bits & 0x7F, "?"))
            if bits & DECIMAL_POINT:
                out.append(".")
            if index == 1 and self.ram[COLON_BYTE] & COLON_BIT:
                out.append(":")
        return "".join(out)


class RecordingI2C:
    """A fake ``busio.I2C`` with HT16K33 chips at ``addresses``; records every transfer and,
    after each display write, what the face showed: ``history[address]``."""

    def __init__(self, addresses: tuple[int, ...] = (0x70, 0x71)) -> None:
        self.chips = {address: SimulatedChip() for address in addresses}
        self.history: dict[int, list[str]] = {address: [] for address in addresses}
        self.transfers = 0
        self._locked = False

    def try_lock(self) -> bool:
        if self._locked:
            return False
        self._locked = True
        return True

    def unlock(self) -> None:
        self._locked = False

    def scan(self) -> list[int]:
        return sorted(self.chips)

    def _chip(self, address: int) -> SimulatedChip:
        chip = self.chips.get(address)
        if chip is None:
            raise OSError(121, "Remote I/O error")  # what Linux says for a missing address
        return chip

    def writeto(
        self, address: int, buffer: Any, *, start: int = 0, end: int | None = None
    ) -> None:
        chip = self._chip(address)
        data = bytes(buffer[start : len(buffer) if end is None else end])
        self.transfers += 1
        chip.receive(data)
        if len(data) > 1:
            shown = chip.text()
            history = self.history[address]
            if not history or history[-1] != shown:
                history.append(shown)

    def readfrom_into(
        self, address: int, buffer: Any, *, start: int = 0, end: int | None = None
    ) -> None:
        self._chip(address)
        self.transfers += 1
        for index in range(start, len(buffer) if end is None else end):
            buffer[index] = 0

    def writeto_then_readfrom(
        self,
        address: int,
        out_buffer: Any,
        in_buffer: Any,
        *,
        out_start: int = 0,
        out_end: int | None = None,
        in_start: int = 0,
        in_end: int | None = None,
    ) -> None:
        self.writeto(address, out_buffer, start=out_start, end=out_end)
        self.readfrom_into(address, in_buffer, start=in_start, end=in_end)

    def deinit(self) -> None:
        self._locked = False


def simulated_faces(white_address: int = 0x70, black_address: int = 0x71,
                    brightness: float = 0.5, bus: RecordingI2C | None = None) -> ClockFaces:
    """Faces on a :class:`RecordingI2C` (``faces.i2c``): the real driver, no hardware."""
    return ClockFaces(bus or RecordingI2C((white_address, black_address)), white_address,
                      black_address, brightness)
