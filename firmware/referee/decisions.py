"""What the referee decides: moves committed, irregularities with their LED picture, refusals.

LED meanings (DESIGN.md "Shared vocabularies"): ``restore`` put a piece back here, ``remove``
take this piece off, ``must-move`` this piece must move, ``wrong`` a piece stands where none may.
"""

from __future__ import annotations

from dataclasses import dataclass

from firmware.referee.kinds import KINDS as _KINDS
from firmware.referee.kinds import IrregularityKind
from firmware.rules.position import Move, Position
from firmware.rules.sets import Side

RESTORE = "restore"
REMOVE = "remove"
MUST_MOVE = "must-move"
WRONG = "wrong"

#: Irregularity kinds: CONTRACT.md's, plus ``take-back`` (000 5.4.4: the board shows the
#: position before the last move) and ``own-piece-removed`` (000 5.4.14); the registry with
#: what each means and whose it is: ``firmware.referee.kinds``.
KINDS = _KINDS


@dataclass(frozen=True, slots=True)
class LedMark:
    """One lit square (algebraic) and what it asks for."""

    square: str
    meaning: str


@dataclass(frozen=True, slots=True)
class MoveCommitted:
    """``side`` made ``move``: the game goes from ``before`` to ``after``. ``pressed``: the
    player's clock press committed it (the clock must switch)."""

    at: int
    move: Move
    side: Side
    before: Position
    after: Position
    pressed: bool


@dataclass(frozen=True, slots=True)
class Irregularity:
    """An irregularity (000 §5, 003 §5) and the squares the LEDs must light."""

    at: int
    kind: IrregularityKind
    side: Side | None
    marks: tuple[LedMark, ...]
    held_ns: int | None = None  # touch-move: how long the touched piece was held

    @property
    def squares(self) -> list[str]:
        return [m.square for m in self.marks]


@dataclass(frozen=True, slots=True)
class PressRefused:
    """A press without a completed move: refused, the player's clock keeps running (004 §32)."""

    at: int
    side: Side


@dataclass(frozen=True, slots=True)
class Cleared:
    """The board is back to the position or shows a legal move's result: play goes on."""

    at: int


@dataclass(frozen=True, slots=True)
class Accepted:
    """The opponent let an irregularity stand: play goes on from ``position`` (000 5.4, 5.7).
    ``passes_turn``: the irregular change was the mover's move, so the turn passes."""

    at: int
    before: Position
    position: Position
    passes_turn: bool
    side: Side


Decision = MoveCommitted | Irregularity | PressRefused | Accepted | Cleared
