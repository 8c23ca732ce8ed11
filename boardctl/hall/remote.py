"""A board's side of the arbiter's desk (docs/HALL.md, "The arbiter's desk"): the relay's
signed requests from ``kabelaud/HALL/BOARD/control``, answered on ``.../reply``.

The broker link's thread hands each control message to :meth:`RemoteControl.receive`, which
checks its signature, place, time and counter (boardctl.hall.signing: anything forged,
altered or replayed is refused and logged, the first ten and then every thousandth) and queues
it, bounded. A thread of its own, the desk's, then answers it exactly as the control socket's
thread answers a client: ``Service.command`` hands the request to the referee's thread and
waits for its answer (an act is answered once it is in the journal). Nothing waits on the
broker's thread. The answer goes back signed, with the request's run and counter.

One command the socket does not have is answered here, from the journal and read-only:
``{"cmd": "timeline", "ply": N}``, the sensor events that led to ply N (:func:`timeline`).
"""

from __future__ import annotations

import json
import logging
import queue
import threading
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from boardctl.hall.signing import SignatureError, Signed, Verifier
from firmware.limits import bounded_lines, loads

logger = logging.getLogger(__name__)

#: Requests waiting for the desk's thread; more are answered "busy" at once.
QUEUE = 32
#: Events a timeline answer holds at most (the latest ones before the move).
TIMELINE_EVENTS = 500
#: What a timeline shows of the journal: the sensors, the clock's buttons, the arbiter's acts.
SHOWN = frozenset({"lift", "place", "press", "start", "pause", "resume", "accept", "clock-set",
                   "moves-set", "adjourn", "resume-adjourned", "result", "takeback"})


def timeline(lines: Iterable[str | bytes], ply: int) -> dict[str, Any]:
    """The journal's events from just after ply ``ply - 1`` was made up to ply ``ply`` (the
    move record that made it included), and what the board concluded meanwhile; the latest
    making of that ply when it was taken back and played again. ``move`` is None when the
    game has no such ply (yet): the events are then those since the last move."""
    since: list[dict[str, Any]] = []
    found: tuple[list[dict[str, Any]], dict[str, Any]] | None = None
    for raw in lines:
        try:
            rec = loads(raw.decode("utf-8") if isinstance(raw, bytes) else raw)
        except (ValueError, UnicodeDecodeError, RecursionError):
            continue  # a torn last line (the writer is appending)
        if not isinstance(rec, dict):
            continue
        kind = rec.get("type")
        if kind == "decision" and isinstance(rec.get("record"), dict):
            said = rec["record"]
            if said.get("type") == "move" and isinstance(said.get("ply"), int):
                if said["ply"] == ply:
                    found = (since, said)
                since = []
            elif said.get("type") in ("irregularity", "result", "position", "takeback"):
                since.append({"t": rec.get("t"), "type": "board", "record": said})
        elif kind in SHOWN:
            since.append({k: v for k, v in rec.items() if k not in ("n", "c")})
            if kind == "takeback":
                found = None
        del since[:-TIMELINE_EVENTS]
    events, move = found if found is not None else (since, None)
    return {"ply": ply, "move": move, "events": events[-TIMELINE_EVENTS:]}


class RemoteControl:
    """See the module docstring. ``receive`` from the link's thread, ``close`` at the end."""

    def __init__(self, verifier: Verifier, *, command: Callable[[Mapping[str, Any]], dict[str,
                 Any]], send: Callable[[bytes], None], journal: Callable[[], Path | None],
                 log: Callable[[str], None] = logger.warning) -> None:
        self.verifier = verifier
        self.command = command
        self.send = send
        self.journal = journal
        self.log = log
        self.refused = 0
        self.answered = 0
        self._queue: queue.Queue[Signed | None] = queue.Queue(QUEUE)
        self._thread = threading.Thread(target=self._run, name="desk", daemon=True)
        self._thread.start()

    def receive(self, payload: bytes) -> None:
        """One message from the control topic (the broker link's thread: never waits)."""
        try:
            request = self.verifier.check_request(payload)
        except SignatureError as exc:
            self.refused += 1
            if self.refused <= 10 or self.refused % 1000 == 0:
                self.log(f"desk: REFUSED a control message ({self.refused} so far): {exc}")
            return
        try:
            self._queue.put_nowait(request)
        except queue.Full:
            self.send(self.verifier.reply(request, {"ok": False, "error": "the board is busy "
                                                    "with other desk requests; try again"}))

    def _run(self) -> None:
        while True:
            request = self._queue.get()
            if request is None:
                return
            try:
                body = self.answer(request.body)
            except Exception as exc:  # one request must never stop the desk
                body = {"ok": False, "error": f"internal error: {type(exc).__name__}: {exc}"}
            self.answered += 1
            self.send(self.verifier.reply(request, body))

    def answer(self, body: Mapping[str, Any]) -> dict[str, Any]:
        """The answer to one checked request: ``timeline`` here, the rest as the socket's."""
        if body.get("cmd") != "timeline":
            logger.info("desk: %s", json.dumps(body, ensure_ascii=False)[:200])
            return self.command(body)
        ply = body.get("ply")
        if set(body) - {"cmd", "ply", "id"} or not isinstance(ply, int) or isinstance(
                ply, bool) or not 1 <= ply <= 100_000:
            return {"ok": False, "error": "timeline: 'ply' must be a ply number from 1"}
        path = self.journal()
        if path is None:
            return {"ok": False, "error": "timeline: no game journal on this board"}
        try:
            with open(path, "rb") as f:
                return {"ok": True, **timeline(bounded_lines(f, str(path)), ply)}
        except (OSError, ValueError) as exc:
            return {"ok": False, "error": f"timeline: cannot read the journal: {exc}"}

    def close(self) -> None:
        try:
            self._queue.put_nowait(None)
        except queue.Full:
            pass
        self._thread.join(2.0)
