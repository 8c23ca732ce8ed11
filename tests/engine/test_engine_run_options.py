"""``boardctl run``'s engine options and the config file's ``[engine]`` section: read and
checked, a bad one a one-line error before anything starts."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from boardctl.service.control import ControlError, parse_request
from boardctl.settings import EngineSection, load_config
from firmware.errors import ConfigError


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "config.toml"
    path.write_text(text)
    return path


def test_the_engine_section_is_read(tmp_path: Path) -> None:
    config = load_config(write(tmp_path, '[engine]\nengine = "hub:dame hub"\nside = "white"\n'
                                         'level = 3\nmove_time = 0.5\n'))
    assert config.engine == EngineSection("hub:dame hub", "white", "3", 0.5)
    assert load_config(write(tmp_path, "")).engine == EngineSection()


def test_the_hub_commands_a_new_game_may_start(tmp_path: Path) -> None:
    config = load_config(write(tmp_path, '[engine]\nallowed = ["dame hub", "./x --y \'a b\'"]\n'))
    assert config.engine.allowed == ("dame hub", "./x --y 'a b'")


def test_new_takes_the_engine_keys() -> None:
    """``new``'s ``engine`` (null: none), ``engine_side``, ``engine_level`` (text or a
    number); a key left out is not in the request (the choice stays as it was)."""
    req = parse_request('{"cmd": "new", "engine": null, "engine_side": "white", '
                        '"engine_level": 3}')
    assert req.args == {"engine": None, "engine_side": "white", "engine_level": "3"}
    assert parse_request('{"cmd": "new", "fen": null}').args == {}  # null is left out
    for bad, words in [('"engine_side": "red"', "'engine_side' must be white or black"),
                       ('"engine": 5', "'engine' must be builtin, hub:COMMAND, or null"),
                       ('"engine_level": true', "'engine_level' must be a level")]:
        with pytest.raises(ControlError, match=words):
            parse_request(f'{{"cmd": "new", {bad}}}')


@pytest.mark.parametrize(("text", "words"), [
    ('engine = "stockfish"', "engine.engine"),
    ('engine = "hub:  "', "engine.engine"),
    ('side = "red"', "engine.side"),
    ("level = true", "engine.level"),
    ("move_time = -1", "engine.move_time"),
    ('engne = "builtin"', "engine"),
    ('allowed = "dame hub"', "engine.allowed: expected a list"),
    ('allowed = ["dame hub", 3]', "engine.allowed[1]: expected a command"),
    ('allowed = ["hub:dame hub"]', "engine.allowed[0]: 'hub:dame hub': give the Hub command"),
    ("allowed = ['a \"b']", "engine.allowed[0]"),
])
def test_a_bad_engine_key_is_named(tmp_path: Path, text: str, words: str) -> None:
    with pytest.raises(ConfigError) as err:
        load_config(write(tmp_path, f"[engine]\n{text}\n"))
    message = str(err.value)
    assert words in message and "\n" not in message


@pytest.mark.parametrize(("args", "words"), [
    (["--engine-side", "white"], "--engine-side needs --engine"),
    (["--engine", "chess"], "unknown engine 'chess'"),
    (["--engine", "builtin", "--engine-level", "11"], "unknown engine level '11'"),
    (["--engine", "builtin", "--engine-move-time", "0"], "--engine-move-time must be"),
])
def test_bad_engine_options_are_one_line_errors(tmp_path: Path, args: list[str],
                                                words: str) -> None:
    out = subprocess.run([sys.executable, "-m", "boardctl", "run", "--sim", "--state-dir",
                          str(tmp_path / "state"), *args],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode != 0
    assert words in out.stderr and len(out.stderr.strip().splitlines()) == 1, out.stderr
    assert not (tmp_path / "state").exists()  # nothing started
