"""``[voice]`` and ``--voice`` (issue 40 item 3): defaults, every key, one-line errors naming
the key, the command line over the file, and ``python -m boardctl.voice`` as a real process
speaking ``boardctl replay --format feed`` into WAV files."""

from __future__ import annotations

import argparse
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from voice_games import WK2003, need, played_game, rms

from boardctl.voice import VoiceSettings, open_voice
from boardctl.voice.settings import add_arguments, from_arguments, from_table
from firmware.errors import ConfigError
from firmware.formats.feed import encode_line

SECTION = """
[voice]
enabled = true
lang = "et"
out_dir = "/tmp/voice"
speed = 140
volume = 150
device = "plughw:1,0"
ten_seconds = false
command = "/usr/bin/espeak-ng"
queue = 12
max_seconds = 20
"""


def test_defaults_and_every_key() -> None:
    assert from_table({}) == VoiceSettings()
    assert VoiceSettings().lang == "en" and not VoiceSettings().enabled
    got = from_table(tomllib.loads(SECTION)["voice"], "board.toml")
    assert got == VoiceSettings(True, "et", "/tmp/voice", 140, 150, "plughw:1,0", False,
                                "/usr/bin/espeak-ng", 12, 20.0)
    assert from_table({"out_dir": "", "device": ""}) == VoiceSettings()


@pytest.mark.parametrize(("table", "message"), [
    ({"langauge": "et"}, "board.toml: voice.langauge: unknown key; did you mean 'lang'?"),
    ({"lang": "xx"}, "board.toml: voice.lang: no words for 'xx' (known: en, et, fr, nl, ru)"),
    ({"speed": 1000}, "board.toml: voice.speed: 1000 is out of range 80..450"),
    ({"volume": "loud"}, "board.toml: voice.volume: expected an integer, got str 'loud'"),
    ({"enabled": "yes"}, "board.toml: voice.enabled: expected true or false, got str 'yes'"),
    ({"queue": 0}, "board.toml: voice.queue: 0 is out of range 1..100"),
    ("on", "board.toml: voice: expected a table ([voice]), got str 'on'"),
])
def test_a_wrong_key_is_one_line(table: object, message: str) -> None:
    with pytest.raises(ConfigError) as err:
        from_table(table, "board.toml")
    assert str(err.value).startswith(message)
    assert "\n" not in str(err.value)


def _args(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    return parser.parse_args(argv)


def test_the_command_line_over_the_file() -> None:
    base = from_table({"lang": "ru", "speed": 120})
    assert from_arguments(_args(), base) == base
    assert from_arguments(_args("--voice"), base) == VoiceSettings(True, "ru", speed=120)
    got = from_arguments(_args("--voice-out", "/tmp/w", "--voice-lang", "nl",
                               "--voice-volume", "180"), base)
    assert got == VoiceSettings(True, "nl", "/tmp/w", 120, 180)  # --voice-out: the voice on
    with pytest.raises(ConfigError, match=r"^--voice-speed: 20 is out of range 80..450$"):
        from_arguments(_args("--voice-speed", "20"))
    with pytest.raises(SystemExit):
        _args("--voice-lang", "xx")


def test_open_voice_is_none_when_off() -> None:
    assert open_voice(VoiceSettings()) is None


def test_replay_feed_spoken_by_the_module_as_a_process(tmp_path: Path) -> None:
    """Feed lines on stdin (a real game's, from ``boardctl replay``), each said before the
    next: one WAV per utterance, audible; a damaged line is counted, not said."""
    need("espeak-ng", "sox")
    game = played_game(tmp_path, WK2003, "international", 8)
    lines = [encode_line(r, n) for n, r in enumerate(game.records)]
    lines.insert(3, '{"seq":99,"type":"move","crc":"deadbeef"}\n')
    out = tmp_path / "wav"
    done = subprocess.run([sys.executable, "-m", "boardctl.voice", "--voice-lang", "fr",
                           "--voice-out", str(out)], input="".join(lines), text=True,
                          capture_output=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stderr.strip() == "said 9, damaged lines 1"
    names = sorted(p.name for p in out.iterdir())
    assert names == ["0001-game.wav"] + [f"{n:04d}-move.wav" for n in range(2, 10)]
    assert min(rms(out / name) for name in names) > 0.01


def test_the_module_refuses_a_missing_file_in_one_line(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "boardctl.voice", "--voice-out",
                           str(tmp_path / "wav"), str(tmp_path / "nothing.jsonl")],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 1
    assert done.stderr.splitlines()[0].startswith("python -m boardctl.voice: [Errno 2]")
    assert "Traceback" not in done.stderr
