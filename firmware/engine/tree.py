"""One search: the recursive alpha-beta over bitboards behind ``Engine.search``.

The recursion (``_make_search``) is a closure over one board's tables and one rule set's flags
bound to locals (the same speed reasoning as ``firmware.rules._movegen``'s perft): a node's
moves are generated as keys, played on three ints, and scored by the evaluator. Captures are
compulsory, so at depth 0 a position with a capture is searched on (its moves are all
captures): that is the quiescence search, with no stand-pat since the side to move has no
choice but to capture. ``Tree`` drives it: the root moves, iterative deepening, the result.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

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
    Line,
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
from firmware.rules.sets import RuleSet, Side

#: Nodes between two looks at the clock and the stop request (a power of two, less one).
CHECK_EVERY = 1023

Gen = Callable[[bool, int, int, int], list[Key]]
#: ab(white, black, kings, white_to_move, depth, alpha, beta, ply, reset flags, rev) -> score
Search = Callable[[int, int, int, bool, int, int, int, int, int, int], int]
RootMove = tuple[Key, Move, "int | None"]


def reversible_tail(game: Game) -> list[Position]:
    """The positions since the last capture, man move or setup, the current one last: the
    only ones that can come back."""
    start, moves = game_tail(game)
    out = [start]
    for move in moves:
        out.append(out[-1].play(move))
    return out


def position_hash(p: Position) -> int:
    w, b, k = p.bitboards
    return hash((w, b, k, p.turn is Side.WHITE))


def child(mover: int, opp: int, kings: int, key: Key) -> tuple[int, int, int, int]:
    """(new mover, new opponent, new kings, reset flags) after the move ``key``."""
    frm, to, mask, promotes = key
    flags = (CAPTURE if mask else 0) | (CROWNING if promotes else 0)
    if kings & frm:
        nk = (kings ^ frm ^ to) & ~mask
    else:
        nk = (kings | to) & ~mask if promotes else kings & ~mask
        flags |= MAN_MOVE
    return mover ^ frm ^ to, opp & ~mask, nk, flags


def make_gen(t: mg.Tables, f: mg.Flags) -> tuple[Gen, Gen, Callable[[bool, int, int, int],
                                                                   bool]]:
    """(captures, quiet, has_quiet) for the side to move, each (white_to_move, mover, opp,
    kings): the distinct legal captures as keys (rules applied by _movegen; empty if none),
    the quiet moves as keys, and whether a quiet move exists (a leaf needs no more)."""
    capture_keys = mg._capture_keys_factory(t, f)
    men_candidates = mg._men_candidates_factory(t, f)
    quiet_moves = mg.quiet_moves
    valid, promotion, neighbours = t.valid, t.promotion, t.shift
    s_nw, s_ne, s_sw, s_se = neighbours
    rays = t.rays

    def captures(wtm: bool, mover: int, opp: int, kings: int) -> list[Key]:
        empty = valid & ~(mover | opp)
        cand = men_candidates(wtm, mover & ~kings, opp, empty)
        if cand or mover & kings:
            return capture_keys(wtm, mover, opp, kings, empty, cand)
        return []

    def quiet(wtm: bool, mover: int, opp: int, kings: int) -> list[Key]:
        promo = promotion[wtm]
        return [(a, b, 0, bool(b & promo) and not a & kings)
                for a, b in quiet_moves(t, f, wtm, mover, opp, kings)]

    def has_quiet(wtm: bool, mover: int, opp: int, kings: int) -> bool:
        empty = valid & ~(mover | opp)
        men = mover & ~kings
        if wtm:
            if ((men >> s_nw) | (men >> s_ne)) & empty:
                return True
        elif ((men << s_sw) | (men << s_se)) & empty:
            return True
        own = mover & kings
        while own:
            frm = own & -own
            own ^= frm
            for ray in rays[frm]:
                if ray and ray[0] & empty:
                    return True
        return False

    return captures, quiet, has_quiet


@dataclass
class Shared:
    """What the recursion and its driver share: the path, killers, history, node count."""

    stack: list[int]
    deadline: float | None
    clock: Callable[[], float]
    stop: Callable[[], bool]
    horizons: tuple[tuple[int, int], ...]

    def __post_init__(self) -> None:
        #: The nodes searched so far (set by the recursion).
        self.count: Callable[[], int] = lambda: 0
        self.killers: list[list[Key | None]] = [[None, None] for _ in range(MAX_PLY + 2)]
        self.history: dict[Key, int] = {}


def _make_search(rules: RuleSet, tt: TranspositionTable, sh: Shared) -> Search:
    """The recursion, one closure, with its helpers' bodies inlined for speed (as perft's in
    firmware.rules._movegen: a helper call per node costs the search several per cent of its
    nodes per second, so the draw checks, the table probe, the ordering and the move making
    stay in one body)."""
    t = mg.tables(rules.size)
    captures, quiet, has_quiet = make_gen(t, move_flags(rules))
    evaluate = evaluator(rules)
    tt_get, tt_put = tt.get, tt.put
    killers, history, stack, horizons = sh.killers, sh.history, sh.stack, sh.horizons
    deadline, clock, stop = sh.deadline, sh.clock, sh.stop
    nodes = 0

    def count() -> int:
        return nodes

    sh.count = count

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
        moves = captures(wtm, mover, opp, k)
        leaf = not moves and (depth <= 0 or ply >= MAX_PLY)
        if not moves:
            if leaf:
                if not has_quiet(wtm, mover, opp, k):
                    return -WIN + ply
            else:
                moves = quiet(wtm, mover, opp, k)
                if not moves:
                    return -WIN + ply
        h = hash((w, b, k, wtm))
        n = len(stack)
        i = n - 4  # the same side to move, 4 plies back or more
        while i >= rev:
            if stack[i] == h:
                return 0
            i -= 2
        for plies, reset in horizons:
            if ply >= plies and not flags & reset:
                return 0
        if leaf or ply >= MAX_PLY:
            return evaluate(w, b, k, wtm)
        is_capture = moves[0][2] != 0
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
        child_depth = depth - 1
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
        elif depth > 0:
            child_depth = depth  # a forced move costs no depth
        alpha0, best, best_move = alpha, -WIN, moves[0]
        stack.append(h)
        for index, m in enumerate(moves):
            frm, to, mask, promotes = m
            new_mover, new_opp = mover ^ frm ^ to, opp & ~mask
            if k & frm:
                nk, cflags, crev = (k ^ frm ^ to) & ~mask, flags, (rev if not mask else n + 1)
            else:
                nk = (k | to) & ~mask if promotes else k & ~mask
                cflags, crev = flags | MAN_MOVE, n + 1
            if mask:
                cflags |= CAPTURE
            if promotes:
                cflags |= CROWNING
            if wtm:
                cw, cb = new_mover, new_opp
            else:
                cw, cb = new_opp, new_mover
            if index == 0:
                score = -ab(cw, cb, nk, not wtm, child_depth, -beta, -alpha, ply + 1, cflags,
                            crev)
            else:
                reduce = 1 if child_depth >= 2 and index >= 3 and not mask and not promotes \
                    else 0
                score = -ab(cw, cb, nk, not wtm, child_depth - reduce, -alpha - 1, -alpha,
                            ply + 1, cflags, crev)
                if score > alpha and (reduce or score < beta):
                    score = -ab(cw, cb, nk, not wtm, child_depth, -beta, -alpha, ply + 1,
                                cflags, crev)
            if score > best:
                best, best_move = score, m
                if score > alpha:
                    alpha = score
                    if alpha >= beta:
                        if not mask:
                            kl = killers[ply]
                            if kl[0] != m:
                                kl[1], kl[0] = kl[0], m
                            history[m] = history.get(m, 0) + depth * depth
                        break
        stack.pop()
        flag = UPPER if best <= alpha0 else (LOWER if best >= beta else EXACT)
        stored = best + ply if best > WIN_IN_MAX else (best - ply if best < -WIN_IN_MAX else best)
        tt_put(h, (depth, flag, stored, best_move))
        return best

    return ab


class Tree:
    """One search from ``game.position``: root moves, iterative deepening, the result."""

    def __init__(self, tt: TranspositionTable, rng: random.Random, jitter: int,
                 max_depth: int | None, game: Game, limits: Limits,
                 clock: Callable[[], float], stop: Callable[[], bool],
                 on_info: Callable[[Info], None] | None, *, lines: int = 1,
                 analyse: bool = False) -> None:
        """``lines``: how many lines each iteration scores exactly (the best and its
        alternatives, ``multipv``); ``analyse``: the position is studied, not played (a single
        legal move is searched on too)."""
        self.tt = tt
        self.lines = max(1, lines)
        self.analyse = analyse
        self.game = game
        self.limits = limits
        self.clock = clock
        self.on_info = on_info
        self.position = game.position
        self.t0 = clock()
        hard = limits.hard
        self.shared = Shared([position_hash(p) for p in reversible_tail(game)],
                             self.t0 + hard if hard is not None else None, clock, stop,
                             draw_horizons(game))
        self.root = self._root_moves()
        self.bonus = {r[0]: (rng.randrange(jitter) if jitter else 0) for r in self.root}
        self.max_depth = min(d for d in (limits.depth, max_depth, MAX_PLY - 4) if d is not None)
        self.scores: dict[Key, int] = {}
        #: The root moves scored exactly in the last iteration (the lines' candidates).
        self.exact: dict[Key, tuple[RootMove, int]] = {}
        #: The best move of an unfinished iteration: (root move, score, its index).
        self.partial: tuple[RootMove, int, int] | None = None

    def _root_moves(self) -> list[RootMove]:
        """(key, move, fixed score or None) per distinct root move: a move that ends the
        game on the board (a draw rule, the opponent left without moves) has its score."""
        game, position = self.game, self.position
        size = position.rules.size
        seen: dict[tuple[int, int, int], RootMove] = {}
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

    def run(self) -> Result:
        ab = _make_search(self.position.rules, self.tt, self.shared)
        best, best_score, depth_done = self.root[0], -WIN, 0
        pv: tuple[Move, ...] = ()
        lines: tuple[Line, ...] = ()
        soft = self.limits.soft
        took, ended = (0.0, 0.0), 0.0  # the last two iterations' times, the last one's end
        for depth in range(1, self.max_depth + 1):
            self.partial = None
            try:
                best, best_score = self._root_search(ab, depth)
            except _Stopped:
                got = self.partial
                if got is not None and got[2] > 0 and got[1] > best_score:
                    best, best_score = got[0], got[1]
                break
            depth_done = depth
            self.root.sort(key=lambda r: self.scores.get(r[0], -WIN), reverse=True)
            elapsed = self.clock() - self.t0
            pv = self._pv(best[1], depth)
            lines = self._lines(best, best_score, pv, depth)
            if self.on_info is not None:
                self.on_info(Info(depth, best_score, self.shared.count(), elapsed, pv, lines))
            if (len(self.root) == 1 and not self.analyse) or abs(best_score) > WIN_IN_MAX:
                break
            took, ended = (took[1], elapsed - ended), elapsed
            if (soft is not None and elapsed >= soft) or self.shared.stop() \
                    or self._next_too_long(elapsed, took):
                break
        if not pv or pv[0] != best[1]:
            pv = (best[1],)
            lines = ()
        return Result(best[1], best_score, depth_done, self.shared.count(),
                      self.clock() - self.t0, pv, lines)

    def _lines(self, best: RootMove, best_score: int, pv: tuple[Move, ...],
               depth: int) -> tuple[Line, ...]:
        """The iteration's lines, best first, when more than one was asked for: the moves
        scored exactly, each with its principal variation."""
        if self.lines == 1:
            return ()
        ranked = sorted(self.exact.values(), key=lambda item: item[1], reverse=True)
        out = [Line(best_score, pv)]
        for item, score in ranked:
            if len(out) >= self.lines:
                break
            if item[0] != best[0]:
                out.append(Line(score, self._pv(item[1], depth)))
        return tuple(out)

    def _next_too_long(self, elapsed: float, took: tuple[float, float]) -> bool:
        """Would the next iteration end too late? It takes about as many times the last one as
        the last one took the one before (2 to 6: the tree's growth a ply). Too late: past the
        soft limit of a plan from the clock (what the level costs is the most a person waits,
        as a rule), past the hard limit of a fixed time (one cut short by it would only cost
        its time)."""
        limits = self.limits
        bound = limits.soft if limits.clocked else limits.hard
        if bound is None or limits.soft is None:
            return False
        growth = min(6.0, max(2.0, took[1] / took[0])) if took[0] > 0.005 else 3.0
        return elapsed + took[1] * growth > bound

    def _root_search(self, ab: Search, depth: int) -> tuple[RootMove, int]:
        """One iteration over the root moves (best first), each with its random bonus. A move
        is searched with a null window against the last of the lines kept so far (the best
        alone, unless more lines were asked for), and again in full when it beats it: so the
        lines' scores are exact and the others bounds."""
        w0, b0, k0 = self.position.bitboards
        wtm = self.position.turn is Side.WHITE
        mover, opp = (w0, b0) if wtm else (b0, w0)
        floor, beta = -WIN - 1000, WIN + 1000
        found, found_score = self.root[0], floor
        top: list[int] = []  # the lines' scores so far, best first
        n = len(self.shared.stack)
        self.exact = {}
        for index, item in enumerate(self.root):
            key, _move, fixed = item
            extra = self.bonus[key]
            alpha = top[-1] if len(top) >= self.lines else floor
            if fixed is not None:
                raw, exact = fixed, True
            else:
                nm, no, nk, flags = child(mover, opp, k0, key)
                crev = 0 if flags == 0 else n
                cw, cb = (nm, no) if wtm else (no, nm)
                a = alpha - extra
                raw = WIN + 1
                if index and alpha > floor:
                    raw = -ab(cw, cb, nk, not wtm, depth - 1, -a - 1, -a, 1, flags, crev)
                if raw > a:
                    raw = -ab(cw, cb, nk, not wtm, depth - 1, -beta, -a, 1, flags, crev)
                exact = raw > a
            score = raw + (extra if abs(raw) < WIN_IN_MAX else 0)
            self.scores[key] = score
            if exact:
                self.exact[key] = (item, score)
                top = sorted((*top, score), reverse=True)[:self.lines]
            if score > found_score:
                found, found_score = item, score
                self.partial = (found, found_score, index)
        return found, found_score

    def _pv(self, first: Move, depth: int) -> tuple[Move, ...]:
        """The principal variation: the first move, then the table's moves, as firmware Moves
        (played on Positions; it stops at the first move the table does not hold)."""
        out = [first]
        position = self.position.play(first)
        seen = {position_hash(self.position)}
        size = position.rules.size
        for _ in range(depth - 1):
            h = position_hash(position)
            if h in seen:
                break
            seen.add(h)
            entry = self.tt.get(h)
            if entry is None or entry[3] is None:
                break
            want = entry[3][:3]
            match = [m for m in position.legal_moves() if key_of(m, size) == want]
            if not match:
                break
            out.append(match[0])
            position = position.play(match[0])
        return tuple(out)
