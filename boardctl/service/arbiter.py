"""The arbiter's requests to the running service (the control socket's ``boardctl`` commands,
and :func:`command` in-process): :class:`boardctl.service.service.Service`
answers them with these functions, always on the referee's thread."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from boardctl.service.control import ControlError, Request
from boardctl.service.games import GameSetup, snapshot_of
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
)
from firmware.rules.game import RESULTS
from firmware.rules.sets import Side
from firmware.session.session import AUTOMATIC

if TYPE_CHECKING:
    from boardctl.service.service import Service
    from firmware.session.session import BoardSession

logger = logging.getLogger("boardctl.service.service")

#: How old a ``status`` answer may be when the control thread gives it again.
STATUS_FRESH_S = 0.05
#: Requests that change nothing (answered without waiting for the journal).
QUERIES = frozenset({"status", "pdn", "feed"})
#: How long a control request waits for the referee's answer.
REPLY_S = 2.0


class _Reply:
    """A control request's answer, made on the referee's thread for the control thread."""

    def __init__(self) -> None:
        self.done = threading.Event()
        self.response: Mapping[str, Any] = {}
        self.error: BaseException | None = None
        #: The journal batch holding what the request changed (boardctl.service.outputs.Outbox).
        self.ticket = 0

    def answer(self, service: Service, req: Request) -> None:
        """On the referee's thread; :meth:`send` once the turn's batch is handed on."""
        try:
            self.response = service._on_request(req)
        except BaseException as exc:  # handed back to the control thread's guard
            self.error = exc

    def send(self, ticket: int) -> None:
        self.ticket = ticket
        self.done.set()





def command(service: Service, request: Mapping[str, Any] | str) -> dict[str, Any]:
    """Answer one control request in-process (the socket's code path without the socket):
    ``{"ok": false, "error": ...}`` for anything wrong."""
    import json

    from boardctl.service.control import respond

    line = request if isinstance(request, str) else json.dumps(request)
    # From another thread while run() referees: through the referee's inbox.
    handler = (service._via_referee if service._referee not in (None, threading.get_ident())
               else service._on_request)
    try:
        return respond(handler, line)
    finally:
        if handler == service._on_request:  # on the referee's thread: the turn's batch
            service.outbox.commit()

def via_referee(service: Service, req: Request) -> Mapping[str, Any]:
    """The control thread's handler: the request is answered on the referee's thread.
    ``status`` is answered from the referee's last answer while that is younger than
    :data:`STATUS_FRESH_S` (a client asking a thousand times a second costs the referee
    at most 1/STATUS_FRESH_S answers)."""
    if req.cmd == "status":
        cached = service._status_cache
        if cached is not None and time.monotonic() - cached[0] < STATUS_FRESH_S:
            return cached[1]
    reply = _Reply()
    service._inbox.put((req, reply))
    service.merge.wake()
    if not reply.done.wait(REPLY_S):
        raise ControlError(f"{req.cmd}: the referee did not answer within {REPLY_S} s")
    if reply.error is not None:
        raise reply.error
    if req.cmd == "status":
        service._status_cache = (time.monotonic(), reply.response)
    elif req.cmd not in QUERIES:
        # An arbiter's act is answered once it is in the journal, as the feed is (a stalled
        # disk delays the answer up to REPLY_S, never the referee).
        service.outbox.wait_done(reply.ticket, REPLY_S)
    return reply.response

def on_request(service: Service, req: Request) -> dict[str, Any]:
    """One request on the referee's thread: a query answered from the session (:data:`ANSWERS`),
    or an arbiter's act turned into its event (:data:`ACTS`) and handled like any other."""
    at = max(service.frontier(), service.last_at)  # after every event already sensed
    answer = ANSWERS.get(req.cmd)
    if answer is not None:
        return answer(service, req.args, at)
    act = ACTS.get(req.cmd)
    if act is None:  # parse_request only lets known commands through
        raise ControlError(f"{req.cmd}: not handled")
    session = service._session
    if session.clock is None and req.cmd in CLOCK_ONLY:
        raise ControlError(f"{req.cmd}: this game has no clock (no time control)")
    before = _face(session, req.args["side"], at) if req.cmd == "clock-set" else None
    records = service._handle(act(session, req.args, at))
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


def _pdn(service: Service, args: Mapping[str, Any], at: int) -> dict[str, Any]:
    return {"pdn": service._session.pdn()}


def _feed(service: Service, args: Mapping[str, Any], at: int) -> dict[str, Any]:
    return {"snapshot": snapshot_of(service._session, service._header, at)}


def _new(service: Service, args: Mapping[str, Any], at: int) -> dict[str, Any]:
    """A new game (a finished one, or ``force``), keeping the board's settings."""
    session, header = service._session, service._header
    if session.moves and session.result is None and not args.get("force"):
        raise ControlError(f"game {header.id} is in play (ply {len(session.moves)}): record "
                           "its result first, or use --force")
    setup = GameSetup(rules=args.get("rules", header.rules),
                      time_control=args.get("time_control", header.time_control),
                      fen=args.get("fen"), tags=args.get("tags", {}), settle=header.settle,
                      touch_min=header.touch_min)
    if "time_control" in args and args["time_control"].lower() in ("none", "-"):
        setup.time_control = None
    service._new_game(setup)
    service._announce()
    return service.status(0)


#: The requests that answer from the session (``new`` sets up a game, outside any game).
ANSWERS: dict[str, Callable[[Service, Mapping[str, Any], int], dict[str, Any]]] = {
    "status": lambda service, args, at: service.status(at),
    "pdn": _pdn,
    "feed": _feed,
    "new": _new,
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
    over = session.result
    if over is not None and not str(over.get("reason", "")).startswith(AUTOMATIC):
        # a flag or a lateness default the arbiter may override (004 §32); nothing else
        raise ControlError(f"result: the game is over already ({over['result']})")
    return Result(at, args["result"], args.get("reason", "arbiter"))


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
}
#: Acts that need a clock (a game without a time control refuses them).
CLOCK_ONLY = frozenset({"pause", "resume", "clock-set", "moves-set", "adjourn",
                        "resume-adjourned"})


def status(service: Service, at: int) -> dict[str, Any]:
    header = service._header
    status = service._session.status(max(at, service.last_at))
    status.update(
        game=header.id,
        board=service.board,
        tags=dict(header.tags),
        time_control=header.time_control,
        t=round(max(at, service.last_at) / NS, 3),
        moves=[m["move"] for m in service._session.moves],
        feed_lines=service.lines_sent,
    )
    # degraded mode (boardctl.service.hardware.pi_hardware)
    if getattr(service.hw, "missing", None):
        status["missing"] = list(service.hw.missing)
    if service.hw.feed is not None:
        status["feed_port"] = {"connected": service.hw.feed.connected,
                               "written": service.hw.feed.written,
                               "dropped": service.hw.feed.dropped}
    status["alarm"] = service.alarm
    for extra in service.status_extras:  # e.g. the broker link's state (boardctl.hall.board)
        status.update(extra())
    return status
