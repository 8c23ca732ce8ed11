"""Move notation: write and read PDN moves in each rule set's notation.

Squares are written as the rule set writes them (``RuleSet.square_name``): algebraic on 8x8
(004 §14, 000 8.3), numbers 1-50 on 10x10 (003 8.1). A simple move is ``start-end``
(000 8.5.2, 003 8.2.2). A capture is ``start:end`` or ``startxend`` (000 8.5.3-8.5.4, 003 8.2.3):
``x`` on 10x10 (003 9.1.2, PDN GameType 20) and ``:`` on 8x8 (000 9.1.2, the form of the
Russian games in the collections and of PDN GameType 25); a rule set may set its own with a
``capture_separator`` attribute.

Where several legal captures share start and end square but take different pieces, the move is
written in full (000 8.5.5): the start, every square where the direction changes, and the end,
as ``d2:h6:f8:c5:a7``. Captures that take the same pieces in another order are the same move for
notation: they change the board alike. Every other move gets the short form, as PDN 3.0 asks
(wiegerw/pdn doc/grammar.rst, restriction 8): in the seed's diagram 4 the third capture, the
only one from d2 to a5, is ``d2:a5`` here where the seed spells it ``d2:g5:d8:a5``; both read.

Reading accepts what real files hold: ``-``, ``x``, ``:`` or no separator (``a3b4``), blanks
(``1- 7``), only start and end of a multi-capture, full routes, any squares passed on the way
(turns, landings, squares behind a captured piece), square numbers 1-32 on 8x8, and trailing
annotations (``! ? !! ?? !? ?! * + =``, 000 9.1); nothing else after the last square
(``h2-g3xx`` is not ``h2-g3``). Unknown or unreadable moves raise
IllegalMoveError; a text that fits captures taking different pieces raises AmbiguousMoveError.
"""

from __future__ import annotations

import re

from firmware.errors import AmbiguousMoveError, IllegalMoveError, SquareError
from firmware.rules.geometry import Geometry
from firmware.rules.position import Move, Position
from firmware.rules.sets import RuleSet

__all__ = [
    "capture_separator",
    "full_route",
    "move_text",
    "move_texts",
    "parse_move",
    "path",
    "turns",
]

_ANNOTATION = re.compile(r"(?:\([!?]+\)|[!?*+=]+[0-9]*|\s)+$")
_SPLIT = re.compile(r"\s*[-xX:×]\s*|\s+")
_GLUED = re.compile(r"^([a-jA-J](?:10|[1-9]))([a-jA-J](?:10|[1-9]))$")


def capture_separator(rules: RuleSet) -> str:
    """``x`` on 10x10, ``:`` on 8x8, unless the rule set says otherwise (module docstring)."""
    sep = getattr(rules, "capture_separator", None)
    if isinstance(sep, str) and sep:
        return sep
    return "x" if rules.size == 10 else ":"


def _direction(g: Geometry, a: int, b: int) -> int:
    for d, ray in enumerate(g.rays[a]):
        if b in ray:
            return d
    raise IllegalMoveError(f"{g.algebraic(a)} and {g.algebraic(b)} are not on one diagonal")


def turns(rules: RuleSet, move: Move) -> tuple[int, ...]:
    """Start, every route square where the direction changes, end (000 8.5.5)."""
    route = move.route
    if len(route) <= 2:
        return route
    g = rules.geometry
    out = [route[0]]
    for i in range(1, len(route) - 1):
        if _direction(g, route[i - 1], route[i]) != _direction(g, route[i], route[i + 1]):
            out.append(route[i])
    out.append(route[-1])
    return tuple(out)


def path(rules: RuleSet, move: Move) -> tuple[int, ...]:
    """Every square the moving piece passes or lands on, start and end included, in order."""
    g = rules.geometry
    out = [move.route[0]]
    for a, b in zip(move.route, move.route[1:], strict=False):
        ray = g.rays[a][_direction(g, a, b)]
        out.extend(ray[: ray.index(b) + 1])
    return tuple(out)


def _identity(move: Move) -> tuple[frozenset[int], bool]:
    """What a move does to the board beyond start and end: the pieces taken, the crowning."""
    return frozenset(move.captured), move.promotes


def _join(rules: RuleSet, squares: tuple[int, ...], capture: bool) -> str:
    sep = capture_separator(rules) if capture else "-"
    return sep.join(rules.square_name(sq) for sq in squares)


def full_route(rules: RuleSet, move: Move) -> str:
    """The full form: start, every turn, end (``d2:h6:f8:c5:a7``, 000 8.5.5)."""
    return _join(rules, turns(rules, move), move.is_capture)


def move_text(position: Position, move: Move) -> str:
    """The shortest unambiguous PDN text of a legal move (module docstring)."""
    legal = position.legal_moves()
    if move not in legal:
        raise IllegalMoveError(
            f"{_join(position.rules, move.route, move.is_capture)} is not a legal move in "
            f"{position.fen()}"
        )
    return _text(position.rules, legal, move)


