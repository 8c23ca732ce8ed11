"""Shared helpers of the tests that hand feed records to their readers: records as their feed
lines' members (what a test compares), and members read as a line's record would be
(``firmware.formats.reader``: one reader of the records)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from firmware.formats.events import Event
from firmware.formats.reader import Refusal, read_record
from firmware.formats.records import FeedRecord
from firmware.session.session import BoardSession


def shapes(records: Iterable[Any]) -> list[dict[str, Any]]:
    """Typed records as their feed lines' members (``to_json``), in order."""
    return [record.to_json() for record in records]


def typed(members: Mapping[str, Any]) -> FeedRecord | Refusal:
    """A feed line's members read as its record (a refusal for one that does not read)."""
    return read_record(members)


def heard(members: Mapping[str, Any]) -> tuple[FeedRecord | Refusal, str | None]:
    """A line's record and the game's id the line names (what a relay hands its observers)."""
    game = members.get("game")
    return read_record(members), str(game) if game is not None else None


class FeedShapedSession(BoardSession):
    """A board session whose ``handle``, ``tick``, ``finish`` and ``snapshot`` give their
    records as their feed lines' members (what the referee's tests compare, line by line)."""

    def handle(self, event: Event) -> list[dict[str, Any]]:
        return shapes(super().handle(event))

    def tick(self, at: int) -> list[dict[str, Any]]:
        return shapes(super().tick(at))

    def finish(self, at: int | None = None) -> list[dict[str, Any]]:
        return shapes(super().finish(at))

    def snapshot(self, game: str, at: int | None = None) -> dict[str, Any]:
        return super().snapshot(game, at).to_json()
