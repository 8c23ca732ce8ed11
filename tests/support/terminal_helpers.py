"""Shared by tests/terminal: real feed lines (``boardctl replay --format feed`` of real games
and of a log with an irregularity), an injected clock, and the text a Textual app has on its
screen."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

from firmware.formats.reader import FeedLine, read_line

ROOT = Path(__file__).resolve().parents[2]
#: The first 20 plies of WK 2003 round 1 as human hands made them (docs/examples).
GAME = ROOT / "docs" / "examples" / "game.jsonl"
#: White's first try is illegal (d4 to d6: two rows), put back, then 32-28 made.
IRREGULAR = """{"type":"start","t":0.5}
{"type":"lift","t":1.0,"square":"d4"}
{"type":"place","t":1.5,"square":"d6"}
{"type":"press","t":2.0,"side":"white"}
"""
IRREGULAR_END = """{"type":"lift","t":3.0,"square":"d6"}
{"type":"place","t":3.5,"square":"d4"}
{"type":"lift","t":4.0,"square":"d4"}
{"type":"place","t":4.5,"square":"e5"}
{"type":"press","t":5.0,"side":"white"}
"""


def replay_feed(log: Path, rules: str = "international", tc: str | None = "300+5",
                ) -> list[str]:
    """``boardctl replay --format feed`` of ``log``: the feed lines, as a real process prints
    them."""
    args = [sys.executable, "-m", "boardctl", "replay", "--rules", rules, "--format", "feed"]
    if tc:
        args += ["--time-control", tc]
    out = subprocess.run([*args, str(log)], capture_output=True, text=True, timeout=60,
                         check=True).stdout
    return out.splitlines()


def records(lines: list[str]) -> list[Any]:
    """Feed lines read as a watcher reads them: their typed records."""
    out = [read_line(line) for line in lines]
    assert all(isinstance(r, FeedLine) for r in out), "a replayed line did not check"
    return [r.record for r in out if isinstance(r, FeedLine)]


class FakeClock:
    """Monotonic seconds moved by hand."""

    def __init__(self, now: float = 1000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def screen_lines(app: Any) -> list[str]:
    """What the app's screen shows now, line by line (the compositor's own strips)."""
    return [strip.text for strip in app.screen._compositor.render_strips()]


WK2003 = ROOT / "boardctl" / "data" / "wk2003.pdn"
USSR1947 = ROOT / "tests" / "data" / "pdn" / "russian-ussr-championship-1947.pdn"


def demo_feed(state: Path, pdn: Path, game: int, plies: int) -> list[str]:
    """A real game's first ``plies`` played by ``boardctl demo`` (human hands on the simulated
    board, the real service), then its feed as ``boardctl export --format feed`` prints it."""
    boardctl = [sys.executable, "-m", "boardctl"]
    subprocess.run([*boardctl, "demo", "--pdn", str(pdn), "--game", str(game), "--speed", "0",
                    "--moves", str(plies), "--state-dir", str(state), "--quiet"],
                   capture_output=True, text=True, timeout=120, check=True)
    out = subprocess.run([*boardctl, "export", "--state-dir", str(state), "--format", "feed"],
                         capture_output=True, text=True, timeout=60, check=True).stdout
    return out.splitlines()


def pdn_moves(pdn: Path, game: int, plies: int) -> list[str]:
    """The game's first ``plies`` moves as its PDN file writes them."""
    from firmware.pdn import read_games

    games = list(read_games(pdn.read_text(encoding="utf-8")))
    return [m.text for m in games[game - 1].moves[:plies]]


def sim_service_process(state: Path, rules: str = "international", *extra: str,
                        ) -> subprocess.Popen[str]:
    """A real ``boardctl run --sim`` on ``state``, returned once its control socket answers
    (stop it with :func:`stop_process`)."""
    import time

    from boardctl.service.control import ControlError, request

    proc = subprocess.Popen([sys.executable, "-m", "boardctl", "run", "--sim", "--rules",
                             rules, "--state-dir", str(state), *extra],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, text=True)
    deadline = time.monotonic() + 20
    while True:
        try:
            request(state / "control.sock", "status", timeout=2.0)
            return proc
        except ControlError:
            if time.monotonic() > deadline or proc.poll() is not None:
                stop_process(proc)
                raise AssertionError("the service did not start") from None
            time.sleep(0.05)


def stop_process(proc: subprocess.Popen[str] | None, sig: int | None = None) -> str:
    """Stop ``proc`` by its pid (SIGTERM unless ``sig``); its stderr, if it was piped."""
    import os
    import signal

    if proc is None or proc.poll() is not None:
        return ""
    os.kill(proc.pid, signal.SIGTERM if sig is None else sig)
    _, err = proc.communicate(timeout=20)
    return err or ""
