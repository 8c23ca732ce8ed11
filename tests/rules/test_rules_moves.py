"""Move generation rule by rule, the Position API, and a plain coordinate-walking reference
generator checked against the bitboard one on random positions of every rule set."""

from __future__ import annotations

import random

import pytest
from support.rules_helpers import random_position

from firmware.errors import IllegalMoveError, RulesError
from firmware.rules.position import Move, Piece, Position
from firmware.rules.sets import RULESETS, RuleSet, Side, find_rules


def names(p: Position) -> list[str]:
    r = p.rules
    return sorted(("x" if m.captured else "-").join(r.square_name(s) for s in m.route)
                  for m in p.legal_moves())


def test_registry_and_flags() -> None:
    assert set(RULESETS) == {"international", "russian", "brazilian", "international64",
                             "russian1953", "international1953", "home"}
    assert find_rules(" Russian ") is RULESETS["russian"]
    with pytest.raises(RulesError, match="unknown rule set 'checkers'"):
        find_rules("checkers")
    assert find_rules("international").size == 10 and not find_rules("home").size == 10
    assert find_rules("russian").promote_during_capture
    assert not find_rules("brazilian").promote_during_capture
    assert find_rules("home").king_must_capture_first
    assert not find_rules("home").men_capture_backwards
    assert [find_rules(n).game_type for n in ("international", "russian", "brazilian")] == [
        20, 25, 26]
    assert isinstance(find_rules("home"), RuleSet)
    assert Side.WHITE.other is Side.BLACK and Side.BLACK.letter == "B"


def test_men_move_forward_only_kings_fly() -> None:
    p = Position.from_fen("russian", "W:Wc3,Kf2:Bh8")
    assert names(p) == sorted(["c3-b4", "c3-d4", "f2-e1", "f2-g1", "f2-e3", "f2-d4", "f2-c5",
                               "f2-b6", "f2-a7", "f2-g3", "f2-h4"])
    black = Position.from_fen("russian", "B:Wa1:Bc5")
    assert names(black) == ["c5-b4", "c5-d4"]


def test_capture_is_compulsory_and_men_capture_backwards() -> None:
    p = Position.from_fen("russian", "W:Wc3,g3:Bb2,h8")
    assert names(p) == ["c3xa1"]
    assert not p.legal_moves()[0].promotes


def test_home_men_capture_forwards_only_and_king_first() -> None:
    """Seed 002: a man jumps the piece diagonally in front; with a king and a man able to
    capture, the king must. Russian for contrast: men capture backwards, free choice."""
    backwards = "W:Wc3,h2:Bb2,h8"
    assert names(Position.from_fen("home", backwards)) == ["c3-b4", "c3-d4", "h2-g3"]
    assert names(Position.from_fen("russian", backwards)) == ["c3xa1"]
    both = "W:Wc3,Kh2:Bd4,f4"
    assert names(Position.from_fen("home", both)) == ["h2xb8", "h2xc7", "h2xd6", "h2xe5"]
    assert names(Position.from_fen("russian", both)) == [
        "c3xe5xg3", "h2xb8", "h2xc7", "h2xd6", "h2xe5"]
    man_only = "W:Wc3,Ka1:Bd4,b2"
    assert names(Position.from_fen("home", man_only)) == ["c3xe5"]


def test_majority_counts_kings_and_men_alike() -> None:
    """International (003 4.13): the most pieces, a king counting as one, and free choice
    between equals (003 4.14); Russian chooses freely (000 4.13), Brazilian not (4.16.1)."""
    assert names(Position.from_fen("international", "W:W32,37:B27,K28,19")) == ["32x23x14"]
    assert names(Position.from_fen("international", "W:W32:B27,K28")) == ["32x21", "32x23"]
    assert names(Position.from_fen("russian", "W:Wa1,c3:Bb2,d4,f6")) == ["c3xe5xg7"]
    assert names(Position.from_fen("russian", "W:Wa1,c3:Bb2,d4,f6,b4")) == [
        "c3xa5", "c3xe5xg7"]
    assert names(Position.from_fen("brazilian", "W:Wa1,c3:Bb2,d4,f6,b4")) == ["c3xe5xg7"]


def test_king_lands_anywhere_behind_unless_it_can_go_on() -> None:
    """004 §9: any empty square behind the piece; but where the capture can go on from some of
    them, only those (000 4.6)."""
    assert names(Position.from_fen("international", "W:WK46:B23")) == [
        "46x10", "46x14", "46x19", "46x5"]
    assert names(Position.from_fen("international", "W:WK46:B23,13")) == [
        "46x19x2", "46x19x8"]


