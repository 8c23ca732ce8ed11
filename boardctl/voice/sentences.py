"""The sentences of the spoken game, from the words table and what the records say: a move
read out, the LEDs' instructions, a result with its reason. Pure functions over
:class:`boardctl.voice.words.Words`; the narrator decides when each is said."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from boardctl.voice.reading import SpokenMove
from boardctl.voice.words import Words
from firmware.errors import BoardError
from firmware.rules.sets import RuleSet

#: The LED meanings that ask something of the person at the board (docs/DESIGN.md), in the
#: order they are said; ``last-move`` asks nothing.
LED_ORDER = ("restore", "remove", "wrong", "must-move")
#: Results as PDN writes them (firmware.rules.game.RESULTS) -> the words' key.
RESULT_KEYS = {"1-0": "white", "2-0": "white", "0-1": "black", "0-2": "black",
               "1/2-1/2": "draw", "1-1": "draw", "½-½": "draw", "0-0": "none"}


def move_words(words: Words, rules: RuleSet, move: SpokenMove) -> str:
    """``32 to 28``, ``28 takes 19``, ``26 takes 17, then 8``, and the crowning."""
    say = [words.square(s, rules) for s in move.squares]
    key = "move.capture" if move.capture else "move.simple"
    text = words.text(key, **{"from": say[0], "to": say[1]})
    for further in say[2:]:
        text += words.text("language.list_comma") + words.text("move.step", to=further)
    if move.promotes:
        text = words.text("move.promotion", move=text)
    return text


def squares_words(words: Words, rules: RuleSet, squares: Sequence[str]) -> str:
    """A list of squares in board order, in the rule set's notation."""
    return words.join([words.square(s, rules) for s in sorted(squares, key=_order(rules))])


def led_sentences(words: Words, rules: RuleSet, leds: Mapping[str, str]) -> list[str]:
    """What the LEDs ask, one sentence per meaning (``Put a piece back on 32 and 28``)."""
    out = []
    for meaning in LED_ORDER:
        squares = [sq for sq, m in leds.items() if m == meaning]
        if squares:
            number = "one" if len(squares) == 1 else "many"
            key = f"leds.{meaning.replace('-', '_')}_{number}"
            out.append(words.text(key, squares=squares_words(words, rules, squares)))
    return out


def take_off_sentence(words: Words, rules: RuleSet, captured: Sequence[str]) -> str:
    if not captured:
        return ""
    key = "instruct.take_off_one" if len(captured) == 1 else "instruct.take_off_many"
    return words.text(key, squares=squares_words(words, rules, captured))


def reason_key(reason: str, result_key: str) -> str | None:
    """The words' key for a result's reason (the feed's free text: firmware.rules.game,
    firmware.session), or None to say only the result."""
    text = reason.lower()
    for needle, key in (("resign", "resignation"), ("agreement", "agreement"),
                        ("default", "default"), ("no pieces", "no_pieces"),
                        ("no legal move", "no_moves"), ("repetition", "repetition"),
                        ("arbiter", "arbiter")):
        if needle in text:
            return f"reason.{key}"
    if result_key == "draw" and "(" in text:  # a draw rule, cited: "25-move rule (003 ...)"
        return "reason.draw_rule"
    return None


def result_sentences(words: Words, result: str, reason: str, flag: str | None) -> list[str]:
    """``flag``'s fallen flag (a time forfeit) or the reason, then the result; empty for a
    result text that is no result."""
    key = RESULT_KEYS.get(result.strip())
    if key is None:
        return []
    why = f"flag.{flag}" if flag is not None else reason_key(reason, key)
    said = [words.text(why)] if why is not None else []
    return [*said, words.text(f"result.{key}")]


def _order(rules: RuleSet) -> Callable[[str], tuple[int, str]]:
    def key(name: str) -> tuple[int, str]:
        try:
            return rules.geometry.parse_square(name), name
        except (BoardError, ValueError):
            return 10_000, name
    return key
