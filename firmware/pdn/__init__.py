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
``firmware.clock.timecontrol``), moves in the rule set's notation with captures written ``x`` in
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

from firmware.pdn.clock import clock_command, format_clock, parse_clock
from firmware.pdn.model import (
    GAME_TYPES,
    ClockReading,
    MoveText,
    PdnGame,
    Setup,
    item_label,
    replay_game,
    rules_for_game,
    rules_tags,
)
from firmware.pdn.read import read_games
from firmware.pdn.write import format_game, game_moves, write_game

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
    "item_label",
    "parse_clock",
    "read_games",
    "replay_game",
    "rules_for_game",
    "rules_tags",
    "write_game",
]