def test_position_is_immutable_hashable_and_play_checks_legality() -> None:
    p = Position.start("international")
    move = p.legal_moves()[0]
    q = p.play(move)
    assert p == Position.start("international") and q != p
    assert q.turn is Side.BLACK and len({p, q, Position.start("international")}) == 2
    assert p.piece_at(move.start) == Piece(Side.WHITE, False) and q.piece_at(move.start) is None
    with pytest.raises(IllegalMoveError):
        p.play(Move((36, 31)))
    with pytest.raises(IllegalMoveError):
        q.play(move)
    assert p.occupied() == frozenset(range(1, 21)) | frozenset(range(31, 51))
    assert len(p.pieces()) == 40 and not p.has_capture()
    p.legal_moves().clear()
    assert len(p.legal_moves()) == 9


def test_promotion_on_simple_move_and_king_moves_do_not_promote() -> None:
    p = Position.from_fen("international", "W:W7,K9:B45")
    promoting = {m.route: m.promotes for m in p.legal_moves()}
    assert promoting[(7, 1)] and promoting[(7, 2)] and not promoting[(9, 3)]
    after = p.play(Move((7, 1), (), True))
    assert after.piece_at(1) == Piece(Side.WHITE, True)


# -- reference generator ---------------------------------------------------------------------

def reference_keys(p: Position) -> set[tuple[int, int, frozenset[int], bool]]:
    """Legal moves as (start, end, captured, promotes), walked on (file, rank) coordinates."""
    r = p.rules
    g = r.geometry
    size = r.size
    board = {g.coords(sq): piece for sq, piece in p.pieces().items()}
    me = p.turn
    ahead = 1 if me is Side.WHITE else -1
    far = size - 1 if me is Side.WHITE else 0
    dirs = [(-1, 1), (1, 1), (-1, -1), (1, -1)]
    on = range(size)
    found: list[tuple[tuple[int, int], tuple[int, int], frozenset, bool, bool]] = []

    def free(c: tuple[int, int], start: tuple[int, int]) -> bool:
        return c[0] in on and c[1] in on and (c not in board or c == start)

    def enemy(c: tuple[int, int], taken: frozenset) -> bool:
        return c in board and board[c].side is not me and c not in taken

    def man(start, c, taken, king_start) -> bool:  # type: ignore[no-untyped-def]
        went = False
        for dx, dy in dirs:
            if not r.men_capture_backwards and dy != ahead:
                continue
            over, land = (c[0] + dx, c[1] + dy), (c[0] + 2 * dx, c[1] + 2 * dy)
            if enemy(over, taken) and free(land, start):
                went = True
                t = taken | {over}
                if land[1] == far and r.promote_during_capture:
                    if not king(start, land, t, True, False):
                        found.append((start, land, t, True, False))
                elif not man(start, land, t, False):
                    found.append((start, land, t, land[1] == far, False))
        return went

    def king(start, c, taken, crowned, is_king) -> bool:  # type: ignore[no-untyped-def]
        went = False
        for dx, dy in dirs:
            x, y = c[0] + dx, c[1] + dy
            while free((x, y), start):
                x, y = x + dx, y + dy
            if not enemy((x, y), taken):
                continue
            victim = (x, y)
            lands = []
            x, y = x + dx, y + dy
            while free((x, y), start):
                lands.append((x, y))
                x, y = x + dx, y + dy
            if not lands:
                continue
            went = True
            t = taken | {victim}
            going_on = [king(start, land, t, crowned, is_king) for land in lands]
            if not any(going_on):
                found.extend((start, land, t, crowned, is_king) for land in lands)
        return went

    for c, piece in board.items():
        if piece.side is me:
            if piece.king:
                king(c, c, frozenset(), False, True)
            else:
                man(c, c, frozenset(), False)
    caps = found
    if caps and r.king_must_capture_first and any(f[4] for f in caps):
        caps = [f for f in caps if f[4]]
    if caps and r.majority_capture:
        most = max(len(f[2]) for f in caps)
        caps = [f for f in caps if len(f[2]) == most]
    num = {xy: sq for sq in g.squares for xy in [g.coords(sq)]}
    if caps:
        return {(num[a], num[b], frozenset(num[t] for t in ts), pr) for a, b, ts, pr, _ in caps}
    out: set[tuple[int, int, frozenset[int], bool]] = set()
    for c, piece in board.items():
        if piece.side is not me:
            continue
        for dx, dy in dirs:
            if not piece.king and dy != ahead:
                continue
            x, y = c[0] + dx, c[1] + dy
            while free((x, y), c) and (x, y) != c:
                out.add((num[c], num[(x, y)], frozenset(), not piece.king and y == far))
                if not piece.king:
                    break
                x, y = x + dx, y + dy
    return out


@pytest.mark.parametrize("name", sorted(RULESETS))
def test_bitboards_agree_with_reference_walk(name: str) -> None:
    rules = find_rules(name)
    rng = random.Random(name)
    for _ in range(300):
        p = random_position(rules, rng)
        ours = {(m.start, m.end, frozenset(m.captured), m.promotes) for m in p.legal_moves()}
        assert ours == reference_keys(p), p.fen()
        routes = [m.route for m in p.legal_moves()]
        assert len(routes) == len(set(routes)), p.fen()


