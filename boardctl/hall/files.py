"""The organizer's files for ``boardctl hall``: the tournament file (JSON, written atomically
with fsync), the players list, and the games a crosstable is built from (PDN files or URLs such
as the relay's ``/HALL.pdn``)."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Callable, Iterable
from pathlib import Path

from boardctl.durable import write_atomically
from firmware.errors import BoardError, PdnError, TournamentError
from firmware.limits import loads
from firmware.pdn import PdnGame, read_games
from firmware.tournament.games import results_from_games
from firmware.tournament.players import Player, parse_players
from firmware.tournament.scoring import Crosstable, crosstable
from firmware.tournament.state import Tournament, from_json, to_json

MAX_FILE = 64 * 1024 * 1024  #: the biggest PDN or list read, in bytes
URL_TIMEOUT = 10.0

#: Where games come from: a file, an http(s) URL, or a function giving PDN text (the relay).
GamesSource = str | Path | Callable[[], str]


def read_bounded(path: Path, limit: int = MAX_FILE) -> bytes:
    with open(path, "rb") as f:
        data = f.read(limit + 1)
    if len(data) > limit:
        raise BoardError(f"{path}: bigger than {limit // (1024 * 1024)} MiB")
    return data


def load_tournament(path: Path) -> Tournament:
    data = read_bounded(path)
    try:
        parsed = loads(data.decode("utf-8"))
    except ValueError as exc:  # not UTF-8, not JSON, nested too deep, not text
        raise TournamentError(f"{path}: not JSON ({str(exc)[:200]})") from None
    try:
        return from_json(parsed)
    except TournamentError as exc:
        raise TournamentError(f"{path}: {exc}") from None


def save_tournament(path: Path, t: Tournament) -> None:
    write_atomically(path, json.dumps(to_json(t), ensure_ascii=False, indent=1) + "\n")


def load_players(path: Path) -> list[Player]:
    try:
        text = read_bounded(path).decode("utf-8-sig")
    except UnicodeDecodeError:
        raise TournamentError(f"{path}: not UTF-8 text") from None
    return parse_players(text, str(path))


def fetch_pdn(source: GamesSource) -> tuple[str | bytes, str]:
    """The PDN text of one source and its name for messages."""
    if callable(source):
        return source(), "relay"
    text = str(source)
    if text.startswith(("http://", "https://")):
        try:
            with urllib.request.urlopen(text, timeout=URL_TIMEOUT) as response:  # noqa: S310
                data = response.read(MAX_FILE + 1)
        except (urllib.error.URLError, OSError, ValueError) as exc:
            reason = getattr(exc, "reason", None) or exc
            raise BoardError(f"{text}: cannot read: {reason}") from None
        if len(data) > MAX_FILE:
            raise BoardError(f"{text}: bigger than {MAX_FILE // (1024 * 1024)} MiB")
        return data, text
    return read_bounded(Path(text)), text


def read_texts(texts: Iterable[tuple[str | bytes, str]]) -> list[PdnGame]:
    """The games of fetched PDN texts (``(text, name)`` pairs)."""
    games: list[PdnGame] = []
    for data, name in texts:
        try:
            games.extend(read_games(data, name))
        except PdnError as exc:
            raise BoardError(str(exc)) from None
    return games


def crosstable_of_texts(t: Tournament, texts: Iterable[tuple[str | bytes, str]]) -> Crosstable:
    t.require_draw()
    return crosstable(t, results_from_games(t, read_texts(texts)))


def build_crosstable(t: Tournament, sources: Iterable[GamesSource]) -> Crosstable:
    """The crosstable of the games in ``sources`` with the arbiter's entries."""
    return crosstable_of_texts(t, [fetch_pdn(s) for s in sources])
