"""The organizer's tournament: players, their drawn numbers, the settings every round's setup
carries, the withdrawals and the arbiter's results. Read from and written to a JSON object
(``boardctl hall`` keeps it in a file); every field is checked on reading.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from firmware.clock.timecontrol import TimeControl
from firmware.errors import RulesError, TimeControlError, TournamentError
from firmware.rules.sets import find_rules
from firmware.tournament.players import Player, check_name, check_unique
from firmware.tournament.results import Result, parse_result
from firmware.tournament.tables import Round, check_players, rounds_count, schedule

FORMAT = "kabelaud-tournament/1"
BOARD_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")


@dataclass(frozen=True, slots=True)
class RoundGame:
    """One game of a round by names, with the board it is played on."""

    round: int
    board: str
    white: str
    black: str


@dataclass(frozen=True, slots=True)
class Withdrawal:
    """A player who left the tournament after ``after_round`` rounds (seed 004 §38)."""

    name: str
    after_round: int


@dataclass
class Tournament:
    players: list[Player]
    event: str = ""
    site: str = ""
    date: str = ""
    rules: str = "russian"
    time_control: str | None = None
    cycles: int = 1
    #: name -> draw number; empty until the drawing (seed 004, appendix)
    numbers: dict[str, int] = field(default_factory=dict)
    #: board names in playing order; board k of a round is boards[k-1] (default "1", "2", ...)
    boards: list[str] = field(default_factory=list)
    withdrawals: list[Withdrawal] = field(default_factory=list)
    #: (round, white, black) -> the arbiter's result, which overrides the board's
    entries: dict[tuple[int, str, str], Result] = field(default_factory=dict)
    started: list[int] = field(default_factory=list)

    # ---------------------------------------------------------------- lookups

    def player(self, name: str) -> Player:
        key = name.strip().casefold()
        for p in self.players:
            if p.name.casefold() == key:
                return p
        raise TournamentError(f"{name.strip()[:80]!r} is not a player of this tournament")

    @property
    def rounds(self) -> int:
        return rounds_count(len(self.players), self.cycles)

    def by_number(self) -> dict[int, str]:
        self.require_draw()
        return {n: name for name, n in self.numbers.items()}

    def require_draw(self) -> None:
        if not self.numbers:
            raise TournamentError("no numbers drawn yet (boardctl hall draw)")

    def check_round(self, number: int) -> int:
        if not 1 <= number <= self.rounds:
            raise TournamentError(f"round {number}: this tournament has rounds 1-{self.rounds}")
        return number

    def board_name(self, index: int) -> str:
        """The name of the ``index``-th board (1-based) of a round."""
        if index <= len(self.boards):
            return self.boards[index - 1]
        return str(index)

    def table(self) -> tuple[Round, ...]:
        return schedule(len(self.players), self.cycles)

    def games(self, number: int) -> tuple[list[RoundGame], str | None]:
        """Round ``number``'s games by name, boards in the order of the seed's table, and the
        player with the bye (or None)."""
        self.check_round(number)
        names = self.by_number()
        rnd = self.table()[number - 1]
        games = [RoundGame(number, self.board_name(i), names[p.white], names[p.black])
                 for i, p in enumerate(rnd.games, 1)]
        return games, names[rnd.bye] if rnd.bye is not None else None

    def all_games(self) -> list[RoundGame]:
        return [g for r in range(1, self.rounds + 1) for g in self.games(r)[0]]

    def withdrawn(self) -> dict[str, int]:
        return {w.name: w.after_round for w in self.withdrawals}


# -------------------------------------------------------------------- JSON


def _text(data: Mapping[str, Any], key: str, default: str = "") -> str:
    value = data.get(key, default)
    if not isinstance(value, str) or len(value) > 200:
        raise TournamentError(f"tournament file: {key!r} must be a text of at most 200 "
                              "characters")
    return value


def from_json(data: Any) -> Tournament:
    """A Tournament from the parsed JSON of its file; TournamentError naming the bad field."""
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise TournamentError(f"not a tournament file (expected \"format\": \"{FORMAT}\")")
    players, numbers = _players(data.get("players"))
    cycles = data.get("cycles", 1)
    if cycles not in (1, 2) or type(cycles) is not int:
        raise TournamentError("tournament file: 'cycles' must be 1 or 2")
    boards = data.get("boards", [])
    if not isinstance(boards, list) or not all(
            isinstance(b, str) and BOARD_NAME.fullmatch(b) for b in boards):
        raise TournamentError("tournament file: 'boards' must be a list of names matching "
                              "[A-Za-z0-9_-]+")
    if len(set(boards)) != len(boards):
        raise TournamentError("tournament file: a board is named twice in 'boards'")
    t = Tournament(players, _text(data, "event"), _text(data, "site"), _text(data, "date"),
                   _rules(data), _time_control(data), cycles, numbers, boards)
    _read_progress(t, data)
    return t


def _rules(data: Mapping[str, Any]) -> str:
    """The rule set's name, checked now: a hand-edited file naming no rule set we know would
    otherwise fail only when a round starts, on every board at once."""
    try:
        return find_rules(_text(data, "rules", "russian")).name
    except RulesError as exc:
        raise TournamentError(f"tournament file: 'rules': {exc}") from None


def _time_control(data: Mapping[str, Any]) -> str | None:
    """The time control as written, checked now (the boards start their clocks with it)."""
    tc = data.get("time_control")
    if tc is None:
        return None
    if not isinstance(tc, str):
        raise TournamentError("tournament file: 'time_control' must be a text or null")
    try:
        TimeControl.parse(tc)
    except TimeControlError as exc:
        raise TournamentError(f"tournament file: 'time_control': {exc}") from None
    return tc


def _players(raw_players: Any) -> tuple[list[Player], dict[str, int]]:
    """The players and their drawn numbers (1..N each once, or none) from ``players``."""
    if not isinstance(raw_players, list):
        raise TournamentError("tournament file: 'players' must be a list")
    players = []
    numbers = {}
    for i, item in enumerate(raw_players, 1):
        if not isinstance(item, dict):
            raise TournamentError(f"tournament file: player {i} is not an object")
        name = check_name(str(item.get("name", "")), f"tournament file: player {i}")
        rating, club, number = item.get("rating"), item.get("club"), item.get("number")
        if rating is not None and (type(rating) is not int or not 0 <= rating < 100000):
            raise TournamentError(f"tournament file: player {name!r}: bad rating")
        if club is not None and not isinstance(club, str):
            raise TournamentError(f"tournament file: player {name!r}: bad club")
        if number is not None:
            if type(number) is not int:
                raise TournamentError(f"tournament file: player {name!r}: bad number")
            numbers[name] = number
        players.append(Player(name, rating, club))
    check_unique(players, "tournament file")
    check_players(len(players))
    if numbers and sorted(numbers.values()) != list(range(1, len(players) + 1)):
        raise TournamentError("tournament file: the numbers must be 1..N, each once, "
                              "for every player")
    return players, numbers


def _read_progress(t: Tournament, data: Mapping[str, Any]) -> None:
    """Withdrawals, results and the rounds started, checked against the tournament."""
    for item in _list(data, "withdrawals"):
        after = item.get("after_round") if isinstance(item, dict) else None
        if type(after) is not int or not 0 <= after <= t.rounds:
            raise TournamentError("tournament file: a withdrawal needs 'name' and "
                                  f"'after_round' 0-{t.rounds}")
        t.withdrawals.append(Withdrawal(t.player(str(item.get("name", ""))).name, after))
    for item in _list(data, "results"):
        if not isinstance(item, dict):
            raise TournamentError("tournament file: a result is not an object")
        rnd = item.get("round")
        if type(rnd) is not int:
            raise TournamentError("tournament file: a result needs a whole 'round'")
        white = t.player(str(item.get("white", ""))).name
        black = t.player(str(item.get("black", ""))).name
        t.entries[(t.check_round(rnd), white, black)] = parse_result(str(item.get("result")))
    if t.entries and not t.numbers:
        raise TournamentError("tournament file: results before the drawing of numbers")
    for rnd, white, black in t.entries:
        if not any((g.white, g.black) == (white, black) for g in t.games(rnd)[0]):
            raise TournamentError(f"tournament file: a result of {white} - {black} in round "
                                  f"{rnd}, who do not meet with those colours in that round")
    started = _list(data, "started")
    if not all(type(r) is int for r in started):
        raise TournamentError("tournament file: 'started' must list round numbers")
    t.started = sorted({t.check_round(r) for r in started})


def _list(data: Mapping[str, Any], key: str) -> list[Any]:
    value = data.get(key, [])
    if not isinstance(value, list):
        raise TournamentError(f"tournament file: {key!r} must be a list")
    return value


def to_json(t: Tournament) -> dict[str, Any]:
    """The JSON object of a tournament file (``from_json(to_json(t))`` gives ``t`` back)."""
    players = []
    for p in t.players:
        item: dict[str, Any] = {"name": p.name}
        if p.rating is not None:
            item["rating"] = p.rating
        if p.club is not None:
            item["club"] = p.club
        if p.name in t.numbers:
            item["number"] = t.numbers[p.name]
        players.append(item)
    return {
        "format": FORMAT, "event": t.event, "site": t.site, "date": t.date, "rules": t.rules,
        "time_control": t.time_control, "cycles": t.cycles, "boards": t.boards,
        "players": players,
        "withdrawals": [{"name": w.name, "after_round": w.after_round} for w in t.withdrawals],
        "results": [{"round": r, "white": w, "black": b, "result": res.text}
                    for (r, w, b), res in sorted(t.entries.items())],
        "started": t.started,
    }
