"""espeak-ng, one process per utterance: its command line, and a runner that starts it, waits
for it with a deadline, and lets another thread kill it by its pid.

espeak-ng speaks on the default audio device (ALSA through pcaudiolib; ``-d DEVICE`` names
another) or, with ``-w FILE``, writes a WAV file and touches no device. It exits 0 even when
it cannot open the audio device, and says so on stderr (``ALSA lib ... Unknown PCM default``,
``error: No such file or directory``): :func:`failure` reads that. Each process runs in a
session of its own (its pid is its process group's id), so a stop or a deadline kills it and
anything it started; it runs at a lower priority (``nice``) than the board's service.
"""

from __future__ import annotations

import contextlib
import os
import re
import selectors
import signal
import subprocess
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

#: What a run keeps of stderr (its end): enough for the line that says what went wrong.
TAIL = 4096
#: The longest a wait blocks before it looks at the (injected) clock again.
SLICE = 0.25
#: stderr lines that mean the sound did not play (espeak-ng 1.51 with pcaudiolib and ALSA).
_NO_AUDIO = re.compile(r"(?im)^(?:error\b.*|.*\bunknown pcm\b.*|.*cannot (?:open|find).*)$")


@dataclass(frozen=True, slots=True)
class Espeak:
    """espeak-ng's command line: a voice (``-v``), words a minute (``-s``, 80-450),
    amplitude (``-a``, 0-200), an audio device (``-d``, "" for the default)."""

    command: str = "espeak-ng"
    voice: str = "en"
    speed: int = 160
    volume: int = 100
    device: str = ""

    def argv(self, text: str, wav: Path | None = None, stdout: bool = False) -> list[str]:
        """The command saying ``text`` aloud, into the WAV file ``wav``, or as a WAV stream on
        stdout (the benchmark)."""
        argv = [self.command, "-v", self.voice, "-s", str(self.speed), "-a", str(self.volume)]
        if wav is not None:
            argv += ["-w", str(wav)]
        elif stdout:
            argv.append("--stdout")
        elif self.device:
            argv += ["-d", self.device]
        return [*argv, "--", text]


@dataclass(frozen=True, slots=True)
class Run:
    """How one process ended: its exit status (None when killed), the end of its stderr,
    whether the deadline or a stop killed it."""

    status: int | None
    stderr: str
    timed_out: bool = False
    stopped: bool = False


def failure(run: Run, audio: bool) -> str | None:
    """Why a run that ended by itself said nothing, in one line, or None."""
    last = next((line.strip() for line in reversed(run.stderr.splitlines()) if line.strip()),
                "")
    if run.status is not None and run.status < 0:
        return f"killed by signal {-run.status}"
    if run.status not in (0, None):
        return f"exit status {run.status}" + (f": {last[:200]}" if last else "")
    if audio and (m := _NO_AUDIO.search(run.stderr)):
        return f"no sound out: {m.group(0).strip()[:200]} (no audio device?)"
    return None


class Runner:
    """Runs one command at a time (the speaker's thread); :meth:`kill` from any thread."""

    def __init__(self, clock: Callable[[], float], nice: int = 5) -> None:
        self.clock = clock
        self.nice = nice
        self._lock = threading.Lock()
        self._proc: subprocess.Popen[bytes] | None = None
        self._stopped = False

    @property
    def pid(self) -> int | None:
        """The pid of the process running now, or None."""
        with self._lock:
            return self._proc.pid if self._proc is not None else None

    def run(self, argv: list[str], max_seconds: float) -> Run:
        """Run ``argv`` to its end, or kill it after ``max_seconds`` (OSError when it cannot
        start: no such program, not executable)."""
        with self._lock:
            if self._stopped:
                return Run(None, "", stopped=True)
            proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                    stderr=subprocess.PIPE, start_new_session=True)
            self._proc = proc
        with contextlib.suppress(OSError):
            os.setpriority(os.PRIO_PROCESS, proc.pid, self.nice)
        deadline = self.clock() + max_seconds
        try:
            assert proc.stderr is not None
            tail, late = self._read(proc.stderr.fileno(), deadline)
            status = self._wait(proc, deadline) if not late else None
        finally:
            if proc.returncode is None:
                self._kill(proc)
                proc.wait()
            if proc.stderr is not None:
                proc.stderr.close()
            with self._lock:
                self._proc = None
                stopped = self._stopped
        text = tail.decode("utf-8", errors="replace")
        if stopped:
            return Run(None, text, stopped=True)
        if status is None:
            return Run(None, text, timed_out=True)
        return Run(status, text)

    def kill(self) -> None:
        """Stop: kill the process running now (by its pid, and its group) and start no more."""
        with self._lock:
            self._stopped = True
            if self._proc is not None:
                self._kill(self._proc)

    def _read(self, fd: int, deadline: float) -> tuple[bytes, bool]:
        """stderr until its end (the tail), or (tail, True) at the deadline."""
        tail = b""
        with selectors.DefaultSelector() as sel:
            sel.register(fd, selectors.EVENT_READ)
            while True:
                left = deadline - self.clock()
                if left <= 0:
                    return tail, True
                if not sel.select(min(left, SLICE)):
                    continue
                chunk = os.read(fd, TAIL)
                if not chunk:
                    return tail, False
                tail = (tail + chunk)[-TAIL:]

    def _wait(self, proc: subprocess.Popen[bytes], deadline: float) -> int | None:
        """The exit status, or None at the deadline (stderr closed, the process still on)."""
        while True:
            try:
                return proc.wait(timeout=min(max(deadline - self.clock(), 0.0), SLICE))
            except subprocess.TimeoutExpired:
                if self.clock() >= deadline:
                    return None

    @staticmethod
    def _kill(proc: subprocess.Popen[bytes]) -> None:
        if proc.poll() is None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(proc.pid, signal.SIGKILL)
