"""Issue 10 item 3: a journal that proves itself. Sealed records (number + chained CRC-32):
every semantic edit that keeps the lines valid JSON is named with file and line, never a
different game; a torn last record is recovered silently; ``export --salvage`` keeps what
is intact and says what was lost; a version-1 journal is still read."""

from __future__ import annotations

import json
import random
import re
import subprocess
import sys
from pathlib import Path

import pytest
from support.service_helpers import S, game_log, moves_of, run_until, sim_service

from boardctl.service.journal_file import current_path, load_journal
from boardctl.service.service import rebuild
from firmware.errors import EventLogError
from firmware.formats.journal import read_journal

BOARDCTL = [sys.executable, "-m", "boardctl"]


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> tuple[bytes, list[str]]:
    state = tmp_path_factory.mktemp("journal")
    events = game_log(8, seed=9)
    service, clock = sim_service(state, events)
    service.boot()
    run_until(service, clock, events[-1].at / S + 2)
    service.close()
    path = current_path(state)
    assert path is not None
    return path.read_bytes(), moves_of(service.session)


def game_of(data: bytes, name: str = "j.jsonl") -> list[str]:
    journal = read_journal(data.splitlines(keepends=True), name)
    return moves_of(rebuild(journal, name).session)


def edits(lines: list[bytes], rng: random.Random) -> list[tuple[str, list[bytes]]]:
    """Random single edits that keep every line valid JSON (but the last, kept whole)."""
    out: list[tuple[str, list[bytes]]] = []
    n = len(lines)
    for _ in range(40):
        i = rng.randrange(n)
        digits = [m.start() for m in re.finditer(rb"\d", lines[i])]
        if digits:
            k = rng.choice(digits)
            new = bytes([48 + (lines[i][k] - 48 + rng.randrange(1, 10)) % 10])
            line = lines[i][:k] + new + lines[i][k + 1:]
            try:
                json.loads(line)
            except ValueError:
                continue
            out.append((f"digit of line {i + 1}", lines[:i] + [line] + lines[i + 1:]))
    for _ in range(25):
        i = rng.randrange(1, n)
        rec = json.loads(lines[i])
        if "t" in rec:
            rec["t"] = round(rec["t"] + rng.choice([-0.5, 0.25, 1.0]), 3)
            text = json.dumps(rec, separators=(",", ":")).encode() + b"\n"
            out.append((f"time of line {i + 1}", lines[:i] + [text] + lines[i + 1:]))
    for _ in range(25):
        i = rng.randrange(n - 1)  # deleting the LAST line is a power cut's truncation: below
        out.append((f"deleted line {i + 1}", lines[:i] + lines[i + 1:]))
    for _ in range(25):
        i, j = sorted(rng.sample(range(n), 2))
        swapped = list(lines)
        swapped[i], swapped[j] = swapped[j], swapped[i]
        if swapped != lines:
            out.append((f"swapped lines {i + 1} and {j + 1}", swapped))
    for _ in range(10):
        i = rng.randrange(n)
        out.append((f"repeated line {i + 1}", lines[:i + 1] + [lines[i]] + lines[i + 1:]))
    return out


def test_no_semantic_edit_goes_unnoticed(played: tuple[bytes, list[str]]) -> None:
    data, moves = played
    lines = data.splitlines(keepends=True)
    assert game_of(data) == moves  # no false alarm on the real thing
    tried = silent = 0
    for what, edited in edits(lines, random.Random(10)):
        tried += 1
        try:
            got = game_of(b"".join(edited))
        except EventLogError as exc:
            assert re.search(r"j\.jsonl: line \d+", str(exc)), (what, str(exc))
            continue
        silent += got != moves
        assert got == moves, f"{what}: silently a different game"
    assert tried >= 100 and silent == 0


@pytest.mark.parametrize("cut", [1, 7, 30, -2])
def test_a_torn_last_record_is_recovered_silently(played: tuple[bytes, list[str]],
                                                  cut: int) -> None:
    data, _ = played
    lines = data.splitlines(keepends=True)
    torn = b"".join(lines[:-1]) + lines[-1][:cut]
    journal = read_journal(torn.splitlines(keepends=True), "j.jsonl")
    assert journal.torn and journal.verified
    assert game_of(b"".join(lines[:-1])) == moves_of(rebuild(journal).session)


def test_export_names_the_damage_and_salvage_keeps_the_rest(tmp_path: Path,
                                                            played: tuple[bytes, list[str]],
                                                            ) -> None:
    data, moves = played
    lines = data.splitlines(keepends=True)
    cut = next(i for i, line in enumerate(lines) if b'"move"' in line and i > len(lines) // 2)
    bad = lines[cut].replace(b'"ply":', b'"ply": ', 1)
    path = tmp_path / "damaged.jsonl"
    path.write_bytes(b"".join(lines[:cut] + [bad] + lines[cut + 1:]))
    plain = subprocess.run([*BOARDCTL, "export", "--state-dir", str(tmp_path), "--journal",
                            str(path)], capture_output=True, text=True, timeout=60)
    assert plain.returncode != 0 and plain.stdout == ""
    assert f"{path}: line {cut + 1}: checksum does not match" in plain.stderr
    assert plain.stderr.count("\n") == 1 and "Traceback" not in plain.stderr
    salvaged = subprocess.run([*BOARDCTL, "export", "--state-dir", str(tmp_path), "--journal",
                               str(path), "--salvage"], capture_output=True, text=True,
                              timeout=60)
    assert salvaged.returncode == 3
    assert f"line {cut + 1}" in salvaged.stderr and "later lines not read" in salvaged.stderr
    kept = re.findall(r"\d+[-x]\d+", salvaged.stdout.split("\n\n", 1)[1])
    assert 0 < len(kept) < len(moves) and kept == moves[:len(kept)]


def test_salvage_counts_one_event_in_the_singular(tmp_path: Path,
                                                  played: tuple[bytes, list[str]]) -> None:
    """Issue 36: "salvaged 1 events"."""
    data, _ = played
    lines = data.splitlines(keepends=True)
    path = tmp_path / "damaged.jsonl"  # the header, one event, then a damaged record
    path.write_bytes(b"".join(lines[:2] + [lines[2].replace(b'"t":', b'"t": ', 1)]))
    salvaged = subprocess.run([*BOARDCTL, "export", "--state-dir", str(tmp_path), "--journal",
                               str(path), "--salvage"], capture_output=True, text=True,
                              timeout=60)
    assert salvaged.returncode == 3 and "salvaged 1 event (ply 0)" in salvaged.stderr


def test_version_1_journals_are_still_read(played: tuple[bytes, list[str]]) -> None:
    data, moves = played
    plain = []
    for line in data.splitlines(keepends=True):
        rec = json.loads(line)
        rec.pop("n"), rec.pop("c")
        if rec["type"] == "game":
            rec["journal"] = 1
        plain.append(json.dumps(rec, separators=(",", ":")).encode() + b"\n")
    journal = read_journal(plain, "old.jsonl")
    assert not journal.verified
    assert moves_of(rebuild(journal).session) == moves


def test_a_deep_or_endless_journal_is_a_one_line_error(tmp_path: Path) -> None:
    path = tmp_path / "deep.jsonl"
    path.write_bytes(b"[" * 100_000 + b"\n")
    with pytest.raises(EventLogError, match="line 1: longer than"):
        load_journal(path)
    path.write_bytes(b"[" * 1000 + b"\n" + b"{}\n")
    with pytest.raises(EventLogError, match="line 1: damaged record .*nested deeper"):
        load_journal(path)