def test_straight_on_capture_is_one_route_and_turns_drop_straight_landings() -> None:
    """A king taking 37 then 23 on one line: every square between them gives the same move,
    routed through the first (32); the end may be any square behind 23 (004 §9). turns() keeps
    the start, the turning squares and the end (000 8.5.5)."""
    p = Position.from_fen("international", "W:WK46:B37,23")
    assert sorted(m.route for m in p.legal_moves()) == [
        (46, 32, 5), (46, 32, 10), (46, 32, 14), (46, 32, 19)]
    assert {m.turns(10) for m in p.legal_moves()} == {(46, 5), (46, 10), (46, 14), (46, 19)}
    king = Position.from_fen("russian", "W:WKd2:Bb6,d6,f4,f6,g7")
    assert {m.turns(8) for m in king.legal_moves()} == {m.route for m in king.legal_moves()}
    man = Position.from_fen("international", "W:W32:B28,19").legal_moves()[0]
    assert man.route == (32, 23, 14) and man.turns(10) == (32, 14)


def test_from_pieces_and_with_turn() -> None:
    p = Position.start("russian")
    same = Position.from_pieces("russian", Side.WHITE, p.pieces())
    assert same == p and hash(same) == hash(p)
    assert p.with_turn(Side.BLACK).turn is Side.BLACK and p.with_turn(Side.BLACK) != p
    with pytest.raises(RulesError):
        Position.from_pieces("russian", Side.WHITE, {33: Piece(Side.WHITE, False)})
    with pytest.raises(RulesError, match="would have been crowned"):
        Position("international", Side.WHITE, {3: False}, {40: False})
    with pytest.raises(RulesError, match="two pieces"):
        Position("international", Side.WHITE, {33: False}, {33: True})
    assert Position("international", Side.WHITE, {3: True}, {18: False}).count(Side.WHITE) == 1


@pytest.mark.parametrize("name", sorted(RULESETS))
def test_every_move_keeps_the_board_consistent(name: str) -> None:
    """On random positions: FEN round trips; every route steps along diagonals, takes only
    opposing pieces, each once; playing it leaves the mover on the end square, removes exactly
    the captured pieces and crowns exactly when ``promotes`` says."""
    rules = find_rules(name)
    g = rules.geometry
    rng = random.Random(f"consistent/{name}")
    for _ in range(150):
        p = random_position(rules, rng)
        assert Position.from_fen(rules, p.fen()) == p
        for m in p.legal_moves():
            mover = p.piece_at(m.start)
            assert mover is not None and mover.side is p.turn
            assert len(set(m.captured)) == len(m.captured)
            assert len(m.route) == (len(m.captured) + 1 if m.captured else 2)
            for a, b in zip(m.route, m.route[1:], strict=False):
                assert any(b in ray for ray in g.rays[a]), (p.fen(), m)
            for sq in m.captured:
                victim = p.piece_at(sq)
                assert victim is not None and victim.side is not p.turn
            q = p.play(m)
            assert q.turn is p.turn.other
            assert q.piece_at(m.end) == Piece(p.turn, mover.king or m.promotes)
            assert q.count(p.turn.other) == p.count(p.turn.other) - len(m.captured)
            assert q.count(p.turn) == p.count(p.turn)
            assert not (m.promotes and mover.king)


@pytest.mark.parametrize("name", sorted(RULESETS))
def test_has_legal_move_agrees_with_the_generator(name: str) -> None:
    """Position.has_legal_move (the game's end after every move, without generating moves)
    says exactly whether legal_moves() is empty, on random boards from sparse to crowded:
    crowded boards are where a side is blocked."""
    rules = RULESETS[name]
    rng = random.Random(f"has-move-{name}")
    n, h = rules.squares, rules.size // 2
    blocked = 0
    for i in range(2500):
        white: dict[int, bool] = {}
        black: dict[int, bool] = {}
        count = rng.randint(1, n - 1) if i % 2 else rng.randint(n * 2 // 3, n)
        for sq in rng.sample(range(1, n + 1), count):
            is_white = rng.random() < (0.5 if i % 3 else 0.8)
            king = rng.random() < (0.25 if i % 5 else 0.02) or (
                sq <= h if is_white else sq > n - h)
            (white if is_white else black)[sq] = king
        turn = rng.choice([Side.WHITE, Side.BLACK])
        fresh = Position(rules, turn, white, black)
        expected = bool(Position(rules, turn, white, black).legal_moves())
        assert fresh.has_legal_move() is expected, fresh.fen()
        assert bool(fresh.legal_moves()) is expected and fresh.has_legal_move() is expected
        blocked += not expected
    assert blocked >= 50  # the boards do test the blocked answer


def test_a_board_is_named_with_its_article() -> None:
    """Issue 36: "a 8x8 board"."""
    from firmware.errors import SquareError
    from firmware.rules.geometry import a_board, geometry

    assert a_board(8) == "an 8x8 board" and a_board(10) == "a 10x10 board"
    with pytest.raises(SquareError, match="an 8x8 board"):
        geometry(8).number("e4")
