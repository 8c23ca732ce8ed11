"""The relay's games on disk, so that a relay restarted (kill -9 included) serves, writes and
pushes everything it had before, boards on or off (docs/HALL.md, "When the relay restarts").

Layout: ``DIR/HALL/`` (``DIR/serial/`` for a relay of serial ports only) holds ``games.jsonl``
and ``.lock``, held while a relay runs on the folder (two relays on one folder would write
over each other: the second is refused).

``games.jsonl`` is append-only: sealed lines (``firmware.formats.journal.seal``, as the board's
journal: numbered, each with a CRC-32 chained on the line before), a ``store`` line first
(format and version), then the records of boardctl.relay.ledger: a game whole when it is new
or changed other than by moves added, a line of the new moves (and clocks) when that is all,
a game dropped. A move costs a line of some 100 bytes, however much the board has played.

Durable in groups: the relay appends the records of what changed before anything is served,
and fsyncs them at most once a group window (:data:`GROUP_S`): it serves (HTTP, ``--out``,
the pusher) only after the fsync (boardctl.relay.relay holds what changed until then), so
what was served is on disk first, and the fsyncs are a few a second whatever the move rate.

Compacted: when the records added since it was last written whole pass half its size then
(and :data:`COMPACT_MIN`), and at a clean stop, it is written anew, every game whole with its
PDN text (a temporary file, fsync'd, renamed over it, the folder fsync'd), so that reading it
back stays fast (a whole event within two seconds, a kill -9 included): its size is at most
one and a half times the games', and a compaction's cost, spread over the moves since the
last, is the same a move whatever the size of the event.

Reading back, the records are folded into games (boardctl.relay.ledger.fold) and taken back
as written (boardctl.relay.restore). A torn last line (a crash in mid-write) is dropped with a
line in the log and cut off before the next append; damage before the end (a changed line,
a broken seal) ends the reading there: the games read so far are taken back, the file is set
aside (``games.jsonl.bad``) and written anew; a file that is not a store at all is set aside
whole. The boards' next snapshots bring back whatever was not read. Never a traceback.

Version 1 (until issue 37): one ``SOURCE.json`` a feed, each written whole at every change.
Such a folder is read (a file that does not read is named and set aside as ``*.bad``) and
written anew as ``games.jsonl`` at once; the old files are removed once it is on disk.

Bounded: the file is read up to :data:`MAX_FILE` bytes and lines of :data:`MAX_LINE`; the
relay's own bounds (feeds, games a feed, moves) hold what is written; lines the disk could not
take are kept in memory (up to :data:`MAX_BACKLOG` bytes, then the file is written anew
instead) and written when it can.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import logging
import os
import re
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from boardctl.durable import JournalWriter, write_atomically
from boardctl.relay.ledger import fold
from firmware.errors import BoardError, EventLogError
from firmware.formats.journal import check_seal, seal
from firmware.limits import bounded_lines, loads

__all__ = ["GameStore", "default_dir", "file_name"]

logger = logging.getLogger(__name__)

FORMAT = "boardctl-relay-games"
VERSION = 2
#: The store's file in its folder.
LOG = "games.jsonl"
#: The shortest time between two fsyncs of the store (what changed meanwhile waits, unserved).
GROUP_S = 0.25
#: The largest store read back (an 11-round event of 200 boards is some 15 MB compacted).
MAX_FILE = 512 * 1024 * 1024
#: The longest line read back: a game whole with its PDN text.
MAX_LINE = 16 * 1024 * 1024
#: Records added since the last compaction before the file is written anew at the earliest.
COMPACT_MIN = 4 * 1024 * 1024
#: Lines kept in memory while the disk cannot take them, at most.
MAX_BACKLOG = 64 * 1024 * 1024
#: After a failed compaction, the next try waits this long.
RETRY_S = 5.0
#: The largest version-1 feed file read back.
MAX_OLD_FILE = 64 * 1024 * 1024
_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")

Records = Callable[[], list[dict[str, Any]]]


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
    """A feed's version-1 file: a hall board by its name, any other feed by a digest."""
    if _NAME.fullmatch(source):
        return f"{source}.json"
    return f"port-{hashlib.sha256(source.encode('utf-8', 'replace')).hexdigest()[:20]}.json"


@dataclass
class LogRead:
    """A store file as read: its records, where its good part ends and its seal chain there,
    and what was wrong (``problem``, "" for nothing; ``torn`` when it was only the last
    line)."""

    records: list[dict[str, Any]] = field(default_factory=list)
    end: int = 0
    #: The bytes of its games whole (about its size once compacted).
    whole: int = 0
    n: int = -1
    c: str = ""
    problem: str = ""
    torn: bool = False


