"""FEN read and write (CONTRACT.md): side to move, squares per side, K for kings, ranges; on
8x8 algebraic and 1-32 numbers are read and algebraic is written."""

from __future__ import annotations

import pytest

from firmware.errors import BoardError, FenError
from firmware.rules.position import Piece, Position
from firmware.rules.sets import RULESETS, Side


def test_contract_example_reads_ranges_and_kings() -> None:
    p = Position.from_fen("international", "W:W31,32,K45:B1-20")
    assert p.turn is Side.WHITE
    assert p.piece_at(45) == Piece(Side.WHITE, True)
    assert p.piece_at(31) == Piece(Side.WHITE, False)
    assert p.squares_of(Side.BLACK) == frozenset(range(1, 21))
    assert p.fen() == "W:W31,32,K45:B" + ",".join(str(n) for n in range(1, 21))


@pytest.mark.parametrize("name", sorted(RULESETS))
def test_start_position_round_trips(name: str) -> None:
    p = Position.start(name)
    assert Position.from_fen(name, p.fen()) == p
    assert p.count(Side.WHITE) == p.count(Side.BLACK) == (20 if p.rules.size == 10 else 12)


def test_8x8_numbers_and_algebraic_read_alike_and_algebraic_is_written() -> None:
    by_number = Position.from_fen("russian", "B:W21-32:B1-12")
    by_name = Position.from_fen("russian", "B:Wa1,c1,e1,g1,b2,d2,f2,h2,a3,c3,e3,g3:"
                                "Bb8,d8,f8,h8,a7,c7,e7,g7,b6,d6,f6,h6")
    assert by_number == by_name
    assert by_number.fen().startswith("B:Wa3,c3,e3,g3,")
    mixed = Position.from_fen("russian", "W:WKc3, 32:B1,Kh8")
    assert mixed.fen() == "W:WKc3,g1:Bb8,Kh8"


def test_sloppy_but_clear_forms() -> None:
    """Blanks, lower case, a final dot, quotes (as in a PDN tag), an empty side, K ranges."""
    p = Position.from_fen("international", ' "w:wK46-48, 49 :b 3." ')
    assert p.turn is Side.WHITE
    assert p.squares_of(Side.WHITE, king=True) == frozenset({46, 47, 48})
    assert Position.from_fen("international", "B:W:B1").count(Side.WHITE) == 0


@pytest.mark.parametrize(
    ("fen", "words"),
    [
        ("", "empty"),
        ("X:W1:B2", "side to move"),
        ("W:W1:W2", "twice"),
        ("W:W31:B31", "given twice"),
        ("W:W51:B1", "no square 51"),
        ("W:W31:Bz9", "z9"),
        ("W:W31:Bb1", "b1"),
        ("W:W20-10:B1", "backwards"),
        ("W:W3:B40", "crowned"),
        ("W:W31:Q1", "start with W or B"),
        ("W:W31:BK", "''"),
    ],
)
def test_bad_fen_raises_one_clear_error(fen: str, words: str) -> None:
    with pytest.raises(FenError) as info:
        Position.from_fen("international", fen)
    message = str(info.value)
    assert words in message and "\n" not in message
    assert isinstance(info.value, BoardError) and isinstance(info.value, ValueError)
