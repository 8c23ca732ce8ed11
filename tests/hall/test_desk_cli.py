"""The desk's options refused in one line, before anything starts: ``--hall-key`` without what
it needs, a key file that cannot be read or is too short, half a TLS pair."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from support.hall_helpers import BOARDCTL


def refused(*argv: str) -> str:
    done = subprocess.run([*BOARDCTL, *argv], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("boardctl: error: "), done.stderr
    return lines[0]


@pytest.mark.parametrize(("extra", "said"), [
    ((), "--hall-key needs --broker and --hall (the boards) and --arbiter-token"),
    (("--arbiter-token", "desk-token-1", "--hall", "H2"),  # it acted on the first hall only
     "--hall-key acts on one hall's boards"),
    (("--arbiter-token", "desk-token-1", "--tls-cert", "c.pem"),
     "--tls-cert and --tls-key go together"),
    (("--arbiter-token", "desk-token-1", "--http", "127.0.0.1:0", "--hall-key", "missing.key"),
     "--hall-key missing.key: cannot read it"),
    (("--arbiter-token", "desk-token-1", "--http", "127.0.0.1:0", "--hall-key", "short.key"),
     "--hall-key short.key: the key must be a line of at least 16 characters"),
    (("--arbiter-token", "desk-token-1", "--desk-timeout", "0.1"),
     "--desk-timeout must be 0.5 to 120 seconds, not 0.1"),
    (("--arbiter-token", "desk-token-1", "--desk-timeout", "nan"),
     "--desk-timeout must be 0.5 to 120 seconds, not nan"),
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


def test_the_config_file_names_the_hall_key(tmp_path: Path) -> None:
    """``[broker] hall_key_file`` gives the board the hall's key; ``--hall-key`` wins."""
    import argparse

    from boardctl.hall.board import broker_settings
    from boardctl.settings import load_config

    (tmp_path / "a.key").write_text("a" * 32 + "\n")
    (tmp_path / "b.key").write_text("b" * 32 + "\n")
    path = tmp_path / "c.toml"
    path.write_text(f'[broker]\nurl = "mqtt://relay.local"\nhall = "open26"\nboard = "b12"\n'
                    f'hall_key_file = "{tmp_path / "a.key"}"\n')
    config = load_config(path)
    base = {"broker": None, "hall": None, "board": None, "broker_user": None,
            "broker_password_file": None, "broker_ca": None, "hall_key": None}
    settings = broker_settings(argparse.Namespace(**base), config.broker, str(path))
    assert settings is not None and settings.hall_key == b"a" * 32
    over = broker_settings(argparse.Namespace(**{**base, "hall_key": str(tmp_path / "b.key")}),
                           config.broker, str(path))
    assert over is not None and over.hall_key == b"b" * 32
    plain = tmp_path / "d.toml"
    plain.write_text('[broker]\nurl = "mqtt://relay.local"\nhall = "open26"\nboard = "b12"\n')
    none = broker_settings(argparse.Namespace(**base), load_config(plain).broker, str(plain))
    assert none is not None and none.hall_key is None  # no key: no control messages
