"""A game as the relay holds it (:class:`RelayGame`, its PDN) and the pure checks of incoming
records: a move record a PDN can carry, the position after it, text fit for a tag, a game's
details, and the form the relay's store keeps a game in (boardctl.relay.store)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from firmware.errors import BoardError
from firmware.formats.records import MoveRecord
from firmware.pdn import ClockReading, write_game
from firmware.pdn.tags import fit_tags
from firmware.rules.notation import parse_move
from firmware.rules.position import Position

__all__ = ["RelayGame", "kept", "move_records"]

@dataclass
class RelayGame:
    """One game as the relay knows it."""

    board: str
    game: str
    key: str = ""
    rules: str | None = None
    start_fen: str | None = None
    tags: dict[str, str] = field(default_factory=dict)
    time_control: str | None = None
    moves: list[dict[str, Any]] = field(default_factory=list)
    result: str | None = None
    reason: str | None = None
    running: str | None = None
    #: The clocks since the last move's (a pause, resume or the arbiter's correction: its
    #: ``clock`` line): (ply, white, black, running side or "" for none), written on that
    #: ply's ``[%clock]`` so that a broadcast shows them at once, not after the next move.
    clock_since: tuple[int, float, float, str] | None = None
    #: A move arrived that does not follow the last one: waiting for a snapshot.
    gap: bool = False
    #: Counts the changes to what the PDN is made of (the text cache's key).
    version: int = 0
    #: The position after ``moves`` (None: not played yet, or no rule set known).
    position: Position | None = field(default=None, repr=False, compare=False)
    #: The feed it came from (its file in the relay's store) and when it was first heard of.
    source: str = ""
    order: int = 0
    #: Served (in the PDNs) since its first move or its result; a game before it is not:
    #: PDN readers (pydraughts) stop at a game without moves, and it is no game played yet.
    shown: bool = False

    def start(self) -> Position | None:
        """The position before the first move; None while no rule set is known."""
        if self.rules is None:
            return None
        if self.start_fen is None:
            return Position.start(self.rules)
        return Position.from_fen(self.rules, self.start_fen)  # read when it was taken

    def round_tag(self) -> str:
        """``r.b``: the game's round and its board's number (PDN ``Round``, as the standard
        writes sub-rounds: ``3.1``, ``4.1.2``). The number is the board's name when it is one,
        else the digits it ends in (``b12``: 12, the name a hall's boards are given); a board
        named without a number, and a game of no known round, keep the round alone (``3``,
        ``?``): the ``Board`` tag names the board."""
        rnd = self.tags.get("Round", "").strip() or "?"
        if "." in rnd or rnd == "?":
            return rnd
        board = self.tags.get("Board", "").strip() or self.board
        number = re.search(r"(?<![0-9])0*([0-9]{1,9})$", board) if board.isascii() else None
        return f"{rnd}.{number.group(1) or '0'}" if number else rnd

    def pdn(self) -> str:
        from firmware.rules.sets import find_rules

        tags = dict(self.tags)
        board = tags.pop("Board", None)
        tags["Round"] = self.round_tag()
        if "/" in self.key:  # a hall board's game: its topic's name (docs/CONTRACT.md)
            tags["Board"] = self.board
        elif board:  # a serial board's own tag: the Round's sub-round may not name it
            tags["Board"] = board
        if self.time_control:
            tags.setdefault("TimeControl", self.time_control)
        game_type = None
        start_fen = self.start_fen
        if self.rules:
            try:
                rules = find_rules(self.rules)
            except Exception:  # an unknown rule set on the wire: keep the game, drop the type
                rules = None
            if rules is not None:
                game_type = rules.game_type
                if start_fen is not None and start_fen == Position.start(rules).fen():
                    start_fen = None
        clocks: list[ClockReading | None] = []
        for m in self.moves:
            c = m.get("clock")
            if isinstance(c, dict):
                mover = m.get("side")
                running = "black" if mover == "white" else "white"
                clocks.append(ClockReading(_num(c.get("white")), _num(c.get("black")), running))
            else:
                clocks.append(None)
        since = self.clock_since
        if since is not None and since[0] == len(self.moves) and self.moves:
            clocks[-1] = ClockReading(since[1], since[2], since[3])
        if self.result and clocks and clocks[-1] is not None:  # over: no clock runs
            clocks[-1] = ClockReading(clocks[-1].white, clocks[-1].black, "")
        return write_game(
            tags,
            [str(m.get("move")) for m in self.moves],
            start_fen=start_fen,
            clocks=clocks if any(clocks) else None,
            result=self.result or "*",
            game_type=game_type,
        )


def _num(value: Any) -> float | None:
    """A clock reading in seconds, or None for anything that is not one."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value) if 0 <= value < 1e7 else None


_KEPT = ("rules", "start_fen", "tags", "time_control", "moves", "result", "reason")
#: The form of the PDN text :meth:`RelayGame.pdn` writes, kept with each game's text in the
#: relay's store: raised when that text changes (2: sub-round numbers, ``[Round "3.1"]``), so
#: that a relay restarted after an upgrade writes its kept games anew rather than serve the
#: old form until each game moves again.
PDN_FORM = 2


def _packed(m: Mapping[str, Any]) -> list[Any]:
    """A move as the store keeps it: ``[move]`` or ``[move, white, black]`` (its clocks); the
    ply and side follow from its place (a list: a whole event reads back in about a second)."""
    c = m.get("clock")
    if isinstance(c, dict) and _num(c.get("white")) is not None and _num(
            c.get("black")) is not None:
        return [m.get("move"), c["white"], c["black"]]
    return [m.get("move")]


def _unpacked(moves: Any, first: str) -> list[dict[str, Any]]:
    """The store's moves as move records (``first``: the side that moves first); anything
    else ends them (the game then waits for a snapshot)."""
    out: list[dict[str, Any]] = []
    for k, m in enumerate(moves if isinstance(moves, list) else ()):
        if not (isinstance(m, list) and len(m) in (1, 3)):
            out.append({})
            break
        side = first if k % 2 == 0 else ("black" if first == "white" else "white")
        record: dict[str, Any] = {"ply": k + 1, "side": side, "move": m[0]}
        if len(m) == 3:
            record["clock"] = {"white": m[1], "black": m[2]}
        out.append(record)
    return out


def kept(game: RelayGame) -> dict[str, Any]:
    """A game as the relay's store keeps it (read back by :meth:`RelayState.restore`)."""
    return {"game": game.game, "board": game.board, "order": game.order, "rules": game.rules,
            "start_fen": game.start_fen, "tags": dict(game.tags),
            "time_control": game.time_control, "moves": [_packed(m) for m in game.moves],
            "result": game.result, "reason": game.reason, "shown": game.shown,
            "clock_since": list(since) if (since := getattr(game, "clock_since", None)) else None}


def move_records(moves: list[dict[str, Any]]) -> tuple[MoveRecord, ...]:
    """A game's moves as the relay holds them (well-formed: checked when taken), as records."""
    return tuple(MoveRecord(m["ply"], m["side"], m["move"], None, m.get("clock"))
                 for m in moves)


def _looks(game: RelayGame) -> tuple[Any, ...]:
    """Everything the game's PDN is made of (cheaper to compare than the PDN itself)."""
    return (game.rules, game.start_fen, dict(game.tags), game.time_control,
            [dict(m) for m in game.moves], game.result)


def _details(game: RelayGame, time_control: Any, tags: Any) -> None:
    """A record's time control and tags (those only while the game has no move)."""
    if isinstance(time_control, str) and _clean(time_control):
        game.time_control = _clean(time_control)
    if isinstance(tags, Mapping) and not game.moves:  # a started game keeps its tags
        game.tags = fit_tags(tags)  # a hostile record is not a bigger PDN


def _same(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    """The same move record (its clock aside)."""
    return all(a.get(k) == b.get(k) for k in ("ply", "side", "move"))


def _after(position: Position, m: Mapping[str, Any], ply: int) -> Position | str:
    """The position after move record ``m`` as ply ``ply`` from ``position``, or why it
    cannot be."""
    if m.get("ply") != ply:
        return f"numbered ply {m.get('ply')}"
    if m.get("side") != position.turn.value:
        return f"{m.get('side')} moved, {position.turn.value} is to move"
    try:
        return position.play(parse_move(position, m["move"]))
    except (BoardError, ValueError) as exc:
        return str(exc)


def _clean(text: str) -> str:
    """Text fit for a PDN tag value: no control characters, at most 200 characters."""
    return "".join(ch for ch in text if ch >= " " and ch != "\x7f")[:200]


_MOVE = re.compile(r"[a-j0-9]{1,3}(?:[-x:][a-j0-9]{1,3}){1,25}")


def _good_move(m: Any) -> bool:
    """A move record a PDN can carry: its ply, its side and a move in PDN notation."""
    return (
        isinstance(m, dict)
        and isinstance(m.get("ply"), int)
        and not isinstance(m.get("ply"), bool)
        and 1 <= m["ply"] <= 10_000
        and isinstance(m.get("move"), str)
        and _MOVE.fullmatch(m["move"]) is not None
        and m.get("side") in ("white", "black")
    )
