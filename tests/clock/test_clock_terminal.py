"""``boardctl clock --sim`` in a real pseudo-terminal: keys drive the mock button pins, the real
HT16K33 driver writes the simulated faces, and the terminal shows both."""

from __future__ import annotations

import pytest

pytest.importorskip("pty")

from support.pty_helpers import run_on_pty  # noqa: E402


def _run_keys(argv: list[str], keys: bytes) -> tuple[int, str]:
    code, out, _ = run_on_pty(argv, 110, [("keys", keys)])
    return code, out


def test_sim_clock_in_a_terminal() -> None:
    code, out = _run_keys(["clock", "--sim", "-t", "60+1"], b"szm]q")
    assert code == 0, out
    last = [part for part in out.split("\r") if "move" in part][-1]
    assert "> White" in last  # both pressed: White runs again
    assert "move 3" in last  # 2 moves by White (one press, one arbiter +1), next is 3
    assert last.lstrip().startswith("[")  # the faces read back from the simulated chips
    assert "Traceback" not in out
