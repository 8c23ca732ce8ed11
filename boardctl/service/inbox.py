"""The referee's inbox: how a control request made on another thread (the control socket's,
a hall's) is answered on the referee's thread, the only one that touches the session, and
waited for (an arbiter's act until it is in the journal)."""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any

from boardctl.service.control.schema import ControlError, Request
from boardctl.service.outputs import Outbox

#: How old a ``status`` answer may be when the control thread gives it again.
STATUS_FRESH_S = 0.05
#: Requests that change nothing in the game (answered without waiting for the journal).
QUERIES = frozenset({"status", "pdn", "feed", "sim", "sensors"})
#: How long a control request waits for the referee's answer.
REPLY_S = 2.0

Answer = Callable[[Request], Mapping[str, Any]]


class _Reply:
    """A control request's answer, made on the referee's thread for the control thread."""

    def __init__(self) -> None:
        self.done = threading.Event()
        self.response: Mapping[str, Any] = {}
        self.error: BaseException | None = None
        #: The journal batch holding what the request changed (boardctl.service.outputs.Outbox).
        self.ticket = 0

    def answer(self, handler: Answer, req: Request) -> None:
        """On the referee's thread; :meth:`send` once the turn's batch is handed on."""
        try:
            self.response = handler(req)
        except BaseException as exc:  # handed back to the control thread's guard
            self.error = exc

    def send(self, ticket: int) -> None:
        self.ticket = ticket
        self.done.set()


class RefereeInbox:
    """Requests for the referee's thread: :meth:`ask` from any other thread, :meth:`answer`
    on the referee's, once a turn. ``wake`` rouses the referee (the event merge's)."""

    def __init__(self, wake: Callable[[], None], outbox: Outbox) -> None:
        self.wake = wake
        self.outbox = outbox
        #: The referee's thread while run() runs (None: whoever calls step()).
        self.referee: int | None = None
        self._queue: queue.SimpleQueue[tuple[Request, _Reply]] = queue.SimpleQueue()
        self._status_cache: tuple[float, int, Mapping[str, Any]] | None = None
        #: Requests other than ``status`` asked so far: a cached ``status`` older than one
        #: of them is not given again (a client that acts then asks sees its act).
        self._acts = 0

    def elsewhere(self) -> bool:
        """True on a thread other than the running referee's (a request must be queued)."""
        return self.referee not in (None, threading.get_ident())

    def ask(self, req: Request) -> Mapping[str, Any]:
        """The request answered on the referee's thread. ``status`` is answered from the
        referee's last answer while that is younger than :data:`STATUS_FRESH_S` (a client
        asking a thousand times a second costs the referee at most 1/STATUS_FRESH_S
        answers) and no other request has been asked since."""
        acts = self._acts
        if req.cmd == "status":
            cached = self._status_cache
            if (cached is not None and cached[1] == acts
                    and time.monotonic() - cached[0] < STATUS_FRESH_S):
                return cached[2]
        else:
            self._acts += 1
        reply = _Reply()
        self._queue.put((req, reply))
        self.wake()
        if not reply.done.wait(REPLY_S):
            raise ControlError(f"{req.cmd}: the referee did not answer within {REPLY_S} s")
        if reply.error is not None:
            raise reply.error
        if req.cmd == "status":
            self._status_cache = (time.monotonic(), acts, reply.response)
        elif req.cmd not in QUERIES:
            # An arbiter's act is answered once it is in the journal, as the feed is (a
            # stalled disk delays the answer up to REPLY_S, never the referee).
            self.outbox.wait_done(reply.ticket, REPLY_S)
        return reply.response

    def answer(self, handler: Answer) -> None:
        """On the referee's thread: every request waiting, then the batch they made handed
        to the journal writer before their answers go back."""
        replies: list[_Reply] = []
        while True:
            try:
                req, reply = self._queue.get_nowait()
            except queue.Empty:
                break
            reply.answer(handler, req)
            replies.append(reply)
        if replies:
            ticket = self.outbox.commit()
            for reply in replies:
                reply.send(ticket)
