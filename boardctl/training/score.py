"""A training session's score and its PDN (docs/TRAINING.md): the guesses of each ply counted
(right at the first try, the second, the third, or shown), the games written with the guesses
as comments into a file of the state directory (``training/``), on a thread of its own (the
referee's thread never writes a file)."""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from boardctl.training.guessing import PlyGuesses
from firmware.pdn.model import rules_tags
from firmware.pdn.write import write_game
from firmware.rules.sets import RuleSet

logger = logging.getLogger(__name__)


@dataclass
class Score:
    """The person's plies by how he found the line's move."""

    first: int = 0
    second: int = 0
    third: int = 0
    shown: int = 0

    def add(self, plies: Iterable[PlyGuesses]) -> None:
        for guesses in plies:
            if guesses.shown:
                self.shown += 1
            elif guesses.right:
                tries = len(guesses.wrong)
                if tries == 0:
                    self.first += 1
                elif tries == 1:
                    self.second += 1
                else:
                    self.third += 1

    def members(self) -> dict[str, int]:
        return {"first": self.first, "second": self.second, "third": self.third,
                "shown": self.shown}

    def text(self) -> str:
        """The score in words (the session's PDN, the log)."""
        return (f"right at the first try {self.first}, at the second {self.second}, at the "
                f"third {self.third}, shown {self.shown}")

    def face(self) -> str:
        """The score on a clock face (four digits): first-try hits against plies guessed."""
        total = self.first + self.second + self.third + self.shown
        return f"{min(self.first, 99):>2}{min(total, 99):>2}"


def line_pdn(rules: RuleSet, tags: Mapping[str, str], texts: Iterable[str], fen: str | None,
             result: str | None, comments: Mapping[int, str]) -> str:
    """One game of the session as PDN 3.0: the line's moves as played, the guesses after the
    person's plies as comments."""
    return write_game({**tags, **rules_tags(rules)}, list(texts), start_fen=fen,
                      result=result or "*", comments=comments)


class SessionFile:
    """The session's PDN file (``path``): written whole, atomically (a temporary file, fsync,
    rename), each time on a thread of its own; :meth:`close` waits for the last."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self._threads: list[threading.Thread] = []
        self._lock = threading.Lock()
        self._latest = ""

    def save(self, text: str) -> None:
        if self.path is None:
            return
        self._latest = text
        thread = threading.Thread(target=self._write, name="training-pdn",
                                  daemon=True)
        self._threads = [t for t in self._threads if t.is_alive()] + [thread]
        thread.start()

    def _write(self) -> None:
        path = self.path
        assert path is not None
        with self._lock:  # whichever thread writes, it writes the last text saved
            text = self._latest
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
                tmp = path.with_suffix(".tmp")
                with open(tmp, "w", encoding="utf-8") as f:
                    f.write(text)
                    f.flush()
                    os.fsync(f.fileno())
                os.replace(tmp, path)
            except OSError as exc:
                logger.warning(f"training: cannot write {path}: {exc.strerror or exc}")

    def close(self) -> None:
        for thread in self._threads:
            thread.join(10.0)
        self._threads = []

    def status(self) -> dict[str, Any]:
        return {"pdn_file": str(self.path) if self.path is not None else None}
