"""``boardctl moves`` and ``boardctl perft``: the rules core from the command line (CONTRACT.md).

``moves`` prints every legal move, one a line, with its full route: the start, every landing
square, the end. Squares are written as the rule set writes them: algebraic on 8x8, joined by
``:`` for captures (``d2:h6:f8:c5:a7``, seed 004 §14); numbers on 10x10, joined by ``x``
(``28x19x10``, PDN). Simple moves use ``-`` (``c3-d4``, ``32-28``). Routes taking the same
pieces in another order are listed each on its own line.

``perft`` prints the number of leaf nodes as its last line (firmware.rules.perft for the counting
convention: moves with the same start, end and captured pieces count once).
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from firmware.errors import RulesError

if TYPE_CHECKING:
    from firmware.rules.position import Move, Position


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Add ``moves`` and ``perft``."""
    moves = sub.add_parser(
        "moves",
        help="list the legal moves of a position, each with its full route",
        description="List the legal moves, one a line, each with its full route "
        "(8x8: d2:h6:f8:c5:a7 and c3-d4; 10x10: 28x19x10 and 32-28).",
    )
    _common(moves)
    moves.set_defaults(func=run_moves)

    perft = sub.add_parser(
        "perft",
        help="count the leaf nodes of the move tree (move generation check)",
        description="Count leaf nodes DEPTH plies deep; the count is the last line. Moves "
        "with the same start, end and captured pieces count once.",
    )
    _common(perft)
    perft.add_argument("--depth", required=True, type=_depth, metavar="N",
                       help="plies to search (0 or more)")
    perft.add_argument("--divide", action="store_true",
                       help="first print the count under each first move")
    perft.set_defaults(func=run_perft)


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--rules", required=True, metavar="R",
                        help="rule set: international, russian, brazilian, international64, "
                        "russian1953, international1953, home")
    parser.add_argument("--fen", metavar="FEN",
                        help="position as FEN (W:W31,32,K45:B1-20); the start position if left out")


def _depth(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"depth must be a whole number, not {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"depth must be 0 or more, not {value}")
    return value


def _position(args: argparse.Namespace) -> Position:
    from firmware.rules.position import Position
    from firmware.rules.sets import find_rules

    rules = find_rules(args.rules)
    if args.fen is None:
        return Position.start(rules)
    return Position.from_fen(rules, args.fen)


def route_text(position: Position, move: Move) -> str:
    """A move's full route as ``boardctl moves`` prints it."""
    rules = position.rules
    names = [rules.square_name(sq) for sq in move.route]
    if not move.captured:
        return "-".join(names)
    return (":" if rules.algebraic_notation else "x").join(names)


def run_moves(args: argparse.Namespace) -> int:
    position = _position(args)
    for move in position.legal_moves():
        print(route_text(position, move))
    return 0


def run_perft(args: argparse.Namespace) -> int:
    from firmware.rules.perft import divide, perft

    position = _position(args)
    if args.depth > 64:
        raise RulesError(f"perft depth {args.depth} is beyond any sensible search")
    if args.divide and args.depth > 0:
        for move, count in divide(position, args.depth):
            print(f"{route_text(position, move)} {count}")
    print(perft(position, args.depth))
    return 0
