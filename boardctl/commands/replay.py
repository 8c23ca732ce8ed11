"""``boardctl replay``: an event log (or a service journal) through the board's own code.

``boardctl replay --rules R [--fen FEN] [--time-control TC] [--format pdn|feed] [--settle S]
EVENTS.jsonl`` (CONTRACT.md "Commands"). The events go through
``firmware.session.session.BoardSession``,
the composition the service runs, so the game printed is the game the board would have seen.

A journal written by the service (``firmware.formats.journal``: a leading ``game`` record) is read
too;
its rules, start position, time control, tags and settle time are used unless given on the
command line, its ``decision`` and ``note`` records are skipped, and a torn last line (a power
cut) is tolerated. A plain event log must be readable to its last line.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass, field
from typing import Any

#: Seconds of log time between two snapshot lines in ``--format feed`` (the service's period).
SNAPSHOT_EVERY = 10.0


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Add ``replay`` to the subcommands."""
    p = sub.add_parser(
        "replay",
        help="replay an event log or a journal and print the game (PDN or feed lines)",
        description=(
            "Replay an event log (JSON Lines, CONTRACT.md) or a service journal through the "
            "same inference, clock and rules code the board runs, and print the game."
        ),
    )
    p.add_argument("--rules", help="rule set (international, russian, brazilian, ...)")
    p.add_argument("--fen", help="start position (default: the rule set's start)")
    p.add_argument("--time-control", dest="time_control", help="PDN TimeControl, e.g. 4800+60")
    p.add_argument("--format", choices=("pdn", "feed"), default="pdn", help="output (pdn)")
    p.add_argument(
        "--settle",
        type=float,
        default=None,
        help="seconds a board must rest on a move without a clock (default 1.5)",
    )
    p.add_argument(
        "--touch-min",
        type=float,
        default=None,
        help="shortest lift of one's own piece that is a touch, seconds (default 0.25; "
        "contact bounce under 0.02 s never is)",
    )
    p.add_argument(
        "--start",
        choices=("press", "move"),
        default=None,
        help="how the game starts: 'press' (a plain log's default: at its start event, or "
        "at its first event without one), or 'move': at the first lift of a piece of the "
        "side to move from the start position (a start event before it still starts it). "
        "A journal says which",
    )
    p.add_argument("events", metavar="EVENTS.jsonl", help="the event log or journal ('-': stdin)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from firmware.errors import EventLogError
    from firmware.limits import bounded_lines

    if args.events == "-":
        source = "<stdin>"
        lines = list(bounded_lines(sys.stdin.buffer, source, error=EventLogError))
    else:
        source = args.events
        with open(args.events, "rb") as f:
            lines = list(bounded_lines(f, source, error=EventLogError))
    if args.settle is not None and not (0 < args.settle < 3600):
        raise EventLogError(f"--settle must be between 0 and 3600 seconds, not {args.settle}")
    touch_ns = None
    if args.touch_min is not None:
        from firmware.referee import check_touch_min

        touch_ns = check_touch_min(args.touch_min)
    out = replay_lines(
        lines,
        source,
        rules=args.rules,
        fen=args.fen,
        time_control=args.time_control,
        fmt=args.format,
        settle=args.settle,
        touch_ns=touch_ns,
        start=args.start,
        warn=lambda text: print(f"boardctl: warning: {text}", file=sys.stderr),
    )
    sys.stdout.write(out)
    return 0


@dataclass
class _Log:
    """An event log or journal as read: its events (in the order to play them), where each
    came from, and what a journal's header says of the game."""

    events: list[Any]
    where: list[str]
    rules: str | None = None
    fen: str | None = None
    time_control: str | None = None
    tags: dict[str, str] = field(default_factory=dict)
    started: bool | None = None  # None: a plain log (a journal says)
    settle: float | None = None
    start: str | None = None  # how the game starts (a journal says; a plain log: press)


def replay_lines(
    lines: list[bytes],
    source: str,
    *,
    rules: str | None = None,
    fen: str | None = None,
    time_control: str | None = None,
    fmt: str = "pdn",
    settle: float | None = None,
    warn: Any = None,
    touch_ns: int | None = None,
    start: str | None = None,
) -> str:
    """Replay the lines of an event log or journal; the PDN text or the feed lines."""
    from firmware.clock.timecontrol import TimeControl
    from firmware.errors import EventLogError
    from firmware.formats.events import NS, Start
    from firmware.formats.feed import frame
    from firmware.formats.journal import StartMode
    from firmware.formats.records import HeaderRecord
    from firmware.rules.position import Position
    from firmware.rules.sets import find_rules
    from firmware.session.session import BoardSession

    log = _read_log(lines, source, warn)
    rules, fen = rules or log.rules, fen or log.fen
    time_control = time_control or log.time_control
    settle = settle if settle is not None else log.settle
    if not rules:
        raise EventLogError(f"{source}: give --rules (the log does not say which rule set)")
    rule_set = find_rules(rules)
    if fen:
        Position.from_fen(rule_set, fen)  # FenError before anything else
    if time_control:
        TimeControl.parse(time_control)
    _check_squares(log, rule_set, warn)
    started, clocked = log.started, None  # a journal: exactly as the service built its session
    if started is None:  # a plain log: play from the first event unless it has a start
        started = start != "move" and not any(isinstance(e, Start) for e in log.events)
        # The log tells how the game was played: presses commit moves; without them the
        # released hand is read from the board at rest (the clock, if any, follows the board).
        clocked = any(e.type == "press" for e in log.events)
    session = BoardSession(
        rule_set, time_control, fen, round((settle if settle is not None else 1.5) * NS),
        clocked=clocked, started=started, tags=log.tags, touch_ns=touch_ns,
        start_mode=StartMode(start or log.start or StartMode.PRESS),
    )
    records = _play(session, log, fmt, warn)
    if fmt == "feed":
        lines_out = [frame(HeaderRecord("replay", "replay", rule_set.name), 0)]
        lines_out += [frame(rec, seq) for seq, rec in enumerate(records, 1)]
        return "".join(lines_out)
    return session.pdn()


def _read_log(lines: list[bytes], source: str, warn: Any) -> _Log:
    """A journal (its header first) or a plain event log, with the lines of its events."""
    from firmware.formats.events import event_from_record, read_events, same_instant_order
    from firmware.formats.journal import opens_journal, read_journal

    if opens_journal(lines):
        journal = read_journal(lines, source)
        header = journal.header
        where = [f"{source}: line {lineno}" for lineno in journal.lines]
        events = [event_from_record(rec, w)
                  for rec, w in zip(journal.events, where, strict=True)]
        if journal.torn and warn is not None:
            warn(f"{source}: a torn last record was dropped (power cut)")
        return _Log(events, where, header.rules, header.fen, header.time_control,
                    dict(header.tags), bool(getattr(header, "started", False)), header.settle,
                    header.start)
    linenos: list[int] = []
    events = read_events(lines, source, linenos=linenos)
    where = [f"{source}: line {n}" for n in linenos]
    # Presses after the sensor events of the same instant (a journal keeps the order the
    # service acted on).
    order = same_instant_order(events)
    return _Log([events[k] for k in order], [where[k] for k in order])


def _check_squares(log: _Log, rule_set: Any, warn: Any) -> None:
    """Every square on the board; a lift on an empty light square is sensor noise, said once
    (a full-matrix board senses light squares too; a piece put on one is out of play,
    003 5.3)."""
    from firmware.errors import EventLogError
    from firmware.rules.geometry import a_board

    size = rule_set.size
    geometry = rule_set.geometry
    cells = set(geometry.all_cells())
    light: set[str] = set()
    noise = False
    for event, w in zip(log.events, log.where, strict=True):
        square = getattr(event, "square", None)
        if square is None:
            continue
        if square not in cells:
            raise EventLogError(f"{w}: square {square!r} is not on {a_board(size)}")
        if geometry.is_dark(square):
            continue
        if event.type == "place":
            light.add(square)
        elif square in light:
            light.discard(square)
        elif not noise and warn is not None:
            noise = True
            warn(f"{w}: lift on the empty light square {square!r} ignored (sensor noise)")


def _play(session: Any, log: _Log, fmt: str, warn: Any) -> list[Any]:
    """The log through the session; with ``fmt`` "feed", a full-state snapshot every
    SNAPSHOT_EVERY seconds of log time and at the end, as the service sends them on the
    serial line (CONTRACT.md "Broadcast feed")."""
    from firmware.errors import BoardError
    from firmware.formats.events import NS, Start
    from firmware.formats.records import SnapshotRecord

    records: list[Any] = []
    step = round(SNAPSHOT_EVERY * NS)
    next_snapshot = log.events[0].at + step if log.events else 0
    for event, w in zip(log.events, log.where, strict=True):
        while fmt == "feed" and event.at >= next_snapshot:
            records += session.tick(next_snapshot)
            records.append(session.snapshot("replay", next_snapshot))
            next_snapshot += step
        try:
            if session.starts_game(event):  # the first move starts the game (issue 36)
                records += session.handle(Start(event.at))
            records += session.handle(event)
        except BoardError as exc:  # an arbiter event the game could not take: say so, go on
            if warn is not None:
                warn(f"{w}: {event.type} ignored: {exc}")
    records += session.finish()
    if fmt == "feed" and log.events and (not records or not isinstance(records[-1],
                                                                        SnapshotRecord)):
        records.append(session.snapshot("replay", session.last_at))
    return records
