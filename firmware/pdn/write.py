"""Writing PDN 3.0 (firmware.pdn): the tag roster, the moves in the rule set's notation with
``[%clock]`` comments, set-ups and the result, in lines under 80 characters."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

from firmware.errors import PdnError
from firmware.pdn.clock import clock_command
from firmware.pdn.model import ClockReading, Setup, rules_tags

if TYPE_CHECKING:
    from firmware.rules.game import Game

ROSTER = ("Event", "Site", "Date", "Round", "White", "Black", "Result")
_UNKNOWN = {"Date": "????.??.??", "Result": "*"}
LINE_WIDTH = 79


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

    ``moves`` are move texts already in the rule set's notation (``firmware.rules.notation``) and
    ``Setup`` items for positions the arbiter accepted mid-game (written ``/FEN "..."/``).
    ``start_fen`` is written as the FEN tag when the game did not start from the start position.
    ``clocks[i]`` (when given) is the clock after the i-th move text, written
    ``{[%clock wH:MM:SS BH:MM:SS]}``; a reading whose ``running`` is None gets the side to move
    next. ``result`` is the game's result in the rule set's form (``firmware.rules.game``), ``*``
    when
    the game is not over. ``comments[i]`` is written after the i-th move text.
    """
    all_tags = _tags(tags, result, game_type, start_fen)
    lines = [f'[{key} "{_escape(value)}"]' for key, value in all_tags.items()]
    lines.append("")
    words = _movetext(moves, start_fen, clocks, first_number, comments)
    words.append(all_tags["Result"])
    lines.extend(_wrap(words))
    return "\n".join(lines) + "\n\n"


def _tags(tags: Mapping[str, str], result: str | None, game_type: int | None,
          start_fen: str | None) -> dict[str, str]:
    """The tag section in order: the seven-tag roster, then GameType, FEN, TimeControl, then
    the rest as given."""
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
    return all_tags


def _movetext(moves: Sequence[str | Setup], start_fen: str | None,
              clocks: Sequence[ClockReading | None] | None, first_number: int,
              comments: Mapping[int, str] | None) -> list[str]:
    """The movetext's words: move numbers, moves, setups, ``[%clock]`` and comments."""
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
        words.extend(_clock_words(reading, white_to_move))
        if comments and ply in comments:
            words.extend(_comment_words(comments[ply]))
        if not white_to_move:
            number += 1
        white_to_move = not white_to_move
        ply += 1
    return words


def _clock_words(reading: ClockReading | None, white_moved: bool) -> list[str]:
    """``{[%clock ...]}`` after a move; a reading without ``running`` (None) gets the side to
    move next; ``running`` ``""`` says both clocks stand (paused, the game over): no capital."""
    if reading is None or (reading.white is None and reading.black is None):
        return []
    running = reading.running if reading.running is not None else (
        "black" if white_moved else "white")
    return ["{" + clock_command(ClockReading(reading.white, reading.black, running)) + "}"]


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
    from firmware.rules.notation import move_text

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
    from firmware.rules.position import Position

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
