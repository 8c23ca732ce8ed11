"""``boardctl demo``: a real game through the whole system, on simulated hardware.

The moves of a PDN game are turned into what human hands do to a sensor board
(``firmware.session.handling``: bounce, slides, landings touched or not, captured pieces taken off
in
any order, a clock press after each move); the simulated reed matrix acts them out and the
real service (scanner, debouncer, referee, clock, journal, LEDs, faces) plays the game on a
virtual clock, sending its feed over a pty as over a serial cable. The relay's state machine
reads the other end and builds the live PDN, which is printed at the end and checked against
the source game.
"""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import replace
from importlib import resources
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from firmware.errors import BoardError

if TYPE_CHECKING:
    from boardctl.service.service import Service
    from firmware.rules.sets import RuleSet

#: The bundled file and its default game: WK 2003, round 1, Weitsman - Tsjizjow, 0-1.
BUNDLED = "wk2003.pdn"
DEFAULT_GAME = 4
#: The demo scans at 100 Hz (issue 5: 100 Hz or more), the Pi's default ``scan_hz``.
SCAN_HZ = 100.0


class VirtualClock:
    """A monotonic clock the demo moves forward by hand."""

    def __init__(self, start: int = 10**12) -> None:
        self.now = start

    def __call__(self) -> int:
        return self.now


