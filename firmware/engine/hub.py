"""The Hub protocol (version 2, Scan 3.0's ``protocol.txt``) as pure text: lines read and
written, positions and moves converted.

A line is ``<command> <arg>=<val> <arg>=<val> ...``; values with a blank, ``=`` or ``"`` in them,
or empty ones, are quoted with double quotes; an argument without ``=val`` is a flag (value
``""``). Both sides ignore commands and arguments they do not know (protocol.txt).

Positions: the side to move (``W`` or ``B``) then one letter per square in square order (``w``,
``b`` white and black men, ``W``, ``B`` kings, ``e`` empty): 51 letters on 10x10; on 8x8 33,
squares numbered as 10x10 is (by rank from Black's side, left to right as White sees the board:
1 = b8, 4 = h8, 5 = a7, 29 = a1, 32 = g1), which is firmware.rules.geometry's numbering, so
square numbers pass unchanged. Moves: ``32-28``; a capture ``from x to x captured ...`` (the
captured squares in any order, no landing squares: ``28x19x23``).

Scores: Hub writes them in men (``score=-0.25``); the project counts hundredths of a man
(firmware.engine.scores), and this module is the one place that converts (:func:`score_text`,
:func:`read_score`). An ``info`` line is read once, here, into a :class:`HubInfo`
(:func:`read_info`): its depth, score, principal variation (legal moves from the position
searched) and ``multipv`` (which line: 1 the best; the built-in engine's alternatives come
before the best of each iteration, so a reader of the last ``info`` line alone reads the best).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field

from firmware.engine.scores import WIN
from firmware.errors import BoardError
from firmware.rules.game import Game
from firmware.rules.position import Move, Position
from firmware.rules.sets import RuleSet, Side, find_rules

#: Longest line either side reads (a PV or a long moves list is far shorter).
MAX_LINE = 64 * 1024
#: The most moves of a principal variation read (the rest is left).
MAX_PV = 64
#: The deepest search an ``info`` line may report, and the most lines (``multipv``).
MAX_INFO_DEPTH = 999
MAX_MULTIPV = 32


class HubError(BoardError, ValueError):
    """A Hub line, position or move that cannot be read."""


@dataclass(frozen=True, slots=True)
class HubLine:
    """One protocol line: the command and its arguments in order (flags have value ``""``)."""

    command: str
    args: dict[str, str] = field(default_factory=dict)

    def get(self, name: str, default: str | None = None) -> str | None:
        return self.args.get(name, default)


def _quote(value: str) -> str:
    if value and not any(c in value for c in ' ="\t'):
        return value
    return '"' + value.replace('"', "'") + '"'


def format_line(command: str, *flags: str, **args: object) -> str:
    """``format_line("done", move="32-28")`` -> ``done move=32-28``. Argument names with ``_``
    are written with ``-`` (``move_time`` -> ``move-time``); None values are left out."""
    parts = [command, *flags]
    for name, value in args.items():
        if value is None:
            continue
        text = f"{value:.3f}" if isinstance(value, float) else str(value)
        parts.append(f"{name.replace('_', '-')}={_quote(text)}")
    return " ".join(parts)


def parse_line(line: str) -> HubLine:
    """Read one line; HubError for an empty line, an unclosed quote or a line too long."""
    if len(line) > MAX_LINE:
        raise HubError(f"line longer than {MAX_LINE} characters")
    text = line.strip()
    if not text:
        raise HubError("empty line")
    tokens: list[str] = []
    i, n = 0, len(text)
    while i < n:
        if text[i].isspace():
            i += 1
            continue
        buf: list[str] = []
        while i < n and not text[i].isspace():
            if text[i] == '"':
                end = text.find('"', i + 1)
                if end < 0:
                    raise HubError(f"unclosed quote in {text[:80]!r}")
                buf.append(text[i + 1:end])
                i = end + 1
            else:
                buf.append(text[i])
                i += 1
        tokens.append("".join(buf))
    command, args = tokens[0], {}
    for token in tokens[1:]:
        name, eq, value = token.partition("=")
        args[name] = value if eq else ""
    return HubLine(command, args)


# -- positions and moves ---------------------------------------------------------------------

_LETTERS = {(Side.WHITE, False): "w", (Side.WHITE, True): "W",
            (Side.BLACK, False): "b", (Side.BLACK, True): "B"}


def position_text(position: Position) -> str:
    """A Position as Hub's position string (51 letters on 10x10, 33 on 8x8)."""
    pieces = position.pieces()
    out = [position.turn.letter]
    for sq in range(1, position.rules.squares + 1):
        p = pieces.get(sq)
        out.append("e" if p is None else _LETTERS[p.side, p.king])
    return "".join(out)


def parse_position(rules: RuleSet | str, text: str) -> Position:
    """Hub's position string -> Position; HubError if it is not one of ``rules``' board."""
    rs = find_rules(rules)
    t = text.strip()
    if len(t) != rs.squares + 1:
        raise HubError(f"a {rs.name} position has {rs.squares + 1} letters, not {len(t)}")
    if t[0] not in "WB":
        raise HubError(f"the side to move must be W or B, not {t[0]!r}")
    white: dict[int, bool] = {}
    black: dict[int, bool] = {}
    for sq, c in enumerate(t[1:], start=1):
        if c in "wW":
            white[sq] = c == "W"
        elif c in "bB":
            black[sq] = c == "B"
        elif c != "e":
            raise HubError(f"square {sq}: {c!r} is not one of w, b, W, B, e")
    try:
        return Position(rs, Side.WHITE if t[0] == "W" else Side.BLACK, white, black)
    except BoardError as exc:
        raise HubError(str(exc)) from None


