"""PDN games: read what real files hold, write PDN 3.0.

Reading follows the PDN 3.0 *reading grammar* (wiegerw/pdn ``doc/grammar.rst``) and the sloppy
forms real collections hold: a byte-order mark, CRLF or mixed line ends, several games a file,
games without tags or without an ``[Event]``, move numbers glued to moves (``1.32-28``,
``23...20-25``), spaces inside moves (``1- 7``, ``47x 9``), ``x``, ``:`` or no separator, move
strengths and annotations (``!``, ``?!``, ``(?)``, ``*``, ``+``, ``=``), NAGs (``$1``), nested
variations ``( ... )`` (kept as text, not replayed), comments ``{ ... }`` (nested braces
tolerated), ``%`` and ``;`` line comments, clock commands ``[%clock w1:02:03 B0:59:00]`` and
``[%clk 1:55:21]`` inside comments (``doc/commands.rst``), and setup commands
``/FEN "..."/`` anywhere in the main line.

Writing produces PDN 3.0: the seven-tag roster, ``GameType``, ``FEN`` for set-up positions,
``TimeControl`` when given (``4800+60@start`` names the DGT Fischer convention,
``firmware.timecontrol``), moves in the rule set's notation with captures written ``x`` in
every game type (``c3xe5``: PDN 3.0 game type 26, Brazilian, writes ``x``; 000 8.5.5 allows
"ristike või koolon", a cross or a colon, in Russian; pydraughts 0.6.7 cannot read an 8x8
``:`` capture; ``:`` is still read, and the feed keeps the rule set's own separator),
``{[%clock ...]}`` after each move when clock times are given (the side whose clock now runs
in capitals), ``/FEN "..."/`` for positions the arbiter accepted mid-game, and the result in
the rule set's form (``doc/pdntags.rst``: GameType 20 has the *International* result type
``2-0 1-1 0-2``; the 64-square games the *Default* type ``1-0 1/2-1/2 0-1``). Both forms are
read for every game type: the real 10x10 files use ``1-0`` and ``1/2-1/2``. Lines stay under
80 characters.

Rule set of a game read (``PdnGame.rules``): a ``Variant`` tag naming a rule set of ours (what
``format_game`` writes for ``home``, ``international64`` and the 1953 rules, which share their
GameType number with another rule set); else the ``GameType`` tag's number (20 international,
25 russian, 26 brazilian, and any other number a registered rule set declares); without a
``GameType``, a game whose moves or FEN use algebraic squares is ``russian`` (GameType 25 is the
algebraic 8x8 game in the PDN table), otherwise ``international`` (PDN's own default family:
numeric notation is the 10x10 game's). ``replay(rules=...)`` overrides the choice.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import IO, TYPE_CHECKING

from firmware.errors import BoardError, PdnError

if TYPE_CHECKING:
    from firmware.game import Game
    from firmware.rules import RuleSet

__all__ = [
    "GAME_TYPES",
    "ClockReading",
    "MoveText",
    "PdnGame",
    "Setup",
    "clock_command",
    "format_clock",
    "format_game",
    "game_moves",
    "parse_clock",
    "read_games",
    "replay_game",
    "rules_for_game",
    "rules_tags",
    "write_game",
]

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
        return f'setup /FEN "{item.fen}"/'
    n = item.number if item.number is not None else number
    if n is None:
        return f"move {item.text}"
    return f"move {n}{'.' if white else '...'} {item.text}"


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
    from firmware.rules import RULESETS, find_rules

    variant = game.tags.get("Variant", "").strip().lower()
    if variant in RULESETS:
        return RULESETS[variant]
    if variant in _OTHER_VARIANTS:
        raise PdnError(f"{game.where()}: Variant {game.tags['Variant']!r} is not played here")
    tag = game.tags.get("GameType", "").strip()
    if tag:
        m = re.match(r"\s*([0-9]+)", tag)
        if m is None:
            raise PdnError(f"{game.where()}: cannot read GameType {tag!r}")
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
    from firmware.game import Game
    from firmware.notation import parse_move
    from firmware.position import Position
    from firmware.rules import Side

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
            raise PdnError(f"{game.where(item, item_label(item, number, white))}: {exc}") from None
        if not white:
            number += 1
    return record


# --------------------------------------------------------------------------------------------
# Reading

_CLOCK = re.compile(
    r"\[%(?P<cmd>clock|clk)\s*(?P<args>[^\]]*)\]",
    re.IGNORECASE,
)
_CLOCK_TIME = re.compile(r"([wWbB]?)\s*(\d{1,3}):(\d\d)(?::(\d\d(?:\.\d+)?))?")


def parse_clock(comment: str) -> ClockReading | None:
    """The clock command in a comment, or None: ``[%clock w1:02:03 B0:59:00]`` or
    ``[%clk 1:55:21]`` (PDN 3.0 doc/commands.rst)."""
    m = _CLOCK.search(comment)
    if m is None:
        return None
    white: float | None = None
    black: float | None = None
    running: str | None = None
    bare: float | None = None
    for side, h, mm, ss in _CLOCK_TIME.findall(m.group("args")):
        seconds = int(h) * 3600 + int(mm) * 60 + (float(ss) if ss else 0.0)
        if side in ("w", "W"):
            white = seconds
            running = "white" if side == "W" else running
        elif side in ("b", "B"):
            black = seconds
            running = "black" if side == "B" else running
        else:
            bare = seconds
    if white is None and black is None:
        return None if bare is None else ClockReading(None, None, None, bare)
    return ClockReading(white, black, running)


def read_games(
    text: str | bytes | IO[str] | IO[bytes], source: str = "<pdn>"
) -> Iterator[PdnGame]:
    """The games of a PDN text, bytes or open file (text or binary), one by one.

    ``source`` names the file in messages. A text that cannot be read raises PdnError naming the
    file, the game and the line; games before it have been yielded already. Bytes are read as
    UTF-8 (a BOM is dropped), falling back to Windows-1252 as old collections are.
    """
    from firmware.pdn_read import Reader, decode

    yield from Reader(decode(text), source).games()


# --------------------------------------------------------------------------------------------
# Writing

ROSTER = ("Event", "Site", "Date", "Round", "White", "Black", "Result")
_UNKNOWN = {"Date": "????.??.??", "Result": "*"}
LINE_WIDTH = 79


def format_clock(seconds: float) -> str:
    """``H:MM:SS`` of whole seconds, rounded down (a clock shows 0:00:00 only when the time is
    gone); negative values show as 0:00:00."""
    s = max(0, int(seconds))
    return f"{s // 3600}:{s % 3600 // 60:02d}:{s % 60:02d}"


def clock_command(reading: ClockReading) -> str:
    """``[%clock w1:02:03 B0:59:00]``: the running side's letter in capitals (commands.rst)."""
    parts = []
    for side, value in (("white", reading.white), ("black", reading.black)):
        if value is None:
            continue
        letter = side[0]
        parts.append((letter.upper() if reading.running == side else letter) + format_clock(value))
    return "[%clock " + " ".join(parts) + "]"


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", " ")


