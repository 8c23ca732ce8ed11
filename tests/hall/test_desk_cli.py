"""The desk's options refused in one line, before anything starts: ``--hall-key`` without what
it needs, a key file that cannot be read or is too short, half a TLS pair."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from hall_helpers import BOARDCTL


def refused(*argv: str) -> str:
    done = subprocess.run([*BOARDCTL, *argv], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("boardctl: error: "), done.stderr
    return lines[0]


@pytest.mark.parametrize(("extra", "said"), [
    ((), "--hall-key needs --broker and --hall (the boards) and --arbiter-token"),
    (("--arbiter-token", "desk-token-1", "--tls-cert", "c.pem"),
     "--tls-cert and --tls-key go together"),
    (("--arbiter-token", "desk-token-1", "--http", "127.0.0.1:0", "--hall-key", "missing.key"),
     "--hall-key missing.key: cannot read it"),
    (("--arbiter-token", "desk-token-1", "--http", "127.0.0.1:0", "--hall-key", "short.key"),
     "--hall-key short.key: the key must be a line of at least 16 characters"),
])
def test_relay_desk_options(tmp_path: Path, extra: tuple[str, ...], said: str) -> None:
    (tmp_path / "short.key").write_text("abc\n")
    key = () if "--hall-key" in extra else ("--hall-key", "short.key")
    argv = ["relay", "--broker", "mqtt://127.0.0.1:1", "--hall", "H", *key, *extra]
    done = subprocess.run([*BOARDCTL, *argv], capture_output=True, text=True, timeout=60,
                          cwd=tmp_path)
    assert done.returncode == 2 and said in done.stderr, done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def test_run_desk_options(tmp_path: Path) -> None:
    (tmp_path / "short.key").write_text("abc\n")
    state = str(tmp_path / "s")
    assert "--hall-key needs --broker" in refused("run", "--sim", "--state-dir", state,
                                                  "--hall-key", str(tmp_path / "short.key"))
    said = refused("run", "--sim", "--state-dir", state, "--broker", "mqtt://127.0.0.1:1",
                   "--hall", "H", "--board", "b1", "--hall-key", str(tmp_path / "short.key"))
    assert "at least 16 characters" in said
