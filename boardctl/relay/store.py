"""The relay's games on disk, so that a relay restarted (kill -9 included) serves, writes and
pushes everything it had before, boards on or off (docs/HALL.md, "When the relay restarts").

Layout: ``DIR/HALL/`` (``DIR/serial/`` for a relay of serial ports only) holds one file per
feed, ``SOURCE.json`` (a hall board's name; a serial port's URL as ``port-`` and a digest),
each every game of that feed as the relay holds it (rule set, start, tags, time control, the
checked moves with their clocks, the result), and ``.lock``, held while a relay runs on the
folder (two relays on one folder would overwrite each other: the second is refused).

A file is written whole, to a temporary file that is fsync'd, renamed over the old one and
the folder fsync'd: a crash leaves the old file or the new one, never half. The relay writes
the files of the feeds that changed before the PDN goes out (to ``--out``, HTTP, the pusher):
what was served is on disk first. Reading back, a file that does not read (damaged, foreign,
too big) is named in one line and left aside (renamed ``*.bad``), never a crash; games are
read back as written (``relay.restore_games``: their moves were checked when taken, a record
that is no move ends a game's moves there, and a game is played through again at its next
move). Bounded: a file over :data:`MAX_FILE` bytes is not read, and the
relay's own bounds (feeds, games a feed, moves) hold what is written.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import re
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from boardctl.durable import write_atomically
from firmware.errors import BoardError

FORMAT = "boardctl-relay-games"
VERSION = 1
#: The largest feed file read back (100 games of 300 moves with clocks are about 3 MB).
MAX_FILE = 64 * 1024 * 1024
_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")


def default_dir() -> Path:
    """Where the relay keeps its games without ``--state-dir``: systemd's
    ``$STATE_DIRECTORY``, else ``$XDG_STATE_HOME/boardctl/relay``, else
    ``~/.local/state/boardctl/relay``."""
    systemd = os.environ.get("STATE_DIRECTORY", "").split(":")[0]
    if systemd:
        return Path(systemd)
    xdg = os.environ.get("XDG_STATE_HOME", "")
    base = Path(xdg) if xdg and os.path.isabs(xdg) else Path.home() / ".local" / "state"
    return base / "boardctl" / "relay"


def file_name(source: str) -> str:
    """A feed's file: a hall board by its name, any other feed by a digest of its name."""
    if _NAME.fullmatch(source):
        return f"{source}.json"
    return f"port-{hashlib.sha256(source.encode('utf-8', 'replace')).hexdigest()[:20]}.json"


class GameStore:
    """One relay's folder of games (module docstring). ``open()`` takes the lock, ``load()``
    reads what a former run left, ``save(source, topic, games)`` writes one feed's file."""

    def __init__(self, folder: Path, log: Callable[[str], None] | None = None) -> None:
        self.folder = Path(folder)
        self.log = log
        self.writes = 0
        self._lock_fd = -1

    def open(self) -> GameStore:
        """Create the folder and take its lock; BoardError (one line) when it cannot be, or
        another relay holds it."""
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.folder / ".lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        except OSError as exc:
            raise BoardError(f"--state-dir {self.folder}: cannot be used: "
                             f"{exc.strerror or exc}") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            raise BoardError(f"--state-dir {self.folder}: another relay keeps its games there "
                             "(give each relay its own --state-dir)") from None
        self._lock_fd = fd
        return self

    def close(self) -> None:
        if self._lock_fd >= 0:
            os.close(self._lock_fd)
            self._lock_fd = -1

    def load(self) -> list[dict[str, Any]]:
        """Every game kept, as ``{"source", "topic", "game": {...}}``, in the order the relay
        first heard of them; a file that does not read is told and set aside."""
        found: list[dict[str, Any]] = []
        for path in sorted(self.folder.glob("*.json")):
            try:
                found += self._read(path)
            except (OSError, ValueError, RecursionError, BoardError) as exc:
                self._set_aside(path, str(exc))
        found.sort(key=lambda item: (item["game"].get("order", 0)))
        return found

    def _read(self, path: Path) -> list[dict[str, Any]]:
        if path.stat().st_size > MAX_FILE:
            raise BoardError(f"over {MAX_FILE} bytes")
        data = json.loads(path.read_bytes().decode("utf-8"))
        if not (isinstance(data, dict) and data.get("format") == FORMAT
                and data.get("version") == VERSION and isinstance(data.get("source"), str)
                and isinstance(data.get("games"), list)
                and all(isinstance(g, dict) for g in data["games"])):
            raise BoardError("not a relay games file of version 1")
        if file_name(data["source"]) != path.name:
            raise BoardError(f"it names feed {data['source'][:80]!r}, not its own")
        topic = bool(data.get("topic"))
        return [{"source": data["source"], "topic": topic, "game": g} for g in data["games"]]

    def _set_aside(self, path: Path, why: str) -> None:
        bad = path.with_name(path.name + ".bad")
        try:
            os.replace(path, bad)
            where = f"moved to {bad.name}"
        except OSError:
            where = "left where it is"
        if self.log is not None:
            self.log(f"relay: {path}: does not read ({why[:200]}): its games are not restored "
                     f"({where}); the boards' next snapshots bring their games back")

    def save(self, source: str, topic: bool, games: Iterable[Mapping[str, Any]]) -> None:
        """Write one feed's file atomically and durably (OSError when it cannot be)."""
        body = json.dumps({"format": FORMAT, "version": VERSION, "source": source,
                           "topic": topic, "games": list(games)},
                          separators=(",", ":"), ensure_ascii=True)
        write_atomically(self.folder / file_name(source), body, encoding="ascii")
        self.writes += 1
