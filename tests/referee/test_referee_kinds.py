"""The irregularity kinds' registry (firmware.referee.kinds): the feed's names as CONTRACT.md
lists them, and whose fault each is, the rules the referee applies (000 3.11, 5.7)."""

from __future__ import annotations

import json
import re
from pathlib import Path

from firmware.referee import KINDS
from firmware.referee.kinds import FAULT_KINDS, MOVER_KINDS, IrregularityKind

CONTRACT = Path(__file__).resolve().parents[2] / "docs" / "CONTRACT.md"


def test_the_feed_names_are_the_contract_s() -> None:
    text = CONTRACT.read_text(encoding="utf-8")
    listed = text[text.index("NAME is one of:"):text.index("(add more as needed")]
    names = re.findall(r"`([a-z-]+)`", listed)
    assert names and set(names) <= set(KINDS)
    assert KINDS == tuple(k.value for k in IrregularityKind)
    for kind in IrregularityKind:
        assert json.dumps(kind) == json.dumps(kind.value)  # a str on the feed
        assert kind == kind.value and kind.description


def test_whose_fault_each_is() -> None:
    # The mover's own move is judged at his press (000 3.11) and accepted by the reply (5.7).
    assert MOVER_KINDS <= FAULT_KINDS
    assert "own-piece-removed" in FAULT_KINDS and "own-piece-removed" not in MOVER_KINDS
    for kind in ("touch-move", "press-without-move", "setup", "board-mismatch", "two-moves"):
        assert kind not in FAULT_KINDS  # nobody accepts these by replying
    assert {"illegal-move", "missed-capture", "wrong-capture", "incomplete-removal",
            "extra-removal"} == set(MOVER_KINDS)
