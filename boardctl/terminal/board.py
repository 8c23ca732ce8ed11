"""The board drawn as text: 8x8 or 10x10, White at the bottom, three columns a square.

A piece is a letter (``w``/``b`` men, ``W``/``B`` kings, the colours' initials, readable
without colour); an empty dark square shows its name in the rule set's notation (``c3`` on
8x8, ``32`` on 10x10), so that moves can be typed from what is on the screen; a square the
LEDs light is drawn in the LED's colour and between brackets (``[w]``), which a monochrome
terminal and a screen reader still show. Files and ranks are written along the edges.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text

from hw.config import DEFAULT_COLOURS

if TYPE_CHECKING:
    from boardctl.terminal.view import BoardView, Piece

#: Columns of the rank labels on the left, and of each square.
LABEL_W = 3
CELL_W = 3
DARK = "#7a4a24"
LIGHT = "#e8cfa0"
PIECE_STYLE = {"white": "bold #ffffff", "black": "bold #000000"}


def led_style(meaning: str) -> str:
    red, green, blue = DEFAULT_COLOURS.get(meaning, (255, 0, 255))
    return f"bold #000000 on #{red:02x}{green:02x}{blue:02x}"


def cell_name(size: int, file: int, rank: int) -> str:
    return f"{chr(ord('a') + file)}{rank + 1}"


def square_label(size: int, name: str) -> str:
    """What an empty dark square shows: its number on 10x10, its name on 8x8."""
    from firmware.rules.geometry import geometry

    return str(geometry(size).number(name)) if size == 10 else name


def cell_text(size: int, name: str, piece: Piece | None, meaning: str | None,
              dark: bool) -> tuple[str, str]:
    """(three characters, style) of one square."""
    if meaning is not None:
        inner = piece.letter if piece is not None else " "
        return f"[{inner}]", led_style(meaning)
    ground = DARK if dark else LIGHT
    if piece is not None:
        return f" {piece.letter} ", f"{PIECE_STYLE[piece.side]} on {ground}"
    if dark:
        return f"{square_label(size, name):^{CELL_W}}", f"#c8a070 on {ground}"
    return " " * CELL_W, f"on {ground}"


def board_text(view: BoardView) -> Text:
    """The whole board: ``size`` rows and a line of file letters."""
    size = view.size
    text = Text(no_wrap=True, overflow="crop")
    for row in range(size):
        rank = size - 1 - row
        text.append(f"{rank + 1:>{LABEL_W - 1}} ", style="bold")
        for file in range(size):
            name = cell_name(size, file, rank)
            dark = (file + rank) % 2 == 0
            chars, style = cell_text(size, name, view.pieces.get(name), view.leds.get(name),
                                     dark)
            text.append(chars, style=style)
        text.append("\n")
    text.append(" " * LABEL_W + "".join(f" {chr(ord('a') + f)} " for f in range(size)),
                style="bold")
    return text


def square_at(size: int, x: int, y: int) -> str | None:
    """The square under column ``x``, line ``y`` of :func:`board_text` (None: none)."""
    if not 0 <= y < size or x < LABEL_W:
        return None
    file = (x - LABEL_W) // CELL_W
    if file >= size:
        return None
    return cell_name(size, file, size - 1 - y)


def board_width(size: int) -> int:
    return LABEL_W + CELL_W * size
