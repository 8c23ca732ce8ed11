"""The journal on disk: one append-only file per game in the service's state directory.

Layout of ``STATE_DIR`` (systemd's ``StateDirectory``, ``/var/lib/boardctl``)::

    games/<game id>.jsonl   one journal per game (format: firmware.formats.journal)
    current                 the file name of the game in play, replaced atomically

Every line is sealed (``firmware.formats.journal.seal``: record number and chained CRC-32). The
service writes from one thread (``boardctl.service.outputs.Outbox``), a batch of lines at a time.

Spill: while the journal cannot be written (a full disk), the writer keeps its sealed lines in
a spill file elsewhere (:func:`spill_path`: ``$BOARDCTL_SPILL_DIR``, else systemd's
``$RUNTIME_DIRECTORY``, else ``/run/boardctl``, else a folder in the temporary directory; then
``spill/<digest of the state directory>/<journal name>``), fsync'd before their feed lines go
out, so that a stop or a kill loses none of what was broadcast. :func:`open_journal` takes the
spilled lines back (those that continue the journal's seal chain) before it reads the journal.
A RAM file system (``/run``) does not survive a power cut: docs/DESIGN.md says what then holds.

Durability: lines are written with ``os.write`` on an ``O_APPEND`` descriptor, so a
crash leaves at worst a torn last line, which the reader drops and :func:`open_journal`
truncates before appending. ``fsync`` runs when the caller says the line matters (a committed
move, a pause, an arbiter's decision, a new game); a new file and the ``current`` pointer are
made durable with an ``fsync`` of the directory too.
"""

from __future__ import annotations

import hashlib
import logging
import os
import secrets
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from boardctl.durable import JournalWriter, fsync_dir
from firmware.errors import EventLogError
from firmware.formats.journal import (
    SEALED,
    GameHeader,
    Journal,
    check_seal,
    read_journal,
)
from firmware.limits import MAX_LINE, bounded_lines, loads

logger = logging.getLogger(__name__)

GAMES = "games"
CURRENT = "current"
#: The longest ``current`` pointer read (a journal's name is some 30 bytes).
MAX_POINTER = 255


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
        with pointer.open("rb") as f:  # a name, not a file's worth: /dev/zero must not fill memory
            raw = f.read(MAX_POINTER + 1)
        if len(raw) > MAX_POINTER:
            raise EventLogError(f"{pointer}: longer than {MAX_POINTER} bytes: does not name a "
                                "journal file")
        name = raw.decode("utf-8").strip()
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


def resumed_rules(state_dir: Path) -> str | None:
    """The rule set of the game in play in ``state_dir`` (its journal's first record): what
    the simulated board's size follows when ``boardctl run --sim`` resumes without --rules.
    None: no game in play, or a journal that cannot be read (the service's start says why)."""
    try:
        path = current_path(state_dir)
        if path is None:
            return None
        with path.open("rb") as f:
            first = f.readline(MAX_LINE)
        header = read_journal([first], str(path)).header
    except (OSError, EventLogError):
        return None
    return header.rules if header is not None else None


def create_journal(state_dir: Path, header: GameHeader, *,
                   fsync: Callable[[int], None] = os.fsync,
                   lines: bytes | None = None) -> JournalWriter:
    """Start a new game's journal, make it the current one and make both durable. With
    ``lines`` (the whole journal so far, from memory), write those instead of a header: a
    journal rewritten after its state directory was deleted."""
    games = state_dir / GAMES
    games.mkdir(parents=True, exist_ok=True)
    path = games / f"{header.id}.jsonl"
    if path.exists() and lines is None:
        raise EventLogError(f"{path}: a journal for game {header.id} exists already")
    if lines is not None:
        path.unlink(missing_ok=True)
    writer = JournalWriter(path, fsync=fsync)
    if lines is None:
        writer.write(header.record(SEALED), sync=True)
    else:
        writer.append(lines)
        writer.sync()
    fsync_dir(games)
    tmp = state_dir / f".{CURRENT}.tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(path.name + "\n")
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, state_dir / CURRENT)
    fsync_dir(state_dir)
    return writer


def load_journal(path: Path, *, salvage: bool = False) -> Journal:
    """Read a journal file (a torn tail is dropped; lines and size bounded)."""
    with open(path, "rb") as f:
        lines = bounded_lines(f, str(path), error=EventLogError)
        return read_journal(lines, source=str(path), salvage=salvage)


def read_bytes(path: Path, end: int) -> bytes:
    """The first ``end`` bytes of a journal (its good part, kept in memory by the writer)."""
    with open(path, "rb") as f:
        return f.read(end)


