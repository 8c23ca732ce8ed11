"""The spoken game (issue 40): feed records in, speech out through espeak-ng, in the player's
language, never delaying the board (docs/VOICE.md).

- :class:`Voice` (``voice``): what the service holds: ``say(record)`` / ``send(line)``,
  ``close()``, ``status()``; :func:`open_voice` builds one from :class:`VoiceSettings`.
- ``narrator``: records -> utterances (``sentences``: the sentences, ``reading``: a move read
  out, ``track``: the game's picture, ``tenseconds``: the 10 s warning).
- ``words`` and ``lang/*.toml``: one table a language.
- ``speaker`` (the thread and the WAV files), ``espeak`` (the process), ``utterances`` (the
  bounded queue).
- ``settings``: ``[voice]`` and ``--voice``; ``__main__``: ``python -m boardctl.voice``
  speaks feed lines from stdin.
"""

from boardctl.voice.settings import VoiceSettings
from boardctl.voice.voice import Voice, open_voice

__all__ = ["Voice", "VoiceSettings", "open_voice"]