def move_texts(position: Position) -> dict[Move, str]:
    """The text of every legal move of a position (cheaper than one move_text per move)."""
    legal = position.legal_moves()
    return {move: _text(position.rules, legal, move) for move in legal}


def _text(rules: RuleSet, legal: list[Move], move: Move) -> str:
    ident = _identity(move)
    for other in legal:
        if other.start == move.start and other.end == move.end and _identity(other) != ident:
            return full_route(rules, move)
    return _join(rules, (move.start, move.end), move.is_capture)


def _squares(rules: RuleSet, text: str) -> tuple[int, ...]:
    if not isinstance(text, str):
        raise IllegalMoveError(f"a move must be text, not {type(text).__name__}")
    body = _ANNOTATION.sub("", text.strip())
    glued = _GLUED.match(body)
    if glued:
        parts = [glued.group(1), glued.group(2)]
    elif body.isdigit() and len(body) == 4 and rules.size == 10:
        parts = [body[:2], body[2:]]
    else:
        parts = _SPLIT.split(body)
        if len(parts) > 1 and "" in parts:  # a separator with no square on one side
            raise IllegalMoveError(f"cannot read {text.strip()[:40]!r} as a move: a separator "
                                   "without a square on each side")
    if len(parts) < 2:
        raise IllegalMoveError(f"cannot read {text!r} as a move (expected e.g. "
                               f"{_join(rules, _example(rules), False)})")
    g = rules.geometry
    try:
        return tuple(g.parse_square(p) for p in parts)
    except SquareError as exc:
        raise IllegalMoveError(f"cannot read {text!r} as a move: {exc}") from None


def _example(rules: RuleSet) -> tuple[int, int]:
    return (22, 18) if rules.size == 8 else (32, 28)


def _in_order(wanted: tuple[int, ...], passed: tuple[int, ...]) -> bool:
    it = iter(passed)
    return all(sq in it for sq in wanted)


def parse_move(position: Position, text: str) -> Move:
    """The legal move a PDN text means (module docstring for the forms read).

    Squares between start and end are first matched against the landing squares of each route,
    then against every square passed. Raises IllegalMoveError when no legal move fits, with the
    reason, and AmbiguousMoveError when the text fits captures that take different pieces
    (naming their full forms). Among routes that take the same pieces, the one whose route the
    text spells out is chosen, else the first in ``legal_moves()`` order.
    """
    rules = position.rules
    squares = _squares(rules, text)
    start, end, middle = squares[0], squares[-1], squares[1:-1]
    legal = position.legal_moves()
    fits = [m for m in legal if m.start == start and m.end == end]
    if middle and fits:
        landed = [m for m in fits if _in_order(middle, m.route[1:-1])]
        passed = [m for m in fits if _in_order(middle, path(rules, m)[1:-1])]
        if not passed:
            via = ", ".join(rules.square_name(sq) for sq in middle)
            legal_forms = ", ".join(sorted({full_route(rules, m) for m in fits}))
            raise IllegalMoveError(
                f"{text.strip()} is not legal: no move from {rules.square_name(start)} to "
                f"{rules.square_name(end)} passes {via} (legal: {legal_forms})"
            )
        fits = landed if len({_identity(m) for m in landed}) == 1 else passed
    if not fits:
        reason = _why_illegal(position, start, end)
        raise IllegalMoveError(f"{text.strip()} is not legal: {reason}")
    kinds = {_identity(m) for m in fits}
    if len(kinds) > 1:
        forms = sorted({full_route(rules, m) for m in fits})
        raise AmbiguousMoveError(
            f"{text.strip()} is ambiguous: it fits {len(forms)} captures taking different "
            f"pieces ({', '.join(forms)}); write the full route"
        )
    for m in fits:
        if m.route == squares:
            return m
    return fits[0]


def _why_illegal(position: Position, start: int, end: int) -> str:
    rules = position.rules
    name = rules.square_name
    piece = position.piece_at(start)
    turn = position.turn.value
    if piece is None:
        return f"no piece on {name(start)} (FEN {position.fen()})"
    if piece.side is not position.turn:
        return f"the piece on {name(start)} is {piece.side.value}'s, and it is {turn} to move"
    legal = position.legal_moves()
    if not legal:
        return f"{turn} has no legal move"
    if legal[0].is_capture:
        own = [m for m in legal if m.start == start]
        if own:
            ends = sorted({name(m.end) for m in own})
            return f"the piece on {name(start)} must capture, ending on {' or '.join(ends)}"
        starts = sorted({name(m.start) for m in legal})
        return f"a capture is compulsory, with the piece on {' or '.join(starts)}"
    if position.piece_at(end) is not None:
        return f"{name(end)} is occupied"
    return f"the piece on {name(start)} cannot go to {name(end)}"
