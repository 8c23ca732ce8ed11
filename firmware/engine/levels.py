"""Playing levels, from a beginner's to full strength.

A level caps the search depth and adds a random bonus to each move at the root, drawn afresh
every search (seeded): the engine then plays the best move within that margin, so that a low
level makes human-like mistakes (it sees one or two moves ahead and sometimes prefers a worse
move by up to a man and a half), and a high one varies only among near-equal moves in the
opening. Scores are in hundredths of a man.

A level also says what it costs in time: with the engine's clock, a move takes at most
``seconds`` (firmware.engine.timing: never more than the clock's plan, and 1 s in the
opening); from level 5 up its first moves come from the opening book (firmware.engine.book).
"""

from __future__ import annotations

from dataclasses import dataclass

from firmware.errors import BoardError


@dataclass(frozen=True, slots=True)
class Level:
    number: int
    #: Deepest iteration (plies; captures are searched on beyond it), None for no cap.
    max_depth: int | None
    #: The root jitter's size: each root move gets a bonus in [0, jitter).
    jitter: int
    #: Full-strength levels vary only their opening: while at most this many pieces have
    #: left the board and nobody has a king (a Hub engine sees no more of the game than the
    #: position and the king moves since the last man move). None: the jitter always applies.
    opening_pieces_off: int | None = None
    #: The most a move planned from the clock takes (seconds, the soft limit: the hard one is
    #: half as much again); None: the clock's plan alone.
    seconds: float | None = None
    #: The opening book's moves are played (firmware.engine.book).
    book: bool = True


LEVELS: dict[int, Level] = {
    1: Level(1, 1, 150, seconds=0.5, book=False),
    2: Level(2, 2, 120, seconds=0.5, book=False),
    3: Level(3, 2, 80, seconds=0.5, book=False),
    4: Level(4, 3, 60, seconds=0.5, book=False),
    5: Level(5, 4, 40, seconds=1.0),
    6: Level(6, 5, 25, seconds=1.5),
    7: Level(7, 6, 15, seconds=2.0),
    8: Level(8, 8, 10, seconds=3.0),
    9: Level(9, None, 6, 6, seconds=4.0),
    10: Level(10, None, 4, 4, seconds=8.0),
}

#: Names a user may give instead of a number.
NAMES = {"beginner": 1, "easy": 3, "medium": 5, "hard": 8, "full": 10}

DEFAULT_LEVEL = 10


def find_level(text: str | int) -> Level:
    """A level by number (1-10) or name (beginner, easy, medium, hard, full); BoardError."""
    key = str(text).strip().lower()
    number = NAMES.get(key)
    if number is None and key.isascii() and key.isdigit() and len(key) <= 3:
        number = int(key)
    if number not in LEVELS:
        names = ", ".join(NAMES)
        raise BoardError(f"unknown engine level {str(text)[:20]!r} (1-10 or {names})")
    return LEVELS[number]
