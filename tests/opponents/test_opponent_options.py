"""The opponent's options (``--opponent``, ``--online-*``, config ``[online]``): each wrong use
refused in one line before anything starts, the config section read and checked."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from boardctl.settings import parse_settings
from hw.configreader import ConfigError


def run(tmp: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "boardctl", "run", "--sim", "--state-dir",
                           str(tmp / "state"), *args], capture_output=True, text=True,
                          timeout=60)


@pytest.mark.parametrize(("args", "said"), [
    (("--online-token-file", "t"), "--online-token-file needs --opponent"),
    (("--opponent-side", "white"), "--opponent-side needs --opponent"),
    (("--opponent", "lidraughts"), "needs --online-token-file"),
    (("--opponent", "lidraughts", "--online-token-file", "/nonexistent/token"),
     "cannot read the token file /nonexistent/token"),
    (("--opponent", "lidraughts", "--online-token-file", "/dev/null", "--online-numbering",
      "h8"), "numbering"),
    (("--opponent", "board:b2"), "needs the hall's broker"),
    (("--opponent", "chess.com"), "not lidraughts or board:NAME"),
    (("--opponent", "board:b2", "--engine", "builtin"), "give one"),
])
def test_a_wrong_use_is_one_line(tmp_path: Path, args: tuple[str, ...], said: str) -> None:
    out = run(tmp_path, *args)
    assert out.returncode != 0 and said in out.stderr, out.stderr
    assert out.stderr.count("\n") == 1 and "Traceback" not in out.stderr
    assert not (tmp_path / "state").exists()  # nothing started


def test_the_config_section() -> None:
    settings = parse_settings({"online": {"opponent": "lidraughts", "token_file": "/t",
                                          "accept": "alice,bob", "numbering": "a1"}})
    assert (settings.online.opponent, settings.online.accept, settings.online.numbering) == (
        "lidraughts", "alice,bob", "a1")
    assert parse_settings({"online": {"opponent": "board:tartu", "side": "white"}}
                          ).online.side == "white"
    for wrong, key in (({"opponent": "lidraughts"}, "online.token_file"),
                       ({"opponent": "board:a/b"}, "online.opponent"),
                       ({"side": "red"}, "online.side"),
                       ({"tokenfile": "/t"}, "online")):
        with pytest.raises(ConfigError, match=key.replace(".", r"\.")):
            parse_settings({"online": wrong})
