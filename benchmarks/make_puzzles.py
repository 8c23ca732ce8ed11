"""Make the board's own puzzle set (``boardctl/data/puzzles/``, issue 42 item 3) from real
games, and print what it found and how long it took.

A puzzle is a position of a real game before a combination: the side to move wins at least
two men within a few moves (``MAX_PLIES``), its first move is not a capture (a combination
starts quietly, often with a sacrifice), and the built-in engine (``firmware.engine``) finds
that move, and each later move of the side in the line, the only one that wins: every other
move scores at least ``MARGIN`` hundredths of a man less at ``DEPTH`` plies. The solution is
the game's own moves up to the winning capture. Each puzzle names its game (Event, Site,
Date, White, Black, Round) and the file it came from in its ``Source`` tag.

    python benchmarks/make_puzzles.py [--games DIR] [--out FILE] [--count N]
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Iterator
from pathlib import Path

from firmware.engine.common import Limits
from firmware.engine.search import Engine
from firmware.errors import BoardError
from firmware.pdn import read_games
from firmware.pdn.write import write_game
from firmware.rules.game import Game
from firmware.rules.notation import move_text
from firmware.rules.position import Move, Position
from firmware.rules.sets import Side, find_rules

GAMES = Path("/work/shared/games")
OUT = Path(__file__).resolve().parents[1] / "boardctl" / "data" / "puzzles" / "combinations.pdn"
FILES = ("wk2003.pdn", "nk2003-amsterdam.pdn", "DUTCH96H.pdn")
#: The longest solution (plies, the solver's last move included).
MAX_PLIES = 7
#: The shortest (a move, the reply, the winning move: a lone promotion is no puzzle).
MIN_PLIES = 3
#: Men won (a king counts three) for a combination.
GAIN = 2
DEPTH = 6
MARGIN = 150
#: The engine's search of one move at most (seconds).
HARD_S = 4.0


def material(position: Position, side: Side) -> int:
    def worth(s: Side) -> int:
        return len(position.squares_of(s, False)) + 3 * len(position.squares_of(s, True))
    return worth(side) - worth(side.other)


def solution_length(history: list[Position], moves: list[Move], i: int) -> int | None:
    """The plies from ``i`` after which the side to move at ``i`` is ``GAIN`` ahead, ending
    with its own move (odd), or None."""
    side = history[i].turn
    base = material(history[i], side)
    for n in range(MIN_PLIES, MAX_PLIES + 1, 2):
        if i + n > len(moves):
            return None
        if material(history[i + n], side) - base >= GAIN:
            return n
    return None


def scores(engine: Engine, position: Position) -> dict[Move, int]:
    """Each legal move's score for the side to move (hundredths of a man)."""
    out = {}
    for move in position.legal_moves():
        after = Game(position.rules, position.play(move))
        if after.outcome() is not None:
            out[move] = 10_000
            continue
        engine.new_game()
        result = engine.search(after, Limits(depth=DEPTH - 1, hard=HARD_S), time.monotonic)
        out[move] = -result.score
    return out


def only_winner(engine: Engine, position: Position, move: Move) -> bool:
    if len(position.legal_moves()) == 1:
        return True
    said = scores(engine, position)
    best = said[move]
    return best >= MARGIN and all(s <= best - MARGIN for m, s in said.items() if m != move)


def candidates(path: Path) -> Iterator[tuple[dict[str, str], Position, list[Move]]]:
    rules = find_rules("international")
    for game in read_games(path.read_bytes(), path.name):
        try:
            if game.rules() is not rules:
                continue
            record = game.replay(rules)
        except BoardError:
            continue
        history, moves = record.history, record.moves
        for i in range(len(moves)):
            n = solution_length(history, moves, i)
            if n is None or moves[i].captured:
                continue
            yield game.tags, history[i], moves[i:i + n]


def make(games: Path, count: int) -> list[str]:
    engine = Engine("international", level=10, seed=1)
    found: list[str] = []
    seen: set[str] = set()
    for name in FILES:
        for tags, position, line in candidates(games / name):
            if position.fen() in seen:
                continue
            seen.add(position.fen())
            checked = position
            ok = True
            for k, move in enumerate(line):
                if k % 2 == 0 and not only_winner(engine, checked, move):
                    ok = False
                    break
                checked = checked.play(move)
            if not ok:
                continue
            texts, at = [], position
            for move in line:
                texts.append(move_text(at, move))
                at = at.play(move)
            kept = {k: v for k, v in tags.items()
                    if k in ("Event", "Site", "Date", "Round", "White", "Black")}
            side = "White" if position.turn is Side.WHITE else "Black"
            kept["Source"] = (f"{name}, before {side}'s combination (checked by boardctl's "
                              "engine)")
            found.append(write_game(kept, texts, start_fen=position.fen(), result="*",
                                    game_type=20))
            print(f"puzzle {len(found)}: {name} {tags.get('White')} - {tags.get('Black')}: "
                  f"{' '.join(texts)}", flush=True)
            if len(found) >= count:
                return found
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=Path, default=GAMES)
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--count", type=int, default=12)
    args = parser.parse_args(argv)
    t0 = time.monotonic()
    found = make(args.games, args.count)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("".join(found))
    print(f"{len(found)} puzzles in {args.out} ({time.monotonic() - t0:.0f} s)")
    return 0 if found else 1


if __name__ == "__main__":
    sys.exit(main())
