"""Move generation on bitboards: the private engine behind ``firmware.rules.position``.

A position is three Python ints (white, black, kings) over a padded square layout: square
``n`` (PDN numbering, 1..N) is bit ``i + i // (2 * half)`` with ``i = n - 1``, so that one ghost
bit follows every pair of rows. With that padding each diagonal step is one fixed shift
(``half`` or ``half + 1``) on both board sizes, and steps off the board land on a ghost bit or
outside the board mask.

Rules implemented here (seed paragraphs in brackets):

- men move one square diagonally forward (000 3.4, 003 3.4); kings fly (000 3.8, 004 §7);
- capture is compulsory, forwards and backwards for men and kings (000 4.1-4.3), in ``home``
  forwards only for men (002);
- a king captures at a distance and may land on any empty square behind the piece it takes,
  but must choose a square from which the capture goes on when there is one (000 4.6, 004 §9);
- captured pieces stay on the board until the move ends: a piece cannot be jumped twice and it
  blocks the way; empty squares, the start square included, may be crossed again
  (000 4.7, 4.8, 004 §8, §14 examples 1-3);
- majority capture where the rule set has it, kings and men counting the same
  (000 4.16.1, 003 4.13, 004 §24-25);
- promotion during a capture: crowned at once and carrying on as a king (000 4.14, 004 §9), or
  passing the far row as a man and promoting only if the move ends there
  (003 4.15, 000 4.16.2-3, 004 §25 examples 3-4);
- in ``home`` a king must capture when both a king and a man can (002).

Routes: a capture's route is the start square and then one landing square per captured piece.
Where a king carries on capturing along the same line, all squares between the two pieces it
takes give the same move: the route names the first square behind the earlier piece, and only
that one is generated. Every other landing choice (before a turn, and at the end) is its own
route, and so is every order of taking the same pieces.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache

from firmware.rules.geometry import geometry

#: Direction indices as in firmware.rules.geometry.DIRECTIONS: NW, NE, SW, SE (seen from White).
NW, NE, SW, SE = 0, 1, 2, 3
REVERSE = (SE, SW, NE, NW)

#: A capture as the engine returns it: route bits (start first), captured bits in order, and
#: whether the moving man is a king when the move ends.
RawCapture = tuple[tuple[int, ...], tuple[int, ...], bool]


class Tables:
    """Precomputed bit layout and rays for one board size."""

    def __init__(self, size: int) -> None:
        g = geometry(size)
        h = g.half
        self.size = size
        self.half = h
        self.count = g.count
        self.bit: list[int] = [0] * (g.count + 1)
        for n in g.squares:
            i = n - 1
            self.bit[n] = 1 << (i + i // (2 * h))
        self.square: dict[int, int] = {b: n for n, b in enumerate(self.bit) if b}
        self.valid = 0
        for b in self.bit:
            self.valid |= b
        #: rays[bit][d]: the bits met walking from the square in direction d, nearest first.
        self.rays: dict[int, tuple[tuple[int, ...], ...]] = {}
        #: jumps[bit]: (direction, jumped bit, landing bit) for each short jump on the board.
        self.jumps: dict[int, tuple[tuple[int, int, int], ...]] = {}
        #: forward jumps only, per side (True for White): men in ``home`` capture forwards only.
        self.forward_jumps: dict[bool, dict[int, tuple[tuple[int, int, int], ...]]] = {
            True: {},
            False: {},
        }
        for n in g.squares:
            b = self.bit[n]
            rays = tuple(tuple(self.bit[m] for m in g.rays[n][d]) for d in range(4))
            self.rays[b] = rays
            jumps = tuple((d, r[0], r[1]) for d, r in enumerate(rays) if len(r) >= 2)
            self.jumps[b] = jumps
            self.forward_jumps[True][b] = tuple(j for j in jumps if j[0] in (NW, NE))
            self.forward_jumps[False][b] = tuple(j for j in jumps if j[0] in (SW, SE))
        #: The row where each side's men are crowned (True for White).
        self.promotion = {
            True: sum(self.bit[n] for n in range(1, h + 1)),
            False: sum(self.bit[n] for n in range(g.count - h + 1, g.count + 1)),
        }
        # One diagonal step as a shift: NW and NE shift right (towards square 1), SW and SE left.
        self.shift = (h + 1, h, h, h + 1)
        #: _bytes[k][v]: the squares of the set bits of byte value v at byte k of a bitboard.
        self._bytes = tuple(
            tuple(tuple(self.square[1 << (8 * k + j)] for j in range(8)
                        if v >> j & 1 and 1 << (8 * k + j) in self.square) for v in range(256))
            for k in range((max(self.square).bit_length() + 7) // 8)
        )

    def squares_of(self, bb: int) -> list[int]:
        """The square numbers of the set bits of bb, in increasing order (a byte of the
        bitboard at a time: a full board in 7 or 8 look-ups, the position's FEN and pieces
        on every committed move)."""
        out: list[int] = []
        for chunk in self._bytes:
            if not bb:
                break
            if bb & 255:
                out += chunk[bb & 255]
            bb >>= 8
        return out


@cache
def tables(size: int) -> Tables:
    return Tables(size)


class Flags:
    """The rule-set flags move generation needs, read once from a RuleSet."""

    __slots__ = ("backwards", "flying", "majority", "crown_in_capture", "king_first")

    def __init__(
        self,
        backwards: bool,
        flying: bool,
        majority: bool,
        crown_in_capture: bool,
        king_first: bool,
    ) -> None:
        self.backwards = backwards
        self.flying = flying
        self.majority = majority
        self.crown_in_capture = crown_in_capture
        self.king_first = king_first


def captures(
    t: Tables, f: Flags, white: bool, mover: int, opp: int, kings: int
) -> list[RawCapture]:
    """Every legal capture route of the side to move (empty if it has none)."""
    empty_all = t.valid & ~(mover | opp)
    out: list[RawCapture] = []
    men = mover & ~kings
    if men:
        jumps = t.jumps if f.backwards else t.forward_jumps[white]
        promo = t.promotion[white]
        candidates = _men_that_capture(t, f, white, men, opp, empty_all)
        while candidates:
            frm = candidates & -candidates
            candidates ^= frm
            _man_capture(
                t, f, jumps, promo, frm, (frm,), (), 0, opp, empty_all | frm, out
            )
    king_moves_from = len(out)
    own_kings = mover & kings
    while own_kings:
        frm = own_kings & -own_kings
        own_kings ^= frm
        _king_capture(t, f.flying, frm, -1, (frm,), (), 0, opp, empty_all | frm, False, out)
    if f.king_first and len(out) > king_moves_from:
        out = out[king_moves_from:]
    if f.majority and out:
        most = max(len(c[1]) for c in out)
        out = [c for c in out if len(c[1]) == most]
    return out


def has_move(t: Tables, f: Flags, white: bool, mover: int, opp: int, kings: int) -> bool:
    """Whether the side to move has any legal move, without generating one: a man's step or a
    king's into an empty neighbour, else any capture (a position with a capture has a legal
    move whatever the capture rules choose among them). What the game's end needs after every
    move; the moves themselves are generated when the next turn first asks."""
    empty = t.valid & ~(mover | opp)
    men = mover & ~kings
    s_nw, s_ne, s_sw, s_se = t.shift
    if white:
        if ((men >> s_nw) | (men >> s_ne)) & empty:
            return True
    elif ((men << s_sw) | (men << s_se)) & empty:
        return True
    if men and _men_that_capture(t, f, white, men, opp, empty):
        return True
    own_kings = mover & kings
    rays = t.rays
    while own_kings:
        frm = own_kings & -own_kings
        own_kings ^= frm
        for ray in rays[frm]:
            if ray and (ray[0] & empty or len(ray) > 1 and ray[0] & opp and ray[1] & empty):
                return True  # a step, or a capture over a neighbour (flying or not)
    return False


def _men_that_capture(
    t: Tables, f: Flags, white: bool, men: int, opp: int, empty: int
) -> int:
    """The men that have a capture, computed on whole bitboards."""
    s_nw, s_ne, s_sw, s_se = t.shift
    found = 0
    if f.backwards or white:
        found |= men & (opp << s_nw) & (empty << (2 * s_nw))
        found |= men & (opp << s_ne) & (empty << (2 * s_ne))
    if f.backwards or not white:
        found |= men & (opp >> s_sw) & (empty >> (2 * s_sw))
        found |= men & (opp >> s_se) & (empty >> (2 * s_se))
    return found


def _man_capture(
    t: Tables,
    f: Flags,
    jumps: dict[int, tuple[tuple[int, int, int], ...]],
    promo: int,
    sq: int,
    route: tuple[int, ...],
    caps: tuple[int, ...],
    taken: int,
    opp: int,
    empty: int,
    out: list[RawCapture],
) -> bool:
    """Extend a man's capture from sq; record the finished routes. True if it could jump."""
    found = False
    for d, over, land in jumps[sq]:
        if over & opp and not over & taken and land & empty:
            found = True
            r = route + (land,)
            c = caps + (over,)
            if land & promo and f.crown_in_capture:
                # Crowned on the far row, the piece carries on as a king (000 4.14).
                if not _king_capture(t, f.flying, land, d, r, c, taken | over, opp, empty, True,
                                     out):
                    out.append((r, c, True))
            elif not _man_capture(t, f, jumps, promo, land, r, c, taken | over, opp, empty, out):
                out.append((r, c, bool(land & promo)))
    return found


