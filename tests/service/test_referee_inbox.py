"""boardctl.service.inbox: requests from other threads answered on the referee's thread, and
the short-lived ``status`` cache that must never hide an act asked before it."""

from __future__ import annotations

import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from boardctl.service.control import Request
from boardctl.service.inbox import RefereeInbox
from boardctl.service.outputs import Outbox


class Referee:
    """A referee thread answering the inbox: ``status`` says how many acts it has taken."""

    def __init__(self, inbox: RefereeInbox) -> None:
        self.inbox = inbox
        self.acts: list[str] = []
        self.wake = threading.Event()
        self.stop = False
        self.thread = threading.Thread(target=self.run, daemon=True)

    def answer(self, req: Request) -> Mapping[str, Any]:
        if req.cmd != "status":
            self.acts.append(req.cmd)
        return {"ok": True, "acts": list(self.acts)}

    def run(self) -> None:
        self.inbox.referee = threading.get_ident()
        while not self.stop:
            self.wake.wait(0.05)
            self.wake.clear()
            self.inbox.answer(self.answer)


def test_a_status_after_an_act_sees_the_act_though_the_last_status_is_fresh(
        tmp_path: Path) -> None:
    inbox = RefereeInbox(lambda: None, Outbox(tmp_path, lambda record, seq: None))
    referee = Referee(inbox)
    inbox.wake = referee.wake.set
    referee.thread.start()
    try:
        assert inbox.ask(Request("status", {}))["acts"] == []
        assert inbox.ask(Request("status", {}))["acts"] == []  # from the cache or not: alike
        inbox.ask(Request("new", {}))
        # well within STATUS_FRESH_S of the first status: the cache must not give it again
        assert inbox.ask(Request("status", {}))["acts"] == ["new"]
        inbox.ask(Request("start", {}))
        inbox.ask(Request("sim", {"type": "press", "side": "white"}))
        assert inbox.ask(Request("status", {}))["acts"] == ["new", "start", "sim"]
    finally:
        referee.stop = True
        referee.wake.set()
        referee.thread.join()
