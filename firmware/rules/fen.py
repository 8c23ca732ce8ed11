"""FEN for draughts positions (PDN 3.0): ``W:W31,32,K45:B1-20``.

Read: the side to move (``W``/``B``), then each side's squares after ``:W`` and ``:B``, ``K``
before a king, ranges ``1-20`` (also ``K1-5``), blanks and a final ``.`` ignored. On 8x8 squares
may be algebraic (``c3``) or numbers 1-32 (CONTRACT.md). Anything else raises FenError naming
what is wrong.

Written: side to move, then White's and Black's squares in increasing number order, ``K``
before kings, no ranges; algebraic on 8x8 (CONTRACT.md), numbers on 10x10.
"""

from __future__ import annotations

from dataclasses import dataclass

from firmware.errors import FenError, SquareError
from firmware.limits import MAX_FEN, clip
from firmware.rules.sets import RuleSet, Side


@dataclass(frozen=True, slots=True)
class FenPieces:
    """What a FEN holds: side to move, and each side's men and kings as square sets."""

    turn: Side
    white_men: frozenset[int]
    white_kings: frozenset[int]
    black_men: frozenset[int]
    black_kings: frozenset[int]


def parse_fen(rules: RuleSet, text: str) -> FenPieces:
    """Read a FEN for ``rules``' board; FenError with a one-line reason when it cannot."""
    if not isinstance(text, str):
        raise FenError(f"FEN must be text, not {type(text).__name__}")
    if len(text) > MAX_FEN:
        raise FenError(f"FEN {_quote(text)} is {len(text)} characters long: longer than any "
                       f"board's ({MAX_FEN} at most)")
    raw = text.strip().strip('"').strip()
    if raw.endswith("."):
        raw = raw[:-1]
    if not raw:
        raise FenError("empty FEN")
    fields = [f.strip() for f in raw.split(":")]
    turn_text = fields[0].upper()
    if turn_text not in ("W", "B"):
        raise FenError(f"FEN {_quote(text)}: side to move must be W or B, not {_quote(fields[0])}")
    turn = Side.WHITE if turn_text == "W" else Side.BLACK
    pieces: dict[Side, tuple[set[int], set[int]]] = {
        Side.WHITE: (set(), set()),
        Side.BLACK: (set(), set()),
    }
    seen_sides: set[Side] = set()
    where: dict[int, str] = {}
    for field in fields[1:]:
        if not field:
            continue
        head = field[0].upper()
        if head not in ("W", "B"):
            raise FenError(
                f"FEN {_quote(text)}: field {_quote(field)} must start with W or B (the side "
                "whose pieces follow)"
            )
        side = Side.WHITE if head == "W" else Side.BLACK
        if side in seen_sides:
            raise FenError(f"FEN {_quote(text)}: {side.value}'s pieces are given twice")
        seen_sides.add(side)
        men, kings = pieces[side]
        for item in field[1:].split(","):
            item = item.strip()
            if not item:
                continue
            king = item[0].upper() == "K"
            body = item[1:].strip() if king else item
            for square in _expand(rules, body, text):
                if square in where:
                    raise FenError(
                        f"FEN {_quote(text)}: square {rules.square_name(square)} is given twice "
                        f"({where[square]} and {side.value})"
                    )
                where[square] = side.value
                (kings if king else men).add(square)
    _check_men(rules, text, pieces)
    return FenPieces(
        turn,
        frozenset(pieces[Side.WHITE][0]),
        frozenset(pieces[Side.WHITE][1]),
        frozenset(pieces[Side.BLACK][0]),
        frozenset(pieces[Side.BLACK][1]),
    )


def _quote(text: str, limit: int = 80) -> str:
    """A FEN (or a part of one) quoted in a message, cut to a readable length."""
    return repr(clip(text, limit))


def _expand(rules: RuleSet, body: str, text: str) -> list[int]:
    """One FEN square item: ``32``, ``c3`` or a range ``1-20``."""
    g = rules.geometry
    if not all(part.strip() for part in body.split("-")) or body.count("-") > 1:
        raise FenError(f"FEN {_quote(text)}: {_quote(body)} is not a square or a range of squares")
    try:
        if "-" in body:
            first, _, last = body.partition("-")
            a, b = g.parse_square(first), g.parse_square(last)
            if a > b:
                raise FenError(f"FEN {_quote(text)}: range {body!r} runs backwards")
            return list(range(a, b + 1))
        return [g.parse_square(body)]
    except SquareError as exc:  # it names the square as given: a 4000-digit one, too
        raise FenError(f"FEN {_quote(text)}: {clip(str(exc), 160)}") from None


def _check_men(rules: RuleSet, text: str, pieces: dict[Side, tuple[set[int], set[int]]]) -> None:
    """A man cannot stand on the row where it would have been crowned (000 4.15, 003 3.5)."""
    half = rules.size // 2
    far = {Side.WHITE: range(1, half + 1), Side.BLACK: range(rules.squares - half + 1,
                                                             rules.squares + 1)}
    for side, (men, _kings) in pieces.items():
        for square in sorted(men):
            if square in far[side]:
                raise FenError(
                    f"FEN {_quote(text)}: a {side.value} man on {rules.square_name(square)} would "
                    "have been crowned (write it as a king: K)"
                )


def write_fen(
    rules: RuleSet,
    turn: Side,
    white: dict[int, bool],
    black: dict[int, bool],
) -> str:
    """The FEN of a position given as {square: is_king} per side."""
    def side_text(letter: str, squares: dict[int, bool]) -> str:
        items = [("K" if squares[n] else "") + rules.square_name(n) for n in sorted(squares)]
        return letter + ",".join(items)

    return f"{turn.letter}:{side_text('W', white)}:{side_text('B', black)}"
