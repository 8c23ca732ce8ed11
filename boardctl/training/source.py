"""The games a training session takes from a PDN file (``--train``, ``--puzzles``): each read
once, here, into a :class:`Line` (its start, its moves played through the rules, its tags), or
a one-line BoardError naming the file and why (none there, not PDN, no games, another rule
set, a game number out of range, a puzzle file without a ``[FEN]`` game)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from firmware.errors import BoardError
from firmware.limits import read_limited
from firmware.pdn import read_games
from firmware.pdn.model import PdnGame
from firmware.rules.game import result_text
from firmware.rules.notation import move_text
from firmware.rules.position import Move, Position
from firmware.rules.sets import RuleSet, Side

#: The largest training file read (a collection of games, not a database).
MAX_BYTES = 8 * 1024 * 1024
#: The most games taken from one file.
MAX_GAMES = 5000
#: Tags a line hands on to the session's game (the rest are the file's business).
KEPT_TAGS = ("Event", "Site", "Date", "Round", "White", "Black", "Source", "Puzzle")


@dataclass(frozen=True, slots=True)
class Line:
    """A game to play through: its number in the file, where it starts (``fen``: its FEN tag,
    None from the start position), the moves, the PDN texts of the moves as the rules write
    them, the positions after each, its result (None: not a result of the rule set)."""

    number: int
    start: Position
    fen: str | None
    moves: tuple[Move, ...]
    texts: tuple[str, ...]
    after: tuple[Position, ...]
    tags: dict[str, str] = field(default_factory=dict)
    result: str | None = None

    @property
    def title(self) -> str:
        return f"game {self.number} ({self.tags.get('White', '?')} - {self.tags.get('Black', '?')})"

    def side_at(self, ply: int) -> Side:
        """The side that makes the line's move ``ply`` (0-based)."""
        return self.start.turn if ply % 2 == 0 else self.start.turn.other


def read_lines(path: Path, rules: RuleSet, *, option: str) -> list[Line]:
    """Every game of ``path`` as a :class:`Line` of ``rules`` (``option`` names the command
    line's option in messages); BoardError in one line for a file that gives none."""
    try:
        with open(path, "rb") as f:
            data = read_limited(f, str(path), max_total=MAX_BYTES, error=BoardError)
    except FileNotFoundError:
        raise BoardError(f"{option} {path}: no such file") from None
    except IsADirectoryError:
        raise BoardError(f"{option} {path}: is a directory, not a PDN file") from None
    except OSError as exc:
        raise BoardError(f"{option} {path}: {exc.strerror or exc}") from None
    games: list[PdnGame] = []
    try:
        for game in read_games(data, path.name):
            games.append(game)
            if len(games) >= MAX_GAMES:
                break
    except BoardError as exc:
        raise BoardError(f"{option} {path}: not a PDN file this board reads: "
                         f"{str(exc).splitlines()[0][:200]}") from None
    games = [g for g in games if g.moves or g.tags]
    if not games:
        raise BoardError(f"{option} {path}: no games in it")
    return [_line(game, rules, option, path) for game in games]


def _line(game: PdnGame, rules: RuleSet, option: str, path: Path) -> Line:
    try:
        played_under = game.rules()
    except BoardError as exc:
        raise BoardError(f"{option} {path}: {str(exc).splitlines()[0][:200]}") from None
    if played_under.name != rules.name:
        raise BoardError(f"{option} {path}: {game.title} is {played_under.name}; this board "
                         f"plays {rules.name} (--rules)")
    try:
        record = game.replay(rules)
    except BoardError as exc:
        raise BoardError(f"{option} {path}: {str(exc).splitlines()[0][:200]}") from None
    history = record.history
    texts = tuple(move_text(before, move) for before, move in zip(history, record.moves,
                                                                  strict=False))
    fen = game.tags.get("FEN", "").strip() or None
    tags = {k: v for k, v in game.tags.items() if k in KEPT_TAGS and v}
    return Line(game.index, record.start, record.start.fen() if fen else None,
                tuple(record.moves), texts, tuple(history[1:]), tags,
                _result(game.result, rules))


#: A result as either notation writes it: the winner (None: a draw).
_WINNERS = {"2-0": Side.WHITE, "1-0": Side.WHITE, "0-2": Side.BLACK, "0-1": Side.BLACK,
            "1-1": None, "1/2-1/2": None}


def _result(text: str | None, rules: RuleSet) -> str | None:
    """A game's result in the rule set's form (``1/2-1/2`` of an international game is
    ``1-1``); None for ``*`` or none."""
    text = (text or "").strip()
    return result_text(rules, _WINNERS[text]) if text in _WINNERS else None


def pick_line(lines: list[Line], number: int | None, path: Path) -> Line:
    """``--train-game N`` (1-based; default the first game with moves)."""
    if number is None:
        for line in lines:
            if line.moves:
                return line
        raise BoardError(f"--train {path}: no game in it has moves to guess")
    if not 1 <= number <= len(lines):
        raise BoardError(f"--train-game {number}: {path} has {len(lines)} "
                         f"game{'s' if len(lines) != 1 else ''} (1-{len(lines)})")
    line = lines[number - 1]
    if not line.moves:
        raise BoardError(f"--train-game {number}: {line.title} has no moves to guess")
    return line


def puzzle_lines(lines: list[Line], path: Path) -> list[Line]:
    """The puzzles of a file: its games with a ``[FEN]`` tag and a solution (moves)."""
    puzzles = [line for line in lines if line.fen is not None and line.moves]
    if not puzzles:
        raise BoardError(f"--puzzles {path}: no game in it has a FEN tag and a solution")
    return puzzles
