"""The game as the server shows it, read from the game stream's lines: pure, no I/O, time
passed in. ``GameTracker.full`` reads a ``gameFull`` (the stream's first line, again after
every reconnection), ``state`` a ``gameState``, ``finished`` the game's end; each returns the
events the line means and updates ``view``, the snapshot the poster reconciles against.

lidraughts' ``BotJsonView``: ``gameFull`` holds ``id``, ``variant.key``, ``clock``
(``initial``/``increment`` ms, or null), ``rated``, ``white``/``black`` (``id``, ``name``,
``title``, ``rating``), ``initialFen`` (``startpos`` or a FEN) and ``state``; a ``gameState``
holds ``moves``, ``wtime``/``btime`` (ms left; 2^31-1 without a clock), ``winc``/``binc``,
``wdraw``/``bdraw`` (a draw offer standing), and, as the API's documentation has it though
lidraughts' code does not send them, ``status`` and ``winner``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from boardctl.online import fields
from boardctl.online.errors import OnlineError, ProtocolError
from boardctl.online.events import (
    Clocks,
    ClocksChanged,
    DrawDeclined,
    DrawOffered,
    EndReason,
    Event,
    GameEnded,
    GameStarted,
    MoveConfirmed,
    OpponentMoved,
    Player,
    PliesWithdrawn,
)
from boardctl.online.moves import MovesReader, Numbering, Replayed
from boardctl.online.variants import VARIANTS, rules_for, time_control
from firmware.clock.timecontrol import TimeControl
from firmware.errors import BoardError
from firmware.rules.game import result_text
from firmware.rules.position import Move, Position
from firmware.rules.sets import RuleSet, Side

#: lidraughts' clock for a side without one (``Int.MaxValue`` ms).
NO_CLOCK = 2**31 - 1
#: Statuses of a game not over.
PLAYING = frozenset({"created", "started"})


class Unplayable(ProtocolError):
    """A game the board cannot play (a variant or a start it has not)."""


@dataclass(frozen=True, slots=True)
class ServerView:
    """What the server last showed: its whole plies, a capture under way, whose turn, the
    draw offers standing, whether it is over, and how many ``gameFull`` lines were read."""

    side: Side
    plies: tuple[Move, ...]
    pending: tuple[int, ...]
    position: Position
    offers: frozenset[Side]
    over: bool
    fulls: int


@dataclass(frozen=True, slots=True)
class _Setup:
    rules: RuleSet
    control: TimeControl
    side: Side
    opponent: Player
    rated: bool
    fen: str | None
    start: Position


class GameTracker:
    """One game's state, fed the game stream's lines."""

    def __init__(self, game_id: str, account: str, numbering: str = "auto") -> None:
        self.game_id = game_id
        self.account = account.lower()
        #: ``--online-numbering`` (boardctl.online.moves.NUMBERINGS), and the game's own.
        self.numbering_mode = numbering
        self.numbering: Numbering | None = None
        self.view: ServerView | None = None
        self._setup: _Setup | None = None
        self._reader: MovesReader | None = None
        self._clocks: Clocks | None = None

    @property
    def rules(self) -> RuleSet | None:
        return self._setup.rules if self._setup else None

    def full(self, obj: dict[str, Any], now_ns: int) -> list[Event]:
        """A ``gameFull``: GameStarted the first time; after a reconnection, whatever changed
        while the link was down. Unplayable or ProtocolError when it cannot be used."""
        what = "gameFull"
        if fields.text(obj, "id", what) != self.game_id:
            raise ProtocolError(f"gameFull of game {obj.get('id')!r}, not {self.game_id}")
        state = fields.section(obj, "state", what)
        if self._setup is None:
            self._setup = _read_setup(obj, self.account)
            self.numbering = Numbering(self._setup.rules, self.numbering_mode)
            self._reader = MovesReader(self._setup.start, self.numbering)
            done = self._replay(state)
            offers = _offers(state)
            self.view = ServerView(self._setup.side, done.plies, done.pending, done.position,
                                   offers, False, 1)
            self._clocks = _clocks(state, done, now_ns)
            s = self._setup
            out: list[Event] = [GameStarted(self.game_id, s.rules, s.control, s.side,
                                            s.opponent, s.rated, s.fen, done.plies,
                                            self._clocks)]
            out += self._offer_events(frozenset(), offers)
            return out + self._status(state)
        assert self.view is not None
        self.view = replace(self.view, fulls=self.view.fulls + 1)
        return self.state(state, now_ns, resync=True)

    def state(self, obj: dict[str, Any], now_ns: int, resync: bool = False) -> list[Event]:
        """A ``gameState``: the new plies, clocks, draw offers, and the end if it says so."""
        if self.view is None or self._setup is None:
            raise ProtocolError("a gameState before the gameFull")
        old = self.view
        done = self._replay(obj)
        out: list[Event] = []
        keep = _common(old.plies, done.plies)
        if keep < len(old.plies):
            out.append(PliesWithdrawn(self.game_id, keep))
        clocks = _clocks(obj, done, now_ns)
        first = self._setup.start.turn
        for ply in range(keep, len(done.plies)):
            move = done.plies[ply]
            mover = first if ply % 2 == 0 else first.other
            cls = MoveConfirmed if mover is old.side else OpponentMoved
            out.append(cls(self.game_id, ply + 1, move, clocks))
        moved = len(done.plies) > keep
        if not moved and (resync or _times(clocks) != _times(self._clocks)):
            out.append(ClocksChanged(self.game_id, clocks))
        self._clocks = clocks
        offers = _offers(obj)
        out += self._offer_events(old.offers, offers)
        self.view = replace(old, plies=done.plies, pending=done.pending,
                            position=done.position, offers=offers)
        return out + self._status(obj)

    def finished(self, status: str, winner: str | None) -> list[Event]:
        """The game's end (from a state's ``status`` or the game's record once its stream
        ended); nothing if already told."""
        if self.view is not None and self.view.over:
            return []
        reason = _reason(status)
        side = {"white": Side.WHITE, "black": Side.BLACK}.get(winner or "")
        rules = self.rules
        if reason is EndReason.ABORT or (side is None and reason not in (
                EndReason.DRAW, EndReason.STALEMATE)) or rules is None:
            result = "*"
        else:
            result = result_text(rules, side)
        if self.view is not None:
            self.view = replace(self.view, over=True)
        return [GameEnded(self.game_id, result, side, reason)]

    def _replay(self, state: dict[str, Any]) -> Replayed:
        assert self._reader is not None
        return self._reader.read(fields.text(state, "moves", "gameState"))

    def _offer_events(self, before: frozenset[Side], after: frozenset[Side]) -> list[Event]:
        assert self._setup is not None
        ours, theirs = self._setup.side, self._setup.side.other
        out: list[Event] = []
        if theirs in after and theirs not in before:
            out.append(DrawOffered(self.game_id, theirs))
        if ours in before and ours not in after:
            out.append(DrawDeclined(self.game_id, theirs))
        return out

    def _status(self, state: dict[str, Any]) -> list[Event]:
        status = state.get("status")
        if not isinstance(status, str) or status in PLAYING:
            return []
        winner = state.get("winner")
        return self.finished(status, winner if isinstance(winner, str) else None)


def _read_setup(obj: dict[str, Any], account: str) -> _Setup:
    what = "gameFull"
    key = fields.text(fields.section(obj, "variant", what), "key", "gameFull variant")
    rules = rules_for(key)
    if rules is None:
        name = VARIANTS[key].name if key in VARIANTS else repr(key[:20])
        raise Unplayable(f"the variant {name} is not played on this board")
    white, black = (fields.section(obj, c, what) for c in ("white", "black"))
    ids = [str(p.get("id") or "").lower() for p in (white, black)]
    if account not in ids:
        raise ProtocolError(f"a game of {ids[0] or '?'} and {ids[1] or '?'}, not {account}'s")
    side = Side.WHITE if ids[0] == account else Side.BLACK
    them = black if side is Side.WHITE else white
    opponent = Player(fields.text(them, "name", "opponent", default=them.get("id") or "?"),
                      fields.maybe_text(them, "title", "opponent"),
                      fields.number(them, "rating", "opponent") if them.get("rating")
                      is not None else None)
    clock = fields.maybe_section(obj, "clock", what)
    if clock is None:
        control = TimeControl.parse("-")
    else:
        try:
            control = time_control(fields.number(clock, "initial", "clock") / 1000,
                                   fields.number(clock, "increment", "clock") / 1000)
        except OnlineError as exc:
            raise Unplayable(str(exc)) from None
    fen = fields.text(obj, "initialFen", what, default="startpos")
    start = Position.start(rules) if fen == "startpos" else _position(rules, fen)
    return _Setup(rules, control, side, opponent, fields.flag(obj, "rated", what),
                  None if fen == "startpos" else fen, start)


def _position(rules: RuleSet, fen: str) -> Position:
    """A lidraughts FEN (``W:W31,...:B1,...:H0:F1``): its first three fields are PDN's."""
    core = ":".join(fen.split(":")[:3])
    try:
        return Position.from_fen(rules, core)
    except BoardError as exc:
        raise ProtocolError(f"cannot read the game's FEN: {exc}") from None


def _clocks(state: dict[str, Any], done: Replayed, now_ns: int) -> Clocks:
    times = [fields.number(state, k, "gameState", default=NO_CLOCK) for k in ("wtime", "btime")]
    white, black = (None if t >= NO_CLOCK else max(0, t) for t in times)
    running = done.position.turn if (done.plies or done.pending) and white is not None \
        else None
    return Clocks(white, black, running, now_ns)


def _times(clocks: Clocks | None) -> tuple[int | None, int | None] | None:
    return None if clocks is None else (clocks.white_ms, clocks.black_ms)


def _offers(state: dict[str, Any]) -> frozenset[Side]:
    out = set()
    if fields.flag(state, "wdraw", "gameState"):
        out.add(Side.WHITE)
    if fields.flag(state, "bdraw", "gameState"):
        out.add(Side.BLACK)
    return frozenset(out)


def _common(a: tuple[Move, ...], b: tuple[Move, ...]) -> int:
    n = 0
    for x, y in zip(a, b, strict=False):
        if x.key != y.key:
            break
        n += 1
    return n


def _reason(status: str) -> EndReason:
    try:
        return EndReason(status)
    except ValueError:
        return EndReason.UNKNOWN