def move_text(move: Move) -> str:
    """A Move as Hub writes it: ``32-28``, ``28x19x23`` (start, end, then the captured)."""
    if not move.captured:
        return f"{move.start}-{move.end}"
    return "x".join(str(sq) for sq in (move.start, move.end, *move.captured))


def parse_move(position: Position, text: str) -> Move:
    """The legal move of ``position`` that Hub's ``text`` names (one route of it when several
    routes take the same pieces); HubError if the text is not a move or names no legal one.
    A capture written without its captured squares (``28x19``) is taken when only one legal
    capture goes from that start to that end."""
    t = text.strip()
    sep = "x" if "x" in t else "-"
    parts = t.split(sep)
    if len(parts) < 2 or not all(p.isascii() and p.isdigit() and len(p) <= 3 for p in parts):
        raise HubError(f"{t[:40]!r} is not a Hub move")
    start, end, *caps = (int(p) for p in parts)
    if sep == "-" and caps:
        raise HubError(f"{t[:40]!r} is not a Hub move")
    captured = frozenset(caps)
    found = [m for m in position.legal_moves()
             if m.start == start and m.end == end and m.is_capture == (sep == "x")
             and (not caps or frozenset(m.captured) == captured) and len(caps) == len(set(caps))]
    keys = {m.key for m in found}
    if len(keys) != 1:
        why = "names no legal move" if not keys else "is ambiguous"
        raise HubError(f"{t[:40]} {why} in {position.fen()}")
    return found[0]


def game_tail(game: Game) -> tuple[Position, list[Move]]:
    """The position after the game's last capture, man move or setup, and the king moves since
    (what ``pos pos=... moves="..."`` sends: only those positions can come back)."""
    record = game.record()
    history = game.history
    moves: list[Move] = []
    start = len(history) - 1
    for i in range(len(record) - 1, -1, -1):
        move, _ = record[i]
        before = history[i]
        if move is None or move.is_capture:
            break
        piece = before.piece_at(move.start)
        if piece is None or not piece.king:
            break
        moves.append(move)
        start = i
    moves.reverse()
    return history[start], moves


def pos_line(game: Game) -> str:
    """``pos pos=... [moves="..."]`` for the game's current position."""
    start, moves = game_tail(game)
    return format_line("pos", pos=position_text(start),
                       moves=" ".join(move_text(m) for m in moves) if moves else None)


# -- scores and search information -----------------------------------------------------------


def score_text(score: int) -> str:
    """A score (hundredths of a man) as Hub writes it: men, two decimals (``-0.25``)."""
    return f"{score / 100:.2f}"


def read_score(text: str) -> int:
    """Hub's score (men, a real number) in hundredths of a man; HubError for one that is not
    a number or lies beyond a win (firmware.engine.scores.WIN)."""
    try:
        men = float(text)
    except ValueError:
        raise HubError(f"score {text[:20]!r} is not a number") from None
    if not math.isfinite(men) or abs(men) * 100 > WIN:
        raise HubError(f"score {text[:20]!r} is out of range (at most {WIN // 100} men)")
    return round(men * 100)


@dataclass(frozen=True, slots=True)
class HubInfo:
    """An ``info`` line read: ``depth`` (0 when not said), ``score`` (hundredths of a man for
    the side to move; None when not said), ``pv`` (legal moves from the position searched, at
    most :data:`MAX_PV`), ``line`` (``multipv``: 1 the best)."""

    depth: int
    score: int | None
    pv: tuple[Move, ...] = ()
    line: int = 1


def _whole(args: Mapping[str, str], name: str, low: int, high: int, default: int) -> int:
    text = args.get(name)
    if text is None:
        return default
    t = text.strip()
    if not (t.isascii() and t.isdigit() and len(t) <= 6) or not low <= int(t) <= high:
        raise HubError(f"{name} {text[:20]!r} is not a whole number from {low} to {high}")
    return int(t)


def read_info(position: Position, args: Mapping[str, str]) -> HubInfo:
    """The ``info`` line's arguments (``HubLine.args``) for a search of ``position``; HubError
    naming the first that does not read (a depth that is no number, a score beyond a win, a
    move of the PV that is not legal where it stands). Arguments not known are left."""
    depth = _whole(args, "depth", 0, MAX_INFO_DEPTH, 0)
    line = _whole(args, "multipv", 1, MAX_MULTIPV, 1)
    score = read_score(args["score"]) if "score" in args else None
    pv: list[Move] = []
    at = position
    for text in args.get("pv", "").split()[:MAX_PV]:
        try:
            move = parse_move(at, text)
        except HubError as exc:
            raise HubError(f"pv move {len(pv) + 1}: {exc}") from None
        pv.append(move)
        at = at.play(move)
    return HubInfo(depth, score, tuple(pv), line)
