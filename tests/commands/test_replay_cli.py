"""``boardctl replay`` end to end (CONTRACT.md "Commands"): event logs and service journals,
PDN and feed output, and clean one-line errors for unreadable logs."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from boardctl.cli import main
from firmware.formats.events import iter_records
from firmware.formats.feed import decode_line
from firmware.formats.journal import GameHeader, decision_record, dumps
from firmware.pdn import read_games
from firmware.rules.notation import move_text
from firmware.rules.position import Position
from firmware.session.handling import NOISY, handle_game

DATA = Path(__file__).resolve().parents[1] / "data" / "pdn"


@pytest.fixture(scope="module")
def game() -> tuple[Position, list, list[str]]:
    pdn = (DATA / "russian-ussr-championship-1947.pdn").read_bytes()
    played = next(iter(read_games(pdn, "ussr1947"))).replay()
    texts, p = [], played.start
    for m in played.moves[:30]:
        texts.append(move_text(p, m))
        p = p.play(m)
    return played.start, played.moves[:30], texts


def write_log(path: Path, start: Position, moves: list, clocked: bool, seed: int = 1) -> Path:
    events = handle_game(start, moves, seed=seed, clocked=clocked, style=NOISY)
    path.write_text("".join(iter_records(events)))
    return path


def test_pdn_with_clocks(tmp_path: Path, capsys: pytest.CaptureFixture[str], game) -> None:
    start, moves, texts = game
    log = write_log(tmp_path / "game.jsonl", start, moves, clocked=True)
    argv = ["replay", "--rules", "russian", "--fen", start.fen(), "--time-control", "5400+30",
            str(log)]  # fmt: skip
    assert main(argv) == 0
    out = capsys.readouterr().out
    pdn = next(iter(read_games(out, "replayed")))
    assert [m.text for m in pdn.moves] == [t.replace(":", "x") for t in texts]  # PDN writes x
    assert all(m.clock is not None for m in pdn.moves)
    first = pdn.moves[0].clock
    assert first is not None and first.white is not None and first.white > 5400 - 60


def test_feed_lines_decode(tmp_path: Path, capsys: pytest.CaptureFixture[str], game) -> None:
    start, moves, texts = game
    log = write_log(tmp_path / "game.jsonl", start, moves, clocked=False, seed=4)
    assert main(["replay", "--rules", "russian", "--fen", start.fen(), "--format", "feed",
                 str(log)]) == 0  # fmt: skip
    lines = capsys.readouterr().out.splitlines()
    records = [decode_line(line) for line in lines]
    assert all(r is not None for r in records)
    assert [r["move"] for r in records if r and r["type"] == "move"] == texts
    assert [r["seq"] for r in records if r] == list(range(len(lines)))


def test_journal_with_torn_tail(tmp_path: Path, capsys: pytest.CaptureFixture[str], game) -> None:
    start, moves, texts = game
    header = GameHeader("g1", "russian", start.fen(), "5400+30", {"White": "Kurenkov"})
    events = handle_game(start, moves, seed=2, clocked=True, style=NOISY)
    lines = [dumps(header.record())]
    for i, e in enumerate(events):
        lines.append(dumps(e.record()))
        if i % 50 == 0:
            lines.append(dumps(decision_record({"type": "cleared"})))
    journal = tmp_path / "journal.jsonl"
    journal.write_text("".join(lines) + '{"type":"lift","t":99')
    assert main(["replay", str(journal)]) == 0  # rules and all from the game record
    captured = capsys.readouterr()
    pdn = next(iter(read_games(captured.out, "journal")))
    assert [m.text for m in pdn.moves] == [t.replace(":", "x") for t in texts]
    assert pdn.tags["White"] == "Kurenkov"
    assert "torn" in captured.err


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('{"type":"lift","t":1,"square":"a1"}\nnot json\n', "line 2"),
        ('{"type":"jump","t":1}\n', "unknown event type"),
        ('{"type":"lift","t":2,"square":"a1"}\n{"type":"lift","t":1,"square":"c3"}\n', "line 2"),
        ('{"type":"lift","square":"a1"}\n', "time"),
        ('{"type":"press","t":1,"side":"red"}\n', "side"),
        ('{"type":"lift","t":1,"square":"k11"}\n', "not on an 8x8 board"),
        ('{"type":"lift","t":1,"square":"a1"}\n{"type":"lif', "line 2"),
    ],
)
def test_unreadable_log_one_line_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str, message: str
) -> None:
    log = tmp_path / "bad.jsonl"
    log.write_text(content)
    assert main(["replay", "--rules", "russian", str(log)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("boardctl: error: ") and message in err and err.count("\n") == 1


def test_missing_file_and_unknown_rules(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", "--rules", "russian", str(tmp_path / "none.jsonl")]) == 2
    log = tmp_path / "empty.jsonl"
    log.write_text("")
    assert main(["replay", "--rules", "chess", str(log)]) == 2
    assert main(["replay", str(log)]) == 2
    err = capsys.readouterr().err
    assert err.count("boardctl: error:") == 3


def test_whatever_happened_on_the_board_exit_0(tmp_path: Path) -> None:
    """An illegal move, a press without a move: the log was read, exit 0, feed says so."""
    log = tmp_path / "irregular.jsonl"
    log.write_text(
        '{"type":"start","t":0}\n{"type":"press","t":1,"side":"white"}\n'
        '{"type":"lift","t":2,"square":"c3"}\n{"type":"place","t":2.5,"square":"e5"}\n'
        '{"type":"press","t":3,"side":"white"}\n'
    )
    proc = subprocess.run(
        [sys.executable, "-m", "boardctl", "replay", "--rules", "russian", "--time-control",
         "300", "--format", "feed", str(log)],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    kinds = [r["kind"] for r in map(decode_line, proc.stdout.splitlines())
             if r and r["type"] == "irregularity"]  # fmt: skip
    assert kinds == ["press-without-move", "illegal-move"]


def test_the_readmes_example_log_replays_to_the_real_game(capsys: pytest.CaptureFixture[str]
                                                          ) -> None:
    """README's "Trying the pieces": docs/examples/game.jsonl is the first 20 plies of the
    bundled WK 2003 game 1 as hands play them; replayed, it is that game, move for move."""
    root = Path(__file__).resolve().parents[2]
    example = root / "docs" / "examples" / "game.jsonl"
    assert str(example.relative_to(root)) in (root / "README.md").read_text()
    played = next(read_games((root / "boardctl" / "data" / "wk2003.pdn").read_text(), "wk"))
    want = [m.text for m in played.moves[:20]]
    assert main(["replay", "--rules", "international", "--time-control", "4800+60",
                 str(example)]) == 0
    (got,) = read_games(capsys.readouterr().out, "replay")
    assert [m.text for m in got.moves] == want
    assert all(m.clock is not None for m in got.moves)
