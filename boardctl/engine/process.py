"""One engine process for the Hub client: started at a lower priority, its output read by a
thread into the client's inbox, handshaken, written to, and stopped by its pid.

Lines reach the inbox as ``("line", generation, text)`` and the end of output as ``("eof",
generation)``; each process started gets a new generation, so that what a killed process
still prints is told apart from its successor's.
"""

from __future__ import annotations

import contextlib
import os
import queue
import subprocess
import threading
from collections.abc import Callable
from typing import IO, Any

from firmware.engine.hub import MAX_LINE, HubError, HubLine, format_line, parse_line

#: Lines an engine may print while starting, or during one request, before it counts as
#: flooding its output.
MAX_LINES = 100_000
Inbox = queue.Queue[tuple[Any, ...]]


class EngineProcess:
    """The process behind an ``EngineClient`` (which owns the inbox and calls everything here
    from its own thread)."""

    def __init__(self, argv: tuple[str, ...], name: str, inbox: Inbox,
                 clock: Callable[[], float], nice: int = 10) -> None:
        self.argv = argv
        self.name = name
        self.inbox = inbox
        self.clock = clock
        self.nice = nice
        self.generation = 0
        self.engine_id: dict[str, str] = {}
        #: The parameters the engine declared at its handshake (``param name=...``), and
        #: what its ``multipv`` is set to (None: it declares none).
        self.declared: frozenset[str] = frozenset()
        self.multipv: int | None = None
        self._proc: subprocess.Popen[bytes] | None = None

    @property
    def running(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self.running and self._proc is not None else None

    def exit_code(self) -> int | None:
        """The exit status, waiting a moment for it (the output closes just before)."""
        proc = self._proc
        if proc is None:
            return None
        with contextlib.suppress(subprocess.TimeoutExpired):
            return proc.wait(timeout=1.0)
        return None

    def spawn(self) -> str | None:
        """Start the process (the old one killed) and its reader; an error line or None."""
        self.kill()
        try:
            proc = subprocess.Popen(self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                    stderr=subprocess.DEVNULL)
        except OSError as exc:
            return f"engine {self.name} cannot start: {exc.strerror or exc}"
        with contextlib.suppress(OSError):
            os.setpriority(os.PRIO_PROCESS, proc.pid, self.nice)
        self.generation += 1
        self._proc = proc
        assert proc.stdout is not None
        threading.Thread(target=self._reader, args=(proc.stdout, self.generation),
                         name="engine-reader", daemon=True).start()
        return None

    def _reader(self, stream: IO[bytes], generation: int) -> None:
        try:
            while True:
                raw = stream.readline(MAX_LINE + 1)
                if not raw:
                    break
                if len(raw) <= MAX_LINE:  # an over-long line is noise: left out
                    self.inbox.put(("line", generation,
                                    raw.decode("utf-8", errors="replace")))
        except (OSError, ValueError):
            pass
        self.inbox.put(("eof", generation))

    def handshake(self, timeout: float, params: dict[str, str],
                  defer: Callable[[tuple[Any, ...]], None]) -> str | None:
        """``hub`` ... ``wait``, the parameters, ``init`` ... ``ready`` within ``timeout``
        seconds each; requests arriving meanwhile go to ``defer``. An error line or None."""
        if not self.send("hub"):
            return f"engine {self.name} closed its input at once"
        self.declared = frozenset()
        error = self._await("wait", timeout, defer)
        if error is None:
            sets = [format_line("set-param", name=k, value=v) for k, v in params.items()]
            if not self.send(*sets, "init"):
                return f"engine {self.name} died during its start"
            error = self._await("ready", timeout, defer)
        self.multipv = 1 if "multipv" in self.declared else None
        return error

    def _await(self, word: str, timeout: float,
               defer: Callable[[tuple[Any, ...]], None]) -> str | None:
        deadline = self.clock() + timeout
        lines = 0
        while True:
            left = deadline - self.clock()
            if left <= 0:
                return f"engine {self.name} did not answer '{word}' in time"
            try:
                item = self.inbox.get(timeout=left)
            except queue.Empty:
                continue
            if item[0] not in ("line", "eof"):
                defer(item)
                continue
            if item[1] != self.generation:
                continue
            if item[0] == "eof":
                return f"engine {self.name} exited during its start (code {self.exit_code()})"
            lines += 1
            if lines > MAX_LINES:
                return f"engine {self.name} floods its output during its start"
            line = read(item[2])
            if line is not None and line.command == "id":
                self.engine_id = {k: v[:80] for k, v in line.args.items()}
            if line is not None and line.command == "param" and len(self.declared) < 64:
                self.declared |= {line.args.get("name", "")[:40]}
            if line is not None and line.command == word:
                return None

    def send(self, *lines: str) -> bool:
        """Write lines; False if the process is gone or its input closed."""
        proc = self._proc
        if proc is None or proc.stdin is None:
            return False
        try:
            proc.stdin.write("".join(line + "\n" for line in lines).encode())
            proc.stdin.flush()
        except (OSError, ValueError):
            return False
        return True

    def kill(self) -> None:
        """Kill the process by its pid (if it runs) and reap it; its output is then stale."""
        proc, self._proc = self._proc, None
        if proc is None:
            return
        self.generation += 1
        if proc.poll() is None:
            with contextlib.suppress(OSError):
                proc.kill()
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=2.0)
        for stream in (proc.stdin, proc.stdout):
            with contextlib.suppress(OSError, ValueError):
                if stream is not None:
                    stream.close()

    def quit(self) -> None:
        """``quit``, a second to obey, then killed."""
        if self.running and self._proc is not None:
            self.send("quit")
            with contextlib.suppress(subprocess.TimeoutExpired):
                self._proc.wait(timeout=1.0)
        self.kill()


def read(text: str) -> HubLine | None:
    """A line as the client reads it: None for one it cannot parse (ignored)."""
    try:
        return parse_line(text)
    except HubError:
        return None
