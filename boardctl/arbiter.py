"""The arbiter's requests to the running service (the control socket's ``boardctl`` commands,
and :func:`command` in-process): :class:`boardctl.service.Service`
answers them with these functions, always on the referee's thread."""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from boardctl.control import ControlError, Request
from boardctl.games import GameSetup, snapshot_of
from firmware.errors import BoardError
from firmware.events import (
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
from firmware.game import RESULTS
from firmware.session import AUTOMATIC

if TYPE_CHECKING:
    from boardctl.service import Service

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
        #: The journal batch holding what the request changed (boardctl.outputs.Outbox).
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

    from boardctl.control import parse_request

    line = request if isinstance(request, str) else json.dumps(request)
    # From another thread while run() referees: through the referee's inbox.
    handler = (service._via_referee if service._referee not in (None, threading.get_ident())
               else service._on_request)
    try:
        response = dict(handler(parse_request(line)))
    except BoardError as exc:
        return {"ok": False, "error": str(exc)}
    except Exception as exc:  # the same guard as the socket's (boardctl.control)
        return {"ok": False, "error": f"internal error: {type(exc).__name__}: {exc}"}
    finally:
        if handler == service._on_request:  # on the referee's thread: the turn's batch
            service.outbox.commit()
    response.setdefault("ok", True)
    return response

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
    at = max(service.frontier(), service.last_at)  # after every event already sensed
    session = service._session
    cmd, args = req.cmd, req.args
    if cmd == "status":
        return service.status(at)
    if cmd == "pdn":
        return {"pdn": session.pdn()}
    if cmd == "feed":
        return {"snapshot": snapshot_of(session, service._header, at)}
    if cmd == "new":
        in_play = session.moves and session.result is None
        if in_play and not args.get("force"):
            raise ControlError(
                f"game {service._header.id} is in play (ply {len(session.moves)}): record its "
                "result first, or use --force"
            )
        setup = GameSetup(
            rules=args.get("rules", service._header.rules),
            time_control=args.get("time_control", service._header.time_control),
            fen=args.get("fen"),
            tags=args.get("tags", {}),
            settle=service._header.settle,
            touch_min=service._header.touch_min,
        )
        if "time_control" in args and args["time_control"].lower() in ("none", "-"):
            setup.time_control = None
        service._new_game(setup)
        service._announce()
        return service.status(0)
    if session.clock is None and cmd in ("pause", "resume", "clock-set", "moves-set",
                                         "adjourn", "resume-adjourned"):
        raise ControlError(f"{cmd}: this game has no clock (no time control)")
    event: Event
    if cmd == "start":
        if session.referee.started and (session.clock is None or session.clock.started):
            raise ControlError("start: the game has started already")
        event = Start(at)
    elif cmd == "pause":
        event = Pause(at)
    elif cmd == "resume":
        if session.clock is not None and session.clock.adjournment is not None:
            raise ControlError("resume: the game is adjourned; use resume-adjourned")
        event = Resume(at)
    elif cmd == "clock-set":
        event = ClockSet(at, args["side"], args["seconds"])
    elif cmd == "moves-set":
        event = MovesSet(at, args["side"], args["moves"])
    elif cmd == "accept":
        event = Accept(at)
    elif cmd == "adjourn":
        event = Adjourn(at, args["sealed"])
    elif cmd == "resume-adjourned":
        if session.sealed is None:
            raise ControlError("resume-adjourned: the game is not adjourned")
        event = ResumeAdjourned(at)
    elif cmd == "result":
        if args["result"] not in RESULTS:
            raise ControlError(
                f"result: {args['result']!r} is not a result ({', '.join(sorted(RESULTS))})"
            )
        over = session.result
        if over is not None and not str(over.get("reason", "")).startswith(AUTOMATIC):
            # a flag or a lateness default the arbiter may override; nothing else
            raise ControlError(f"result: the game is over already ({over['result']})")
        event = Result(at, args["result"], args.get("reason", "arbiter"))
    else:  # parse_request only lets known commands through
        raise ControlError(f"{cmd}: not handled")
    records = service._handle(event)
    response = service.status(at)
    response["records"] = records
    return response

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
    if getattr(service.hw, "missing", None):  # degraded mode (boardctl.hardware.pi_hardware)
        status["missing"] = list(service.hw.missing)
    if service.hw.feed is not None:
        status["feed_port"] = {"connected": service.hw.feed.connected,
                               "written": service.hw.feed.written,
                               "dropped": service.hw.feed.dropped}
    status["alarm"] = service.alarm
    for extra in service.status_extras:  # e.g. the broker link's state (boardctl.hall_board)
        status.update(extra())
    return status
