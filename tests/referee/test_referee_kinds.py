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


def test_every_irregularity_the_referee_reports_is_typed_and_its_line_unchanged() -> None:
    """Issue 35 item 5: ``Irregularity.kind`` is an ``IrregularityKind`` wherever the referee
    names one (random hands on the board, with and without a clock); on the feed it is the
    same line a plain string gives."""
    import random

    from firmware.formats.feed import encode_line
    from firmware.formats.records import IrregularityRecord
    from firmware.referee import Irregularity, Referee
    from firmware.rules.sets import Side, find_rules

    rules = find_rules("russian")
    cells = rules.geometry.all_cells()
    seen: set[IrregularityKind] = set()
    for seed in range(12):
        rng = random.Random(seed)
        referee = Referee(rules, clocked=seed % 2 == 0, started=seed % 3 != 0)
        at = 0
        decisions = []
        for _ in range(300):
            at += rng.randrange(1, 400_000_000)
            act = rng.random()
            square = rng.choice(cells)
            if act < 0.45:
                decisions += referee.lift(square, at)
            elif act < 0.9:
                decisions += referee.place(square, at)
            elif act < 0.97:
                decisions += referee.press(rng.choice((Side.WHITE, Side.BLACK)), at)
            else:
                decisions += referee.start(at) if not referee.started else referee.accept(at)
        for d in decisions:
            if isinstance(d, Irregularity):
                assert type(d.kind) is IrregularityKind
                seen.add(d.kind)
    assert len(seen) >= 6  # the walk met many kinds
    for kind in IrregularityKind:
        typed = IrregularityRecord(kind, "white", ["c3"], {"c3": "restore"}).to_json()
        plain = IrregularityRecord(kind.value, "white", ["c3"], {"c3": "restore"}).to_json()
        assert encode_line(typed, 7) == encode_line(plain, 7)
