"""The static evaluation: a score in hundredths of a man, from White's side, on bitboards.

Terms (each a table per square, summed a byte of the bitboard at a time):

- material: a man 100; a king 300 on 10x10, 250 on 8x8 (where the board is smaller and a king
  rules more of it sooner), 160 where kings do not fly;
- advancement: a man gains a little for each row it has left behind, more in the endgame
  (racing to the crown) than with a full board (where running ahead loses men);
- centre: men on the middle files hold the board;
- back rank: men kept on their own first row stop the other side's crowning while it has men
  (the corner squares count less: they guard less);
- tempo: the side to move gains a small bonus (a free move is worth something);
- endgame: with few pieces a king is worth more, and a side a king up against men only gains
  a bonus (crowning decides most endgames).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache

from firmware.rules import _movegen as mg
from firmware.rules.sets import RuleSet

MAN = 100
TEMPO = 4
#: Pieces on the board below which the endgame tables count.
ENDGAME_PIECES = {8: 10, 10: 16}

Table = tuple[tuple[int, ...], ...]
Evaluator = Callable[[int, int, int, bool], int]


def _byte_tables(t: mg.Tables, values: dict[int, int]) -> Table:
    """table[k][v]: the sum of ``values`` (by square) over the set bits of byte value v at
    byte k of a bitboard."""
    out = []
    for k in range(len(t._bytes)):
        row = []
        for v in range(256):
            total = 0
            for j in range(8):
                bit = 1 << (8 * k + j)
                if v >> j & 1 and bit in t.square:
                    total += values.get(t.square[bit], 0)
            row.append(total)
        out.append(tuple(row))
    return tuple(out)


def _square_values(rules: RuleSet, endgame: bool, white: bool) -> dict[int, int]:
    """A man's worth on each square for one side (material included)."""
    g = rules.geometry
    size = rules.size
    out: dict[int, int] = {}
    for sq in g.squares:
        f, r = g.coords(sq)
        row = r if white else size - 1 - r  # rows left behind, 0 on its own back row
        value = MAN
        if endgame:
            value += 6 * row + (4 * row * row) // size
        else:
            value += 2 * row if row < size - 3 else 2 * row - 4
            centre = min(f, size - 1 - f)
            value += (2, 4, 6, 8, 8)[min(centre, 4)] if 2 <= row <= size - 3 else 0
            if row == 0:
                value += 4 if f in (0, size - 1) else 10
        out[sq] = value
    return out


def _king_values(rules: RuleSet, endgame: bool) -> dict[int, int]:
    g = rules.geometry
    size = rules.size
    base = (300 if size == 10 else 250) if rules.flying_kings else 160
    if endgame:
        base += 50
    out: dict[int, int] = {}
    for sq in g.squares:
        f, r = g.coords(sq)
        # The long diagonals matter to a flying king: a square on the main road a little more.
        bonus = 6 if f == r else (3 if f + r == size - 1 or abs(f - r) == 1 else 0)
        out[sq] = base + bonus
    return out


@cache
def evaluator(rules: RuleSet) -> Evaluator:
    """evaluate(white, black, kings, white_to_move) -> score for the side to move."""
    t = mg.tables(rules.size)
    wm_open = _byte_tables(t, _square_values(rules, False, True))
    bm_open = _byte_tables(t, _square_values(rules, False, False))
    wm_end = _byte_tables(t, _square_values(rules, True, True))
    bm_end = _byte_tables(t, _square_values(rules, True, False))
    k_open = _byte_tables(t, _king_values(rules, False))
    k_end = _byte_tables(t, _king_values(rules, True))
    nbytes = len(wm_open)
    limit = ENDGAME_PIECES[rules.size]
    tables = {
        False: tuple(zip(wm_open, bm_open, k_open, strict=True)),
        True: tuple(zip(wm_end, bm_end, k_end, strict=True)),
    }
    del nbytes

    def evaluate(white: int, black: int, kings: int, white_to_move: bool) -> int:
        endgame = (white | black).bit_count() <= limit
        wm = white & ~kings
        bm = black & ~kings
        wk = white & kings
        bk = black & kings
        score = 0
        for wt, bt, kt in tables[endgame]:
            if not (wm or bm or wk or bk):
                break
            score += wt[wm & 255] - bt[bm & 255] + kt[wk & 255] - kt[bk & 255]
            wm >>= 8
            bm >>= 8
            wk >>= 8
            bk >>= 8
        if endgame:
            # A king against men only: crowning is near decisive, press on.
            wkings, bkings = (white & kings).bit_count(), (black & kings).bit_count()
            if wkings and not bkings:
                score += 40
            elif bkings and not wkings:
                score -= 40
        return (score if white_to_move else -score) + TEMPO

    return evaluate
