"""The words of the spoken game: one table per language, a TOML file in ``lang/`` (``en.toml``
is the reference; a translator copies it, docs/VOICE.md).

A table is read once into :class:`Words`: ``text(key, **fields)`` fills one template
(``"move.capture"`` with ``from`` and ``to``), ``square(name, rules)`` says a square in the
rule set's notation (a number on 10x10, a letter and a rank on 8x8, the letter as the table
names it), ``join(items)`` makes a list ("32, 28 and 19"), ``sentences(parts)`` joins
sentences with the language's break. Numbers stay digits: espeak-ng reads them as words in
each language (docs/VOICE.md). A key a translation lacks, or whose ``{names}`` differ from the
reference's, is said from the English table, and named once in the log.
"""

from __future__ import annotations

import logging
import string
import tomllib
from collections.abc import Iterable, Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import Any

from firmware.errors import ConfigError, SquareError
from firmware.limits import clip
from firmware.rules.sets import RuleSet

logger = logging.getLogger(__name__)

LANG_DIR = Path(__file__).with_name("lang")
REFERENCE = "en"
#: What ``[language]`` holds besides the templates.
LANGUAGE_KEYS = ("name", "voice", "sentence_break", "list_comma", "list_and", "square",
                 "letters")
#: A table is a few KiB; a bigger file is not a word table.
MAX_TABLE = 64 * 1024


def languages() -> tuple[str, ...]:
    """The languages that have a table, by code (``en``, ``et``, ...), sorted."""
    return tuple(sorted(p.stem for p in LANG_DIR.glob("*.toml")))


def fields_of(template: str) -> frozenset[str]:
    """The ``{names}`` a template fills (a brace left open counts as a name no reference
    template fills)."""
    try:
        return frozenset(name for _, name, _, _ in string.Formatter().parse(template) if name)
    except ValueError:
        return frozenset({"<unmatched brace>"})


def read_table(lang: str) -> dict[str, Any]:
    """One language's file, flat: ``"move.capture"`` -> text, ``"language.letters"`` -> list.
    ConfigError for a language without a table or a file that does not read."""
    if lang not in languages():
        raise ConfigError(f"voice: no words for language {clip(repr(lang), 40)} "
                          f"(known: {', '.join(languages())})")
    path = LANG_DIR / f"{lang}.toml"
    try:
        raw = path.read_bytes()
        if len(raw) > MAX_TABLE:
            raise ValueError(f"larger than {MAX_TABLE} bytes")
        data = tomllib.loads(raw.decode("utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise ConfigError(f"voice: {path}: {clip(str(exc), 200)}") from None
    flat: dict[str, Any] = {}
    for section, table in data.items():
        if isinstance(table, dict):
            flat.update((f"{section}.{key}", value) for key, value in table.items())
        else:
            flat[section] = table
    return flat


def problems(lang: str) -> list[str]:
    """What is wrong with a language's table against the reference, one line each (the test
    of every language)."""
    return check(lang, read_table(lang), read_table(REFERENCE))


def check(lang: str, table: Mapping[str, Any], ref: Mapping[str, Any]) -> list[str]:
    """:func:`problems` of a table already read."""
    out = [f"{lang}: lacks {key}" for key in ref if key not in table]
    out += [f"{lang}: {key} is not in {REFERENCE}.toml" for key in table if key not in ref]
    for key, text in table.items():
        if key not in ref or key == "language.letters":
            continue
        if not isinstance(text, str) or not text.strip() or "\n" in text:
            out.append(f"{lang}: {key} is not one line of text")
        elif fields_of(text) != fields_of(ref[key]):
            out.append(f"{lang}: {key} fills {sorted(fields_of(text))}, "
                       f"{REFERENCE}.toml {sorted(fields_of(ref[key]))}")
        elif not key.startswith("language.") and text.rstrip()[-1] in ".!?;:,":
            out.append(f"{lang}: {key} ends with punctuation (the narrator adds it)")
    letters = table.get("language.letters")
    if not (isinstance(letters, list) and len(letters) == 10
            and all(isinstance(x, str) and x.strip() for x in letters)):
        out.append(f"{lang}: language.letters is not ten names (a to j)")
    return out


class Words:
    """One language's table, checked against the reference (module docstring)."""

    def __init__(self, lang: str, table: Mapping[str, Any], reference: Mapping[str, Any]) -> None:
        self.lang = lang
        merged = dict(reference)
        merged.update((key, text) for key, text in table.items()
                      if key in reference and _fits(text, reference[key], key))
        bad = [line.split(": ", 1)[1] for line in check(lang, table, reference)]
        if bad:
            logger.warning(f"voice: the {lang} words have {len(bad)} faults, said from "
                           f"{REFERENCE}.toml: {clip('; '.join(bad), 300)}")
        self.table = merged
        self.name = str(merged["language.name"])
        self.voice = str(merged["language.voice"])
        self.sentence_break = str(merged["language.sentence_break"])
        self.letters = tuple(str(x) for x in merged["language.letters"])

    def has(self, key: str) -> bool:
        return key in self.table

    def text(self, key: str, **fields: str) -> str:
        """One template filled (KeyError for a key no table has: a bug of the narrator)."""
        return str(self.table[key]).format_map(fields)

    def join(self, items: Sequence[str]) -> str:
        """``a``, ``a and b``, ``a, b and c`` in this language."""
        if len(items) <= 1:
            return "".join(items)
        comma = str(self.table["language.list_comma"])
        return comma.join(items[:-1]) + str(self.table["language.list_and"]) + items[-1]

    def sentences(self, parts: Iterable[str]) -> str:
        return self.sentence_break.join(p for p in parts if p)

    def square(self, name: str, rules: RuleSet) -> str:
        """A square (algebraic, as sensors and the feed's ``squares`` name it, or a number)
        as the rule set's notation says it: ``32`` on 10x10, ``c3`` on 8x8 (its letter as the
        table names it). A name that is no square is said as given."""
        try:
            text = rules.square_name(rules.geometry.parse_square(name))
        except (SquareError, ValueError):
            return name
        if not rules.algebraic_notation:
            return text
        return self.text("language.square", letter=self.letters[ord(text[0]) - ord("a")],
                         rank=text[1:])


def _fits(text: Any, ref: Any, key: str) -> bool:
    if key == "language.letters":
        return (isinstance(text, list) and len(text) == 10
                and all(isinstance(x, str) and x.strip() for x in text))
    return isinstance(text, str) and bool(text.strip()) and fields_of(text) == fields_of(ref)


@cache
def load(lang: str) -> Words:
    """The words of ``lang`` (read once); ConfigError for a language without a table."""
    return Words(lang, read_table(lang), read_table(REFERENCE))
