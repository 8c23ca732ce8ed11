"""``boardctl clock``: the game clock alone, for an arbiter without a board.

Modes:

- ``--script FILE`` (non-interactive, for tests and for checking a timeline by hand): a file
  of timed actions, one a line (``SECONDS ACTION [ARGS]``, listed in :data:`SCRIPT_FORMAT`,
  which ``--help`` shows), or a JSON Lines event log; prints the timeline with both times
  after each action and every flag at the exact time it fell.
- interactive, in the terminal (default): keys press the buttons; see ``KEYS``. The status line
  fits the terminal's width and is redrawn on a resize; ``--plain`` writes one line per event
  instead (screen readers); ``boardctl.commands.clock_term``.
- ``--sim``: the same keys drive gpiozero mock pins under the real button code, and the real
  HT16K33 driver writes to simulated faces, whose contents are shown.
- ``--hw``: the real faces and buttons from the board's config file.
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Callable, Iterable
from typing import IO, TYPE_CHECKING, Any

from boardctl.commands.clock_term import KEYS
from firmware.errors import BoardError
from firmware.limits import ascii_digits, clip

if TYPE_CHECKING:
    from firmware.clock.gameclock import GameClock
    from firmware.rules.sets import Side

NS = 1_000_000_000

#: ``--script``'s line format, for ``boardctl clock --help`` (the module docstring's list).
SCRIPT_FORMAT = """\
--script FILE: one timed action a line, SECONDS ACTION [ARGS] (# starts a comment):
  0       start                 White's clock runs (start black: Black's)
  12.5    press white           White ends his move
  40      pause                 the arbiter stops the clocks
  50      resume
  60      set white 1:30:00     arbiter: White's face (H:MM:SS, M:SS or seconds)
  70      moves black 40        arbiter: Black's move count
  80      adjourn [4:00:00]     sealed move; with a session time (004 par. 34)
  90      resume-adjourned      the sealed move is played, the opponent's clock starts
  95      show                  print the times
A JSON Lines event log is read as well (start, press, pause, resume, clock-set, moves-set,
adjourn, resume-adjourned; a board's other events are skipped).
"""


class ScriptError(BoardError, ValueError):
    """A clock script line that cannot be read; the message names the line."""


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Add ``clock``."""
    parser = sub.add_parser(
        "clock",
        help="run the game clock alone (terminal, simulated or real faces and buttons)",
        description="The game clock alone, for an arbiter without a board. Time controls: "
        "300 (sudden death), 4800+60 (Fischer), B300+5 / D300+5 (Bronstein / simple delay), "
        "50/7200:25/3600 (moves per period, the last repeats), 40/5400+30:1800+30 (stages), "
        "*180 (hourglass), - (count up), or a preset name (--list-presets).",
        epilog=KEYS + "\n" + SCRIPT_FORMAT,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--time-control", "-t", metavar="TC", default="fmjd-classical",
                        help="time control or preset name (default: fmjd-classical, "
                        "4800+60@start)")
    parser.add_argument("--list-presets", action="store_true",
                        help="list the preset time controls and exit")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--script", metavar="FILE",
                      help="run a file of timed actions (or a JSONL event log) and print the "
                      "timeline; '-' reads standard input")
    mode.add_argument("--sim", action="store_true",
                      help="simulated faces and buttons driven by the keyboard")
    mode.add_argument("--hw", action="store_true",
                      help="the real faces and buttons (pins and addresses from --config)")
    parser.add_argument("--config", metavar="PATH",
                        help="board config file for --hw (default /etc/boardctl/config.toml)")
    parser.add_argument("--plain", action="store_true",
                        help="interactive: one plain line per event and on the t key, no "
                        "redrawing (for screen readers and logs)")
    parser.add_argument("--until", metavar="SECONDS", type=_seconds_arg,
                        help="with --script: also show the times at this moment")
    parser.set_defaults(func=run_clock)


def _seconds_arg(text: str) -> float:
    try:
        return parse_duration(text) / NS
    except ScriptError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def parse_duration(text: str) -> int:
    """``1:30:00``, ``5:00``, ``90`` or ``2.5`` (seconds) -> ns; :class:`ScriptError` if bad."""
    parts = text.strip().split(":")
    try:
        if len(parts) > 3 or not all(parts) or any("_" in p or not p.isascii() for p in parts):
            raise ValueError  # float() also takes '1_0' (10) and '١' (1): not times
        values = [float(part) for part in parts]
        if not all(math.isfinite(v) for v in values):  # 'nan', 'inf': numbers, not times
            raise ValueError
    except ValueError:
        raise ScriptError(f"bad time {clip(text, 60)!r}: write H:MM:SS, M:SS or seconds") from None
    if any(v < 0 for v in values):
        raise ScriptError(f"bad time {clip(text, 60)!r}: must be 0 or more")
    if any(v >= 60 for v in values[1:]):  # 5:99 is not 6:39
        raise ScriptError(f"bad time {clip(text, 60)!r}: minutes and seconds after a ':' run 0-59")
    seconds = 0.0
    for value in values:
        seconds = seconds * 60 + value
    if seconds > 1000 * 3600:
        raise ScriptError(f"bad time {clip(text, 60)!r}: over 1000 hours")
    return round(seconds * NS)