class Demo:
    def __init__(
        self,
        *,
        pdn: Path | None = None,
        game: int | None = None,
        speed: float = 0.0,
        time_control: str | None = "5400+30",
        seed: int = 1,
        plies: int | None = None,
        state_dir: Path | None = None,
        quiet: bool = False,
        out: IO[str] | None = None,
    ) -> None:
        if speed < 0:
            raise BoardError("--speed must be 0 (as fast as possible) or more")
        if plies is not None and plies < 1:
            raise BoardError("--moves must be at least 1")
        self.pdn = pdn
        self.game_number = game
        self.speed = speed
        self.time_control = time_control
        self.seed = seed
        self.plies = plies
        self.state_dir = state_dir
        self.quiet = quiet
        self.out = out or sys.stdout
        self.relay_pdn = ""
        self.lines: list[str] = []

    def say(self, text: str) -> None:
        print(text, file=self.out, flush=True)

    def _source(self) -> tuple[str, str]:
        if self.pdn is None:
            text = resources.files("boardctl").joinpath("data", BUNDLED).read_text("utf-8")
            return text, BUNDLED
        from firmware.limits import read_limited

        try:
            with open(self.pdn, "rb") as f:
                data = read_limited(f, str(self.pdn), error=BoardError)
            return data.decode("utf-8", "replace"), str(self.pdn)
        except FileNotFoundError:
            raise BoardError(f"{self.pdn}: no such PDN file") from None

    def run(self) -> int:
        from firmware.pdn import read_games
        from firmware.rules.game import Game
        from firmware.session.handling import NOISY, handle_game

        text, name = self._source()
        number = self.game_number or (DEFAULT_GAME if self.pdn is None else 1)
        pdn_game = None
        for g in read_games(text, name):
            if g.index == number:
                pdn_game = g
                break
        if pdn_game is None:
            raise BoardError(f"{name}: there is no game {number}")
        played: Game = pdn_game.replay()
        moves = list(played.moves)[: self.plies] if self.plies else list(played.moves)
        if not moves:
            raise BoardError(f"{name}: game {number} has no moves to play")
        rules = played.start.rules
        style = replace(NOISY, think_ns=(400_000_000, 2_500_000_000))
        events = handle_game(played.start, moves, seed=self.seed, clocked=bool(self.time_control),
                             style=style, t0=1_000_000_000)
        tags = {k: v for k, v in pdn_game.tags.items()
                if k in ("Event", "Site", "Date", "Round", "White", "Black")}
        self.say(f"demo: {name} game {number}: {tags.get('White', '?')} - "
                 f"{tags.get('Black', '?')}, {rules.name}, {len(moves)} plies, "
                 f"{len(events)} sensor and button events")
        with contextlib.ExitStack() as stack:
            state_dir = self.state_dir
            if state_dir is None:
                tmp = tempfile.TemporaryDirectory(prefix="boardctl-demo-")
                state_dir = Path(stack.enter_context(tmp))
            ok = self._play(rules.name, played.start.fen() if pdn_game.tags.get("FEN") else None,
                            tags, events, moves, pdn_game.result, state_dir)
        return 0 if ok else 1

    def _play(self, rules: str, fen: str | None, tags: dict[str, str], events: list[Any],
              moves: list[Any], result: str | None, state_dir: Path) -> bool:
        """The game through the simulated board to the feed on a pty and the relay; True
        when the relay's PDN holds the game's moves."""
        import pty
        import tty

        from boardctl.relay.state import RelayState

        clock = VirtualClock()
        master, slave = pty.openpty()
        tty.setraw(slave)
        os.set_blocking(master, False)
        relay = RelayState()
        pump = self._pump(master, relay)
        started = time.monotonic()
        try:
            played_ns = self._run(rules, fen, tags, events, result, state_dir, clock,
                                  os.ttyname(slave), pump)
        finally:
            os.close(slave)
            pump()
            os.close(master)
        self.relay_pdn = relay.pdn()
        self.say("")
        self.say("relay PDN:")
        self.say(self.relay_pdn.rstrip("\n"))
        self.say("")
        return self._check(moves, played_ns, time.monotonic() - started)

    def _pump(self, master: int, relay: Any) -> Callable[[], None]:
        """What reads the pty: feed lines to the relay (and the screen)."""
        from boardctl.relay.serial import LineSplitter

        splitter = LineSplitter()

        def pump() -> None:
            while True:
                try:
                    data = os.read(master, 65536)
                except (BlockingIOError, OSError):
                    return
                if not data:
                    return
                for line in splitter.feed(data):
                    self.lines.append(line.decode("ascii", "replace"))
                    relay.feed_line("demo", line)
                    if not self.quiet:
                        shown = line.decode("ascii", "replace").rstrip("\n")
                        self.say("feed: " + (shown if len(shown) <= 150 else shown[:147] + "..."))

        return pump

    def _run(self, rules: str, fen: str | None, tags: dict[str, str], events: list[Any],
             result: str | None, state_dir: Path, clock: VirtualClock, port: str,
             pump: Callable[[], None]) -> int:
        """The service on the simulated board and the virtual clock until the log is acted
        out and 3 s more; the game's result recorded by the arbiter. The game seconds played."""
        from boardctl.service.hardware import EventScript, sim_hardware
        from boardctl.service.service import GameSetup, Service
        from firmware.rules.sets import find_rules
        from hw.config import default_config

        rs = find_rules(rules)
        service: Service | None = None
        config = default_config(rs.size)
        config = replace(config, matrix=replace(config.matrix, scan_hz=SCAN_HZ))
        hardware = sim_hardware(rs.size, config, clock=clock, feed_url=port,
                                on_connect=lambda: service.port_connected() if service else None)
        script = EventScript(events)
        setup = GameSetup(rules, self.time_control, fen, {**tags, "Round": tags.get("Round", "1")},
                          started=not script.has_start)
        service = Service(state_dir, setup, hardware, board="1", clock=clock, script=script,
                          snapshot_every=60.0)
        started = time.monotonic()
        t0 = clock.now
        try:
            service.boot()
            assert hardware.feed is not None  # the pty
            hardware.feed.wait_connected(1, 5.0)
            end_at: int | None = None
            while end_at is None or clock.now < end_at:
                clock.now += hardware.scanner.period_ns
                service.step(clock.now)
                if service.steps % 10 == 0:
                    pump()
                if self.speed > 0:
                    ahead = (clock.now - t0) / 1e9 / self.speed - (time.monotonic() - started)
                    if ahead > 0.005:
                        time.sleep(ahead)
                if script.done and end_at is None:
                    end_at = clock.now + 3_000_000_000
            self._record_result(service, rs, result)
        finally:
            service.close()
        return clock.now - t0

    def _record_result(self, service: Service, rules: RuleSet, result: str | None) -> None:
        """The PDN's result, recorded by the arbiter when the board did not end the game."""
        from firmware.rules.game import parse_result, result_text

        session = service.session
        assert session is not None
        if session.result is None and result and result != "*":
            winner, decided = parse_result(result)
            text = result_text(rules, winner) if decided else "0-0"  # both lose: not a draw
            reason = "arbiter" if not decided else "agreement" if winner is None else "resignation"
            answer = service.command({"cmd": "result", "result": text, "reason": reason})
            self.say(f"demo: arbiter records the result {text} ({reason}): "
                     f"{'ok' if answer.get('ok') else answer.get('error')}")

    def _check(self, moves: list[Any], played_ns: int, elapsed: float) -> bool:
        """Does the relay's PDN hold the game's moves?"""
        from firmware.pdn import read_games

        games = list(read_games(self.relay_pdn, "relay"))
        if len(games) != 1:
            self.say(f"demo: FAILED: the relay holds {len(games)} games")
            return False
        got = [m.key for m in games[0].replay().moves]
        want = [m.key for m in moves]
        if got != want:
            first = next((i for i, (a, b) in enumerate(zip(got, want, strict=False)) if a != b),
                         min(len(got), len(want)))
            self.say(f"demo: FAILED: the relay has {len(got)} plies, the game {len(want)}; "
                     f"they differ from ply {first + 1}")
            return False
        self.say(f"demo: ok: all {len(want)} plies came through the sensors, the referee, the "
                 f"clock, the journal, the feed and the relay ({len(self.lines)} feed lines, "
                 f"{played_ns / 1e9:.0f} s of play in {elapsed:.1f} s)")
        return True
