"""The PDN game model: a game as read (tags, main line of moves and set-ups, comments, clock
readings), the rule set it names, and its replay through the rules (firmware.pdn)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from firmware.errors import BoardError, PdnError
from firmware.limits import clip

if TYPE_CHECKING:
    from firmware.rules.game import Game
    from firmware.rules.sets import RuleSet


# --------------------------------------------------------------------------------------------
# Data


@dataclass(frozen=True, slots=True)
class ClockReading:
    """Clock times in seconds after a move.

    ``running`` is the side whose clock runs now (``"white"``/``"black"``: the capital letter
    of ``[%clock]``), or None when not said. ``[%clk 1:55:21]`` and an unlabelled
    ``[%clock 1:55:21]`` give the time of the side that just moved (DGT's meaning): read as
    ``mover``, with ``white`` and ``black`` None.
    """

    white: float | None
    black: float | None
    running: str | None = None
    mover: float | None = None


@dataclass(slots=True)
class MoveText:
    """One move of a game's main line as the file writes it."""

    text: str  #: the move without number or annotations, spaces removed (``1-7``, ``28x19``)
    number: int | None = None  #: the move number written before it, if any
    line: int = 0  #: line of the file where it stands (1-based)
    strength: str = ""  #: move strength / annotation glued to it (``!``, ``?!``, ``*``)
    nags: list[int] = field(default_factory=list)
    comments: list[str] = field(default_factory=list)
    clock: ClockReading | None = None
    variations: list[str] = field(default_factory=list)  #: raw text of ``( ... )`` after it


@dataclass(slots=True)
class Setup:
    """A setup command ``/FEN "..."/``: the position on the board from here on."""

    fen: str
    line: int = 0
    comments: list[str] = field(default_factory=list)


@dataclass(slots=True)
class PdnGame:
    """A game read from a PDN file: tags, the main line (moves and setups), result."""

    source: str  #: the file's name, for messages
    index: int  #: 1-based number of the game in its file
    line: int  #: the line where the game starts
    tags: dict[str, str] = field(default_factory=dict)
    body: list[MoveText | Setup] = field(default_factory=list)
    result: str | None = None  #: the game terminator as written (``1-0``, ``*``), or None
    comments: list[str] = field(default_factory=list)  #: comments before the first move

    @property
    def moves(self) -> list[MoveText]:
        """The main line's moves, in order."""
        return [item for item in self.body if isinstance(item, MoveText)]

    @property
    def setups(self) -> list[Setup]:
        return [item for item in self.body if isinstance(item, Setup)]

    @property
    def title(self) -> str:
        """``game 3 (White - Black)`` for messages."""
        white = self.tags.get("White", "?") or "?"
        black = self.tags.get("Black", "?") or "?"
        return f"game {self.index} ({white} - {black})"

    def where(self, move: MoveText | Setup | None = None, label: str = "") -> str:
        """The message prefix that names the file, the game and the move."""
        text = f"{self.source}: {self.title}"
        if move is not None:
            text += f", {label or item_label(move)} (line {move.line})"
        return text

    def clocks(self) -> list[ClockReading | None]:
        """Per move, both clocks after it as far as the file tells: ``[%clk]`` times (the
        mover's) are given to the side that moved, the other side keeping its last known time;
        ``running`` is the side to move next unless the file says. None where no clock was ever
        given yet. Sides alternate from the FEN tag's side to move, and from each setup's."""
        out: list[ClockReading | None] = []
        white_moves = not self.tags.get("FEN", "W").strip().upper().startswith("B")
        times: dict[str, float | None] = {"white": None, "black": None}
        for item in self.body:
            if isinstance(item, Setup):
                white_moves = not item.fen.strip().upper().startswith("B")
                continue
            mover, other = ("white", "black") if white_moves else ("black", "white")
            reading = item.clock
            if reading is not None:
                if reading.mover is not None:
                    times[mover] = reading.mover
                for side, value in (("white", reading.white), ("black", reading.black)):
                    if value is not None:
                        times[side] = value
            if times["white"] is None and times["black"] is None:
                out.append(None)
            else:
                running = reading.running if reading is not None and reading.running else other
                out.append(ClockReading(times["white"], times["black"], running))
            white_moves = not white_moves
        return out

    def rules(self) -> RuleSet:
        """The rule set this game is played under (module docstring: GameType, else a guess)."""
        return rules_for_game(self)

    def replay(self, rules: RuleSet | None = None, fischer: bool = True) -> Game:
        """Play the main line from the start (or the ``FEN`` tag) through the rules.

        Raises PdnError naming the file, the game and the move for a move that cannot be read
        or is not legal, and for a FEN that cannot be read.
        """
        return replay_game(self, rules, fischer)


def item_label(item: MoveText | Setup, number: int | None = None, white: bool = True) -> str:
    """How messages name a move or a setup: ``move 12... 18-23``, ``setup /FEN "..."/``."""
    if isinstance(item, Setup):
        return f'setup /FEN "{clip(item.fen, 80)}"/'
    n = item.number if item.number is not None else number
    if n is None:
        return f"move {clip(item.text, 80)}"
    return f"move {n}{'.' if white else '...'} {clip(item.text, 80)}"


# --------------------------------------------------------------------------------------------
# Replaying

#: GameType numbers of the PDN table (gametype.rst) and the rule set each one means here.
GAME_TYPES: dict[int, str] = {20: "international", 25: "russian", 26: "brazilian"}
_GAME_NAMES = {21: "English draughts", 22: "Italian draughts", 23: "American pool checkers",
               24: "Spanish draughts", 27: "Canadian draughts", 28: "Portuguese draughts",
               29: "Czech draughts", 30: "Turkish draughts", 31: "Thai draughts",
               40: "Frisian draughts", 41: "Spantsiretti draughts", 0: "chess",
               1: "Chinese chess", 50: "Othello"}


#: Variant tag values (lidraughts' PDN export among others) for games with other rules.
_OTHER_VARIANTS = frozenset(
    {"antidraughts", "breakthrough", "frisian", "frysk", "frysk!", "killer", "english",
     "checkers", "italian", "spanish", "pool", "turkish", "canadian", "portuguese", "czech"}
)


def rules_for_game(game: PdnGame) -> RuleSet:
    """The rule set of a game read (module docstring); PdnError for an unknown GameType."""
    from firmware.rules.sets import RULESETS, find_rules

    variant = game.tags.get("Variant", "").strip().lower()
    if variant in RULESETS:
        return RULESETS[variant]
    if variant in _OTHER_VARIANTS:
        raise PdnError(f"{game.where()}: Variant {game.tags['Variant']!r} is not played here")
    tag = game.tags.get("GameType", "").strip()
    if tag:
        m = re.match(r"\s*([0-9]{1,9})(?![0-9])", tag)
        if m is None:
            raise PdnError(f"{game.where()}: cannot read GameType {tag[:40]!r}")
        number = int(m.group(1))
        if number in GAME_TYPES:
            return find_rules(GAME_TYPES[number])
        for rules in RULESETS.values():
            if rules.game_type == number:
                return rules
        what = _GAME_NAMES.get(number, "an unknown game")
        known = ", ".join(f"{n} ({name})" for n, name in GAME_TYPES.items())
        raise PdnError(
            f"{game.where()}: GameType {number} ({what}) is not played here (known: {known})"
        )
    texts = [game.tags.get("FEN", "")] + [m.text for m in game.moves[:4]]
    if any(re.search(r"[a-jA-J][0-9]", t.replace("W:", ":").replace("B:", ":")) for t in texts):
        return find_rules("russian")
    return find_rules("international")


def rules_tags(rules: RuleSet) -> dict[str, str]:
    """The tags that name a rule set in PDN: ``GameType``, and ``Variant`` (the rule set's name,
    python-chess's PGN convention for variants) where the GameType number alone would be read as
    another rule set (``home``, ``international64``, the 1953 rules)."""
    tags = {"GameType": str(rules.game_type)}
    if GAME_TYPES.get(rules.game_type) != rules.name:
        tags["Variant"] = rules.name
    return tags


def replay_game(game: PdnGame, rules: RuleSet | None = None, fischer: bool = True) -> Game:
    """``PdnGame.replay``: the main line played through the rules; PdnError naming the file,
    the game and the move when a move cannot be read or is not legal."""
    from firmware.rules.game import Game
    from firmware.rules.notation import parse_move
    from firmware.rules.position import Position
    from firmware.rules.sets import Side

    rs = rules if rules is not None else rules_for_game(game)
    fen = game.tags.get("FEN", "").strip()
    body = list(game.body)
    try:
        if fen and fen not in ("?", "-"):
            start = Position.from_fen(rs, fen)
        elif body and isinstance(body[0], Setup):
            # No FEN tag: a leading setup is the initial position (PDN 3.0 commands.rst).
            first = body.pop(0)
            assert isinstance(first, Setup)
            start = Position.from_fen(rs, first.fen)
        else:
            start = None
    except BoardError as exc:
        raise PdnError(f"{game.where()}: FEN tag or first setup: {exc}") from None
    record = Game(rs, start, fischer)
    number = 1
    for item in body:
        white = record.position.turn is Side.WHITE
        try:
            if isinstance(item, Setup):
                record.setup(Position.from_fen(rs, item.fen))
                continue
            if item.number is not None:
                number = item.number
            record.push(parse_move(record.position, item.text))
        except BoardError as exc:
            raise PdnError(f"{game.where(item, item_label(item, number, white))}: "
                           f"{clip(str(exc), 300)}") from None
        if not white:
            number += 1
    return record


