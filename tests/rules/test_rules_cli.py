"""``boardctl moves`` and ``boardctl perft`` as CONTRACT.md says, through the real entry point."""

from __future__ import annotations

import pytest

from boardctl.cli import main


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, list[str], str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out.splitlines(), err


def test_moves_lists_full_routes(capsys: pytest.CaptureFixture[str]) -> None:
    code, lines, _ = run(capsys, "moves", "--rules", "russian", "--fen", "W:WKd2:Bb6,d6,f4,f6,g7")
    assert code == 0
    assert sorted(lines) == ["d2:g5:d8:a5", "d2:g5:e7:c5:a7", "d2:h6:f8:c5:a7"]


def test_moves_start_position_10x10(capsys: pytest.CaptureFixture[str]) -> None:
    code, lines, _ = run(capsys, "moves", "--rules", "international")
    assert code == 0 and len(lines) == 9 and "32-28" in lines and "31-26" in lines
    fen = "W:WK42:B11,12,13,29,30,40"
    code, lines, _ = run(capsys, "moves", "--rules", "international", "--fen", fen)
    assert sorted(lines) == ["42x24x35x44x6", "42x24x8x17x6"]


def test_perft_last_line_is_the_count(capsys: pytest.CaptureFixture[str]) -> None:
    code, lines, _ = run(capsys, "perft", "--rules", "brazilian", "--depth", "5")
    assert code == 0 and lines[-1] == "7473"
    code, lines, _ = run(capsys, "perft", "--rules", "russian", "--depth", "3", "--divide")
    assert lines[-1] == "302" and sum(int(x.split()[1]) for x in lines[:-1]) == 302
    assert "c3-d4 40" in lines


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["moves", "--rules", "checkers"], "unknown rule set"),
        (["moves", "--rules", "russian", "--fen", "W:Wz9:B1"], "z9"),
        (["perft", "--rules", "russian", "--depth", "2", "--fen", "Q"], "side to move"),
    ],
)
def test_bad_input_is_one_line_exit_2(
    capsys: pytest.CaptureFixture[str], argv: list[str], words: str
) -> None:
    code, lines, err = run(capsys, *argv)
    assert code == 2 and lines == []
    assert err.startswith("boardctl: error:") and words in err and err.count("\n") == 1


def test_bad_depth_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["perft", "--rules", "russian", "--depth", "-1"])
    assert info.value.code == 2
    assert "depth" in capsys.readouterr().err