def _king_capture(
    t: Tables,
    flying: bool,
    sq: int,
    came: int,
    route: tuple[int, ...],
    caps: tuple[int, ...],
    taken: int,
    opp: int,
    empty: int,
    promoted: bool,
    out: list[RawCapture],
    straight: bool = True,
) -> bool:
    """Extend a king's capture from sq, arrived moving in direction ``came`` (-1 at the start).

    ``straight`` False leaves out carrying on in direction ``came``: that continuation is the
    same move from every square of a landing run and is generated from the first one only.
    """
    found = False
    rays = t.rays[sq]
    back = REVERSE[came] if came >= 0 else -1
    for d in range(4):
        if d == back or (d == came and not straight):
            continue
        ray = rays[d]
        n = len(ray)
        i = 0
        if flying:
            while i < n and ray[i] & empty:
                i += 1
        if i >= n - 1:
            continue
        victim = ray[i]
        if not victim & opp or victim & taken:
            continue
        i += 1
        if not ray[i] & empty:
            continue
        lands = [ray[i]]
        if flying:
            i += 1
            while i < n and ray[i] & empty:
                lands.append(ray[i])
                i += 1
        found = True
        c = caps + (victim,)
        now_taken = taken | victim
        carried_on = False
        for k, land in enumerate(lands):
            if _king_capture(t, flying, land, d, route + (land,), c, now_taken, opp, empty,
                             promoted, out, k == 0):
                carried_on = True
        if not carried_on:
            for land in lands:
                out.append((route + (land,), c, promoted))
    return found


