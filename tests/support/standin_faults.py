"""The faults a test injects into the stand-in lidraughts server's answers
(tests/support/lidraughts_standin.py): the server unavailable (503, as a proxy answers for a
server that is restarting), lidraughts' passing "OAuth server is offline" 401, and a request
acted on whose answer is never sent. The streams' faults are in tests/support/standin_streams.py.
"""

from __future__ import annotations


class Faults:
    """What the next requests meet; read and changed under the stand-in's lock."""

    def __init__(self) -> None:
        #: While set, every request is answered 503.
        self.unavailable = False
        #: This many requests more are answered lidraughts' passing "OAuth server is
        #: offline" 401.
        self.oauth_offline = 0
        #: The kinds of request (move, resign, abort, challenge) whose next one acts and has
        #: its connection closed before any answer.
        self.lost: set[str] = set()

    def refusal(self, authorization: str | None, token: str) -> tuple[int, str] | None:
        """The status and error a request is refused with before it is read, or None."""
        if self.unavailable:
            return 503, "Service Unavailable"
        if self.oauth_offline > 0:
            self.oauth_offline -= 1
            return 401, "OAuth server is offline! Try again soon."
        if authorization != f"Bearer {token}":
            return 401, "No such token"
        return None

    def lose_next_answer(self, kind: str) -> None:
        self.lost.add(kind)

    def take_lost(self, kind: str) -> bool:
        """Is this request of ``kind`` the one to lose (then no more)?"""
        if kind in self.lost:
            self.lost.discard(kind)
            return True
        return False