def run_clock(args: argparse.Namespace) -> int:
    from firmware.clock.timecontrol import PRESETS, TimeControl
    from firmware.limits import bounded_lines

    if args.list_presets:
        from firmware.clock.timecontrol import SOURCES

        for name, control in PRESETS.items():
            print(f"{name:26} {str(control):22} {control.describe()}")
            print(f"{'':26} source: {SOURCES.get(name, 'none given')}")
        return 0
    control = TimeControl.parse(args.time_control)
    if args.script:
        try:
            if args.script == "-":
                raw = list(bounded_lines(sys.stdin.buffer, "<stdin>", error=ScriptError))
            else:
                with open(args.script, "rb") as handle:
                    raw = list(bounded_lines(handle, args.script, error=ScriptError))
            lines = [line.decode("utf-8").rstrip("\r\n") for line in raw]
        except UnicodeDecodeError as exc:
            raise ScriptError(f"{args.script}: not UTF-8 text (byte {exc.start + 1} of a "
                              "line)") from None
        until = None if args.until is None else round(args.until * NS)
        run_script(lines, str(control), sys.stdout, until=until, source=args.script)
        return 0
    from boardctl.commands.clock_term import interactive

    return interactive(args, control)


# -- script mode ---------------------------------------------------------------------------


def run_script(
    lines: Iterable[str],
    control: str,
    out: IO[str],
    until: int | None = None,
    source: str = "script",
) -> None:
    """Play ``lines`` on a clock with ``control`` and write the timeline to ``out``."""
    from firmware.clock.face import terminal_line
    from firmware.clock.gameclock import GameClock
    from firmware.clock.timecontrol import TimeControl

    tc = TimeControl.parse(control)
    clock = GameClock(tc)
    out.write(f"time control {tc} ({tc.describe()})\n")
    reported: set[Any] = set()
    last = 0
    for lineno, raw in enumerate(lines, start=1):
        action = _script_action(raw, lineno, source)
        if action is None:
            continue
        at, verb, words = action
        where = f"{source} line {lineno}"
        if at < last:
            raise ScriptError(f"{where}: time {at / NS:g} s is before the previous line's")
        _report_flags(clock, at, out, reported)
        try:
            note = _apply(clock, at, verb, words, where)
        except BoardError as exc:
            if str(exc).startswith(where):
                raise
            raise ScriptError(f"{where}: {exc}") from None
        last = at
        out.write(f"{at / NS:10.3f}  {note:<34} {terminal_line(clock, at)}\n")
    if until is not None and until >= last:
        _report_flags(clock, until, out, reported)
        out.write(f"{until / NS:10.3f}  {'(until)':<34} {terminal_line(clock, until)}\n")


def _script_action(raw: str, lineno: int, source: str) -> tuple[int, str, list[str]] | None:
    where = f"{source} line {lineno}"
    text = raw.split("#", 1)[0].strip() if not raw.lstrip().startswith("{") else raw.strip()
    if not text:
        return None
    if text.startswith("{"):
        from firmware.formats.events import parse_event_line

        event = parse_event_line(text, lineno, source)
        fields = event.fields()
        verb = event.type
        words: list[str] = []
        if verb == "press":
            words = [str(fields["side"])]
        elif verb == "clock-set":
            verb, words = "set", [str(fields["side"]), str(fields["seconds"])]
        elif verb == "moves-set":
            verb, words = "moves", [str(fields["side"]), str(fields["moves"])]
        elif verb not in ("start", "pause", "resume", "adjourn", "resume-adjourned"):
            return None
        return event.at, verb, words
    parts = text.split()
    if len(parts) < 2:
        raise ScriptError(f"{where}: expected 'SECONDS ACTION', got {clip(text, 60)!r}")
    try:
        at = parse_duration(parts[0])
    except ScriptError as exc:
        raise ScriptError(f"{where}: {exc}") from None
    return at, parts[1].lower(), parts[2:]


