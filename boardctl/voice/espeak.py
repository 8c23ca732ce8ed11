"""espeak-ng, one process per utterance: its command line, and a runner that starts it ahead,
hands it its text, waits for it with a deadline, and lets another thread kill it by its pid.

Started ahead (warm): espeak-ng reads its text from stdin with ``--stdin`` (the whole of it,
until the end of the input) and does its start-up work first: the dynamic linking, the voice
and its dictionary loaded (strace: the ``*_dict`` file is read before the first ``read(0)``);
with ``-w FILE`` it creates the file only at its first sample. So the runner keeps one
process per command line started and waiting for its text: an utterance is written to it
and its stdin closed, and it speaks at once, without the process start (espeak-ng's p99
under load was most of the move -> first sample time: benchmarks/bench_voice.py). The next
one is started as soon as one is used; a warm process found dead is replaced (a new one
started then), and one killed by a signal the runner did not send is run again once, by a
new process: an announcement is never lost to it. The warm process is killed by its pid at
the stop.

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

    def argv(self, text: str | None, wav: Path | None = None,
             stdout: bool = False) -> list[str]:
        """The command saying ``text`` aloud, into the WAV file ``wav``, or as a WAV stream on
        stdout (the benchmark); with ``text`` None, the text is read from stdin (a warm
        process: :class:`Runner`)."""
        argv = [self.command, "-v", self.voice, "-s", str(self.speed), "-a", str(self.volume)]
        if wav is not None:
            argv += ["-w", str(wav)]
        elif stdout:
            argv.append("--stdout")
        elif self.device:
            argv += ["-d", self.device]
        return [*argv, "--stdin"] if text is None else [*argv, "--", text]


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
    """Runs one utterance at a time (the speaker's thread) by a process started ahead for its
    command line (the module docstring); :meth:`kill` from any thread."""

    def __init__(self, clock: Callable[[], float], nice: int = 5,
                 spawn: Callable[[list[str]], subprocess.Popen[bytes]] | None = None) -> None:
        self.clock = clock
        self.nice = nice
        #: Starts a process for a command line (stdin and stderr piped, a session of its own).
        self.spawn = spawn or self._popen
        self._lock = threading.Lock()
        self._proc: subprocess.Popen[bytes] | None = None
        self._warm: tuple[list[str], subprocess.Popen[bytes]] | None = None
        self._stopped = False

    @property
    def pid(self) -> int | None:
        """The pid of the process running now, or None."""
        with self._lock:
            return self._proc.pid if self._proc is not None else None

    @property
    def warm_pid(self) -> int | None:
        """The pid of the process started ahead and waiting for its text, or None."""
        with self._lock:
            return self._warm[1].pid if self._warm is not None else None

    def warm(self, argv: list[str]) -> None:
        """Have a process for ``argv`` (a command reading its text from stdin) started and
        waiting; one for another command line is killed. A process that cannot start is
        left to :meth:`run` to say so."""
        with self._lock:
            if self._stopped or (self._warm is not None and self._warm[0] == argv
                                 and self._warm[1].poll() is None):
                return
            old, self._warm = self._warm, None
        if old is not None:
            _end(old[1])
        try:
            proc = self.spawn(argv)
        except OSError:
            return
        with self._lock:
            kept = not self._stopped
            if kept:
                self._warm = (argv, proc)
        if not kept:  # stopped meanwhile
            _end(proc)

    def cool(self) -> None:
        """Kill the process waiting (the voice gone quiet: nothing will use it)."""
        with self._lock:
            old, self._warm = self._warm, None
        if old is not None:
            _end(old[1])

    def run(self, argv: list[str], text: str, max_seconds: float,
            then: list[str] | None = None) -> Run:
        """Say ``text`` by a process of ``argv`` (reading stdin: the warm one, or one started
        now), start the next (for ``then``, else ``argv``) at once, wait for the end or kill
        it after ``max_seconds``; once more by a new process when a signal not ours killed
        it. OSError when it cannot start (no such program, not executable)."""
        run = self._once(argv, text, max_seconds, then)
        if run.status is not None and run.status < 0 and not run.stopped:
            run = self._once(argv, text, max_seconds, then)
        return run

    def _once(self, argv: list[str], text: str, max_seconds: float,
              then: list[str] | None) -> Run:
        with self._lock:
            if self._stopped:
                return Run(None, "", stopped=True)
            proc = self._take(argv)
        if proc is None:
            proc = self.spawn(argv)
        with self._lock:
            self._proc = proc
            stopped = self._stopped
        if stopped:
            _end(proc)
        else:
            _hand(proc, text)
            self.warm(then if then is not None else argv)
        return self._finish(proc, self.clock() + max_seconds)

    def _take(self, argv: list[str]) -> subprocess.Popen[bytes] | None:
        """The warm process for ``argv`` if it waits still (under the lock); a dead one is
        dropped."""
        warm = self._warm
        if warm is None or warm[0] != argv:
            return None
        self._warm = None
        if warm[1].poll() is None:
            return warm[1]
        _end(warm[1])
        return None

    def _finish(self, proc: subprocess.Popen[bytes], deadline: float) -> Run:
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
        """Stop: kill the process running now and the one waiting (by their pids, and their
        groups) and start no more."""
        with self._lock:
            self._stopped = True
            if self._proc is not None:
                self._kill(self._proc)
            warm, self._warm = self._warm, None
        if warm is not None:
            _end(warm[1])

    def _popen(self, argv: list[str]) -> subprocess.Popen[bytes]:
        proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE, start_new_session=True)
        with contextlib.suppress(OSError):
            os.setpriority(os.PRIO_PROCESS, proc.pid, self.nice)
        return proc

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


def _hand(proc: subprocess.Popen[bytes], text: str) -> None:
    """Write the utterance to the process's stdin and close it (espeak-ng's ``--stdin`` reads
    to the end; its last character, the newline, is dropped). A process already ended takes
    nothing: its end says why."""
    assert proc.stdin is not None
    with contextlib.suppress(OSError):  # BrokenPipeError: it ended
        proc.stdin.write(text.encode("utf-8") + b"\n")
    with contextlib.suppress(OSError):
        proc.stdin.close()


def _end(proc: subprocess.Popen[bytes]) -> None:
    """Kill a process that will not be used (by its group's pid) and reap it."""
    Runner._kill(proc)
    for pipe in (proc.stdin, proc.stderr):
        if pipe is not None:
            with contextlib.suppress(OSError):
                pipe.close()
    proc.wait()
