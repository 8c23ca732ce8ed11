"""A game held in the state directory, read back as ``boardctl export`` reads it: its journal
(with the records its spill holds), rebuilt through a fresh session (``rebuild``: the one
recovery path). ``boardctl export`` and the board's own page (boardctl.page: every game's
PDN) share it, so that both give the same moves."""

from __future__ import annotations

import logging
from pathlib import Path

from boardctl.service.games import Rebuilt, rebuild
from boardctl.service.journal_file import load_journal, read_bytes, spill_path, spilled
from firmware.errors import BoardError, EventLogError
from firmware.formats.journal import Journal, read_journal

logger = logging.getLogger(__name__)


def export_game(path: Path, *, salvage: bool = False) -> tuple[Journal, Rebuilt]:
    """The journal at ``path`` and the game it rebuilds. A missing journal is a
    BoardError; a damaged one an EventLogError that names the line (and, without
    ``salvage``, says that ``--salvage`` recovers the game before it)."""
    try:
        journal = load_journal(path, salvage=salvage)
    except FileNotFoundError:
        raise BoardError(f"{path}: no such journal") from None
    except EventLogError as exc:
        if salvage:
            raise
        raise EventLogError(f"{exc} (boardctl export --salvage recovers the game before "
                            "it)") from None
    journal = with_spill(path, journal, salvage)
    return journal, rebuild(journal, str(path))


def with_spill(path: Path, journal: Journal, salvage: bool) -> Journal:
    """The journal with the records its spill holds (written there while the state directory
    was full, docs/HALL.md section 10), read without changing anything: the service takes
    them into the journal at its next start. Said on stderr, as is a spill that does not
    continue the journal."""
    if not journal.verified or journal.lost is not None or not spill_path(
            path.parent.parent, path).is_file():
        return journal
    try:
        spill, taken, stop = spilled(path, journal)
    except OSError as exc:
        logger.warning(f"{path}: its spill cannot be read ({exc.strerror or exc})")
        return journal
    if taken:
        data = read_bytes(path, journal.end) + b"".join(taken)
        journal = read_journal(data.splitlines(keepends=True), source=str(path),
                               salvage=salvage)
        logger.warning(f"{path}: {len(taken)} records read from its spill {spill} too (not in "
                       "the journal yet: the service takes them back at its next start)")
    if stop:
        logger.warning(f"{path}: its spill {spill} holds records that do not continue the "
                       f"journal ({stop}): not exported")
    return journal