def quiet_moves(
    t: Tables, f: Flags, white: bool, mover: int, opp: int, kings: int
) -> list[tuple[int, int]]:
    """Every non-capturing move as (from bit, to bit)."""
    empty = t.valid & ~(mover | opp)
    out: list[tuple[int, int]] = []
    men = mover & ~kings
    s_nw, s_ne, s_sw, s_se = t.shift
    if white:
        for s in (s_nw, s_ne):
            targets = (men >> s) & empty
            while targets:
                to = targets & -targets
                targets ^= to
                out.append((to << s, to))
    else:
        for s in (s_sw, s_se):
            targets = (men << s) & empty
            while targets:
                to = targets & -targets
                targets ^= to
                out.append((to >> s, to))
    own_kings = mover & kings
    rays = t.rays
    while own_kings:
        frm = own_kings & -own_kings
        own_kings ^= frm
        for ray in rays[frm]:
            for to in ray:
                if not to & empty:
                    break
                out.append((frm, to))
                if not f.flying:
                    break
    return out


#: A distinct move for counting: from bit, to bit, captured set, promotes.
Key = tuple[int, int, int, bool]
#: perft(white, black, kings, white_to_move, depth) -> leaves, for depth >= 1.
PerftFunction = Callable[[int, int, int, bool, int], int]


#: Distinct capture keys of the side to move: (white, mover, opp, kings, empty, cand).
CaptureKeys = Callable[[bool, int, int, int, int, int], list[Key]]

# perft is built from small factories, each returning a closure over one board's tables and one
# rule set's flags, bound to locals: in CPython a closure's cell and local reads are much faster
# than attribute and global look-ups, and perft makes millions of these calls. The functions
# below keep the size guideline except the two recursive walkers (king_keys and perft), which
# stay whole because splitting them adds a call on every node of the tree.


def _king_keys_factory(t: Tables, f: Flags) -> Callable[..., bool]:
    """Distinct king captures (from, to, captured, promoted) into ``out``; True if any."""
    rays = t.rays
    flying = f.flying
    reverse = REVERSE

    def king_keys(frm: int, sq: int, came: int, straight: bool, taken: int, opp: int,
                  empty: int, promoted: bool, out: dict[Key, None]) -> bool:
        found = False
        back = reverse[came] if came >= 0 else -1
        for d, ray in enumerate(rays[sq]):
            if d == back or (d == came and not straight):
                continue
            n = len(ray)
            i = 0
            if flying:
                while i < n and ray[i] & empty:
                    i += 1
            if i >= n - 1:
                continue
            victim = ray[i]
            if not victim & opp or victim & taken:
                continue
            i += 1
            land = ray[i]
            if not land & empty:
                continue
            found = True
            now = taken | victim
            carried_on = king_keys(frm, land, d, True, now, opp, empty, promoted, out)
            stops = [land]
            if flying:
                i += 1
                while i < n and ray[i] & empty:
                    land = ray[i]
                    if king_keys(frm, land, d, False, now, opp, empty, promoted, out):
                        carried_on = True
                    stops.append(land)
                    i += 1
            if not carried_on:
                for land in stops:
                    out[(frm, land, now, promoted)] = None
        return found

    return king_keys