def read_log(path: Path) -> LogRead:
    """Read a store file (module docstring); OSError when it cannot be opened."""
    read = LogRead()
    with open(path, "rb") as f:
        try:
            for lineno, raw in enumerate(bounded_lines(f, str(path), max_line=MAX_LINE,
                                                       max_total=MAX_FILE), 1):
                _line(read, raw, f"{path}: line {lineno}")
                if read.problem:
                    rest = f.read(MAX_LINE)
                    read.torn = not rest.strip(b"\x00 \t\r\n")
                    break
        except ValueError as exc:  # bounded_lines: a line or the file too long
            read.problem = str(exc)
    return read


def _line(read: LogRead, raw: bytes, where: str) -> None:
    try:
        text = raw.decode("ascii")
        if not text.endswith("\n"):
            raise ValueError("cut short")
        record = _loads(text)
        if not isinstance(record, dict):
            raise ValueError("not a record")
        c = check_seal(text, record, read.n + 1, read.c, where)
        if read.n < 0 and not (record.get("type") == "store" and record.get("format") == FORMAT
                               and record.get("version") == VERSION):
            raise ValueError(f"not a relay store of version {VERSION}")
    except (ValueError, UnicodeDecodeError, EventLogError) as exc:
        read.problem = f"{where}: {exc}" if not str(exc).startswith(where) else str(exc)
        return
    read.n, read.c = read.n + 1, c
    read.end += len(raw)
    if read.n > 0:
        read.records.append(record)
        if record.get("type") == "game":
            read.whole += len(raw)


def _loads(text: str) -> Any:
    """A line's JSON: ``json.loads`` with its nesting bounded (a whole game's line nests its
    moves in as many lists, which ``firmware.limits.loads`` would scan character by
    character); a line with a surrogate escape is checked whole by ``firmware.limits``."""
    if "\\ud" in text or "\\uD" in text:
        return loads(text)
    try:
        return json.loads(text)
    except RecursionError:
        raise ValueError("nested too deeply") from None


