"""The spoken game as one object the service holds: feed records in, speech out, the board
never waiting (docs/VOICE.md).

``Voice.say(record)`` (or ``send(line)``, a feed line: the form of the service's feed sinks)
appends to a bounded inbox and returns. Two threads of the voice's own do the rest:

- ``voice-words``: takes the records in order through the :class:`Narrator` (the game's
  picture, the words) and puts what is to be said on the speaker's queue; it also wakes when
  the running clock reaches 10 s left (``Narrator.due``), on the injected ``clock``;
- ``voice``: the :class:`Speaker`, one espeak-ng process at a time.

``close()`` stops both and kills the espeak-ng running, by its pid.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping
from typing import Any

from boardctl.voice.espeak import Espeak
from boardctl.voice.narrator import Narrator
from boardctl.voice.settings import VoiceSettings
from boardctl.voice.speaker import Speaker
from boardctl.voice.words import load
from firmware.formats.reader import FeedLine, Refusal, read_line
from firmware.limits import clip
from firmware.rules.sets import RuleSet

logger = logging.getLogger(__name__)

#: Records waiting for the narrator at most (it takes them in microseconds; only a narrator
#: stuck would let them pile up).
MAX_RECORDS = 1000


class Voice:
    """Feed records in, speech out (module docstring)."""

    def __init__(self, settings: VoiceSettings, *, rules: RuleSet | str = "international",
                 roles: Mapping[str, str] | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.settings = settings
        self.clock = clock
        words = load(settings.lang)
        self.narrator = Narrator(words, rules, roles)
        espeak = Espeak(settings.command, words.voice, settings.speed, settings.volume,
                        settings.device)
        self.speaker = Speaker(espeak, settings.out_dir or None, capacity=settings.queue,
                               max_seconds=settings.max_seconds, clock=clock)
        #: Records left out because the inbox was full; feed lines that did not decode.
        self.lost = 0
        self.damaged = 0
        self._inbox: deque[tuple[Mapping[str, Any] | str, float]] = deque()
        self._cond = threading.Condition()
        self._busy = False
        self._closed = False
        #: The board is stopping (:meth:`hush`): what it writes from now on is its own
        #: bookkeeping (the clocks paused for the stop), not something to say.
        self._hushed = False
        self._faults: set[str] = set()
        self._thread: threading.Thread | None = None

    def start(self) -> Voice:
        self.speaker.start()
        self._thread = threading.Thread(target=self._loop, name="voice-words", daemon=True)
        self._thread.start()
        return self

    def say(self, record: Mapping[str, Any]) -> None:
        """Hand over one feed record (any type); returns at once."""
        self._hand(record)

    def send(self, line: str) -> None:
        """Hand over one feed line (a feed sink's ``send``); decoded on the voice's thread."""
        self._hand(line)

    def poke(self) -> None:
        """Look at the clock again now (a test that moved its clock)."""
        with self._cond:
            self._cond.notify_all()

    def wait(self, timeout: float = 30.0) -> bool:
        """Wait until everything handed over is said or left out; False at ``timeout``."""
        deadline = time.monotonic() + timeout
        with self._cond:
            if not self._cond.wait_for(lambda: not (self._inbox or self._busy) or self._closed,
                                       timeout):
                return False
        return self.speaker.wait(max(0.0, deadline - time.monotonic()))

    def hush(self) -> None:
        """Say nothing handed over from now on (the board is stopping: a signal handler
        calls this, so it takes no lock); what was handed over before is still said."""
        self._hushed = True

    def close(self, timeout: float = 5.0) -> None:
        """Stop both threads and kill the espeak-ng running (by its pid)."""
        with self._cond:
            self._closed = True
            self._inbox.clear()
            self._cond.notify_all()
        self.speaker.close(timeout)
        if self._thread is not None:
            self._thread.join(timeout)

    def status(self) -> dict[str, Any]:
        """What the service's ``status`` may show of the voice."""
        s, q = self.speaker, self.speaker.queue
        return {"lang": self.settings.lang, "out_dir": self.settings.out_dir or None,
                "said": s.said, "dropped": q.dropped, "replaced": q.replaced,
                "unsaid": s.unsaid, "timeouts": s.timeouts, "lost": self.lost,
                "damaged": self.damaged, "quiet": s.quiet}

    def _hand(self, item: Mapping[str, Any] | str) -> None:
        if self._hushed:
            return
        now = self.clock()
        with self._cond:
            if self._closed:
                return
            if len(self._inbox) >= MAX_RECORDS:
                self._inbox.popleft()
                self.lost += 1
            self._inbox.append((item, now))
            self._cond.notify_all()

    def _loop(self) -> None:
        while (batch := self._next()) is not None:
            try:
                for item, at in batch:
                    self._hear(item, at)
                due = self.narrator.due(self.clock())  # disarms, said or not
                if due is not None and self.settings.ten_seconds:
                    self.speaker.put(due)
            except Exception as exc:  # a bug must not end the voice; said once a kind
                self._fault(exc)
            finally:
                with self._cond:
                    self._busy = False
                    self._cond.notify_all()

    def _next(self) -> list[tuple[Mapping[str, Any] | str, float]] | None:
        """The records waiting, or [] when the 10 s warning is due; None once closed."""
        with self._cond:
            while not self._closed:
                if self._inbox:
                    batch = list(self._inbox)
                    self._inbox.clear()
                    self._busy = True
                    return batch
                at = self.narrator.ten.at
                left = None if at is None else at - self.clock()
                if left is not None and left <= 0:
                    self._busy = True
                    return []
                self._cond.wait(left)
            return None

    def _hear(self, item: Mapping[str, Any] | str, at: float) -> None:
        """One record: a feed line read once by the feed's reader (a damaged or foreign line
        counted in ``damaged``), or an object, which the narrator reads the same way."""
        if isinstance(item, str):
            line = read_line(item)
            if not isinstance(line, FeedLine):
                self.damaged += 1
                return
            if isinstance(line.record, Refusal):
                self.narrator.refused(str(line.record))
                return
            said = self.narrator.hear(line.record, at, line.game)
        else:
            said = self.narrator.hear(item, at)
        for utterance in said:
            self.speaker.put(utterance)

    def _fault(self, exc: Exception) -> None:
        name = type(exc).__name__
        if name not in self._faults and len(self._faults) < 16:
            self._faults.add(name)
            logger.error(f"voice: {name}: {clip(str(exc), 200)} (a record left unsaid; "
                         "said once)")


def open_voice(settings: VoiceSettings, *, rules: RuleSet | str = "international",
               roles: Mapping[str, str] | None = None) -> Voice | None:
    """A started :class:`Voice` for ``settings``, or None when the voice is off."""
    if not settings.enabled:
        return None
    return Voice(settings, rules=rules, roles=roles).start()
