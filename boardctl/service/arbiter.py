"""The arbiter's requests to the running service (the control socket's ``boardctl`` commands,
and ``Service.command`` in-process), answered on the referee's thread. Written against
:class:`Arbitrated`, what they need of the service, not the service itself."""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from typing import Any, Protocol

from boardctl.service.control.schema import ControlError, Request
from boardctl.service.games import CurrentGame, GameSetup, snapshot_of
from boardctl.service.inbox import QUERIES
from firmware.clock.gameclock import MIN_AFTER_CORRECTION_NS
from firmware.formats.events import (
    NS,
    Accept,
    Adjourn,
    ClockSet,
    Event,
    MovesSet,
    Pause,
    Result,
    Resume,
    ResumeAdjourned,
    Start,
    TakeBack,
)
from firmware.rules.game import RESULTS, parse_result, result_text
from firmware.rules.sets import Side
from firmware.session.session import AUTOMATIC, BoardSession

logger = logging.getLogger(__name__)

__all__ = ["ACTS", "ANSWERS", "CLOCK_ONLY", "QUERIES", "Arbitrated", "on_request"]


class Arbitrated(Protocol):
    """What the arbiter's requests need of the service
    (:class:`boardctl.service.service.Service` is one)."""

    @property
    def game(self) -> CurrentGame: ...

    def frontier(self) -> int:
        """Game time up to which every event has been sensed (a request comes after them)."""
        ...

    def handle(self, event: Event) -> list[dict[str, Any]]:
        """The event along the one data path (BoardError: refused, nothing written)."""
        ...

    def new_game(self, setup: GameSetup, players: Mapping[str, Any]) -> None:
        """A new game set up and announced on the feed, played by the player chosen from
        ``players`` (the request's keys beyond the game's: :data:`GAME_KEYS`)."""
        ...

    def status(self, at: int) -> dict[str, Any]: ...

    def sim(self, args: Mapping[str, Any]) -> dict[str, Any]:
        """The simulated hand's act (BoardError on a real board)."""
        ...

    def player_request(self, cmd: str, args: Mapping[str, Any]) -> dict[str, Any]:
        """A request the player not at the board answers (ControlError: none plays here)."""
        ...

    def sensors(self) -> dict[str, Any]:
        """The reed matrix as the sensing thread sees it, and the squares of the game's
        position (``expected``)."""
        ...


def on_request(service: Arbitrated, req: Request) -> dict[str, Any]:
    """One request on the referee's thread: a query answered from the session (:data:`ANSWERS`),
    or an arbiter's act turned into its event (:data:`ACTS`) and handled like any other."""
    at = max(service.frontier(), service.game.last_at)  # after every event already sensed
    answer = ANSWERS.get(req.cmd)
    if answer is not None:
        return answer(service, req.args, at)
    act = ACTS.get(req.cmd)
    if act is None:  # parse_request only lets known commands through
        raise ControlError(f"{req.cmd}: not handled")
    session = service.game.the_session
    if session.clock is None and req.cmd in CLOCK_ONLY:
        raise ControlError(f"{req.cmd}: this game has no clock (no time control)")
    before = _face(session, req.args["side"], at) if req.cmd == "clock-set" else None
    records = service.handle(act(session, req.args, at))
    response = service.status(at)
    response["records"] = records
    if before is not None:
        warning = _shortened(req.args["side"], before, req.args["seconds"])
        if warning is not None:
            response["warning"] = warning
            logger.warning(f"clock-set: {warning}")
    return response


def _face(session: BoardSession, side: str, at: int) -> int | None:
    """The side's face at ``at`` while the game's clock counts down (None: not started, or a
    count-up clock: nothing to shorten)."""
    clock = session.clock
    if clock is None or not clock.started or clock.control.counts_up:
        return None
    return clock.remaining(Side(side), at)


def _shortened(side: str, before: int, seconds: float) -> str | None:
    """A clock-set that took time off a running game's face and left less than 15 minutes:
    set as the arbiter said, and said (004 §32 lets a correction shorten a player's time only
    if 15 minutes then remain; below that it is the arbiter's own decision, e.g. a penalty;
    moves-set, whose time follows the controls, refuses it)."""
    after = round(seconds * NS)
    if after >= before or after >= MIN_AFTER_CORRECTION_NS:
        return None
    return (f"{side}'s time shortened to {after // NS} s, below 15 minutes: 004 §32 lets a "
            "correction shorten a player's time only if 15 minutes remain to the control")


def _pdn(service: Arbitrated, args: Mapping[str, Any], at: int) -> dict[str, Any]:
    return {"pdn": service.game.the_session.pdn()}


def _feed(service: Arbitrated, args: Mapping[str, Any], at: int) -> dict[str, Any]:
    return {"snapshot": snapshot_of(service.game.the_session, service.game.the_header, at)}


#: The ``new`` request's keys that set up the game; the others choose its player (the
#: engine's ``engine``, ``engine_side``, ``engine_level``: boardctl.service.door.Lineup).
GAME_KEYS = frozenset({"rules", "time_control", "fen", "tags", "force"})


