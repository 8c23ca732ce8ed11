"""The arbiter's desk: what a control request reaches of the running service (the game in
play, its data path, new games and their players, the status, the simulated hand), the one
implementation of :class:`boardctl.service.arbiter.Arbitrated` (whose functions answer the
requests)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from boardctl.service import arbiter
from boardctl.service.control.schema import ControlError, Request
from boardctl.service.datapath import DataPath
from boardctl.service.door import PlayerDoor
from boardctl.service.gamelife import GameLife
from boardctl.service.games import CurrentGame, GameSetup
from boardctl.service.hardware import Hardware
from boardctl.service.inbox import RefereeInbox
from boardctl.service.loop import frontier
from boardctl.service.sensing import EventMerge, SimHand
from boardctl.service.showing import BoardFace
from firmware.formats.events import NS, Event


class ControlDesk:
    """Control requests on the referee's thread (:meth:`answer`); the simulated hand's acts
    from any thread (:meth:`sim`). ``status_extras``: more for ``status`` (the broker link's
    state), called on the referee's thread. A player not at the board answers its own
    requests and plays the new games its lineup chooses (``door``)."""

    def __init__(self, game: CurrentGame, merge: EventMerge, path: DataPath, life: GameLife,
                 door: PlayerDoor, face: BoardFace, hand: SimHand, inbox: RefereeInbox,
                 hardware: Hardware, *, board: str) -> None:
        self.game = game
        self.merge = merge
        self.path = path
        self.life = life
        self.door = door
        self.face = face
        self.hand = hand
        self.inbox = inbox
        self.hw = hardware
        self.board = board
        door.renew = self.renew  # a player's new game (the next puzzle) is set up here
        #: Plies a power cut lost (issue 30); the broker link's state (boardctl.hall.board).
        self.status_extras: list[Callable[[], dict[str, Any]]] = [life.gap_status]

    def answer(self, req: Request) -> dict[str, Any]:
        """One request, on the referee's thread (boardctl.service.arbiter.on_request)."""
        return arbiter.on_request(self, req)

    def from_elsewhere(self, req: Request) -> Mapping[str, Any]:
        """A request from another thread than the referee's (the control socket's, a hall's):
        the simulated hand acts at once (stamped when the request arrived); a new game's
        player is made ready here (what is slow about it: never on the referee's thread);
        anything else is answered on the referee's (:meth:`answer`, through the inbox)."""
        if req.cmd == "sim":
            return self.sim(req.args)
        if req.cmd == "new":
            self.ready(arbiter.players_of(req.args), req.args.get("rules"))
        return self.inbox.ask(req)

    def player_request(self, cmd: str, args: Mapping[str, Any]) -> dict[str, Any]:
        """A request the player not at the board answers (``hint``, ``resign``, ``offer-draw``
        to the engine)."""
        answer = self.door.answer(cmd, args)
        if answer is None:
            raise ControlError(f"{cmd}: no engine plays on this board (boardctl run --engine, "
                               "or boardctl new --engine)")
        return answer

    def frontier(self) -> int:
        return frontier(self.game, self.merge)

    def handle(self, event: Event) -> list[dict[str, Any]]:
        """The event along the data path; its records as an answer carries them (JSON)."""
        return [record.to_json() for record in self.path.handle(event)]

    def new_game(self, setup: GameSetup, players: Mapping[str, Any]) -> None:
        """A new game, played by the player its lineup chooses from ``players`` (the ``new``
        request's keys beyond the game's), then announced; refused: nothing changed."""
        self.door.new_game(setup, players, self.life.new_game)
        self.path.announce()

    def renew(self) -> None:
        """A new game for the player seated (its ``Seat.new_game``): a forced ``new``."""
        arbiter.ANSWERS["new"](self, {"force": True}, 0)

    def ready(self, players: Mapping[str, Any], rules: str | None) -> None:
        """On the thread a ``new`` request comes from, before the referee's: what is slow about
        choosing its player (boardctl.service.door.Lineup.ready)."""
        header = self.game.header
        if header is not None:
            self.door.ready(players, rules or header.rules)

    def sensors(self) -> dict[str, Any]:
        """The ``sensors`` answer: what the sensing thread sees, and ``expected``: the
        squares of the game's position (where pieces should stand between two moves)."""
        session = self.game.the_session
        report = self.hand.sensing.report()
        name = session.rules.geometry.algebraic
        report["expected"] = sorted(name(sq) for sq in session.position.pieces())
        return report

    def sim(self, args: Mapping[str, Any]) -> dict[str, Any]:
        """The simulated hand's act (boardctl.service.sensing.SimHand)."""
        return self.hand.act(args["type"], args.get("square"), args.get("side"),
                             args.get("hold_ms", 0), args.get("release", True))

    def status(self, at: int) -> dict[str, Any]:
        """The ``status`` answer: the session's own, with the board's and the feed's state."""
        game = self.game
        header, session = game.the_header, game.the_session
        at = max(at, game.last_at)
        status = session.status(at)
        status.update(game=header.id, board=self.board, tags=dict(header.tags),
                      time_control=header.time_control, t=round(at / NS, 3),
                      moves=[m["move"] for m in session.moves],
                      feed_lines=self.path.feed.lines_sent)
        hw = self.hw
        if getattr(hw, "missing", None):  # degraded mode (boardctl.service.hardware.pi_hardware)
            status["missing"] = list(hw.missing)
        if hw.feed is not None:
            status["feed_port"] = {"connected": hw.feed.connected, "written": hw.feed.written,
                                   "dropped": hw.feed.dropped}
        status["alarm"] = self.face.alarm
        status["faces"] = self.face.texts(at)
        self.door.status(status)  # a player not at the board: its part, its LED picture
        for extra in self.status_extras:  # e.g. the broker link's state (boardctl.hall.board)
            status.update(extra())
        return status
