"""One search: the recursive alpha-beta over bitboards behind ``Engine.search``.

The recursion is a closure over one board's tables and one rule set's flags bound to locals
(the same speed reasoning as ``firmware.rules._movegen``'s perft): a node's moves are
generated as keys, played on three ints, and scored by the evaluator. Captures are compulsory,
so at depth 0 a position with a capture is searched on (its moves are all captures): that is
the quiescence search, with no stand-pat since the side to move has no choice but to capture.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from firmware.engine.common import (
    CAPTURE,
    CROWNING,
    EXACT,
    LOWER,
    MAN_MOVE,
    MAX_PLY,
    UPPER,
    WIN,
    WIN_IN_MAX,
    Info,
    Key,
    Limits,
    Result,
    TranspositionTable,
    _Stopped,
    draw_horizons,
    key_of,
)
from firmware.engine.evaluate import evaluator
from firmware.engine.hub import game_tail
from firmware.rules import _movegen as mg
from firmware.rules.game import Game
from firmware.rules.position import Move, Position, move_flags
from firmware.rules.sets import Side

#: Nodes between two looks at the clock and the stop request.
CHECK_EVERY = 1023


def reversible_tail(game: Game) -> list[Position]:
    """The positions since the last capture, man move or setup, the current one last: the
    only ones that can come back."""
    start, moves = game_tail(game)
    out = [start]
    for move in moves:
        out.append(out[-1].play(move))
    return out


def _hash(p: Position) -> int:
    w, b, k = p.bitboards
    return hash((w, b, k, p.turn is Side.WHITE))


class Tree:
    """The state of one search (killers, history, nodes, the path) and its recursion."""

    def __init__(self, tt: TranspositionTable, rng: random.Random, jitter: int,
                 max_depth: int | None, game: Game, limits: Limits,
                 clock: Callable[[], float], stop: Callable[[], bool],
                 on_info: Callable[[Info], None] | None) -> None:
        self.tt = tt
        self.rng = rng
        self.jitter = jitter
        self.max_depth = max_depth
        self.game = game
        self.limits = limits
        self.clock = clock
        self.stop = stop
        self.on_info = on_info
        self.position = game.position
        self.t0 = clock()
        self.nodes = 0

    def _root_moves(self) -> list[tuple[Key, Move, int | None]]:
        """(key, move, fixed score or None) per distinct root move: a move that ends the
        game on the board (a draw rule, the opponent left without moves) has its score."""
        game, position = self.game, self.position
        size = position.rules.size
        seen: dict[tuple[int, int, int], tuple[Key, Move, int | None]] = {}
        for move in position.legal_moves():
            frm, to, mask = key_of(move, size)
            if (frm, to, mask) in seen:
                continue
            game.push(move)
            try:
                outcome = game.outcome()
            finally:
                game.pop()
            fixed: int | None = None
            if outcome is not None:
                fixed = 0 if outcome.winner is None else (
                    WIN - 1 if outcome.winner is position.turn else -WIN + 1)
            seen[frm, to, mask] = ((frm, to, mask, move.promotes), move, fixed)
        return list(seen.values())

    def run(self) -> Result:  # noqa: C901 - the recursion is kept whole for speed
        position, limits, clock, stop = self.position, self.limits, self.clock, self.stop
        rules = position.rules
        t = mg.tables(rules.size)
        f = move_flags(rules)
        capture_keys = mg._capture_keys_factory(t, f)
        men_candidates = mg._men_candidates_factory(t, f)
        evaluate = evaluator(rules)
        valid, rays, promotion = t.valid, t.rays, t.promotion
        s_nw, s_ne, s_sw, s_se = t.shift
        flying = f.flying
        tt = self.tt
        tt_get, tt_put = tt.get, tt.put
        killers: list[list[Key | None]] = [[None, None] for _ in range(MAX_PLY + 2)]
        history: dict[Key, int] = {}
        horizons = draw_horizons(self.game)
        stack = [_hash(p) for p in reversible_tail(self.game)]
        t0 = self.t0
        hard = limits.hard
        deadline = t0 + hard if hard is not None else None
        nodes = 0

        def gen(wtm: bool, mover: int, opp: int, kings: int) -> list[Key]:
            empty = valid & ~(mover | opp)
            men = mover & ~kings
            own_kings = mover & kings
            cand = men_candidates(wtm, men, opp, empty)
            if cand or own_kings:
                keys = capture_keys(wtm, mover, opp, kings, empty, cand)
                if keys:
                    return keys
            out: list[Key] = []
            promo = promotion[wtm]
            if wtm:
                for s in (s_nw, s_ne):
                    targets = (men >> s) & empty
                    while targets:
                        to = targets & -targets
                        targets ^= to
                        out.append((to << s, to, 0, bool(to & promo)))
            else:
                for s in (s_sw, s_se):
                    targets = (men << s) & empty
                    while targets:
                        to = targets & -targets
                        targets ^= to
                        out.append((to >> s, to, 0, bool(to & promo)))
            while own_kings:
                frm = own_kings & -own_kings
                own_kings ^= frm
                for ray in rays[frm]:
                    for to in ray:
                        if not to & empty:
                            break
                        out.append((frm, to, 0, False))
                        if not flying:
                            break
            return out

        def ab(w: int, b: int, k: int, wtm: bool, depth: int, alpha: int, beta: int,
               ply: int, flags: int, rev: int) -> int:
            nonlocal nodes
            nodes += 1
            if not nodes & CHECK_EVERY and (
                    (deadline is not None and clock() > deadline) or stop()):
                raise _Stopped
            if wtm:
                mover, opp = w, b
            else:
                mover, opp = b, w
            moves = gen(wtm, mover, opp, k)
            if not moves:
                return -WIN + ply
            h = hash((w, b, k, wtm))
            n = len(stack)
            i = n - 4
            while i >= rev:
                if stack[i] == h:
                    return 0
                i -= 2
            for plies, reset in horizons:
                if ply >= plies and not flags & reset:
                    return 0
            is_capture = moves[0][2] != 0
            if depth <= 0 and not is_capture or ply >= MAX_PLY:
                return evaluate(w, b, k, wtm)
            entry = tt_get(h)
            tt_move = None
            if entry is not None:
                edepth, eflag, escore, tt_move = entry
                if edepth >= depth:
                    if escore > WIN_IN_MAX:
                        escore -= ply
                    elif escore < -WIN_IN_MAX:
                        escore += ply
                    if eflag == EXACT or (eflag == LOWER and escore >= beta) or (
                            eflag == UPPER and escore <= alpha):
                        return escore
            if len(moves) > 1:
                if is_capture:
                    moves.sort(key=lambda m: m[2].bit_count(), reverse=True)
                else:
                    kl = killers[ply]
                    moves.sort(key=lambda m: (m == kl[0] or m == kl[1], history.get(m, 0)),
                               reverse=True)
                if tt_move is not None and tt_move in moves:
                    moves.remove(tt_move)
                    moves.insert(0, tt_move)
                child_depth = depth - 1
            else:
                child_depth = depth if depth > 0 else 0  # a forced move costs no depth
            alpha0 = alpha
            best = -WIN
            best_move = moves[0]
            stack.append(h)
            child_ply = ply + 1
            for index, m in enumerate(moves):
                frm, to, mask, promotes = m
                new_mover = mover ^ frm ^ to
                new_opp = opp & ~mask
                if k & frm:
                    nk = (k ^ frm ^ to) & ~mask
                    cflags = flags
                    crev = rev if not mask else n + 1
                else:
                    nk = (k | to) & ~mask if promotes else k & ~mask
                    cflags = flags | MAN_MOVE
                    crev = n + 1
                if mask:
                    cflags |= CAPTURE
                if promotes:
                    cflags |= CROWNING
                if wtm:
                    cw, cb = new_mover, new_opp
                else:
                    cw, cb = new_opp, new_mover
                cwtm = not wtm
                if index == 0:
                    score = -ab(cw, cb, nk, cwtm, child_depth, -beta, -alpha, child_ply,
                                cflags, crev)
                else:
                    reduce = 1 if (child_depth >= 2 and index >= 3 and not mask
                                   and not promotes) else 0
                    score = -ab(cw, cb, nk, cwtm, child_depth - reduce, -alpha - 1, -alpha,
                                child_ply, cflags, crev)
                    if score > alpha and (reduce or score < beta):
                        score = -ab(cw, cb, nk, cwtm, child_depth, -beta, -alpha, child_ply,
                                    cflags, crev)
                if score > best:
                    best = score
                    best_move = m
                    if score > alpha:
                        alpha = score
                        if alpha >= beta:
                            if not mask:
                                kl = killers[ply]
                                if kl[0] != m:
                                    kl[1] = kl[0]
                                    kl[0] = m
                                history[m] = history.get(m, 0) + depth * depth
                            break
            stack.pop()
            flag = UPPER if best <= alpha0 else (LOWER if best >= beta else EXACT)
            stored = best
            if stored > WIN_IN_MAX:
                stored += ply
            elif stored < -WIN_IN_MAX:
                stored -= ply
            tt_put(h, (depth, flag, stored, best_move))
            return best

        # -- the root ----------------------------------------------------------------------
        root = self._root_moves()
        jitter = self.jitter
        rng = self.rng
        bonus = {r[0]: (rng.randrange(jitter) if jitter else 0) for r in root}
        w0, b0, k0 = position.bitboards
        wtm0 = position.turn is Side.WHITE
        rmover, ropp = (w0, b0) if wtm0 else (b0, w0)
        root_hash = _hash(position)
        rev0 = 0
        max_depth = min(d for d in (limits.depth, self.max_depth, MAX_PLY - 4)
                        if d is not None)
        order: list[tuple[Key, Move, int | None]] = list(root)
        by_key = {r[0]: r[1] for r in root}
        best: tuple[Key, Move, int | None] = order[0]
        best_score = -WIN
        depth_done = 0
        pv: tuple[Move, ...] = ()
        scores: dict[Key, int] = {}
        soft = limits.soft

        def root_search(depth: int) -> tuple[tuple[Key, Move, int | None], int]:
            alpha, beta = -WIN - 1000, WIN + 1000
            found = order[0]
            found_score = -WIN - 1000
            stack.pop()  # the root's hash goes back on as the children's parent
            stack.append(root_hash)
            n = len(stack)
            for index, item in enumerate(order):
                key, _move, fixed = item
                frm, to, mask, promotes = key
                extra = bonus[key]
                if fixed is not None:
                    score = fixed + (extra if abs(fixed) < WIN_IN_MAX else 0)
                else:
                    new_mover = rmover ^ frm ^ to
                    new_opp = ropp & ~mask
                    if k0 & frm:
                        nk = (k0 ^ frm ^ to) & ~mask
                        cflags = 0
                        crev = rev0 if not mask else n
                    else:
                        nk = (k0 | to) & ~mask if promotes else k0 & ~mask
                        cflags = MAN_MOVE
                        crev = n
                    if mask:
                        cflags |= CAPTURE
                    if promotes:
                        cflags |= CROWNING
                    cw, cb = (new_mover, new_opp) if wtm0 else (new_opp, new_mover)
                    a = alpha - extra
                    if index == 0:
                        raw = -ab(cw, cb, nk, not wtm0, depth - 1, -beta, -a, 1, cflags, crev)
                    else:
                        raw = -ab(cw, cb, nk, not wtm0, depth - 1, -a - 1, -a, 1, cflags, crev)
                        if raw > a:
                            raw = -ab(cw, cb, nk, not wtm0, depth - 1, -beta, -a, 1, cflags,
                                      crev)
                    score = raw + (extra if abs(raw) < WIN_IN_MAX else 0)
                scores[key] = score
                if score > found_score:
                    found, found_score = item, score
                    partial[0] = (found, found_score, index)
                    if score > alpha:
                        alpha = score
            return found, found_score

        partial: list[tuple[tuple[Key, Move, int | None], int, int] | None] = [None]
        stack.pop()
        stack.append(root_hash)
        for depth in range(1, max_depth + 1):
            partial[0] = None
            try:
                found, found_score = root_search(depth)
            except _Stopped:
                got = partial[0]
                if got is not None and got[2] > 0 and got[1] > best_score:
                    best, best_score = got[0], got[1]
                break
            best, best_score, depth_done = found, found_score, depth
            order.sort(key=lambda r: scores.get(r[0], -WIN), reverse=True)
            elapsed = clock() - t0
            pv = self._pv(best[1], tt_get, by_key, w0, b0, k0, wtm0, gen, depth)
            self.nodes = nodes
            if self.on_info is not None:
                self.on_info(Info(depth, best_score, nodes, elapsed, pv))
            if len(order) == 1 or abs(best_score) > WIN_IN_MAX:
                break
            if soft is not None and elapsed >= soft:
                break
            if stop():
                break
        self.nodes = nodes
        if not pv or pv[0] != best[1]:
            pv = (best[1],)
        return Result(best[1], best_score, depth_done, nodes, clock() - t0, pv)

    def _pv(self, first: Move, tt_get: Callable[[int], tuple[int, int, int, Key | None] | None],
            by_key: dict[Key, Move], w: int, b: int, k: int, wtm: bool,
            gen: Callable[[bool, int, int, int], list[Key]], depth: int) -> tuple[Move, ...]:
        """The principal variation: the first move, then the table's moves, as firmware Moves
        (played on Positions; stops at the first move the table does not hold)."""
        out = [first]
        position = self.position.play(first)
        seen = {_hash(self.position)}
        for _ in range(depth - 1):
            h = _hash(position)
            if h in seen:
                break
            seen.add(h)
            entry = tt_get(h)
            if entry is None or entry[3] is None:
                break
            frm, to, mask, _promotes = entry[3]
            t = mg.tables(position.rules.size)
            match = [m for m in position.legal_moves() if key_of(m, position.rules.size) == (
                frm, to, mask)]
            del t
            if not match:
                break
            out.append(match[0])
            position = position.play(match[0])
        del by_key, w, b, k, wtm, gen
        return tuple(out)
