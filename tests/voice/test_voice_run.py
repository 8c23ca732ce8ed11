"""The spoken game in ``boardctl run`` (issue 40 item 3): a real ``boardctl run --sim``
process with ``--voice --voice-out DIR`` and the built-in engine, a short game played by the
simulated hand against it; each utterance a WAV file, in the order of the moves, none silent
(sox); ``status`` shows the voice. And a board whose espeak-ng is missing names it once on
stderr and plays on."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from support.hand_helpers import engines_move, persons_move, until
from support.processes import stop_by_pid
from voice_games import need, rms

from boardctl.service.control import request


def start(state: Path, *extra: str, config: Path | None = None) -> subprocess.Popen[str]:
    cmd = [sys.executable, "-m", "boardctl", "run", "--sim", "--rules", "international",
           "--time-control", "600+5", "--state-dir", str(state), "--engine", "builtin",
           "--engine-side", "black", "--engine-level", "1", "--engine-move-time", "0.05",
           *extra]
    if config is not None:
        cmd += ["--config", str(config)]
    return subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)


def play(sock: Path, rounds: int) -> list[str]:
    """``rounds`` of the person's move (White) and the engine's reply carried out."""
    said = []
    for _ in range(rounds):
        persons_move(sock)
        said.append(engines_move(sock))
    return said


def test_a_short_game_against_the_engine_is_spoken_in_order(tmp_path: Path) -> None:
    need("espeak-ng", "sox")
    state, out = tmp_path / "state", tmp_path / "wav"
    sock = state / "control.sock"
    proc = start(state, "--voice-lang", "en", "--voice-out", str(out))
    try:
        until(lambda: request(sock, "status"))
        play(sock, 2)
        moves = request(sock, "status")["moves"]
        until(lambda: request(sock, "status")["voice"]["said"] >= 5)
        voice = request(sock, "status")["voice"]
        assert (voice["lang"], voice["out_dir"], voice["quiet"]) == ("en", str(out), None)
    finally:
        assert stop_by_pid(proc) == 0
    names = sorted(p.name for p in out.iterdir())
    # the new game; each person's move; each engine's move to carry out (its move record,
    # once carried out, is not said again)
    kinds = [name[5:-4] for name in names]
    assert kinds == ["game", "move", "engine-move", "move", "engine-move"], names
    assert len(moves) == 4
    assert min(rms(out / name) for name in names) > 0.01
    numbers = [int(name[:4]) for name in names]
    assert numbers == list(range(1, len(names) + 1))


def test_a_missing_espeak_ng_is_named_once_and_the_game_goes_on(tmp_path: Path) -> None:
    state = tmp_path / "state"
    sock = state / "control.sock"
    config = tmp_path / "config.toml"
    config.write_text('[voice]\nenabled = true\ncommand = "no-such-espeak-ng"\n')
    proc = start(state, config=config)
    try:
        until(lambda: request(sock, "status"))
        play(sock, 2)
        status = request(sock, "status")
        assert len(status["moves"]) == 4
        assert "no-such-espeak-ng" in status["voice"]["quiet"]
    finally:
        assert stop_by_pid(proc) == 0
        stderr = proc.stderr.read() if proc.stderr is not None else ""
    named = [line for line in stderr.splitlines() if "no-such-espeak-ng" in line]
    assert len(named) == 1, stderr
    assert "Traceback" not in stderr
