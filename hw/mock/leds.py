"""The LED strip's twin: the real ``adafruit_pixelbuf.PixelBuf`` whose ``show()`` records the
frame a strip would be sent (``hw.leds.LedStrip`` drives it unchanged)."""

from __future__ import annotations

from collections import deque

import adafruit_pixelbuf

from hw.leds import Colour


class RecordingPixels(adafruit_pixelbuf.PixelBuf):  # type: ignore[misc]
    """The simulated strip: the real PixelBuf, whose ``show()`` records the frame sent.

    ``frames`` keeps the last ``keep`` frames, each the bytes a strip would be sent (after
    brightness, in the strip's byte order); :meth:`colours` decodes one back to RGB.
    """

    def __init__(self, n: int, *, pixel_order: str = "GRB", brightness: float = 1.0,
                 keep: int = 1000) -> None:
        super().__init__(n, byteorder=pixel_order, brightness=brightness, auto_write=False)
        self.frames: deque[bytes] = deque(maxlen=keep)
        self.shown = 0
        bpp, order, _white, _dotstar = self.parse_byteorder(pixel_order)
        self._decode = (bpp, order[0], order[1], order[2])

    def _transmit(self, buffer: bytearray) -> None:
        self.frames.append(bytes(buffer))
        self.shown += 1

    def colours(self, frame: bytes | None = None) -> list[Colour]:
        """Each pixel's (r, g, b) in a recorded frame (the last one by default)."""
        if frame is None:
            frame = self.frames[-1] if self.frames else bytes(len(self) * self._decode[0])
        bpp, r, g, b = self._decode
        return [(frame[i + r], frame[i + g], frame[i + b]) for i in range(0, len(frame), bpp)]
