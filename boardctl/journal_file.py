"""The journal on disk: one append-only file per game in the service's state directory.

Layout of ``STATE_DIR`` (systemd's ``StateDirectory``, ``/var/lib/boardctl``)::

    games/<game id>.jsonl   one journal per game (format: firmware.journal)
    current                 the file name of the game in play, replaced atomically

Durability: every line is written with one ``os.write`` on an ``O_APPEND`` descriptor, so a
crash leaves at worst a torn last line, which the reader drops and :func:`open_journal`
truncates before appending. ``fsync`` runs when the caller says the line matters (a committed
move, a pause, an arbiter's decision, a new game); a new file and the ``current`` pointer are
made durable with an ``fsync`` of the directory too.
"""

from __future__ import annotations

import os
import secrets
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from firmware.errors import EventLogError
from firmware.journal import GameHeader, Journal, dumps, read_journal

GAMES = "games"
CURRENT = "current"


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


class JournalWriter:
    """Appends journal lines to one file; ``sync=True`` makes a line durable before returning."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o640)
        self.syncs = 0

    def write(self, record: Mapping[str, Any], sync: bool = False) -> None:
        data = dumps(record).encode("ascii")
        view = memoryview(data)
        while view:
            n = os.write(self._fd, view)
            view = view[n:]
        if sync:
            self.sync()

    def sync(self) -> None:
        os.fsync(self._fd)
        self.syncs += 1

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1

    def __enter__(self) -> JournalWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def new_game_id(now: float | None = None) -> str:
    """A sortable, readable, unique id: the wall-clock time the game was set up and 24
    random bits (relays tell the games of many boards apart by it)."""
    now = time.time() if now is None else now
    stamp = time.strftime("%Y%m%dT%H%M%S", time.gmtime(now))
    return f"{stamp}-{secrets.token_hex(3)}"


def current_path(state_dir: Path) -> Path | None:
    """The journal of the game in play in ``state_dir``, or None when there is none."""
    pointer = state_dir / CURRENT
    try:
        name = pointer.read_text(encoding="utf-8").strip()
    except FileNotFoundError:
        return None
    except UnicodeDecodeError:
        raise EventLogError(f"{pointer}: does not name a journal file (not UTF-8 text)") from None
    except IsADirectoryError:
        raise EventLogError(f"{pointer}: is a directory, not the name of a journal") from None
    if not name or "/" in name or name.startswith("."):
        raise EventLogError(f"{pointer}: does not name a journal file")
    path = state_dir / GAMES / name
    if not path.exists():
        raise EventLogError(f"{pointer}: names {name}, which is not in {state_dir / GAMES}")
    return path


def create_journal(state_dir: Path, header: GameHeader) -> JournalWriter:
    """Start a new game's journal, make it the current one and make both durable."""
    games = state_dir / GAMES
    games.mkdir(parents=True, exist_ok=True)
    path = games / f"{header.id}.jsonl"
    if path.exists():
        raise EventLogError(f"{path}: a journal for game {header.id} exists already")
    writer = JournalWriter(path)
    writer.write(header.record(), sync=True)
    _fsync_dir(games)
    tmp = state_dir / f".{CURRENT}.tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(path.name + "\n")
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, state_dir / CURRENT)
    _fsync_dir(state_dir)
    return writer


def load_journal(path: Path) -> Journal:
    """Read a journal file (a torn tail is dropped)."""
    with open(path, "rb") as f:
        return read_journal(f, source=str(path))


def open_journal(path: Path) -> tuple[Journal, JournalWriter]:
    """Read a journal and reopen it for appending, cutting off a torn tail first."""
    journal = load_journal(path)
    if path.stat().st_size > journal.end:
        with open(path, "r+b") as f:
            f.truncate(journal.end)
            f.flush()
            os.fsync(f.fileno())
    return journal, JournalWriter(path)
