"""The words table (issue 40 item 3.1): every language has every key of the reference with the
same {names}, espeak-ng knows its voice and reads its sentences in that language (numbers as
words, no English letters in the middle), a faulty translation falls back to English and says
so once, an unknown language is one line."""

from __future__ import annotations

import difflib
import logging
import re
import subprocess

import pytest
from voice_games import need

from boardctl.voice.words import REFERENCE, Words, check, fields_of, languages, load, read_table
from firmware.errors import ConfigError
from firmware.referee.kinds import KINDS
from firmware.rules.sets import RULESETS, find_rules

REQUIRED = ("en", "et", "ru", "nl", "fr")


def test_the_languages_asked_for_are_there() -> None:
    assert set(REQUIRED) <= set(languages())


@pytest.mark.parametrize("lang", languages())
def test_every_language_has_every_key(lang: str) -> None:
    assert check(lang, read_table(lang), read_table(REFERENCE)) == []
    assert set(read_table(lang)) == set(read_table(REFERENCE))


def test_the_reference_covers_the_vocabularies() -> None:
    """A key for every irregularity kind (firmware/referee/kinds.py), every rule set, both
    sides' flags and 10 s, every LED meaning that asks something."""
    ref = read_table(REFERENCE)
    assert {f"irregularity.{k}" for k in KINDS} <= set(ref)
    assert {f"rules.{name}" for name in RULESETS} <= set(ref)
    for side in ("white", "black"):
        assert {f"flag.{side}", f"ten_seconds.{side}", f"result.{side}"} <= set(ref)
    for meaning in ("restore", "remove", "must_move", "wrong"):
        assert {f"leds.{meaning}_one", f"leds.{meaning}_many"} <= set(ref)


def _filled(lang: str) -> list[str]:
    """Every template of a language filled with squares and moves as the narrator fills
    them (10x10 numbers, and an 8x8 square as the table says it)."""
    words = load(lang)
    sample = {"from": "32", "to": "28", "move": "32 28", "squares": "19",
              "side": words.text("side.white"), "rules": words.text("rules.russian"),
              "letter": words.letters[2], "rank": "3"}
    out = []
    for key, text in words.table.items():
        if isinstance(text, str) and (not key.startswith("language.")
                                      or key == "language.square"):
            out.append(str(text).format_map({k: sample[k] for k in fields_of(str(text))}))
    out.append(words.square("c3", find_rules("russian")))
    return out


#: Square numbers as each language writes them in words.
NUMBERS = {
    "en": {"1": "one", "19": "nineteen", "32": "thirty-two", "50": "fifty"},
    "et": {"1": "üks", "19": "üheksateist", "32": "kolmkümmend kaks", "50": "viiskümmend"},
    "ru": {"1": "один", "19": "девятнадцать", "32": "тридцать два", "50": "пятьдесят"},
    "nl": {"1": "een", "19": "negentien", "32": "tweeëndertig", "50": "vijftig"},
    "fr": {"1": "un", "19": "dix-neuf", "32": "trente-deux", "50": "cinquante"},
}


def _phonemes(voice: str, text: str) -> str:
    out = subprocess.run(["espeak-ng", "-q", "--ipa", "-v", voice, "--", text],
                         capture_output=True, text=True, check=True)
    assert out.stderr == ""
    return out.stdout


@pytest.mark.parametrize("lang", [x for x in languages() if x != "en"])
def test_espeak_reads_each_language_in_that_language(lang: str) -> None:
    """espeak-ng's phonemes of every filled template show no switch to another language
    (``(en)``: Latin letter names read as English in Russian)."""
    need("espeak-ng")
    assert "(en)" not in _phonemes(load(lang).voice, "\n".join(_filled(lang)))


@pytest.mark.parametrize("lang", REQUIRED)
def test_espeak_reads_square_numbers_as_the_languages_words(lang: str) -> None:
    """The squares go to espeak-ng as digits: it reads them as the number words written
    out (phonemes alike but for stress and length marks)."""
    need("espeak-ng")
    voice = load(lang).voice

    def bare(text: str) -> str:
        return re.sub(r"[ˈˌː\s-]", "", _phonemes(voice, text))

    for digits, words in NUMBERS[lang].items():
        alike = difflib.SequenceMatcher(None, bare(digits), bare(words)).ratio()
        assert alike >= 0.7, (lang, digits, bare(digits), bare(words))


@pytest.mark.parametrize("lang", languages())
def test_espeak_knows_the_voice(lang: str) -> None:
    need("espeak-ng")
    got = subprocess.run(["espeak-ng", "-q", "-v", load(lang).voice, "--", "1"],
                         capture_output=True, text=True)
    assert got.returncode == 0 and got.stderr == "", got.stderr


def test_a_faulty_translation_falls_back_to_english_once(
        caplog: pytest.LogCaptureFixture) -> None:
    ref = read_table(REFERENCE)
    table = dict(read_table("nl"))
    del table["flag.white"]
    table["move.capture"] = "{from} slaat"  # {to} lost
    table["result.draw"] = "Remise."  # a full stop the narrator adds
    table["game.new"] = "Nieuwe partij: {rules"
    faults = check("nl", table, ref)
    assert faults == ["nl: lacks flag.white",
                      "nl: move.capture fills ['from'], en.toml ['from', 'to']",
                      "nl: result.draw ends with punctuation (the narrator adds it)",
                      "nl: game.new fills ['<unmatched brace>'], en.toml ['rules']"]
    with caplog.at_level(logging.WARNING, logger="boardctl.voice.words"):
        words = Words("nl", table, ref)
    assert words.text("flag.white") == ref["flag.white"]
    assert words.text("move.capture", **{"from": "28", "to": "19"}) == "28 takes 19"
    assert words.text("flag.black") == "De vlag van zwart is gevallen"
    assert len(caplog.records) == 1 and "4 faults" in caplog.records[0].getMessage()


def test_an_unknown_language_is_one_line() -> None:
    with pytest.raises(ConfigError) as err:
        load("xx")
    assert str(err.value) == ("voice: no words for language 'xx' (known: "
                              f"{', '.join(languages())})")
    assert "\n" not in str(err.value)


def test_squares_in_the_rule_sets_notation() -> None:
    en, ru = load("en"), load("ru")
    international, russian = find_rules("international"), find_rules("russian")
    assert en.square("a1", international) == "46"  # CONTRACT.md: a1 is 46 on 10x10
    assert en.square("32", international) == "32"
    assert en.square("c3", russian) == "c3"
    assert ru.square("c3", russian) == "цэ 3"
    assert ru.square("h8", russian) == "аш 8"
    assert en.square("z9", russian) == "z9"  # not a square: said as given
    assert en.join(["1", "2", "3"]) == "1, 2 and 3" and ru.join(["1", "2"]) == "1 и 2"
