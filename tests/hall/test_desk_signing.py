"""Signed desk messages (boardctl.hall.signing): forged, altered, misplaced, stale and replayed
requests are refused, each for its reason; the clock is injected."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from boardctl.hall.signing import SignatureError, Signer, Verifier, open_signed, read_key, sign
from firmware.errors import BoardError

KEY = b"0123456789abcdef0123456789abcdef"


class Clock:
    def __init__(self, t: float = 1_000_000.0) -> None:
        self.t = t

    def __call__(self) -> float:
        return self.t


def pair(clock: Clock, run: str = "run1") -> tuple[Signer, Verifier]:
    return Signer(KEY, "H", run=run, clock=clock), Verifier(KEY, "H", "b1", clock=clock)


def test_a_request_is_taken_once_and_its_reply_comes_back() -> None:
    clock = Clock()
    signer, verifier = pair(clock)
    payload = signer.request("b1", {"cmd": "pause"}, signer.next())
    msg = verifier.check_request(payload)
    assert (msg.body, msg.run, msg.n) == ({"cmd": "pause"}, "run1", 1)
    with pytest.raises(SignatureError, match="replay"):
        verifier.check_request(payload)
    reply = signer.check_reply("b1", verifier.reply(msg, {"ok": True}))
    assert (reply.body, reply.n) == ({"ok": True}, 1)


def test_forged_altered_and_misplaced_messages_are_refused() -> None:
    clock = Clock()
    signer, verifier = pair(clock)
    good = signer.request("b1", {"cmd": "pause"}, signer.next())
    forged = Signer(b"another hall's key, 32 bytes....", "H", clock=clock)
    with pytest.raises(SignatureError, match="bad signature"):
        verifier.check_request(forged.request("b1", {"cmd": "pause"}, 1))
    altered = good.replace(b'"pause"', b'"start"')
    with pytest.raises(SignatureError, match="bad signature"):
        verifier.check_request(altered)
    for bad in (b"", b"x" * 65, good[:-1], good[:64] + b"!" + good[65:]):
        with pytest.raises(SignatureError):
            verifier.check_request(bad)
    # signed with the key, but for another board, or a reply offered as a request
    with pytest.raises(SignatureError, match="not a request for H/b1"):
        verifier.check_request(signer.request("b2", {"cmd": "pause"}, signer.next()))
    msg = verifier.check_request(signer.request("b1", {"cmd": "status"}, signer.next()))
    with pytest.raises(SignatureError, match="not a request"):
        verifier.check_request(verifier.reply(msg, {"ok": True}))
    with pytest.raises(SignatureError, match="not a reply of H/b2"):
        signer.check_reply("b2", verifier.reply(msg, {"ok": True}))


def test_counters_rise_per_run_and_stale_or_early_messages_are_refused() -> None:
    clock = Clock()
    signer, verifier = pair(clock)
    first, second = signer.next(), signer.next()
    late = signer.request("b1", {"cmd": "pause"}, first)
    verifier.check_request(signer.request("b1", {"cmd": "pause"}, second))
    with pytest.raises(SignatureError, match="older than 2"):
        verifier.check_request(late)  # an older counter of the same run
    other, _ = pair(clock, run="run2")  # another relay run has counters of its own
    assert verifier.check_request(other.request("b1", {"cmd": "status"}, 1)).n == 1
    stale = signer.request("b1", {"cmd": "pause"}, signer.next())
    clock.t += 31
    with pytest.raises(SignatureError, match=r"\-31 s off this clock"):
        verifier.check_request(stale)
    # recorded before the board started: refused by a rebooted board that forgot the counters
    recorded = signer.request("b1", {"cmd": "pause"}, signer.next())
    clock.t += 5
    rebooted = Verifier(KEY, "H", "b1", clock=clock)
    with pytest.raises(SignatureError, match="before this board started"):
        rebooted.check_request(recorded)


def test_the_runs_remembered_are_bounded() -> None:
    clock = Clock()
    verifier = Verifier(KEY, "H", "b1", clock=clock, runs=3)
    for i in range(10):
        signer = Signer(KEY, "H", run=f"r{i}", clock=clock)
        verifier.check_request(signer.request("b1", {"cmd": "status"}, 1))
    assert list(verifier._last) == ["r7", "r8", "r9"]


def test_the_mac_covers_the_exact_bytes() -> None:
    payload = sign(KEY, {"v": 1, "kind": "control", "hall": "H", "board": "b1", "run": "r",
                         "n": 1, "t": 1.0, "body": {"cmd": "pause"}})
    # the same JSON with other spacing is other bytes: refused, never re-serialised to match
    spaced = payload[:65] + json.dumps(json.loads(payload[65:])).encode()
    with pytest.raises(SignatureError, match="bad signature"):
        open_signed(KEY, spaced)
    assert open_signed(KEY, payload).body == {"cmd": "pause"}


def test_the_key_file(tmp_path: Path) -> None:
    (tmp_path / "k").write_text("0123456789abcdef0123\nignored\n")
    assert read_key(tmp_path / "k") == b"0123456789abcdef0123"
    (tmp_path / "short").write_text("abc\n")
    with pytest.raises(BoardError, match="at least 16 characters"):
        read_key(tmp_path / "short")
    with pytest.raises(BoardError, match="cannot read it"):
        read_key(tmp_path / "missing")
