"""support.service_helpers.quicker: a hand's log played quicker is the same game, the same
hand and the same bounces, in less time (the process tests that only need moves use it)."""

from __future__ import annotations

import pytest
from support.service_helpers import KEPT_GAP_NS, game_log, replayed


@pytest.mark.parametrize("seed", range(8))
def test_a_quicker_log_is_the_same_game_in_less_time(seed: int) -> None:
    slow = game_log(24, seed=seed, think=(0.02, 0.1))
    quick = game_log(24, seed=seed, think=(0.02, 0.1), pace=0.3)
    assert [e.type for e in quick] == [e.type for e in slow]
    assert [getattr(e, "square", None) for e in quick] == [getattr(e, "square", None)
                                                           for e in slow]
    assert [m["move"] for m in replayed(quick).moves] == [
        m["move"] for m in replayed(slow).moves]
    assert quick[-1].at - quick[0].at < 0.5 * (slow[-1].at - slow[0].at)
    for i in range(1, len(slow)):
        gap, new = slow[i].at - slow[i - 1].at, quick[i].at - quick[i - 1].at
        assert new == gap if gap <= KEPT_GAP_NS else KEPT_GAP_NS <= new < gap
