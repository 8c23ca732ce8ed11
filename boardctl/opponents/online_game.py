"""One lidraughts game against the game on the board (boardctl.opponents.lidraughts): the
server's plies against the board's, the person's moves posted, the opponent's shown and
committed, the server's clocks followed, its end recorded. On the referee's thread.

The board's game may start later than the server's (a game under way, new to the board, is
set up from where it stands): ``base`` is how many of the server's plies come before the
board's first.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any

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
    MoveRefused,
    OpponentMoved,
    PliesWithdrawn,
    RequestRefused,
)
from boardctl.online.game import OnlineGame
from boardctl.online.link import LidraughtsLink
from boardctl.opponents.offers import OFFER_FACE
from boardctl.opponents.shown import RemoteShown
from boardctl.service.control.schema import ControlError
from boardctl.service.door import Seat
from firmware.clock.face import MoveOnFaces
from firmware.errors import BoardError
from firmware.formats.events import ClockSet, Result, TakeBack
from firmware.rules.notation import parse_move
from firmware.rules.position import Move, Position
from firmware.session.session import BoardSession

logger = logging.getLogger(__name__)

#: A control request answered in-process (the service's ``command``).
Request = Callable[[dict[str, Any]], dict[str, Any]]
#: A board's clock this far (ms) from the server's is set to the server's.
SYNC_MS = 1000
#: The board's result reason for each of lidraughts' ends.
REASONS = {EndReason.FLAG: "time forfeit", EndReason.RESIGNATION: "resignation",
           EndReason.DRAW: "agreement", EndReason.NO_MOVES: "no moves",
           EndReason.LEFT: "abandoned", EndReason.NO_START: "no start",
           EndReason.ABORT: "aborted", EndReason.GONE: "gone"}
#: Ends the board sees for itself once it has every move: waited for until it has them.
ON_THE_BOARD = frozenset({EndReason.NO_MOVES, EndReason.STALEMATE, EndReason.VARIANT_END})


class BoardsGame:
    """The server's game (``started``) as the board plays it."""

    def __init__(self, started: GameStarted, seat: Seat, link: LidraughtsLink) -> None:
        self.started = started
        self.game_id = started.game_id
        self.side = started.side
        self.seat = seat
        self.link = link
        self.plies: list[Move] = list(started.plies)
        self.posted = len(started.plies)
        self.clocks: Clocks | None = started.clocks
        self._clocks_new = started.clocks is not None
        self.shown = RemoteShown(seat, started.side.other, "lidraughts")
        self.ended: GameEnded | None = None
        self._end_recorded = False
        self.offered = False
        self.my_offer = False
        self._session: BoardSession | None = None
        self._base = 0

    def adopted(self) -> bool:
        """Whether the game on the board is this one (its ``GameId`` tag)."""
        return self.seat.session.tags.get("GameId") == self.game_id

    def online(self) -> OnlineGame | None:
        game = self.link.game
        return game if game is not None and game.game_id == self.game_id else None

    def start_position(self) -> Position:
        """Where the server's game stands now (a game new to the board starts there)."""
        position = self._server_start()
        for move in self.plies:
            position = position.play(move)
        return position

    def _server_start(self) -> Position:
        fen, rules = self.started.initial_fen, self.started.rules
        return Position.from_fen(rules, fen) if fen else Position.start(rules)

    def _find_base(self, session: BoardSession) -> int:
        position, start = self._server_start(), session.start.fen()
        for k, move in enumerate(self.plies):
            if position.fen() == start:
                return k
            position = position.play(move)
        return len(self.plies)

    # -- each turn ------------------------------------------------------------------------

    def turn(self, at: int) -> None:
        session = self.seat.session
        if not self.adopted():
            return
        if session is not self._session:
            self._session, self._base = session, self._find_base(session)
            self.shown.forget()
        self._post(session)
        self.shown.settle_refused(session)
        board = self._base + len(session.moves)
        if self.ended is None and session.result is None and board < len(self.plies) \
                and session.position.turn is self.shown.side and not self.shown.refused:
            self.shown.show(session, self.plies[board], at)
            self.shown.follow(session, at)
        self._sync_clocks(session, at)
        self._end(session, at)

    def _post(self, session: BoardSession) -> None:
        """The person's moves the board committed and the server has not: posted."""
        game = self.online()
        first = max(self.posted, len(self.plies)) + 1
        for ply in range(first, self._base + len(session.moves) + 1):
            i = ply - self._base - 1
            entry = session.moves[i]
            if game is None or entry["side"] != self.side.value:
                return
            move = parse_move(session.record.history[i], entry["move"])
            game.post_move(move, ply)
            self.posted = ply

    def _sync_clocks(self, session: BoardSession, at: int) -> None:
        """The server's clocks, once the board is at its ply: a side more than SYNC_MS off is
        set to the server's time (module docstring of boardctl.opponents.lidraughts)."""
        clocks, clock = self.clocks, session.clock
        if not self._clocks_new or clocks is None or clock is None or not clock.started \
                or session.result is not None:
            return
        if self._base + len(session.moves) != len(self.plies):
            return
        self._clocks_new = False
        for side in (self.side, self.side.other):
            server = clocks.left_ms(side)
            if server is None or server >= 2**31 - 1:
                continue
            if side is clocks.running:
                server -= (time.monotonic_ns() - clocks.received_ns) // 1_000_000
            board = clock.remaining(side, at) // 1_000_000
            if abs(board - server) > SYNC_MS:
                self._commit(ClockSet(at, side.value, max(0, server) / 1000))

    def _end(self, session: BoardSession, at: int) -> None:
        ended = self.ended
        if ended is None or self._end_recorded:
            return
        if ended.reason in ON_THE_BOARD and self._base + len(session.moves) < len(self.plies):
            return  # the last move is to be carried out first
        self._end_recorded = True
        self.shown.forget()
        reason = REASONS.get(ended.reason, ended.reason.value)
        self.seat.note("online-end", at, game=self.game_id, result=ended.result,
                       reason=reason)
        current = session.result
        if ended.result == "*" and (current is None or not session.moves):
            return  # aborted: no result to record (the game is left as it stands)
        if current is not None and current["result"] == ended.result and \
                ended.reason in ON_THE_BOARD:
            return
        self._commit(Result(at, ended.result, reason))

    def _commit(self, event: Any) -> None:
        try:
            self.seat.commit(event)
        except BoardError as exc:
            logger.warning("lidraughts game %s: %s refused: %s", self.game_id, event.type, exc)

    # -- the link's events ----------------------------------------------------------------

    def take(self, event: Event, at: int) -> None:
        if isinstance(event, OpponentMoved | MoveConfirmed):
            if event.ply == len(self.plies) + 1:
                self.plies.append(event.move)
            self._clocked(event.clocks)
            if isinstance(event, OpponentMoved):
                self.my_offer = False
            else:  # the board's move: the opponent's offer lapses with it
                self.offered = False
        elif isinstance(event, ClocksChanged):
            self._clocked(event.clocks)
        elif isinstance(event, MoveRefused):
            self._refused(event, at)
        elif isinstance(event, PliesWithdrawn):
            self._withdrawn(event.keep, at)
        elif isinstance(event, GameEnded):
            self.ended = event
        else:
            self._offers(event, at)

    def _offers(self, event: Event, at: int) -> None:
        if isinstance(event, DrawOffered):
            self.offered = True
            self.seat.note("online-draw", at, offered_by=event.by.value)
        elif isinstance(event, DrawDeclined):
            self.my_offer = False
            self.seat.note("online-draw", at, declined_by=event.by.value)
        elif isinstance(event, RequestRefused):
            self.seat.note("online-refused", at, request=event.request,
                           reason=event.reason[:200])

    def _clocked(self, clocks: Clocks | None) -> None:
        if clocks is not None:
            self.clocks, self._clocks_new = clocks, True

    def _refused(self, event: MoveRefused, at: int) -> None:
        """The server did not take the person's move: taken back on the board, told."""
        session = self.seat.session
        board = self._base + len(session.moves)
        if not self.adopted() or not self._base < event.ply <= board:
            return
        self._commit(TakeBack(at, board - event.ply + 1, stop=False))
        self.posted = event.ply - 1
        self.shown.refuse(session, event.move, event.reason, at)

    def _withdrawn(self, keep: int, at: int) -> None:
        """The server lost plies (it restarted): the board's beyond them are taken back."""
        del self.plies[keep:]
        self.posted = min(self.posted, keep)
        session = self.seat.session
        board = self._base + len(session.moves)
        if self.adopted() and keep < board and keep >= self._base:
            self._commit(TakeBack(at, board - keep, stop=False))

    # -- the person's requests --------------------------------------------------------------

    def draw(self) -> str:
        """Take up the opponent's offer standing, else offer one (with the next move)."""
        game = self.online()
        if game is None:
            return "no game"
        if self.offered:
            self.offered = False
            game.answer_draw(True)
            return "accepted"
        self.my_offer = True
        game.offer_draw()
        return "offered"

    def decline(self) -> str:
        """The opponent's offer standing declined (it lapses with the board's next move)."""
        game = self.online()
        if game is None or not self.offered:
            raise ControlError("decline-draw: no draw offer of the opponent stands")
        self.offered = False
        game.answer_draw(False)
        return "declined"

    def offer_face(self) -> MoveOnFaces | None:
        """A draw offer standing, on the offering side's face (OFFER_FACE)."""
        if self.ended is not None:
            return None
        if self.offered:
            return MoveOnFaces(self.side.other, OFFER_FACE, alone=True)
        return MoveOnFaces(self.side, OFFER_FACE, alone=True) if self.my_offer else None

    def resign(self) -> None:
        game = self.online()
        if game is not None:
            game.resign()

    def status(self) -> dict[str, Any]:
        clocks = self.clocks
        said: dict[str, Any] = {
            "id": self.game_id, "side": self.side.value, "opponent": str(self.started.opponent),
            "rated": self.started.rated, "plies": len(self.plies), "posted": self.posted,
            "draw_offer": {"theirs": self.offered, "mine": self.my_offer},
            "clocks": None if clocks is None else {
                "white": clocks.white_ms, "black": clocks.black_ms,
                "running": None if clocks.running is None else clocks.running.value},
            "ended": None if self.ended is None else {
                "result": self.ended.result, "reason": self.ended.reason.value}}
        return {**said, **self.shown.status()}
