"""The arbiter overrides the clock's result over the control socket's code path (004 §32:
lateness "without a valid excuse" loses, so the arbiter who accepts the excuse or finds the
flag wrong replaces the automatic result); any other finished game refuses a second result."""

from __future__ import annotations

from pathlib import Path

from support.service_helpers import run_until, sim_service


def test_a_flag_is_overridden_through_the_control_path(tmp_path: Path) -> None:
    service, clock = sim_service(tmp_path, None, tc="2")  # 2 s sudden death
    service.boot()
    try:
        assert service.command({"cmd": "start"})["ok"]
        run_until(service, clock, 3.0)
        assert service.session is not None and service.session.result is not None
        assert service.session.result["result"] == "0-2"  # White flagged, 004 §32
        answer = service.command({"cmd": "result", "result": "1-1",
                                  "reason": "arbiter: the clock was set wrong"})
        assert answer["ok"], answer
        assert service.session is not None and service.session.result is not None
        assert service.session.result["result"] == "1-1"
        refused = service.command({"cmd": "result", "result": "2-0"})
        assert not refused["ok"] and "over already (1-1)" in refused["error"]
    finally:
        service.close()
