"""The voice's settings: the config file's ``[voice]`` section and ``boardctl run``'s
``--voice`` options (the options win).

``[voice]`` keys (all optional)::

    [voice]
    enabled = false        # --voice
    lang = "en"            # --voice-lang: en, et, fr, nl, ru (boardctl/voice/lang/*.toml)
    out_dir = ""           # --voice-out DIR: WAV files instead of sound
    speed = 160            # --voice-speed: words a minute, 80-450 (espeak-ng -s)
    volume = 100           # --voice-volume: 0-200 (espeak-ng -a)
    device = ""            # --voice-device: an ALSA device (espeak-ng -d), "" the default
    ten_seconds = true     # say "ten seconds left" on a running clock
    command = "espeak-ng"  # the program (a path, or a name on PATH)
    queue = 8              # utterances waiting at most (1-100)
    max_seconds = 30       # an utterance longer is cut (1-600)

The section is checked as ``hw.config`` checks its own (its reader, its one-line errors
naming the key). ``hw.config.parse_config`` does not know ``[voice]`` yet: the service's
integration hands the section's table to :func:`from_table` (or moves this reader there).
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass, replace
from typing import Any

from boardctl.voice.words import languages
from firmware.errors import ConfigError
from hw.configreader import TableReader


@dataclass(frozen=True, slots=True)
class VoiceSettings:
    enabled: bool = False
    lang: str = "en"
    out_dir: str = ""
    speed: int = 160
    volume: int = 100
    device: str = ""
    ten_seconds: bool = True
    command: str = "espeak-ng"
    queue: int = 8
    max_seconds: float = 30.0


def from_table(data: Any, source: str = "<config>") -> VoiceSettings:
    """The ``[voice]`` table of a config file (already parsed); ConfigError naming the key."""
    r = TableReader(source)
    v = r.table(data, "voice", VoiceSettings)
    lang = r.string(v, "voice", "lang", "en")
    check_lang(lang, f"{source}: voice.lang")
    return VoiceSettings(
        enabled=r.boolean(v, "voice", "enabled", False),
        lang=lang,
        out_dir=_maybe(r, v, "out_dir"),
        speed=r.integer(v, "voice", "speed", 160, 80, 450),
        volume=r.integer(v, "voice", "volume", 100, 0, 200),
        device=_maybe(r, v, "device"),
        ten_seconds=r.boolean(v, "voice", "ten_seconds", True),
        command=r.string(v, "voice", "command", "espeak-ng"),
        queue=r.integer(v, "voice", "queue", 8, 1, 100),
        max_seconds=r.number(v, "voice", "max_seconds", 30.0, 1.0, 600.0),
    )


def _maybe(r: TableReader, v: dict[str, Any], name: str) -> str:
    """A string key whose "" means none."""
    return "" if v.get(name) == "" else r.string(v, "voice", name, "")


def check_lang(lang: str, where: str) -> None:
    if lang not in languages():
        raise ConfigError(f"{where}: no words for {lang[:40]!r} (known: "
                          f"{', '.join(languages())})")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``--voice`` and its options, as an argument group of ``parser`` (``boardctl run``)."""
    g = parser.add_argument_group("the spoken game (docs/VOICE.md)")
    g.add_argument("--voice", action="store_true", default=None,
                   help="say moves, the computer's moves to carry out, irregularities, flags, "
                   "10 s left and results aloud (espeak-ng; config [voice])")
    g.add_argument("--voice-lang", metavar="LANG", choices=languages(),
                   help=f"the language spoken: {', '.join(languages())} (default en)")
    g.add_argument("--voice-out", metavar="DIR", help="write each utterance as a WAV file in "
                   "DIR (0001-move.wav, ...) instead of sounding it (implies --voice)")
    g.add_argument("--voice-speed", type=int, metavar="WPM", help="words a minute, 80-450 "
                   "(default 160)")
    g.add_argument("--voice-volume", type=int, metavar="N", help="volume, 0-200 "
                   "(default 100)")
    g.add_argument("--voice-device", metavar="DEVICE", help="ALSA output device (aplay -L; "
                   "default: ALSA's default)")


def from_arguments(args: argparse.Namespace, base: VoiceSettings | None = None) -> VoiceSettings:
    """``base`` (the config's section) with the command line's ``--voice`` options over it;
    ConfigError for a value out of range."""
    s = base or VoiceSettings()
    given: dict[str, Any] = {}
    if getattr(args, "voice", None):
        given["enabled"] = True
    for option, key in (("voice_lang", "lang"), ("voice_out", "out_dir"),
                        ("voice_speed", "speed"), ("voice_volume", "volume"),
                        ("voice_device", "device")):
        value = getattr(args, option, None)
        if value is not None:
            given[key] = value
    if given.get("out_dir"):
        given["enabled"] = True
    s = replace(s, **given)
    for key, lo, hi in (("speed", 80, 450), ("volume", 0, 200)):
        if not lo <= getattr(s, key) <= hi:
            raise ConfigError(f"--voice-{key}: {getattr(s, key)} is out of range {lo}..{hi}")
    check_lang(s.lang, "--voice-lang")
    return s