def players_of(args: Mapping[str, Any]) -> dict[str, Any]:
    """A ``new`` request's keys that choose its player."""
    return {key: value for key, value in args.items() if key not in GAME_KEYS}


def _new(service: Arbitrated, args: Mapping[str, Any], at: int) -> dict[str, Any]:
    """A new game (a finished one, or ``force``), keeping the board's settings and, unless
    the request chooses another, its player."""
    session, header = service.game.the_session, service.game.the_header
    if session.moves and session.result is None and not args.get("force"):
        raise ControlError(f"game {header.id} is in play (ply {len(session.moves)}): record "
                           "its result first, or use --force")
    setup = GameSetup(rules=args.get("rules", header.rules),
                      time_control=args.get("time_control", header.time_control),
                      fen=args.get("fen"), tags=args.get("tags", {}), settle=header.settle,
                      touch_min=header.touch_min, start=header.start)
    if "time_control" in args and args["time_control"].lower() in ("none", "-"):
        setup.time_control = None
    service.new_game(setup, players_of(args))
    return service.status(0)


#: The requests that answer from the session (``new`` sets up a game, outside any game).
ANSWERS: dict[str, Callable[[Arbitrated, Mapping[str, Any], int], dict[str, Any]]] = {
    "status": lambda service, args, at: service.status(at),
    "pdn": _pdn,
    "feed": _feed,
    "new": _new,
    "sim": lambda service, args, at: service.sim(args),
    "sensors": lambda service, args, at: service.sensors(),
    # to the player not at the board (the engine: boardctl.engine.player): a hint, the
    # person resigns, offers a draw
    "hint": lambda service, args, at: service.player_request("hint", args),
    "resign": lambda service, args, at: service.player_request("resign", args),
    "offer-draw": lambda service, args, at: service.player_request("offer-draw", args),
    "decline-draw": lambda service, args, at: service.player_request("decline-draw", args),
}


def _start(session: BoardSession, args: Mapping[str, Any], at: int) -> Event:
    if session.referee.started and (session.clock is None or session.clock.started):
        raise ControlError("start: the game has started already")
    return Start(at)


def _resume(session: BoardSession, args: Mapping[str, Any], at: int) -> Event:
    if session.clock is not None and session.clock.adjournment is not None:
        raise ControlError("resume: the game is adjourned; use resume-adjourned")
    return Resume(at)


def _adjourn(session: BoardSession, args: Mapping[str, Any], at: int) -> Event:
    """Only a game whose clock has started, not over and not adjourned already, is adjourned:
    a sealed move stands until resume-adjourned plays it (004 §34-35); a game that has not
    started (or is over) has nothing to adjourn."""
    if session.result is not None:
        raise ControlError(f"adjourn: the game is over already ({session.result['result']})")
    if session.sealed is not None:
        raise ControlError("adjourn: the game is adjourned already (its sealed move stands; "
                           "resume-adjourned plays it)")
    if session.clock is None or not session.clock.started:
        raise ControlError("adjourn: the game has not started (nothing to adjourn)")
    return Adjourn(at, args["sealed"])


def _resume_adjourned(session: BoardSession, args: Mapping[str, Any], at: int) -> Event:
    if session.sealed is None:
        raise ControlError("resume-adjourned: the game is not adjourned")
    if session.sealed not in session.position.legal_moves():  # the secret move not told
        raise ControlError("resume-adjourned: the sealed move is not legal in the game's "
                           "position now; the game stays adjourned")
    return ResumeAdjourned(at)


def _result(session: BoardSession, args: Mapping[str, Any], at: int) -> Event:
    if args["result"] not in RESULTS:
        raise ControlError(
            f"result: {args['result']!r} is not a result ({', '.join(sorted(RESULTS))})")
    result = args["result"]
    if result != "0-0":  # in the rule set's own form (1-0 is 2-0 on 100 squares), as the
        result = result_text(session.rules, parse_result(result)[0])  # relay takes it
    over = session.result
    if over is not None and not str(over.get("reason", "")).startswith(AUTOMATIC):
        # a flag or a lateness default the arbiter may override (004 §32); nothing else
        raise ControlError(f"result: the game is over already ({over['result']})")
    return Result(at, result, args.get("reason", "arbiter"))


#: The arbiter's acts: each request's event (refused with the reason where it cannot be).
ACTS: dict[str, Callable[[BoardSession, Mapping[str, Any], int], Event]] = {
    "start": _start,
    "pause": lambda session, args, at: Pause(at),
    "resume": _resume,
    "clock-set": lambda session, args, at: ClockSet(at, args["side"], args["seconds"]),
    "moves-set": lambda session, args, at: MovesSet(at, args["side"], args["moves"]),
    "accept": lambda session, args, at: Accept(at),
    "adjourn": _adjourn,
    "resume-adjourned": _resume_adjourned,
    "result": _result,
    "takeback": lambda session, args, at: TakeBack(at, args["plies"]),
}
#: Acts that need a clock (a game without a time control refuses them).
CLOCK_ONLY = frozenset({"pause", "resume", "clock-set", "moves-set", "adjourn",
                        "resume-adjourned"})

