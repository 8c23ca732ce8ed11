"""Issue 10 item 4: every reader of outside data is bounded (line length, nesting depth, total
size) and answers hostile input with a one-line error: never a traceback, never memory."""

from __future__ import annotations

import resource
import subprocess
import sys
from pathlib import Path

import pytest

from boardctl.service.control import parse_request
from firmware.errors import BoardError, FenError
from firmware.formats.feed import decode_line, encode_line
from firmware.limits import MAX_DEPTH, MAX_FEN, TooDeep, loads
from firmware.rules.fen import parse_fen
from firmware.rules.sets import RULESETS

BOARDCTL = [sys.executable, "-m", "boardctl"]
DEEP = "[" * 100_000


def limited() -> None:  # the child may use 1 GiB at most: eating memory fails the test
    resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))


def one_line_error(*args: str) -> str:
    proc = subprocess.run([*BOARDCTL, *args], capture_output=True, text=True, timeout=60,
                          preexec_fn=limited)
    assert proc.returncode != 0
    assert "Traceback" not in proc.stderr and proc.stderr.count("\n") == 1, proc.stderr
    return proc.stderr


def test_deep_json_is_a_value_error_not_a_recursion_error() -> None:
    with pytest.raises(TooDeep):
        loads("[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1))
    assert loads('{"a": "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["}')["a"]
    assert loads("[" * MAX_DEPTH + "]" * MAX_DEPTH) is not None


@pytest.mark.parametrize("content", [DEEP + "\n", "[" * 1000 + "\n", '{"type":"lift"}' * 9000])
def test_hostile_event_logs(tmp_path: Path, content: str) -> None:
    log = tmp_path / "log.jsonl"
    log.write_text(content)
    err = one_line_error("replay", "--rules", "international", str(log))
    assert f"{log}: line 1:" in err
    err = one_line_error("run", "--sim", "--rules", "international", "--state-dir",
                         str(tmp_path / "state"), "--events", str(log))
    assert f"{log}: line 1:" in err


def test_dev_zero_as_an_event_log_does_not_eat_memory(tmp_path: Path) -> None:
    assert "/dev/zero: line 1: longer than" in one_line_error(
        "replay", "--rules", "international", "/dev/zero")
    assert "/dev/zero: line 1: longer than" in one_line_error(
        "run", "--sim", "--state-dir", str(tmp_path / "s"), "--events", "/dev/zero")
    assert "/dev/zero: larger than" in one_line_error(
        "demo", "--pdn", "/dev/zero", "--speed", "0", "--quiet")
    assert "/dev/zero: larger than" in one_line_error("run", "--sim", "--config", "/dev/zero",
                                                      "--state-dir", str(tmp_path / "s"))


def test_deep_config_and_journal(tmp_path: Path) -> None:
    config = tmp_path / "board.toml"
    config.write_text("a = " + DEEP + "\n")
    assert "nested too deeply" in one_line_error("run", "--sim", "--config", str(config),
                                                 "--state-dir", str(tmp_path / "s"))
    state = tmp_path / "state"
    (state / "games").mkdir(parents=True)
    (state / "games" / "g.jsonl").write_text("[" * 1000 + "\n" + "{}\n")
    (state / "current").write_text("g.jsonl\n")
    err = one_line_error("run", "--sim", "--state-dir", str(state))
    assert "g.jsonl: line 1: damaged record" in err and "salvage" in err
    err = one_line_error("export", "--state-dir", str(state))
    assert "g.jsonl: line 1: damaged record" in err


def test_control_requests_and_feed_lines() -> None:
    with pytest.raises(BoardError, match="nested deeper"):
        parse_request(DEEP[:60_000])
    line = encode_line({"type": "note", "x": [[[[[]]]]]}, 0)
    assert decode_line(line) is not None
    assert decode_line(DEEP) is None
    assert decode_line(line.replace("[[[[[]]]]]", "[" * 40 + "]" * 40)) is None  # CRC, too


def test_a_fen_longer_than_any_board_is_refused_in_one_line() -> None:
    err = one_line_error("moves", "--rules", "international", "--fen", "W:W" + "," * 100_000)
    assert "100003 characters long" in err
    rules = RULESETS["international"]
    padded = "W:W31-50:B1-20" + " " * (MAX_FEN - 14)
    assert parse_fen(rules, padded).white_men == frozenset(range(31, 51))
    with pytest.raises(FenError, match="longer than"):
        parse_fen(rules, padded + " ")


def test_the_largest_tags_a_new_game_takes_fit_its_journal(tmp_path: Path) -> None:
    """A control request's tags are bounded so that the game's journal header always reads
    back: 32 tags of 200 non-ASCII characters (6 bytes each in the journal's ASCII JSON) are
    taken, and the service starts again on that journal and exports it; one more is refused
    before anything is written."""
    from support.service_helpers import sim_service

    from firmware.pdn import read_games

    tags = {f"Tag{i}": "é" * 200 for i in range(32)}
    service, _ = sim_service(tmp_path, None)
    service.boot()
    refused = service.command({"cmd": "new", "tags": {**tags, "White": "x"}})
    assert not refused["ok"] and "at most 32 tags" in refused["error"]
    answer = service.command({"cmd": "new", "tags": tags})
    assert answer["ok"], answer
    service.close()
    again, _ = sim_service(tmp_path, None)
    again.boot()  # the journal's header line is read back
    assert again.header is not None and again.header.tags == tags
    again.close()
    exported = subprocess.run([sys.executable, "-m", "boardctl", "export", "--state-dir",
                               str(tmp_path)], capture_output=True, text=True, timeout=60)
    assert exported.returncode == 0, exported.stderr
    (game,) = read_games(exported.stdout, "export")
    assert game.tags["Tag31"] == "é" * 200


def test_a_lone_surrogate_is_not_text_anywhere_json_is_read() -> None:
    """`"\\ud800"` parses as JSON but no file, socket or PDN can carry it on: every reader
    (firmware.limits.loads) refuses it; a feed line carrying it is dropped as damaged."""
    from firmware.limits import NotText

    with pytest.raises(NotText):
        loads('{"type": "move", "move": "\\ud800"}')
    assert loads('{"a": "\\ud83d\\ude00", "b": "\\\\ud800"}') == {"a": "😀", "b": "\\ud800"}
    from firmware.formats.feed import crc_of

    def line(white: str) -> str:  # a feed line with its right checksum
        body = '{"seq":3,"type":"game","game":"g","tags":{"White":"' + white + '"}'
        return f'{body},"crc":"{crc_of(body + "}")}"}}\n'

    assert decode_line(line("x")) == {"seq": 3, "type": "game", "game": "g",
                                      "tags": {"White": "x"}}
    assert decode_line(line("\\ud800")) is None


def test_a_huge_move_count_is_refused_not_counted(tmp_path: Path) -> None:
    """A move count of a billion in an event log: each control passed on the way counts, so
    the count is bounded (10000) and refused in one line before it is counted."""
    from firmware.clock.gameclock import GameClock
    from firmware.clock.records import ClockError
    from firmware.rules.sets import Side

    log = tmp_path / "m.jsonl"
    log.write_text('{"type":"start","t":0}\n'
                   '{"type":"moves-set","t":1,"side":"white","moves":1000000000}\n')
    err = one_line_error("replay", "--rules", "russian", "--time-control", "40/300", str(log))
    assert "line 2: 'moves' must be a whole number from 0 to 10000" in err
    clock = GameClock("40/300")
    clock.start(0)
    with pytest.raises(ClockError, match="from 0 to 10000: a number too large"):
        clock.correct_moves(Side.WHITE, 10**400, 1)
    assert clock.correct_moves(Side.WHITE, 10_000, 1) > 0  # 249 controls passed: their time


def test_a_password_file_is_read_with_a_bound(tmp_path: Path) -> None:
    """/dev/zero as a broker password file: one line, not gigabytes (run, relay, hall)."""
    err = one_line_error("run", "--sim", "--state-dir", str(tmp_path / "s"), "--broker",
                         "mqtt://127.0.0.1:1", "--hall", "h", "--board", "b", "--broker-user",
                         "u", "--broker-password-file", "/dev/zero")
    assert "broker password file /dev/zero: longer than 4096 bytes" in err
    err = one_line_error("relay", "--broker", "mqtt://127.0.0.1:1", "--hall", "h", "--http",
                         "127.0.0.1:0", "--broker-user", "u", "--broker-password-file",
                         "/dev/zero")
    assert "longer than 4096 bytes" in err
    from boardctl.hall.publish import password_from

    (tmp_path / "pw").write_text("secret\nsecond line\n")
    assert password_from(str(tmp_path / "pw")) == "secret"
    with pytest.raises(BoardError, match="--password-file /dev/zero: longer than 4096"):
        password_from("/dev/zero")


HUGE = "9" * 5000  # past Python's 4300-digit limit for int(str)


@pytest.mark.parametrize("pdn, words", [
    (f'[Event "x"]\n{HUGE}. 32-28 *\n', "move number 999999999999... is too long"),
    (f'[Event "x"]\n1. 32-28 ${HUGE} *\n', "NAG 999999999999... is too long"),
    (f'[GameType "{HUGE}"]\n1. 32-28 *\n', "cannot read GameType '9999"),
])
def test_numbers_longer_than_any_real_one_in_a_pdn(pdn: str, words: str) -> None:
    from firmware.errors import PdnError
    from firmware.pdn import read_games

    with pytest.raises(PdnError, match=words.replace("...", r"\.\.\.")) as caught:
        for game in read_games(pdn, "x.pdn"):
            game.replay()
    assert len(str(caught.value)) < 200


@pytest.mark.parametrize("record, words", [
    ('{"type":"start","t":1' + "0" * 400 + "}", "needs a time 't' in seconds"),
    ('{"type":"clock-set","t":1,"side":"white","seconds":1e300}', "'seconds' 1e+300 is out"),
    ('{"type":"clock-set","t":1,"side":"white","seconds":' + HUGE[:400] + "}",
     "needs a number"),
])
def test_numbers_past_a_float_in_an_event_log(tmp_path: Path, record: str, words: str) -> None:
    log = tmp_path / "e.jsonl"
    log.write_text(record + "\n")
    err = one_line_error("replay", "--rules", "russian", "--time-control", "300", str(log))
    assert words in err and "unexpected" not in err


def test_a_time_control_longer_than_any_real_one() -> None:
    from firmware.clock.timecontrol import TimeControl
    from firmware.errors import TimeControlError

    with pytest.raises(TimeControlError, match="longer than 200 characters"):
        TimeControl.parse(HUGE)
    assert TimeControl.parse("40/5400+30:20/3600+30:1800+30").stages


@pytest.mark.parametrize("line, words", [
    ('{"type":"game","id":"g","rules":"russian","settle":NaN}', "'settle' must be a number"),
    ('{"type":"game","id":"g","rules":"russian","settle":1e300}', "'settle' must be a number"),
    ('{"type":"note","t":1e300,"note":"clock"}', "'note' record's time 't' is not seconds"),
    ('{"type":"lift","t":1e300,"square":"c3"}', "needs a time 't' in seconds"),
])
def test_a_journals_numbers_are_checked_before_use(line: str, words: str) -> None:
    from firmware.errors import EventLogError
    from firmware.formats.journal import read_journal

    header = '{"type":"game","id":"g","rules":"russian"}'
    lines = [line] if line.startswith('{"type":"game"') else [header, line]
    with pytest.raises(EventLogError, match=words):
        read_journal([text + "\n" for text in lines], "j.jsonl")


def test_a_tournament_file_nested_too_deep_is_one_line(tmp_path: Path) -> None:
    state = tmp_path / "t.json"
    state.write_text("[" * 100_000 + "]" * 100_000)
    assert "nested deeper than" in one_line_error("hall", "pairings", "--state", str(state))
    state.write_text('{"format": "kabelaud-tournament/1", "event": "\\ud800"}')
    assert "lone UTF-16 surrogate" in one_line_error("hall", "pairings", "--state", str(state))


def test_a_ca_file_that_is_not_one_stops_the_board_before_it_starts(tmp_path: Path) -> None:
    """--broker-ca naming garbage: one line at the start, not a link thread dying later while
    the board says it is ready."""
    bad = tmp_path / "ca.pem"
    bad.write_text("garbage\n")
    err = one_line_error("run", "--sim", "--state-dir", str(tmp_path / "s"), "--broker",
                         "mqtts://127.0.0.1:1", "--hall", "h", "--board", "b", "--broker-ca",
                         str(bad))
    assert f"broker TLS: cannot read CA file {bad}" in err
    assert not (tmp_path / "s").exists()  # nothing started
