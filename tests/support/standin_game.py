"""The stand-in lidraughts server's games and challenges (tests/support/lidraughts_standin.py):
a game as the server keeps it (its moves checked by the project's rules, a capture taken a
step at a time, the clock started at ply 1 and charged on each move), its ``gameFull`` and
``gameState`` as lidraughts writes them, and a challenge and the game it opens."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from firmware.rules.position import Move, Position
from firmware.rules.sets import Side

#: The stand-in's own variant table (lidraughts' keys).
VARIANT_RULES = {"standard": "international", "russian": "russian", "brazilian": "brazilian"}
NO_CLOCK = 2**31 - 1


def squares(text: str) -> tuple[int, ...]:
    """A route as lidraughts writes it (two digits a square) as its squares."""
    return tuple(int(text[i:i + 2]) for i in range(0, len(text), 2))


class FakeClock:
    """The stand-in's time, in ms, moved by the test."""

    def __init__(self) -> None:
        self.ms = 1_000_000

    def advance(self, seconds: float) -> None:
        self.ms += round(seconds * 1000)


@dataclass
class StandinChallenge:
    id: str
    challenger: str
    dest: str
    variant: str
    rated: bool
    time_control: dict[str, Any]
    color: str
    initial_fen: str | None = None
    status: str = "created"
    reason: str | None = None

    def json(self, users: dict[str, str]) -> dict[str, Any]:
        def user(uid: str) -> dict[str, Any]:
            return {"id": uid, "name": users.get(uid, uid), "title": None, "rating": 1500}
        out = {"id": self.id, "url": f"https://lidraughts.org/{self.id}", "status": self.status,
               "challenger": user(self.challenger), "destUser": user(self.dest),
               "variant": {"key": self.variant, "name": self.variant.title(), "short": "x"},
               "rated": self.rated, "speed": "blitz", "timeControl": self.time_control,
               "color": self.color, "perf": {"icon": "#", "name": "Blitz"}}
        if self.initial_fen:
            out["initialFen"] = self.initial_fen
        return out

    def game_args(self, bot: str) -> dict[str, Any]:
        """What the game it opens is made of (``create_game``'s arguments): the bot black
        for a random colour, the clock of a clock challenge."""
        if self.color == "random":
            bot_side = Side.BLACK
        else:
            challenger_side = Side(self.color)
            bot_side = challenger_side.other if self.challenger != bot else challenger_side
        tc = self.time_control
        clock = tc["type"] == "clock"
        return {"variant": self.variant, "bot_side": bot_side,
                "opponent": self.dest if self.challenger == bot else self.challenger,
                "limit_s": tc["limit"] if clock else None,
                "increment_s": tc.get("increment", 0) if clock else 0, "game_id": self.id}


def time_control(kind: str, limit_s: int, increment_s: int) -> dict[str, Any]:
    """A challenge's ``timeControl`` as lidraughts writes it."""
    if kind == "clock":
        return {"type": "clock", "limit": limit_s, "increment": increment_s,
                "show": f"{limit_s // 60}+{increment_s}"}
    if kind == "correspondence":
        return {"type": "correspondence", "daysPerTurn": 3}
    return {"type": kind}


@dataclass
class StandinGame:
    """One game as the stand-in keeps it."""

    id: str
    variant: str
    white: str
    black: str
    limit_ms: int | None
    increment_ms: int
    position: Position
    started_ms: int
    entries: list[str] = field(default_factory=list)
    plies: list[Move] = field(default_factory=list)
    pending: list[int] = field(default_factory=list)
    remaining: dict[Side, int] = field(default_factory=dict)
    offers: set[Side] = field(default_factory=set)
    status: str = "started"
    winner: Side | None = None
    script: list[str] = field(default_factory=list)
    fen: str | None = None

    @property
    def over(self) -> bool:
        return self.status != "started"

    def side_of(self, user: str) -> Side:
        return Side.WHITE if user == self.white else Side.BLACK

    def left(self, side: Side, now_ms: int) -> int:
        if self.limit_ms is None:
            return NO_CLOCK
        left = self.remaining[side]
        if not self.over and side is self.position.turn and self.plies:
            left -= now_ms - self.started_ms
        return max(0, left)

    def state(self, now_ms: int, with_status: bool) -> dict[str, Any]:
        out: dict[str, Any] = {
            "type": "gameState", "moves": " ".join(self.entries),
            "wtime": self.left(Side.WHITE, now_ms), "btime": self.left(Side.BLACK, now_ms),
            "winc": self.increment_ms, "binc": self.increment_ms,
            "wdraw": Side.WHITE in self.offers, "bdraw": Side.BLACK in self.offers}
        if with_status:
            out["status"] = self.status
            if self.winner is not None:
                out["winner"] = self.winner.value
        return out

    def full(self, now_ms: int, with_status: bool, users: dict[str, str]) -> dict[str, Any]:
        def player(uid: str) -> dict[str, Any]:
            return {"id": uid, "name": users.get(uid, uid), "title": None, "rating": 1500}
        clock = None if self.limit_ms is None else {"initial": self.limit_ms,
                                                    "increment": self.increment_ms}
        return {"type": "gameFull", "id": self.id,
                "variant": {"key": self.variant, "name": self.variant.title(), "short": "x",
                            "gameType": 20, "board": {"key": "x", "size": [10, 10]}},
                "clock": clock, "speed": "blitz", "perf": {"name": "Blitz"}, "rated": False,
                "createdAt": 1_700_000_000_000, "white": player(self.white),
                "black": player(self.black), "initialFen": self.fen or "startpos",
                "state": self.state(now_ms, with_status)}

    # -- moves, checked by the project's rules ---------------------------------------------

    def step(self, a: int, b: int, now_ms: int) -> str | None:
        """One step of the side to move; the error text, or None."""
        route = (*self.pending, b) if self.pending else (a, b)
        if self.pending and a != self.pending[-1]:
            return f"Piece on {a:02d} cannot move: the capture goes on from {self.pending[-1]:02d}"
        legal = self.position.legal_moves()
        fits = [m for m in legal if m.route[:len(route)] == route]
        if not fits:
            return f"Piece on {a:02d} cannot move to {b:02d}"
        self.entries.append(f"{a:02d}{b:02d}")
        whole = [m for m in fits if m.route == route]
        if whole:
            self._complete(whole[0], now_ms)
        else:
            self.pending = list(route)
        return None

    def play_whole(self, route: tuple[int, ...], now_ms: int) -> str | None:
        legal = [m for m in self.position.legal_moves() if m.route == route]
        if self.pending or not legal:
            return f"{route} is not a legal move"
        self.entries.append("".join(f"{sq:02d}" for sq in route))
        self._complete(legal[0], now_ms)
        return None

    def _complete(self, move: Move, now_ms: int) -> None:
        mover = self.position.turn
        if self.limit_ms is not None and self.plies:  # lidraughts starts the clock at ply 1
            used = now_ms - self.started_ms
            self.remaining[mover] -= used
            if self.remaining[mover] < 0:
                self.remaining[mover] = 0
                self.finish("outoftime", mover.other)
                return
            self.remaining[mover] += self.increment_ms
        self.plies.append(move)
        self.position = self.position.play(move)
        self.pending = []
        self.started_ms = now_ms
        self.offers.discard(mover.other)  # a move declines the opponent's offer (DrawNo)
        if not self.position.has_legal_move():
            self.finish("mate", mover)

    def finish(self, status: str, winner: Side | None) -> None:
        self.status = status
        self.winner = winner