def _man_keys_factory(f: Flags, king_keys: Callable[..., bool]) -> Callable[..., bool]:
    """Distinct man captures into ``out`` (crowned on the way where the rule set says so)."""
    crown = f.crown_in_capture

    def man_keys(frm: int, sq: int, jumps: dict[int, tuple[tuple[int, int, int], ...]],
                 promo: int, taken: int, opp: int, empty: int, out: dict[Key, None]) -> bool:
        found = False
        for d, over, land in jumps[sq]:
            if over & opp and not over & taken and land & empty:
                found = True
                now = taken | over
                if land & promo:
                    if crown:
                        if not king_keys(frm, land, d, True, now, opp, empty, True, out):
                            out[(frm, land, now, True)] = None
                    elif not man_keys(frm, land, jumps, promo, now, opp, empty, out):
                        out[(frm, land, now, True)] = None
                elif not man_keys(frm, land, jumps, promo, now, opp, empty, out):
                    out[(frm, land, now, False)] = None
        return found

    return man_keys


def _capture_keys_factory(t: Tables, f: Flags) -> CaptureKeys:
    """The distinct legal captures of the side to move, as keys (majority and king-first
    rules applied)."""
    king_keys = _king_keys_factory(t, f)
    man_keys = _man_keys_factory(f, king_keys)
    all_jumps = t.jumps
    fwd = t.forward_jumps
    promotion = t.promotion
    backwards = f.backwards
    majority = f.majority
    king_first = f.king_first

    def capture_keys(white: bool, mover: int, opp: int, kings: int, empty: int,
                     cand: int) -> list[Key]:
        """``cand`` holds the men that can capture (men_candidates)."""
        out: dict[Key, None] = {}
        if cand:
            jumps = all_jumps if backwards else fwd[white]
            promo = promotion[white]
            while cand:
                frm = cand & -cand
                cand ^= frm
                man_keys(frm, frm, jumps, promo, 0, opp, empty | frm, out)
        own = mover & kings
        if own:
            men_out = out
            if king_first:
                out = {}
            while own:
                frm = own & -own
                own ^= frm
                king_keys(frm, frm, -1, True, 0, opp, empty | frm, False, out)
            if king_first and not out:
                out = men_out
        keys = list(out)
        if majority and len(keys) > 1:
            most = max(k[2].bit_count() for k in keys)
            keys = [k for k in keys if k[2].bit_count() == most]
        return keys

    return capture_keys


def _men_candidates_factory(t: Tables, f: Flags) -> Callable[[bool, int, int, int], int]:
    """The men of the side to move that have an enemy piece next to them with an empty square
    behind (a superset of the men that can capture)."""
    s_nw, s_ne, s_sw, s_se = t.shift
    s_nw2, s_ne2, s_sw2, s_se2 = 2 * s_nw, 2 * s_ne, 2 * s_sw, 2 * s_se
    backwards = f.backwards

    def men_candidates(white: bool, men: int, opp: int, empty: int) -> int:
        cand = 0
        if backwards or white:
            cand = (men & (opp << s_nw) & (empty << s_nw2)) | (
                men & (opp << s_ne) & (empty << s_ne2))
        if backwards or not white:
            cand |= (men & (opp >> s_sw) & (empty >> s_sw2)) | (
                men & (opp >> s_se) & (empty >> s_se2))
        return cand

    return men_candidates


def _quiet_count_factory(t: Tables, f: Flags) -> Callable[[bool, int, int, int], int]:
    """How many quiet moves the side to move has (the last ply is counted, not played)."""
    rays = t.rays
    s_nw, s_ne, s_sw, s_se = t.shift
    flying = f.flying

    def quiet_count(white_to_move: bool, men: int, own_kings: int, empty: int) -> int:
        if white_to_move:
            n = ((men >> s_nw) & empty).bit_count() + ((men >> s_ne) & empty).bit_count()
        else:
            n = ((men << s_sw) & empty).bit_count() + ((men << s_se) & empty).bit_count()
        while own_kings:
            frm = own_kings & -own_kings
            own_kings ^= frm
            for ray in rays[frm]:
                for to in ray:
                    if not to & empty:
                        break
                    n += 1
                    if not flying:
                        break
        return n

    return quiet_count