def _side(word: str, where: str) -> Side:
    from firmware.rules.sets import Side

    names = {"white": Side.WHITE, "w": Side.WHITE, "black": Side.BLACK, "b": Side.BLACK}
    side = names.get(word.lower())
    if side is None:
        raise ScriptError(f"{where}: side must be white or black, not {clip(word, 60)!r}")
    return side


def _apply(clock: GameClock, at: int, verb: str, words: list[str], where: str) -> str:
    """One script action on the clock; what happened, in words."""
    action = _ACTIONS.get(verb)
    if action is None:
        raise ScriptError(
            f"{where}: unknown action {clip(verb, 60)!r} (start, press, pause, resume, set, "
            "moves, adjourn, resume-adjourned, show)"
        )
    return action(clock, at, words, where)


def _need(words: list[str], count: int, usage: str, where: str) -> None:
    if len(words) != count:
        raise ScriptError(f"{where}: usage: SECONDS {usage}")


def _start(clock: GameClock, at: int, words: list[str], where: str) -> str:
    from firmware.rules.sets import Side

    if len(words) > 1:
        raise ScriptError(f"{where}: usage: SECONDS start [white|black]")
    side = _side(words[0], where) if words else Side.WHITE
    clock.start(at, side)
    return f"start, {side.value} to move"


def _press(clock: GameClock, at: int, words: list[str], where: str) -> str:
    _need(words, 1, "press white|black", where)
    press = clock.press(_side(words[0], where), at)
    if not press.accepted:
        return f"press {press.side.value}: ignored ({press.reason})"
    note = f"press {press.side.value} #{press.moves} ({press.used_ns / NS:g} s"
    if press.credited_ns:
        note += f", +{press.credited_ns / NS:g}"
    note += ")"
    if press.control:
        note += " control"
    if press.overstep:
        note += " OVERSTEP"
    return note


def _pause(clock: GameClock, at: int, words: list[str], where: str) -> str:
    _need(words, 0, "pause", where)
    return "pause" if clock.pause(at) else "pause: no change"


def _resume(clock: GameClock, at: int, words: list[str], where: str) -> str:
    _need(words, 0, "resume", where)
    return "resume" if clock.resume(at) else "resume: no change"


def _set(clock: GameClock, at: int, words: list[str], where: str) -> str:
    _need(words, 2, "set white|black TIME", where)
    side = _side(words[0], where)
    clock.set_remaining(side, parse_duration(words[1]), at)
    return f"arbiter: {side.value} time {words[1]}"


def _moves(clock: GameClock, at: int, words: list[str], where: str) -> str:
    _need(words, 2, "moves white|black N", where)
    side = _side(words[0], where)
    if not (ascii_digits(words[1]) and len(words[1]) <= 6):
        raise ScriptError(f"{where}: move count must be a whole number up to 10000, not "
                          f"{clip(words[1], 60)!r}")
    added = clock.correct_moves(side, int(words[1]), at)
    note = f"arbiter: {side.value} moves {words[1]}"
    return note + (f" ({added / NS:+g} s, 004 §32)" if added else "")


def _adjourn(clock: GameClock, at: int, words: list[str], where: str) -> str:
    if len(words) > 1:
        raise ScriptError(f"{where}: usage: SECONDS adjourn [SESSION-TIME]")
    session = parse_duration(words[0]) if words else None
    record = clock.adjourn(at, session)
    note = f"adjourn, {record.sealer.value} sealed"
    if record.charged_ns:
        note += f" (+{record.charged_ns / NS:g} s, 004 §34)"
    return note


def _resume_adjourned(clock: GameClock, at: int, words: list[str], where: str) -> str:
    _need(words, 0, "resume-adjourned", where)
    press = clock.resume_adjourned(at)
    return f"resume, sealed move #{press.moves} of {press.side.value}"


def _show(clock: GameClock, at: int, words: list[str], where: str) -> str:
    _need(words, 0, "show", where)
    return "show"


#: The script's actions (``SECONDS ACTION [ARGS]``), each a small function.
_ACTIONS: dict[str, Callable[[GameClock, int, list[str], str], str]] = {
    "start": _start, "press": _press, "pause": _pause, "resume": _resume, "set": _set,
    "moves": _moves, "adjourn": _adjourn, "resume-adjourned": _resume_adjourned,
    "show": _show,
}


def _report_flags(clock: GameClock, at: int, out: IO[str], reported: set[Any]) -> None:
    from firmware.clock.face import terminal_line

    for flag in clock.flags(at):
        key = (flag.side, flag.at)
        if key in reported:
            continue
        reported.add(key)
        line = terminal_line(clock, max(flag.at, clock.last_at or 0))
        out.write(f"{flag.at / NS:10.3f}  {'flag ' + flag.side.value:<34} {line}\n")
