"""``boardctl clock``: the scripted mode prints the timeline; bad input is one line, exit 2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from boardctl.cli import main


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_script_timeline(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    script = tmp_path / "game.clock"
    script.write_text(
        "# 5 min + 5 s\n"
        "0 start\n"
        "30 press white      # 300 - 30 + 5 = 275\n"
        "50 press black\n"
        "60 pause\n"
        "70 resume\n"
        "80 set white 1:00\n"
        "100 press white     # 60 - 20 + 5 = 45\n"
        "100 press white     # not his turn: ignored\n",
        encoding="utf-8",
    )
    code, out, err = _run(capsys, "clock", "-t", "300+5", "--script", str(script), "--until", "700")
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].startswith("time control 300+5")
    assert "press white #1 (30 s, +5)" in lines[2] and "> Black      5:00" in lines[2]
    assert "White      4:35" in lines[2]
    assert "paused" in lines[4]
    assert "ignored (not-running)" in lines[8]
    # Black runs from 100 with 285 s: his flag falls at 385.000, printed in time order.
    assert lines[9].split()[:3] == ["385.000", "flag", "black"]
    assert "FLAG black at 6:25" in lines[-1]


def test_script_reads_an_event_log(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = tmp_path / "events.jsonl"
    records = [
        {"type": "start", "t": 10.0},
        {"type": "lift", "t": 11.0, "square": "c3"},
        {"type": "place", "t": 12.0, "square": "d4"},
        {"type": "press", "t": 12.5, "side": "white"},
        {"type": "press", "t": 20.0, "side": "black"},
    ]
    log.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    code, out, err = _run(capsys, "clock", "-t", "60", "--script", str(log))
    assert code == 0, err
    lines = out.splitlines()
    assert len(lines) == 4  # header, start and two presses; sensor events skipped
    assert "press black #1 (7.5 s)" in lines[-1]  # t 12.5 -> 20
    assert "> White      0:57" in lines[-1]  # 60 - 2.5 (10 -> 12.5), rounded down
    assert "Black      0:52" in lines[-1]  # 60 - 7.5


def test_adjourn_in_a_script(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    script = tmp_path / "adjourn.clock"
    script.write_text(
        "0 start\n100 press white\n300 adjourn 0:10:00\n1000 resume-adjourned\n1000 show\n",
        encoding="utf-8",
    )
    code, out, _ = _run(capsys, "clock", "-t", "15/3600", "--script", str(script))
    assert code == 0
    assert "adjourn, black sealed (+300 s, 004 §34)" in out
    assert "resume, sealed move #1 of black" in out
    assert "> White     58:20" in out.splitlines()[-1]


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("0 start\n5 prss white\n", "line 2: unknown action 'prss'"),
        ("0 start\n5 press red\n", "line 2: side must be white or black"),
        ("0 start\nsoon press white\n", "line 2: bad time 'soon'"),
        ("10 start\n5 press white\n", "line 2: time 5 s is before"),
        ("0 start\n0 start\n", "line 2: the clock is already started"),
        ("0 start\n1 resume-adjourned\n", "line 2: the game is not adjourned"),
        ("0 start\n1 set white -5\n", "line 2: bad time '-5'"),
        ("0 start\n1 moves white x\n", "line 2: move count must be a whole number"),
        ("0 start\n1 moves white 1000000\n", "line 2: move count must be a whole number up "
         "to 10000"),  # counted control by control, a billion took minutes
        ("0 start\n1 moves white 20000\n", "line 2: a move count must be a whole number from 0 "
         "to 10000"),
        ("0 start\n1 moves white \u00b2\n", "line 2: move count must be a whole number"),
        ("0 start\n1 " + "x" * 70_000 + "\n", "line 2: longer than 65536 bytes"),
        ('{"type": "press", "t": "x"}\n', "line 1"),
    ],
)
def test_bad_script_lines(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, words: str
) -> None:
    script = tmp_path / "bad.clock"
    script.write_text(text, encoding="utf-8")
    code, _, err = _run(capsys, "clock", "-t", "300", "--script", str(script))
    assert code == 2
    assert err.startswith("boardctl: error: ")
    assert words in err
    assert err.count("\n") == 1 and "Traceback" not in err


def test_bad_time_control_and_missing_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = _run(capsys, "clock", "-t", "40/", "--script", str(tmp_path / "x"))
    assert code == 2 and "bad time control '40/'" in err
    code, _, err = _run(capsys, "clock", "-t", "300", "--script", str(tmp_path / "missing"))
    assert code == 2 and "missing" in err


def test_list_presets(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "clock", "--list-presets")
    assert code == 0
    assert "fmjd-classical" in out and "4800+60" in out and "1953-25" in out


def test_interactive_mode_needs_a_terminal(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import io

    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    code, _, err = _run(capsys, "clock", "-t", "300")
    assert code == 2 and "needs a terminal" in err


def test_the_script_format_in_help_runs_as_shown(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """``boardctl clock --help`` shows the --script format by example: that example, as a
    file, is a script the clock runs, every action of it."""
    from boardctl.commands.clock import SCRIPT_FORMAT

    with pytest.raises(SystemExit):
        main(["clock", "--help"])
    assert SCRIPT_FORMAT in capsys.readouterr().out
    example = [line.strip() for line in SCRIPT_FORMAT.splitlines()
               if line.startswith("  ") and line.strip()[0].isdigit()]
    assert len(example) == 9
    script = tmp_path / "example.clock"
    # the help's own text after each action is its comment
    script.write_text("".join(f"{line[:30].replace('[4:00:00]', '4:00:00')}# {line[30:]}\n"
                              for line in example))
    code, out, err = _run(capsys, "clock", "--script", str(script), "-t", "5400+30")
    assert code == 0, err
    assert err == ""
    for done in ("start, white to move", "press white #1", "pause", "resume",
                 "arbiter: white time 1:30:00", "arbiter: black moves 40", "adjourn, black",
                 "resume, sealed move", "show"):
        assert done in out, out
