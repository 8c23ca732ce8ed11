"""Files that survive a power cut: a folder's entries made durable, a file replaced whole, and a
file of sealed lines appended.

The board's journal (``boardctl.service.journal_file``) and the relay's games
(``boardctl.relay.store``) append sealed lines through :class:`JournalWriter`; the relay's
store (when it compacts), ``--out`` and the tournament file are replaced whole through
:func:`write_atomically`, so a reader after a crash sees the old file or the new one, never
half of either, and a torn last line is all a crash can leave of an appended file."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from firmware.formats.journal import dumps, seal


def fsync_dir(path: Path) -> None:
    """Make the entries of folder ``path`` durable (a new or renamed file in it survives)."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def write_atomically(path: Path, text: str, *, encoding: str = "utf-8",
                     mode: int = 0o644, sync: bool = True) -> None:
    """Replace ``path`` by ``text`` so that a reader sees the old file or the new, never half,
    and (``sync``) the new one after a power cut. OSError names ``path``, never the temporary
    file. Without ``sync`` nothing is fsync'd: a file another durable copy can write again
    (the relay's ``--out``, written anew from its store when it starts)."""
    path = Path(path)
    folder = path.parent or Path(".")
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=folder)
    except OSError as exc:
        raise OSError(exc.errno, f"cannot write: {exc.strerror}", str(path)) from None
    try:
        with os.fdopen(fd, "w", encoding=encoding) as f:
            f.write(text)
            f.flush()
            if sync:
                os.fsync(f.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    if not sync:
        return
    try:
        fsync_dir(folder)
    except OSError:
        pass  # a folder that cannot be opened for reading: the file is replaced all the same


class JournalWriter:
    """Appends lines to one file, sealed (``firmware.formats.journal.seal``: numbered, each
    with a CRC-32 chained on the line before) unless it goes on with a version-1 journal;
    ``sync=True`` makes a line durable before returning.

    :meth:`encode` (which advances the seal chain) and :meth:`append` (which writes) are apart
    so that a writer can keep encoded lines while the disk is full and write them when space
    returns, and write many lines with one fsync (a group commit); :attr:`size` is the length
    of the whole lines on disk, where a failed write's torn piece is cut off before the next
    try. ``fsync`` is injectable (fault tests)."""

    def __init__(self, path: Path, *, sealed: bool = True, last_n: int = -1, last_c: str = "",
                 fsync: Callable[[int], None] = os.fsync) -> None:
        self.path = path
        self._fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o640)
        self.size = os.fstat(self._fd).st_size
        self.sealed = sealed
        self.n = last_n
        self.c = last_c
        self.fsync = fsync
        self.syncs = 0

    def encode(self, record: Mapping[str, Any]) -> bytes:
        if not self.sealed:
            return dumps(record).encode("ascii")
        line, self.c = seal(record, self.n + 1, self.c)
        self.n += 1
        return line.encode("ascii")

    def append(self, data: bytes) -> None:
        """Write whole lines (OSError: nothing of them counts; the torn piece is cut off)."""
        if os.fstat(self._fd).st_size != self.size:
            os.ftruncate(self._fd, self.size)
        view = memoryview(data)
        while view:
            n = os.write(self._fd, view)
            view = view[n:]
        self.size += len(data)

    def write(self, record: Mapping[str, Any], sync: bool = False) -> None:
        self.append(self.encode(record))
        if sync:
            self.sync()

    def sync(self) -> None:
        self.fsync(self._fd)
        self.syncs += 1

    def unlinked(self) -> bool:
        """True when the file was deleted under the writer (or the descriptor is closed)."""
        try:
            return os.fstat(self._fd).st_nlink == 0
        except OSError:
            return True

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1

    def __enter__(self) -> JournalWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
