"""The control socket's requests: what each command takes (:data:`COMMANDS`, each argument
with its check), one request line read into a :class:`Request` (:func:`parse_request`), and the
response to it (:func:`respond`): the protocol of ``boardctl.service.control`` without the
socket, shared by its server (:mod:`boardctl.service.control.server`) and its client
(:mod:`boardctl.service.control.client`).

A request is checked here before the service sees it; anything wrong (bad JSON, an unknown
command, a missing or ill-typed argument, a key given twice) is a :class:`ControlError` with a
one-line reason, which becomes an ``ok: false`` response naming the problem.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from firmware.errors import BoardError
from firmware.limits import DuplicateKey, is_text, loads
from firmware.pdn.tags import tags_problem

MAX_REQUEST = 64 * 1024

SIDES = ("white", "black")
#: The simulated hand's acts (the ``sim`` command).
SIM_ACTS = ("lift", "place", "press", "release")
#: The buttons the simulated hand presses, and its longest hold.
BUTTONS = ("white", "black", "pause")
MAX_HOLD_MS = 60_000


class ControlError(BoardError, RuntimeError):
    """The service could not be reached, or refused a request (the message says why).
    ``request_id``: the refused request's ``id``, echoed in the error response."""

    request_id: str | int | None = None


def _side(v: Any) -> str | None:
    return v if v in SIDES else None


def _seconds(v: Any) -> float | None:
    ok = isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v)
    return float(v) if ok and 0 <= v <= 100 * 3600 else None


def _count(v: Any) -> int | None:
    return v if isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= 10_000 else None


def _text(v: Any) -> str | None:
    ok = isinstance(v, str) and v.strip() and len(v) <= 1000 and is_text(v)
    return v.strip() if ok and not any(ch < " " for ch in v) else None


def _tags(v: Any) -> dict[str, str] | None:
    if not isinstance(v, dict):
        return None
    problem = tags_problem(v)
    if problem is not None:
        raise ControlError(f"'tags': {problem}")
    return {key: str(value) for key, value in v.items()}


def _level(v: Any) -> str | None:
    if isinstance(v, int) and not isinstance(v, bool):
        return str(v) if 0 <= v <= 1000 else None
    return _text(v)


#: Each command: its arguments, as (checker, required, what the checker wants).
_Arg = tuple[Callable[[Any], Any], bool, str]
COMMANDS: dict[str, dict[str, _Arg]] = {
    "status": {},
    # the reed matrix as the sensing thread sees it (boardctl watch --sensors)
    "sensors": {},
    "pdn": {},
    "feed": {},
    "new": {
        "rules": (_text, False, "a rule set name"),
        "time_control": (_text, False, "a PDN TimeControl"),
        "fen": (_text, False, "a FEN"),
        "tags": (_tags, False, "an object of PDN tags (names to text)"),
        "force": (lambda v: v if isinstance(v, bool) else None, False, "true or false"),
        # The computer chosen for this game and the next (boardctl.engine.lineup): a key left
        # out keeps the current choice; "engine": null is none.
        "engine": (_text, False, "builtin, hub:COMMAND, or null for no engine"),
        "engine_side": (_side, False, "white or black"),
        "engine_level": (_level, False, "a level: 1-10 or a name (beginner ... full)"),
    },
    "start": {},
    "pause": {},
    "resume": {},
    "clock-set": {
        "side": (_side, True, "white or black"),
        "seconds": (_seconds, True, "seconds, a number from 0 to 360000"),
    },
    "moves-set": {
        "side": (_side, True, "white or black"),
        "moves": (_count, True, "a whole number of moves"),
    },
    "accept": {},
    "adjourn": {"sealed": (_text, True, "the sealed move's text")},
    "resume-adjourned": {},
    "result": {
        "result": (_text, True, "a PDN result such as 2-0, 1-1, 0-2, 1-0, 1/2-1/2, 0-1"),
        "reason": (_text, False, "agreement, resignation, arbiter ..."),
    },
    "takeback": {
        "plies": (lambda v: _count(v) or None, True, "a number of plies from 1 to 10000"),
    },
    # Playing the computer (`boardctl run --engine`, boardctl.engine.player): a hint on the
    # LEDs, the person's resignation, a draw offer the engine answers.
    "hint": {},
    "resign": {},
    "offer-draw": {},
    # An opponent not at the board (another board, lidraughts): its standing offer declined.
    "decline-draw": {},
    # The simulated hand (`boardctl run --sim` only; refused on real hardware): a lift or a
    # place needs "square", a press "side", each as if the sensors or buttons saw it when
    # the request arrived; a press may be held (the pause button's hold opens the menus)
    # and kept down ("release": false) until a "release" act lets go of it.
    "sim": {
        "type": (lambda v: v if v in SIM_ACTS else None, True,
                 "lift, place, press or release"),
        "square": (_text, False, "an algebraic square name such as c3"),
        "side": (lambda v: v if v in BUTTONS else None, False, "white, black or pause"),
        "hold_ms": (lambda v: v if isinstance(v, int) and not isinstance(v, bool)
                    and 0 <= v <= MAX_HOLD_MS else None, False,
                    f"a whole number of ms from 0 to {MAX_HOLD_MS}"),
        "release": (lambda v: v if isinstance(v, bool) else None, False, "true or false"),
    },
}