def write_game(
    tags: Mapping[str, str],
    moves: Sequence[str | Setup],
    *,
    start_fen: str | None = None,
    clocks: Sequence[ClockReading | None] | None = None,
    result: str | None = None,
    game_type: int | None = None,
    first_number: int = 1,
    comments: Mapping[int, str] | None = None,
) -> str:
    """One game as PDN 3.0 text, ending with a blank line.

    ``moves`` are move texts already in the rule set's notation (``firmware.notation``) and
    ``Setup`` items for positions the arbiter accepted mid-game (written ``/FEN "..."/``).
    ``start_fen`` is written as the FEN tag when the game did not start from the start position.
    ``clocks[i]`` (when given) is the clock after the i-th move text, written
    ``{[%clock wH:MM:SS BH:MM:SS]}``; a reading whose ``running`` is None gets the side to move
    next. ``result`` is the game's result in the rule set's form (``firmware.game``), ``*`` when
    the game is not over. ``comments[i]`` is written after the i-th move text.
    """
    all_tags: dict[str, str] = {}
    for key in ROSTER:
        all_tags[key] = tags.get(key) or _UNKNOWN.get(key, "?")
    if result is not None:
        all_tags["Result"] = result
    for key in ("GameType", "FEN", "TimeControl"):
        if tags.get(key):
            all_tags[key] = tags[key]
    if game_type is not None:
        all_tags["GameType"] = str(game_type)
    if start_fen is not None:
        all_tags["FEN"] = start_fen
    for key, value in tags.items():
        if key not in all_tags and value is not None:
            if not re.fullmatch(r"[A-Za-z][A-Za-z0-9_]*", key):
                raise PdnError(f"cannot write a PDN tag named {key!r}")
            all_tags[key] = value
    lines = [f'[{key} "{_escape(value)}"]' for key, value in all_tags.items()]
    lines.append("")

    words: list[str] = []
    white_to_move = not (start_fen or "W").strip().upper().startswith("B")
    number = first_number
    need_number = True
    ply = 0
    for item in moves:
        if isinstance(item, Setup):
            words.append(f'/FEN "{item.fen}"/')
            white_next = not item.fen.strip().upper().startswith("B")
            if white_next and not white_to_move and ply:
                number += 1  # White's number of this turn is used: the next White move is new
            white_to_move = white_next
            need_number = True
            continue
        item = item.replace(":", "x")  # captures with x in every game type (module doc)
        if white_to_move:
            words.append(f"{number}. {item}")
        elif need_number:
            words.append(f"{number}... {item}")
        else:
            words.append(item)
        need_number = False
        reading = clocks[ply] if clocks is not None and ply < len(clocks) else None
        if reading is not None and (reading.white is not None or reading.black is not None):
            running = reading.running or ("black" if white_to_move else "white")
            shown = ClockReading(reading.white, reading.black, running)
            words.append("{" + clock_command(shown) + "}")
        if comments and ply in comments:
            words.extend(_comment_words(comments[ply]))
        if not white_to_move:
            number += 1
        white_to_move = not white_to_move
        ply += 1
    words.append(all_tags["Result"])
    lines.extend(_wrap(words))
    return "\n".join(lines) + "\n\n"