#: The environment variable naming the spill folder (module docstring).
SPILL_ENV = "BOARDCTL_SPILL_DIR"
#: The largest spill file taken back (a day of a board's records is some 2 MB).
MAX_SPILL = 64 * 1024 * 1024


def spill_path(state_dir: Path, journal: Path) -> Path:
    """Where the writer keeps ``journal``'s lines while it cannot be written (module
    docstring); one folder per state directory, so boards on one machine never mix."""
    base = os.environ.get(SPILL_ENV) or os.environ.get("RUNTIME_DIRECTORY", "").split(":")[0]
    if not base:
        base = "/run/boardctl" if os.access("/run/boardctl", os.W_OK) else os.path.join(
            tempfile.gettempdir(), f"boardctl-{os.getuid()}")
    digest = hashlib.sha256(str(Path(state_dir).resolve()).encode()).hexdigest()[:16]
    return Path(base) / "spill" / digest / journal.name


class Spill:
    """The spill file of one journal: lines appended and fsync'd (:meth:`add`), removed once
    the journal holds them (:meth:`clear`)."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def add(self, data: bytes) -> None:
        """Append whole lines durably (OSError when they cannot be)."""
        self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
            os.fsync(fd)
        finally:
            os.close(fd)

    def clear(self) -> None:
        try:
            self.path.unlink(missing_ok=True)
        except OSError as exc:
            logger.warning(f"spill {self.path}: cannot be removed: {exc.strerror or exc}")


def _append_at(path: Path, end: int, data: bytes) -> None:
    """Cut ``path`` to ``end`` bytes, append ``data`` and make it durable."""
    with open(path, "r+b") as f:
        f.truncate(end)
        f.seek(end)
        f.write(data)
        f.flush()
        os.fsync(f.fileno())


def spilled(path: Path, journal: Journal) -> tuple[Path, list[bytes], str]:
    """The spill of the journal ``path`` (read as ``journal``) and, read only, its lines that
    continue the journal's seal chain; the reason the rest does not ("" when all do)."""
    spill = spill_path(path.parent.parent, path)
    with open(spill, "rb") as f:
        data = f.read(MAX_SPILL)
    n, c, taken, stop = journal.last_n, journal.last_c, [], ""
    for k, raw in enumerate(data.splitlines(keepends=True), 1):
        try:
            rec = loads(raw.decode("ascii")) if raw.endswith(b"\n") else None
            if not isinstance(rec, dict) or not isinstance(rec.get("n"), int):
                stop = f"line {k} is torn or damaged"
                break
            if rec["n"] <= n:
                continue  # in the journal already (written once the disk had room)
            c = check_seal(raw.decode("ascii"), rec, n + 1, c, f"{spill}: line {k}")
        except (ValueError, UnicodeDecodeError, EventLogError) as exc:
            stop = str(exc)
            break
        n += 1
        taken.append(raw)
    return spill, taken, stop


def take_spill(path: Path) -> int:
    """Append to the journal ``path`` the spilled lines that continue its seal chain, make
    them durable and remove the spill; the number taken. A spill that does not continue the
    journal (a gap, another journal's lines) is told and kept aside (``.unmerged``)."""
    spill = spill_path(path.parent.parent, path)
    if not spill.exists():
        return 0
    journal = load_journal(path)
    if not journal.verified:
        logger.error(f"journal {path}: not sealed; its spill {spill} is not taken back")
        return 0
    spill, taken, stop = spilled(path, journal)
    if taken:
        try:
            _append_at(path, journal.end, b"".join(taken))
        except OSError as exc:
            _append_at(path, journal.end, b"")
            taken, stop = [], f"the journal cannot be written: {exc.strerror or exc}"
    if stop:
        os.replace(spill, spill.with_name(spill.name + ".unmerged"))
        logger.error(f"journal {path}: {len(taken)} records taken back from {spill}; the rest "
                     f"NOT ({stop}): kept as {spill.name}.unmerged")
    else:
        spill.unlink()
        logger.warning(f"journal {path}: {len(taken)} records taken back from {spill} "
                       "(written there while the state directory could not be written)")
    return len(taken)


def open_journal(path: Path, *, fsync: Callable[[int], None] = os.fsync,
                 ) -> tuple[Journal, JournalWriter]:
    """Read a journal and reopen it for appending, cutting off a torn tail first; the records
    a former run spilled (:func:`take_spill`) are taken back first."""
    take_spill(path)
    journal = load_journal(path)
    if path.stat().st_size > journal.end:
        with open(path, "r+b") as f:
            f.truncate(journal.end)
            f.flush()
            os.fsync(f.fileno())
    return journal, JournalWriter(path, sealed=journal.verified, last_n=journal.last_n,
                                  last_c=journal.last_c, fsync=fsync)