def _make_perft(t: Tables, f: Flags) -> PerftFunction:
    """A perft function specialised to one board and rule set.

    Captures are enumerated straight into keys (from, to, captured set, promotes), without the
    routes: the same rules as ``captures`` (kept in step by the tests, which compare both with
    the published counts and with each other on random positions).

    The one long function of the code base (tests/project/test_units.py lets it be): the
    recursion is inlined for speed, a helper call per node costs the perft benchmark 5% or more,
    so the closure below keeps the men's quiet moves and the node loop in one body."""
    capture_keys = _capture_keys_factory(t, f)
    men_candidates = _men_candidates_factory(t, f)
    quiet_count = _quiet_count_factory(t, f)
    valid = t.valid
    rays = t.rays
    promotion = t.promotion
    s_nw, s_ne, s_sw, s_se = t.shift
    s_nw2, s_ne2, s_sw2, s_se2 = 2 * s_nw, 2 * s_ne, 2 * s_sw, 2 * s_se
    flying = f.flying
    backwards = f.backwards

    def perft(white: int, black: int, kings: int, white_to_move: bool, depth: int) -> int:
        if white_to_move:
            mover, opp = white, black
        else:
            mover, opp = black, white
        empty = valid & ~(mover | opp)
        men = mover & ~kings
        own_kings = mover & kings
        if backwards:  # inline: the call would cost ~5% of a russian perft
            cand = ((men & (opp << s_nw) & (empty << s_nw2))
                    | (men & (opp << s_ne) & (empty << s_ne2))
                    | (men & (opp >> s_sw) & (empty >> s_sw2))
                    | (men & (opp >> s_se) & (empty >> s_se2)))
        else:
            cand = men_candidates(white_to_move, men, opp, empty)
        keys = capture_keys(white_to_move, mover, opp, kings, empty, cand) if (
            cand or own_kings) else None
        if keys:
            if depth == 1:
                return len(keys)
            total = 0
            for frm, to, mask, promotes in keys:
                new_mover = mover ^ frm ^ to
                new_opp = opp & ~mask
                if kings & frm:
                    new_kings = (kings ^ frm ^ to) & ~mask
                elif promotes:
                    new_kings = (kings & ~mask) | to
                else:
                    new_kings = kings & ~mask
                if white_to_move:
                    total += perft(new_mover, new_opp, new_kings, False, depth - 1)
                else:
                    total += perft(new_opp, new_mover, new_kings, True, depth - 1)
            return total
        if depth == 1:
            return quiet_count(white_to_move, men, own_kings, empty)
        total = 0
        depth -= 1
        promo = promotion[white_to_move]
        if white_to_move:
            for s in (s_nw, s_ne):
                targets = (men >> s) & empty
                while targets:
                    to = targets & -targets
                    targets ^= to
                    total += perft(mover ^ (to << s) ^ to, opp,
                                   kings | to if to & promo else kings, False, depth)
        else:
            for s in (s_sw, s_se):
                targets = (men << s) & empty
                while targets:
                    to = targets & -targets
                    targets ^= to
                    total += perft(opp, mover ^ (to >> s) ^ to,
                                   kings | to if to & promo else kings, True, depth)
        while own_kings:
            frm = own_kings & -own_kings
            own_kings ^= frm
            for ray in rays[frm]:
                for to in ray:
                    if not to & empty:
                        break
                    k = kings ^ frm ^ to
                    if white_to_move:
                        total += perft(mover ^ frm ^ to, opp, k, False, depth)
                    else:
                        total += perft(opp, mover ^ frm ^ to, k, True, depth)
                    if not flying:
                        break
        return total

    return perft


_PERFTS: dict[tuple[int, bool, bool, bool, bool, bool], PerftFunction] = {}


def perft_function(t: Tables, f: Flags) -> PerftFunction:
    """The specialised perft for a board size and rule flags (built once)."""
    key = (t.size, f.backwards, f.flying, f.majority, f.crown_in_capture, f.king_first)
    fn = _PERFTS.get(key)
    if fn is None:
        fn = _PERFTS[key] = _make_perft(t, f)
    return fn


def perft(
    t: Tables, f: Flags, white: int, black: int, kings: int, white_to_move: bool, depth: int
) -> int:
    """Leaf nodes at ``depth`` plies, counting moves with the same start, end, captured set and
    promotion once (the convention of the published tables); the last ply is counted without
    making the moves."""
    if depth <= 0:
        return 1
    fn = perft_function(t, f)
    return fn(white, black, kings, white_to_move, depth)
