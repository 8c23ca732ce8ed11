"""The speaker: a thread of its own that says the utterances of a bounded queue one at a time,
in order, each by an espeak-ng process started ahead and waiting for its text
(``boardctl.voice.espeak.Runner``: a move's speech does not wait for espeak-ng to start): on
the audio out, or with an output directory as WAV files numbered in order (``0001-game.wav``,
``0002-move.wav``, ...; numbering goes on after the files already there).

Whoever puts an utterance never waits: a full queue drops (``utterances.SpeechQueue``). When
espeak-ng cannot run (not installed, not executable) or cannot sound (no audio device), the
speaker says why once in the log (a program not on PATH as it starts) and goes quiet: what
comes after is counted and forgotten, and the board plays on. An espeak-ng that does not end
within ``max_seconds`` is killed (logged; the next utterance is said). :meth:`Speaker.close`
kills the process running and the one waiting, by their pids, and ends the thread.
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
import shutil
import threading
import time
from collections import deque
from collections.abc import Callable
from pathlib import Path

from boardctl.voice.espeak import Espeak, Run, Runner, failure
from boardctl.voice.utterances import SpeechQueue, Utterance

logger = logging.getLogger(__name__)

_NUMBERED = re.compile(r"(\d{4,})-[a-z-]+\.wav")
#: File names kept in :attr:`Speaker.files` (the latest).
KEEP_NAMES = 1000


class WavFiles:
    """The output directory's next file names, in order."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.number = 0

    def open(self) -> None:
        """Create the directory; numbering goes on after the files in it (OSError)."""
        self.directory.mkdir(parents=True, exist_ok=True)
        numbers = [int(m.group(1)) for p in self.directory.iterdir()
                   if (m := _NUMBERED.fullmatch(p.name))]
        self.number = max(numbers, default=0)

    def upcoming(self) -> Path:
        """The part file the next utterance's espeak-ng writes (known before its kind: the
        process is started ahead)."""
        return self.directory / f".{self.number + 1:04d}.wav.part"

    def next(self, kind: str) -> tuple[Path, Path]:
        """(the part file espeak-ng writes, the name it gets once whole)."""
        part = self.upcoming()
        self.number += 1
        name = f"{self.number:04d}-{re.sub(r'[^a-z-]', '', kind) or 'speech'}.wav"
        return part, self.directory / name


class Speaker:
    """Utterances in, speech out, on the speaker's thread (module docstring)."""

    def __init__(self, espeak: Espeak, out_dir: str | Path | None = None, *,
                 capacity: int = 8, max_seconds: float = 30.0,
                 clock: Callable[[], float] = time.monotonic, nice: int = 5) -> None:
        self.espeak = espeak
        self.queue = SpeechQueue(capacity)
        self.runner = Runner(clock, nice)
        self.max_seconds = max_seconds
        self.wavs = WavFiles(Path(out_dir)) if out_dir is not None else None
        #: Why the voice is quiet (one line), or None while it speaks.
        self.quiet: str | None = None
        self.said = 0
        #: Utterances not said because the voice is quiet.
        self.unsaid = 0
        #: espeak-ng processes killed at the deadline.
        self.timeouts = 0
        #: The WAV files written (the latest ``KEEP_NAMES``).
        self.files: deque[Path] = deque(maxlen=KEEP_NAMES)
        self._thread: threading.Thread | None = None
        self._count = threading.Lock()

    def start(self) -> Speaker:
        """Start the thread; a program that is not there is named now (at the board's
        start), not at the first utterance."""
        if shutil.which(self.espeak.command) is None:
            self._go_quiet(f"cannot run {self.espeak.command!r}: not found "
                           "(install espeak-ng: apt install espeak-ng)")
        elif self.wavs is not None:
            try:
                self.wavs.open()
            except OSError as exc:
                self._go_quiet(f"cannot write WAV files to {self.wavs.directory}: "
                               f"{exc.strerror or exc}")
        self._thread = threading.Thread(target=self._loop, name="voice", daemon=True)
        self._thread.start()
        return self

    def put(self, utterance: Utterance) -> None:
        """Say ``utterance`` after those waiting; returns at once."""
        if self.quiet is not None:
            self._unsaid(1)
            return
        self.queue.put(utterance)

    def wait(self, timeout: float | None = None) -> bool:
        """Wait until everything put is said or left out; False at ``timeout``."""
        return self.queue.join(timeout)

    def close(self, timeout: float = 5.0) -> None:
        """Forget what waits, kill the espeak-ng running (by its pid), end the thread."""
        self.queue.close()
        self.runner.kill()
        if self._thread is not None:
            self._thread.join(timeout)

    def _command(self) -> list[str]:
        """The next utterance's command line, its text read from stdin."""
        return self.espeak.argv(None, self.wavs.upcoming() if self.wavs is not None else None)

    def _loop(self) -> None:
        if self.quiet is None:
            self.runner.warm(self._command())  # ahead of the first utterance
        while (utterance := self.queue.take()) is not None:
            try:
                if self.quiet is None:
                    self._say(utterance)
                else:
                    self._unsaid(1)
            except Exception as exc:  # a bug must not end the thread: quiet, said once
                self._go_quiet(f"{type(exc).__name__}: {exc}")
            finally:
                self.queue.done()

    def _say(self, utterance: Utterance) -> None:
        part = final = None
        if self.wavs is not None:
            part, final = self.wavs.next(utterance.kind)
        try:
            run = self.runner.run(self.espeak.argv(None, part), utterance.text,
                                  self.max_seconds, then=self._command())
        except OSError as exc:
            self._go_quiet(f"cannot run {self.espeak.command!r}: {exc.strerror or exc} "
                           "(install espeak-ng: apt install espeak-ng)")
            return
        if run.stopped:  # killed at the close, maybe half-written
            _discard(part)
            return
        if run.timed_out:
            _discard(part)
            self._timed_out()
            return
        problem = failure(run, audio=part is None) or self._file_problem(run, part)
        if problem is not None:
            _discard(part)
            self._go_quiet(f"{self.espeak.command}: {problem}")
            return
        if part is not None and final is not None:
            try:
                os.replace(part, final)
            except OSError as exc:
                self._go_quiet(f"cannot write {final}: {exc.strerror or exc}")
                return
            self.files.append(final)
        self.said += 1

    @staticmethod
    def _file_problem(run: Run, part: Path | None) -> str | None:
        if part is None:
            return None
        try:
            if part.stat().st_size > 44:  # more than a WAV header
                return None
        except OSError:
            pass
        return f"wrote no sound to {part}"

    def _timed_out(self) -> None:
        self.timeouts += 1
        if self.timeouts == 1 or self.timeouts % 100 == 0:
            logger.warning(f"voice: {self.espeak.command} did not end within "
                           f"{self.max_seconds:g} s: killed ({self.timeouts} so far)")

    def _go_quiet(self, why: str) -> None:
        if self.quiet is None:
            self.quiet = why
            self.runner.cool()
            logger.error(f"voice: {why}: the voice is quiet from now on (docs/VOICE.md)")
        self._unsaid(self.queue.clear())

    def _unsaid(self, n: int) -> None:
        with self._count:
            self.unsaid += n


def _discard(part: Path | None) -> None:
    if part is not None:
        with contextlib.suppress(OSError):
            part.unlink(missing_ok=True)