class GameStore:
    """One relay's folder of games (module docstring). ``open()`` takes the lock, ``load()``
    reads what a former run left, ``keep(changes, everything)`` writes, ``sync()`` makes it
    durable, ``due()`` says whether an fsync now keeps to one a group window."""

    def __init__(self, folder: Path, log: Callable[[str], None] | None = None, *,
                 group_s: float = GROUP_S, clock: Callable[[], float] = time.monotonic,
                 fsync: Callable[[int], None] = os.fsync) -> None:
        self.folder = Path(folder)
        self.path = self.folder / LOG
        self.log = log
        self.group_s = group_s
        self.clock = clock
        self.fsync = fsync
        #: Writes (appends and compactions), bytes written and fsyncs, since opened.
        self.writes = self.written = self.syncs = 0
        self._lock_fd = -1
        self._writer: JournalWriter | None = None
        self._backlog: list[bytes] = []
        self._unsynced = False
        self._last_sync = float("-inf")
        self._retry_at = float("-inf")
        #: The file's size after it was last written whole (as found: its games whole).
        self._base = 0
        #: Written whole at the next keep: no file yet, an old form, damage, a lost backlog.
        self._whole = True
        self._old: list[Path] = []

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
        if self._writer is not None:
            self._writer.close()
            self._writer = None
        if self._lock_fd >= 0:
            os.close(self._lock_fd)
            self._lock_fd = -1

    def load(self) -> list[dict[str, Any]]:
        """Every game kept, as ``{"source", "topic", "game": {...}}``, in the order the relay
        first heard of them; what does not read is told and set aside (module docstring)."""
        old = sorted(self.folder.glob("*.json"))
        if not self.path.exists():
            self._old = old
            return self._load_old(old)
        self._old = old  # left by an upgrade cut short: the file holds their games
        try:
            read = read_log(self.path)
        except OSError as exc:
            read = LogRead(problem=f"{self.path}: {exc.strerror or exc}")
        games, unfit = fold(read.records)
        if unfit:
            self._tell(f"relay: {self.path}: {unfit} records that do not follow from the "
                       "games before them left out (those games wait for their boards' next "
                       "snapshots)")
        self._take_over(read)
        return games

    def _take_over(self, read: LogRead) -> None:
        """Append to the file from the end of its good part on, or set it aside."""
        if read.problem and read.torn and read.n >= 0:
            self._tell(f"relay: {read.problem}: a torn last line (a crash in mid-write) "
                       "dropped")
            with open(self.path, "r+b") as f:
                f.truncate(read.end)
                f.flush()
                os.fsync(f.fileno())
        elif read.problem:
            self._set_aside(self.path, read.problem, f"{read.n} records before it restored")
            return
        self._writer = JournalWriter(self.path, last_n=read.n, last_c=read.c, fsync=self.fsync)
        self._base, self._whole = read.whole, bool(self._old)

    def _load_old(self, paths: list[Path]) -> list[dict[str, Any]]:
        """A version-1 folder (module docstring)."""
        found: list[dict[str, Any]] = []
        for path in list(paths):
            try:
                found += _read_old(path)
            except (OSError, ValueError, RecursionError, BoardError) as exc:
                self._set_aside(path, str(exc), "its games are not restored")
                self._old.remove(path)
        found.sort(key=lambda item: _order(item["game"]))
        return found

    def _set_aside(self, path: Path, why: str, what: str) -> None:
        bad = path.with_name(path.name + ".bad")
        try:
            os.replace(path, bad)
            where = f"moved to {bad.name}"
        except OSError:
            where = "left where it is"
        self._tell(f"relay: {path}: does not read ({why[:200]}): {what} ({where}); the "
                   "boards' next snapshots bring their games back")

    def _tell(self, message: str) -> None:
        if self.log is not None:
            self.log(message)
        else:
            logger.warning(message)

    def keep(self, changes: Records, everything: Records) -> bool:
        """Append the records of what changed (``changes()``), or write the file anew with
        ``everything()`` when that is due (module docstring); not durable until :meth:`sync`.
        False when a failed compaction waits to be tried again; OSError when the disk does not
        take them (the lines are kept and written with the next ones)."""
        writer = self._writer
        if (self._whole or writer is None
                or writer.size > self._base + max(COMPACT_MIN, self._base // 2)):
            if self.clock() < self._retry_at:
                return False
            self.compact(everything())
            return True
        assert writer is not None
        self._backlog += self._encode(writer, changes())
        if not self._backlog:
            return True
        data = b"".join(self._backlog)
        try:
            writer.append(data)
        except OSError:
            if len(data) > MAX_BACKLOG:
                self._backlog, self._whole = [], True  # everything written anew, when it can
            raise
        self._backlog = []
        self.writes, self.written, self._unsynced = self.writes + 1, self.written + len(data), True
        return True

    def _encode(self, writer: JournalWriter, records: list[dict[str, Any]]) -> list[bytes]:
        out = []
        for record in records:
            try:
                out.append(writer.encode(record))
            except ValueError as exc:  # not JSON (a number no JSON holds): told, left out
                self._tell(f"relay: {self.path}: a record not kept: {exc}")
        return out

    def compact(self, records: list[dict[str, Any]]) -> None:
        """The file written anew, durably: its ``store`` line and ``records`` (every game
        whole); OSError when it cannot be (the file stays as it was)."""
        lines: list[str] = []
        c = ""
        for record in [{"type": "store", "format": FORMAT, "version": VERSION}, *records]:
            try:
                line, c = seal(record, len(lines), c)
            except ValueError as exc:  # not JSON (a number no JSON holds): told, left out
                self._tell(f"relay: {self.path}: a record not kept: {exc}")
                continue
            lines.append(line)
        text = "".join(lines)
        self._retry_at = self.clock() + RETRY_S
        write_atomically(self.path, text, encoding="ascii")
        self._retry_at = float("-inf")
        if self._writer is not None:
            self._writer.close()
        self._writer = JournalWriter(self.path, last_n=len(lines) - 1, last_c=c,
                                     fsync=self.fsync)
        self._base, self._whole, self._backlog, self._unsynced = len(text), False, [], False
        self.writes, self.written = self.writes + 1, self.written + len(text)
        self.syncs += 2  # the file and its folder
        self._last_sync = self.clock()
        for path in self._old:
            path.unlink(missing_ok=True)
        if self._old:
            n = len(self._old)
            self._tell(f"relay: {self.folder}: the games of {n} file{'s' * (n != 1)} of the "
                       f"former form written anew as {LOG}")
        self._old = []

    def sync(self) -> None:
        """Make what :meth:`keep` appended durable (one fsync; OSError when it cannot be)."""
        if self._unsynced and self._writer is not None:
            self._writer.sync()
            self.syncs += 1
            self._unsynced = False
            self._last_sync = self.clock()

    def due(self) -> bool:
        """True when an fsync now keeps to one a group window."""
        return self.clock() - self._last_sync >= self.group_s

    def wait_s(self) -> float:
        """Seconds until :meth:`due`."""
        return max(0.0, self._last_sync + self.group_s - self.clock())


def _order(game: Mapping[str, Any]) -> int:
    order = game.get("order", 0)
    return order if isinstance(order, int) and not isinstance(order, bool) else 0


def _read_old(path: Path) -> list[dict[str, Any]]:
    """A version-1 feed file's games (BoardError, ValueError, OSError when it does not read)."""
    if path.stat().st_size > MAX_OLD_FILE:
        raise BoardError(f"over {MAX_OLD_FILE} bytes")
    data = json.loads(path.read_bytes().decode("utf-8"))
    if not (isinstance(data, dict) and data.get("format") == FORMAT
            and data.get("version") == 1 and isinstance(data.get("source"), str)
            and isinstance(data.get("games"), list)
            and all(isinstance(g, dict) for g in data["games"])):
        raise BoardError("not a relay games file of version 1")
    if file_name(data["source"]) != path.name:
        raise BoardError(f"it names feed {data['source'][:80]!r}, not its own")
    topic = bool(data.get("topic"))
    return [{"source": data["source"], "topic": topic, "game": g} for g in data["games"]]