#: Arguments whose JSON null is a value, not an argument left out (``new``'s ``engine``: none).
NULLABLE: dict[str, frozenset[str]] = {"new": frozenset({"engine"})}

#: Longest ``id`` string a request may carry (echoed in its response).
MAX_ID = 64


@dataclass
class Request:
    cmd: str
    args: dict[str, Any] = field(default_factory=dict)
    #: The client's tag for the request, echoed as the response's ``id`` (None: none given).
    id: str | int | None = None


def _request_id(obj: Mapping[str, Any]) -> str | int | None:
    rid = obj.get("id")
    if rid is None or (isinstance(rid, str) and len(rid) <= MAX_ID) or (
            isinstance(rid, int) and not isinstance(rid, bool) and abs(rid) < 2**53):
        return rid
    raise ControlError(f"'id' must be a string of at most {MAX_ID} characters or an integer, "
                       f"not {str(rid)[:40]!r}")


def parse_request(line: str | bytes) -> Request:
    """One request line -> Request; ControlError with a one-line reason otherwise."""
    if isinstance(line, bytes | bytearray):
        try:
            line = bytes(line).decode("utf-8")
        except UnicodeDecodeError:
            raise ControlError("a request must be UTF-8 text") from None
    try:
        obj = loads(line, unique_keys=True)
    except DuplicateKey as exc:
        raise ControlError(f"an ambiguous request: {exc}") from None
    except (ValueError, RecursionError) as exc:
        raise ControlError(f"not JSON: {str(exc)[:80]}") from None
    if not isinstance(obj, dict):
        raise ControlError('a request is a JSON object such as {"cmd": "status"}')
    rid = _request_id(obj)
    try:
        return _checked(obj, rid)
    except ControlError as exc:
        exc.request_id = rid
        raise


def _checked(obj: Mapping[str, Any], rid: str | int | None) -> Request:
    cmd = obj.get("cmd")
    known = ", ".join(COMMANDS)
    if cmd is None:
        raise ControlError(f'a request needs "cmd" (known: {known})')
    if not isinstance(cmd, str) or cmd not in COMMANDS:
        raise ControlError(f"unknown command {str(cmd)[:40]!r} (known: {known})")
    spec = COMMANDS[cmd]
    extra = set(obj) - set(spec) - {"cmd", "id"}
    if extra:
        raise ControlError(f"{cmd}: unexpected argument {sorted(extra)[0]!r}")
    args: dict[str, Any] = {}
    for name, (check, required, what) in spec.items():
        if name in obj and obj[name] is None and name in NULLABLE.get(cmd, ()):
            args[name] = None  # a JSON null that says something: no engine
            continue
        if name not in obj or obj[name] is None:
            if required:
                raise ControlError(f"{cmd}: missing '{name}' ({what})")
            continue
        value = check(obj[name])
        if value is None:
            raise ControlError(f"{cmd}: '{name}' must be {what}, not {str(obj[name])[:40]!r}")
        args[name] = value
    return Request(cmd, args, rid)


def encode(obj: Mapping[str, Any]) -> bytes:
    return (json.dumps(obj, separators=(",", ":"), ensure_ascii=False, default=str) + "\n").encode()


Handler = Callable[[Request], Mapping[str, Any]]


def respond(handler: Handler, line: str | bytes) -> dict[str, Any]:
    """The response to one request line: the handler's answer with ``ok``, or ``{"ok": false,
    "error": ...}`` for a bad request, a refusal (BoardError) or a bug behind it (never
    raised: one request must not stop the board); the request's ``id`` echoed in either."""
    rid = None
    try:
        request = parse_request(line)
        rid = request.id
        response = dict(handler(request))
        response.setdefault("ok", True)
    except BoardError as exc:
        response = {"ok": False, "error": str(exc)}
        rid = rid if rid is not None else getattr(exc, "request_id", None)
    except Exception as exc:  # a bug behind one request must not stop the board
        response = {"ok": False, "error": f"internal error: {type(exc).__name__}: {exc}"}
    if rid is not None:
        response["id"] = rid
    return response
