"""Damaged PDN never gives a traceback: reading and replaying a real game with random edits
either works or raises PdnError with a one-line message naming the file."""

from __future__ import annotations

from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from firmware.errors import PdnError
from firmware.pdn import read_games

DATA = Path(__file__).resolve().parents[1] / "data" / "pdn"
TEXTS = [
    (DATA / "russian-ussr-championship-1947.pdn").read_text(encoding="utf-8")[:1400],
    (DATA / "international-world-championship-2003.pdn").read_text(encoding="utf-8")[:1200],
]
ALPHABET = ' \n\r\t-x:./"[]{}()$!?*%;0123456789abcdefghKWBFEN\ufeff½'


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    which=st.sampled_from([0, 1]),
    edits=st.lists(
        st.tuples(
            st.integers(min_value=0, max_value=1400),
            st.integers(min_value=0, max_value=3),
            st.text(alphabet=ALPHABET, min_size=0, max_size=3),
        ),
        min_size=1,
        max_size=6,
    ),
)
def test_damaged_files_raise_only_pdn_errors(
    which: int, edits: list[tuple[int, int, str]]
) -> None:
    text = TEXTS[which]
    for at, cut, insert in edits:
        text = text[:at] + insert + text[at + cut :]
    try:
        for game in read_games(text, "damaged.pdn"):
            game.replay()
            game.clocks()
    except PdnError as exc:
        message = str(exc)
        assert message.startswith("damaged.pdn")
        assert "\n" not in message