def _comment_words(text: str) -> list[str]:
    clean = text.replace("{", "(").replace("}", ")").split()
    if not clean:
        return []
    clean[0] = "{" + clean[0]
    clean[-1] = clean[-1] + "}"
    return clean


def _wrap(words: Iterable[str]) -> list[str]:
    lines: list[str] = []
    current = ""
    for word in words:
        if current and len(current) + 1 + len(word) > LINE_WIDTH:
            lines.append(current)
            current = word
        else:
            current = f"{current} {word}" if current else word
    if current:
        lines.append(current)
    return lines


def game_moves(game: Game) -> list[str | Setup]:
    """A game's record as ``write_game`` takes it: move texts (shortest unambiguous form) and
    setups."""
    from firmware.notation import move_text

    out: list[str | Setup] = []
    before = game.start
    for move, after in game.record():
        if move is None:
            out.append(Setup(after.fen()))
        else:
            out.append(move_text(before, move))
        before = after
    return out


def format_game(
    game: Game,
    tags: Mapping[str, str] | None = None,
    clocks: Sequence[ClockReading | None] | None = None,
    comments: Mapping[int, str] | None = None,
) -> str:
    """A ``Game`` as PDN 3.0 (``write_game``): GameType from its rule set, the FEN tag when it
    did not start from the start position, the result from ``game.outcome()`` or ``*``."""
    from firmware.position import Position

    outcome = game.outcome()
    start_fen = None if game.start == Position.start(game.rules) else game.start.fen()
    return write_game(
        {**(tags or {}), **rules_tags(game.rules)},
        game_moves(game),
        start_fen=start_fen,
        clocks=clocks,
        result=outcome.result if outcome is not None else "*",
        comments=comments,
    )
