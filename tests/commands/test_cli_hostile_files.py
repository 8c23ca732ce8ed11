"""Hostile files and arguments found by an input audit: each one a one-line error (never an
'unexpected' exception, a hang or memory), or, for a script's times, no silent wrong answer."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from test_cli_bounded_inputs import one_line_error

from boardctl.commands.control import parse_time
from firmware.errors import BoardError
from firmware.pdn.clock import parse_clock


@pytest.mark.parametrize("args, words", [
    (["moves", "--rules", "international", "--fen", "W:W\u00b2:B1"], "is not a dark square"),
    (["relay", "--http", "127.0.0.1:\u00b2", "loop://"], "--http: expected HOST:PORT"),
])
def test_digits_that_are_not_ascii_are_not_numbers(args: list[str], words: str) -> None:
    err = one_line_error(*args)  # '²'.isdigit() is True, int('²') a ValueError
    assert words in err and "unexpected" not in err


def test_hall_files_with_odd_digits_and_huge_csv_fields(tmp_path: Path) -> None:
    players = tmp_path / "p.csv"
    players.write_text("name,rating\nA,\u00b2\nB,1\nC,2\n")
    state = str(tmp_path / "t.json")
    assert "rating '\u00b2' is not a whole number" in one_line_error(
        "hall", "init", "--state", state, "--players", str(players))
    players.write_text('name,rating\n"' + "x" * 200_000 + '",1\nB,1\nC,1\n')
    assert "p.csv:2: not CSV: field larger" in one_line_error(
        "hall", "init", "--state", state, "--players", str(players))
    players.write_text("name," + ",".join(f"c{i}" for i in range(50_000)) + "\nA\nB\nC\n")
    assert len(one_line_error("hall", "init", "--state", state, "--players", str(players))) < 300
    players.write_text("A\nB\nC\n")  # a good list still makes the file
    for argv in (["init", "--players", str(players)], ["draw", "--seed", "1"]):
        done = subprocess.run([sys.executable, "-m", "boardctl", "hall", *argv, "--state", state],
                              capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stderr
    games = tmp_path / "g.pdn"
    games.write_text('[Round "\u00b2"]\n[White "A"]\n[Black "B"]\n[GameType "25"]\n1. c3-d4 *\n')
    assert "Round tag '\u00b2' is not a round number" in one_line_error(
        "hall", "crosstable", "--state", state, "--games", str(games))


def test_a_current_pointer_to_dev_zero_does_not_eat_memory(tmp_path: Path) -> None:
    (tmp_path / "games").mkdir()
    (tmp_path / "current").symlink_to("/dev/zero")
    assert "current: longer than 255 bytes" in one_line_error("export", "--state-dir",
                                                              str(tmp_path))
    assert "current: longer than 255 bytes" in one_line_error("run", "--sim", "--state-dir",
                                                              str(tmp_path))


def test_a_pdn_tag_or_move_of_megabytes_is_read_in_memory_linear_in_it(tmp_path: Path) -> None:
    """A quoted tag value and a capture route were tokenized with a regex repeat that kept
    backtracking state for each character: some 250 bytes of memory per byte of the file, so a
    4 MB PDN used a gigabyte (under 1 GiB: MemoryError)."""
    pdn = tmp_path / "big.pdn"
    pdn.write_text('[Event "' + "x" * 5_000_000 + '"]\n[GameType "20"]\n1. 32-28 *\n')
    err = one_line_error("demo", "--pdn", str(pdn), "--speed", "0", "--quiet", "--game", "2")
    assert "there is no game 2" in err  # the file was read whole, in bounded memory
    pdn.write_text('[GameType "20"]\n1. 32x' + "x".join(["28"] * 1_000_000) + " *\n")
    err = one_line_error("demo", "--pdn", str(pdn), "--speed", "0", "--quiet")
    assert "move 1. 32x28x28" in err and len(err) < 600


def test_clock_commands_in_a_comment_are_found_in_linear_time() -> None:
    """An unclosed ``[%clk `` run: each search scanned to the comment's end (120 KB: 20 s,
    1.2 MB: hours). Read in a process of its own, which the test stops after a minute: a hang
    fails, whatever the machine's speed."""
    code = ("from firmware.pdn import read_games\n"
            "from firmware.pdn.clock import parse_clock\n"
            "comment = '[%clk ' * 200_000\n"
            "assert parse_clock(comment) is None\n"
            "games = list(read_games('[GameType \"20\"]\\n1. 32-28 {' + comment + '} *\\n', 'x'))\n"
            "assert len(games) == 1\n")
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)
    assert parse_clock("[%clock w1:02:03 B0:59:00]") is not None


@pytest.mark.parametrize("line, words", [
    ("1 set white 99:99:99", "bad time '99:99:99'"),
    ("1 set white 5:99", "bad time '5:99'"),
    ("1_0 press white", "bad time '1_0'"),
    ("1 adjourn 1:75:00", "bad time '1:75:00'"),
])
def test_clock_script_times_that_are_not_times(tmp_path: Path, line: str, words: str) -> None:
    script = tmp_path / "s.txt"
    script.write_text("0 start\n" + line + "\n")
    assert words in one_line_error("clock", "-t", "300", "--script", str(script))


def test_demo_records_a_double_loss_as_one(tmp_path: Path) -> None:
    pdn = tmp_path / "g.pdn"
    pdn.write_text('[GameType "20"]\n1. 32-28 0-0\n')
    done = subprocess.run([sys.executable, "-m", "boardctl", "demo", "--pdn", str(pdn),
                           "--speed", "0", "--quiet"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert '[Result "0-0"]' in done.stdout and '[Result "1-1"]' not in done.stdout


@pytest.mark.parametrize("text", ["nan", "inf", "1_0", "\u0663", "1:60", "-5", ""])
def test_clock_set_times_that_are_not_times(text: str) -> None:
    """``boardctl clock-set``'s time, read as the clock script's: float() takes 'nan', 'inf',
    '1_0' (10) and '٣' (3)."""
    with pytest.raises(BoardError, match=f"bad time {text!r}"):
        parse_time(text)
    assert parse_time("1:02:03") == 3723 and parse_time("90.5") == 90.5


@pytest.mark.parametrize("line", ["size = [" + "1, " * 20_000 + "1]",
                                  '[leds]\n"' + "z" * 100_000 + '" = 1',
                                  "[gpio]\nbackend = \"" + "y" * 100_000 + "\""])
def test_a_config_value_of_any_size_gets_a_short_error(tmp_path: Path, line: str) -> None:
    config = tmp_path / "board.toml"
    config.write_text(line + "\n")
    err = one_line_error("hwtest", "--sim", "--once", "--config", str(config))
    assert str(config) in err and len(err) < 300 + len(str(config)) + 40, len(err)


def test_names_with_digits_int_refuses_sort_and_read_without_error() -> None:
    """A board or round named ``²`` (``str.isdigit()`` says yes, ``int()`` refuses): the
    relay's round pages still sort, ``b2`` before ``b10``; a watchdog setting of ``²`` is no
    watchdog."""
    from boardctl.relay.http import _natural
    from boardctl.service.notify import Notifier

    names = ["b10", "\u00b2", "b2", "b\u00b2", "\u0663"]
    assert sorted(names, key=_natural) == ["b2", "b10", "b\u00b2", "\u00b2", "\u0663"]
    assert Notifier({"WATCHDOG_USEC": "\u00b2"}).watchdog_ns is None
