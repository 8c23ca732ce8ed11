"""Make the opening book (firmware.engine.openings) from PDN files:

    python -m boardctl.engine.bookmaker tests/data/pdn/*.pdn > firmware/engine/openings.py

Each game is replayed through the rules of its file (firmware.pdn); a game that does not
replay, or starts from another position, is left out. Positions and moves are sorted, so the
same files make the same module.
"""

from __future__ import annotations

import sys
import textwrap
from collections.abc import Sequence
from pathlib import Path

from firmware.engine.book import BOOK_OF, BOOK_PLIES, book_positions
from firmware.errors import BoardError
from firmware.pdn import read_games
from firmware.rules.game import Game

HEAD = '''"""The opening book (firmware.engine.book): every position of the first {plies} plies of
the games of

{sources}

as a Hub position, with the moves played there (Hub moves) and how often. Made by
``python -m boardctl.engine.bookmaker``: do not edit.
"""

BOOKS: dict[str, dict[str, str]] = {{
'''
#: The widest string literal of the module (the project's lines are 100 columns at most).
WIDTH = 84


def module_text(paths: Sequence[Path]) -> str:
    """The source of firmware/engine/openings.py made from ``paths``."""
    games: dict[str, list[Game]] = {}
    for path in paths:
        for pdn in read_games(path.read_bytes(), path.name):
            try:
                game = pdn.replay()
            except BoardError:
                continue
            book = BOOK_OF.get(game.rules.name)
            if book == game.rules.name:
                games.setdefault(book, []).append(game)
    names = "\n".join(f"- {p.name}" for p in paths)
    out = [HEAD.format(plies=BOOK_PLIES, sources=names)]
    for book in sorted(games):
        out.append(f'    "{book}": {{\n')
        for position, played in sorted(book_positions(games[book]).items()):
            moves = " ".join(f"{m}:{n}" for m, n in sorted(played.items(),
                                                         key=lambda item: (-item[1], item[0])))
            out.append(f'        "{position}":\n' + _literal(moves))
        out.append("    },\n")
    out.append("}\n")
    return "".join(out)


def _literal(text: str) -> str:
    """``text`` as a string literal in parts that fit :data:`WIDTH` (Hub moves and positions
    hold no quotes nor backslashes)."""
    parts = textwrap.wrap(text, WIDTH, break_long_words=False)
    quoted = [f'"{p} "' for p in parts[:-1]] + [f'"{parts[-1]}"']
    return "            " + "\n            ".join(quoted) + ",\n"


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        sys.stdout.write(module_text([Path(a) for a in args]))
    except (OSError, BoardError) as exc:
        print(f"bookmaker: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
