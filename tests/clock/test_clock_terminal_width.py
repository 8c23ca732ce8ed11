"""``boardctl clock`` in a real pseudo-terminal (issue 11): the status line fits the terminal's
width (it used to pad to 110 columns, so a narrower terminal scrolled), is drawn again to the
new width on a resize (SIGWINCH), and ``--plain`` writes plain lines a screen reader reads."""

from __future__ import annotations

import pytest

pytest.importorskip("pty")

from support.pty_helpers import run_on_pty as _run  # noqa: E402


def _status_lines(text: str) -> list[str]:
    return [part.replace("\x1b[K", "").rstrip("\n") for part in text.split("\r")
            if "\x1b[K" in part]


def test_status_line_fits_the_width_and_follows_a_resize() -> None:
    code, out, marks = _run(["clock", "-t", "300+3"], 40,
                            [("keys", b"s"), ("resize", 90), ("keys", b"q")])
    assert code == 0 and "Traceback" not in out, out
    narrow = _status_lines(out[: marks[1]])
    wide = _status_lines(out[marks[1]: marks[2]])
    assert narrow and all(len(line) <= 39 for line in narrow), narrow
    assert wide and all(len(line) <= 89 for line in wide)
    assert any(len(line) > 39 for line in wide), wide  # redrawn to the new width
    assert "| move 1" in wide[-1]  # the full line fits now
    assert all(" " * 20 not in line for line in narrow + wide)  # no padding to 110


def test_plain_mode_writes_lines_for_a_screen_reader() -> None:
    code, out, _ = _run(["clock", "--plain", "-t", "300+3"], 80,
                        [("keys", b"s"), ("keys", b"z"), ("keys", b"t"), ("keys", b"q")])
    assert code == 0 and "Traceback" not in out, out
    assert "\x1b[K" not in out  # nothing is drawn in place
    lines = [line.strip() for line in out.replace("\r", "").split("\n")
             if line.startswith("White ")]
    assert lines[0].startswith("White 5:00, Black 5:00") and "not started" in lines[0]
    assert any("Black to move, move 1" in line for line in lines)  # the press, once
    told = [line for line in lines if "Black to move" in line]
    assert len(told) == 2  # the press, then the t key; the ticking seconds are no news
