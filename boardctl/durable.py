"""Files that survive a power cut: a folder's entries made durable, and a file replaced whole.

The board's journal (``boardctl.service.journal_file``), the relay's games
(``boardctl.relay.store``, ``--out``) and the tournament file all write through these, so a
reader after a crash sees the old file or the new one, never half of either."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def fsync_dir(path: Path) -> None:
    """Make the entries of folder ``path`` durable (a new or renamed file in it survives)."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def write_atomically(path: Path, text: str, *, encoding: str = "utf-8",
                     mode: int = 0o644) -> None:
    """Replace ``path`` by ``text`` so that a reader sees the old file or the new, never half,
    and the new one after a power cut. OSError names ``path``, never the temporary file."""
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
            os.fsync(f.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    try:
        fsync_dir(folder)
    except OSError:
        pass  # a folder that cannot be opened for reading: the file is replaced all the same
