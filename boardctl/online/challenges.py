"""Challenges both ways, on the link's threads: an incoming one answered as the policy says
(``POST /api/challenge/ID/accept`` or ``/decline`` with the reason's key), and the board's own
sent (``POST /api/challenge/USER``: ``rated``, ``clock.limit``, ``clock.increment``,
``color``, ``variant``; lidraughts answers the challenge, and the game starts, with the same
id, when the user accepts).

A challenge whose request got no answer may be out already: it is not sent again (the user
would get two), and ``ChallengeSent`` says so.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

from boardctl.online.errors import LinkError, ProtocolError
from boardctl.online.events import ChallengeAnswered, ChallengeSent, Event
from boardctl.online.policy import ChallengePolicy, read_challenge
from boardctl.online.streams import Backoff, fatal_reason
from boardctl.online.transport import Reply, Transport

log = logging.getLogger(__name__)


class Challenges:
    """Answers and sends challenges for one account."""

    def __init__(self, transport: Transport, policy: ChallengePolicy,
                 put: Callable[[Event], None], on_fatal: Callable[[str], None],
                 busy: Callable[[], bool], backoff: Backoff, stopping: threading.Event) -> None:
        self._transport = transport
        self._policy = policy
        self._put = put
        self._on_fatal = on_fatal
        self._busy = busy
        self._backoff = backoff
        self._stopping = stopping

    def answer(self, obj: dict[str, Any]) -> None:
        """A ``challenge`` event; ProtocolError when it cannot be read or answered (the event
        stream is read again, and lidraughts sends the challenges still waiting)."""
        challenge = read_challenge(obj)
        decision = self._policy.decide(challenge, self._busy())
        path = f"/api/challenge/{challenge.id}/" + ("accept" if decision.accept else "decline")
        form = None if decision.accept else {"reason": decision.reason.value
                                             if decision.reason else "generic"}
        try:
            reply = self._transport.request("POST", path, form)
        except LinkError as exc:
            raise ProtocolError(f"answering challenge {challenge.id}: {exc}") from None
        if self._fatal(reply):
            return
        verb = "accepted" if decision.accept else f"declined ({decision.why})"
        log.info("lidraughts: challenge %s from %s, %s %s: %s", challenge.id,
                 challenge.challenger, challenge.variant, challenge.clock_text, verb)
        taken = decision.accept and reply.status == 200
        why = decision.why or ("" if reply.status == 200 else reply.error)
        self._put(ChallengeAnswered(challenge.id, challenge.challenger, challenge.variant,
                                    challenge.clock_text, taken, why))

    def send(self, user: str, form: dict[str, str]) -> None:
        """Challenge ``user``: sent again after a wait while it could not leave."""
        for delay in self._backoff.delays():
            try:
                reply = self._transport.request("POST", f"/api/challenge/{user}", form)
                break
            except LinkError as exc:
                if exc.sent:  # it may be out: sent again it would be a second challenge
                    self._put(ChallengeSent(user, None, f"no answer ({exc})"))
                    return
                if self._stopping.wait(delay):
                    return
        else:  # pragma: no cover - delays() never ends
            return
        if self._fatal(reply):
            return
        if reply.status != 200:
            log.warning("lidraughts: the challenge to %s was refused: %s", user, reply.error)
            self._put(ChallengeSent(user, None, reply.error))
            return
        body = reply.body.get("challenge") if isinstance(reply.body, dict) else None
        cid = body.get("id") if isinstance(body, dict) else None
        log.info("lidraughts: challenged %s (%s)", user, cid)
        self._put(ChallengeSent(user, cid if isinstance(cid, str) else None))

    def _fatal(self, reply: Reply) -> bool:
        reason = fatal_reason(reply)
        if reason is not None:
            self._on_fatal(reason)
        return reason is not None
