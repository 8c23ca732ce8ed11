"""``boardctl run``, ``boardctl demo`` and ``boardctl export``: the service and its journal."""

from __future__ import annotations

import argparse
import logging
import os
import signal
import sys
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from boardctl.commands.players import add_player_options, player_lineup
from boardctl.hall.mqtt import add_login_options
from firmware.errors import BoardError

if TYPE_CHECKING:
    from boardctl.hall.board import HallBoard
    from boardctl.page.server import BoardPage
    from boardctl.service.door import Lineup
    from boardctl.service.hardware import EventScript
    from boardctl.service.service import GameSetup, Service
    from boardctl.settings import Settings
    from boardctl.voice.voice import Voice
    from firmware.formats.journal import StartMode
    from firmware.rules.sets import RuleSet

logger = logging.getLogger(__name__)

TAG_OPTIONS = ("event", "site", "date", "round", "board", "white", "black")
_TAG_HELP = {
    "board": "the board's name: on the feed, in a hall (the broker's topics) and the PDN Board "
             "tag of a new game (default: the config's [broker] board, else the host name on "
             "the feed only)",
    "date": "PDN Date tag of a new game, YYYY.MM.DD (default: the day it is set up)",
}


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Add ``run``, ``demo`` and ``export`` to the command line."""
    _register_run(sub)
    _register_demo(sub)
    _register_export(sub)


def _register_run(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "run",
        help="run the board service (on the Pi, or --sim on simulated hardware)",
        description=(
            "Run the board: scan the sensors, referee the game, run the clock, light the LEDs, "
            "send the broadcast feed and journal everything in --state-dir. Started again on "
            "the same state directory after any stop (kill -9 and power cuts included), it "
            "resumes the game where it stood, clocks paused. Pause held 2 s: the menus on the "
            "faces (docs/MENUS.md). Stops on SIGTERM or SIGINT."),
    )
    p.add_argument("--sim", action="store_true", help="run on simulated hardware (no Pi needed)")
    p.add_argument("--config", type=Path, help="board configuration (TOML)")
    p.add_argument("--rules", help="rule set of a new game (default: international on "
                   "10x10, russian on 8x8; with --sim, the board's size follows --rules, "
                   "else the game in the state directory, else 10x10)")
    p.add_argument("--time-control", help="time control of a new game (PDN TimeControl)")
    p.add_argument("--fen", help="start position of a new game")
    p.add_argument("--state-dir", type=Path,
                   help="journal directory (default $STATE_DIRECTORY or the config's state_dir)")
    p.add_argument("--events", type=Path,
                   help="with --sim: act out this event log (JSON Lines) on the simulated board")
    p.add_argument("--feed", help="feed port: a serial device, pty, pySerial URL or file")
    p.add_argument("--socket", type=Path, help="control socket (default: runtime directory, "
                   "else STATE_DIR/control.sock)")
    p.add_argument("--group", help="group allowed to use the control socket")
    p.add_argument("--name", default=None, help="the same as --board (kept for older "
                   "scripts): one name for the board")
    p.add_argument("--settle", type=float, help="seconds a board at rest commits a move "
                   "without a clock (default 1.5)")
    p.add_argument("--touch-min", type=float, default=None,
                   help="shortest lift of one's own piece that is a touch, seconds (default: "
                   "the config's touch_min, 0.25)")
    _add_start(p)
    p.add_argument("--snapshot-every", type=float, default=10.0,
                   help="seconds between full snapshots on the feed (default 10)")
    for tag in TAG_OPTIONS:
        p.add_argument(f"--{tag}", help=_TAG_HELP.get(tag, f"PDN {tag.capitalize()} tag of a "
                                                          "new game"))
    add_player_options(p)
    h = p.add_argument_group("hall (many boards on one MQTT broker, docs/HALL.md)")
    h.add_argument("--broker", metavar="URL",
                   help="publish the feed to this broker too (mqtt://HOST:PORT, mqtts://...)")
    h.add_argument("--hall", help="the hall's (event's) short name in the broker's topics")
    add_login_options(h)
    h.add_argument("--hall-key", metavar="FILE", help="file holding the hall's key: the "
                   "arbiter's desk (the relay's POST /arbiter/BOARD) may act on this board; "
                   "without it the board takes no control messages ([broker] hall_key_file)")
    _add_page(p)
    _add_board_extras(p)
    p.set_defaults(func=run_service)


def _add_start(p: argparse.ArgumentParser) -> None:
    p.add_argument("--start", choices=("press", "move"), default=None,
                   help="how a game starts: 'move', by its first move (as on a chess "
                   "computer; a press still starts it), or 'press', by a clock press only (the "
                   "tournament clock); default: the config's start, else press in a hall and "
                   "with --events, move otherwise")


def _register_demo(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    d = sub.add_parser(
        "demo",
        help="play a real game through the simulated board, feed and relay (no Pi needed)",
        description=(
            "Play a game from a PDN file through the whole system on simulated hardware: "
            "human-handled sensor events (bounce, slides, captures taken off in any order) on "
            "the simulated reed matrix, the real scanner, debouncer, referee, clock, journal "
            "and feed, and the relay's PDN at the end."
        ),
    )
    d.add_argument("--pdn", type=Path, help="PDN file (default: the bundled WK 2003 games)")
    d.add_argument("--game", type=int, default=None, help="game number in the file (1-based)")
    d.add_argument("--speed", type=float, default=40.0,
                   help="game seconds per real second (default 40; 0: as fast as the CPU goes)")
    d.add_argument("--time-control", default="5400+30", help="clock (default 5400+30)")
    d.add_argument("--seed", type=int, default=1, help="seed of the handling noise")
    d.add_argument("--moves", type=int, default=None, help="play only the first N moves (plies)")
    d.add_argument("--state-dir", type=Path, help="keep the journal here (default: temporary)")
    d.add_argument("--quiet", action="store_true", help="do not print the feed lines")
    d.set_defaults(func=run_demo)


def _register_export(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    e = sub.add_parser(
        "export",
        help="print the game held in a state directory's journal (PDN or feed)",
        description="Print the current game of a journal, whether or not the service runs.",
    )
    e.add_argument("--state-dir", type=Path, required=True,
                   help="the service's state directory (its journals; /var/lib/boardctl on a Pi)")
    e.add_argument("--format", choices=("pdn", "feed"), default="pdn",
                   help="PDN (default) or the broadcast feed's lines")
    e.add_argument("--journal", type=Path, help="a journal file instead of the current game")
    e.add_argument("--salvage", action="store_true",
                   help="a damaged journal: export the game up to the first damaged record "
                        "and say on stderr what was lost (exit status 3)")
    e.set_defaults(func=run_export)


def _tags(args: argparse.Namespace) -> dict[str, str]:
    from firmware.pdn.tags import tags_problem

    tags = {tag.capitalize(): str(getattr(args, tag)) for tag in TAG_OPTIONS
            if getattr(args, tag, None)}
    problem = tags_problem(tags)
    if problem is not None:
        raise BoardError(problem)
    return tags


def _state_dir(args: argparse.Namespace, config: Settings) -> Path:
    if args.state_dir is not None:
        return Path(args.state_dir)
    env = os.environ.get("STATE_DIRECTORY")
    if env:
        return Path(env.split(":")[0])
    return Path(config.state_dir)


def run_service(args: argparse.Namespace) -> int:
    from boardctl.service.hardware import pi_hardware, sim_hardware
    from boardctl.service.notify import Notifier
    from boardctl.service.service import Service

    config, rules = _config_and_rules(args)
    script = _script(args, rules) if args.events is not None else None
    state_dir = _state_dir(args, config)
    if state_dir.exists() and not state_dir.is_dir():
        raise BoardError(f"{state_dir}: not a directory (--state-dir names the journal's "
                         "directory)")
    _one_name(args)
    setup = _setup(args, config, rules, script)
    hall = hall_link(args, config, state_dir)
    name = (hall.board if hall is not None else args.board) or os.uname().nodename or "board"
    if hall is not None:
        setup.tags.setdefault("Board", hall.board)
    setup.start = _start_mode(args, config, hall is not None or script is not None)
    service: Service | None = None

    def on_connect() -> list[str] | None:
        return service.port_connected() if service is not None else None

    if args.sim:
        hardware = sim_hardware(rules.size, config.hardware, feed_url=args.feed,
                                on_connect=on_connect)
    else:
        from hw.gpio import EXIT_NO_GPIO, NoGpioBackend

        try:
            hardware = pi_hardware(config.hardware, feed_url=args.feed, on_connect=on_connect)
        except NoGpioBackend as exc:  # one line, and a status the unit does not restart on
            print(f"boardctl: error: {exc}", file=sys.stderr)
            return EXIT_NO_GPIO
    # the opponent's new games go through the service's control path, once it is made
    lineup = player_lineup(args, config, rules, state_dir, lambda request: (
        service.command(request) if service is not None else {}))
    voice = _open_voice(args, config, rules, lineup)
    page = board_page(args, config, state_dir)
    sinks = ([voice] if voice is not None else []) + (page.sinks if page is not None else [])
    service = Service(state_dir, setup, hardware, board=name, notifier=Notifier(),
                      socket_path=_socket_path(args, state_dir), group=args.group,
                      script=script, snapshot_every=args.snapshot_every,
                      lineup=lineup, sinks=sinks)
    if page is not None:
        page.attach(service)
    try:
        _plug_board_extras(service, voice, page, (setup, lineup), state_dir, hall is not None)
        _serve(service, hall, on_stop=[voice.hush] if voice is not None else [])
    finally:
        for part in (voice, page):
            if part is not None:
                part.close()
    logger.info("stopped")
    return 0


def _add_board_extras(p: argparse.ArgumentParser) -> None:
    """The options of the parts at the board for a person alone there (issue 40): the
    spoken game (boardctl.voice)."""
    from boardctl.voice.settings import add_arguments

    add_arguments(p)


def _open_voice(args: argparse.Namespace, config: Settings, rules: RuleSet,
                lineup: Lineup | None) -> Voice | None:
    """The spoken game (boardctl.voice): ``--voice`` over the config's ``[voice]``, started,
    or None when it is off. The computer's side is said as the computer from the start."""
    from boardctl.voice import open_voice
    from boardctl.voice.settings import from_arguments

    settings = from_arguments(args, config.voice)
    choice = getattr(lineup, "choice", None)
    roles = {str(getattr(choice.side, "value", choice.side)): "computer"} \
        if choice is not None and choice.engine else None
    return open_voice(settings, rules=rules, roles=roles)


def _plug_board_extras(service: Service, voice: Voice | None, page: BoardPage | None,
                       game: tuple[GameSetup, Lineup | None],
                       state_dir: Path, hall: bool) -> None:
    """The voice's part of ``status``, and the menus on the buttons and faces
    (boardctl.menu) with the new game's ``setup`` and the computer's ``lineup``."""
    from boardctl.menu.plug import page_address, plug_menu

    if voice is not None:
        service.status_extras.append(lambda: {"voice": voice.status()})
    setup, lineup = game
    plug_menu(service, setup=setup, lineup=lineup, state_dir=state_dir, hall=hall,
              address=page_address(page))


def _one_name(args: argparse.Namespace) -> None:
    """``--name`` and ``--board`` both name the board, with one meaning (the feed's name, the
    hall's, the PDN Board tag): the same name twice is fine, two names are refused."""
    name, board = args.name, args.board
    if name and board and name != board:
        raise BoardError(f"--name {name!r} and --board {board!r} both name this board (one "
                         "meaning: the feed's name, the hall's and the Board tag); give one")
    args.board = board or name


def _config_and_rules(args: argparse.Namespace) -> tuple[Settings, RuleSet]:
    """The board's configuration and the new game's rule set, checked against each other
    (with the other options that can be checked before anything starts)."""
    from boardctl.settings import default_settings, load_config
    from firmware.clock.timecontrol import TimeControl
    from firmware.rules.sets import find_rules

    if args.time_control:
        TimeControl.parse(args.time_control)  # a clear error before anything starts
    _check_numbers(args)
    if args.feed:
        _check_feed(args.feed)
    if args.config is not None:
        config = load_config(args.config)
    elif args.sim:  # a board of the new game's size, or of the game it resumes
        resumed = None if args.rules else _resumed_rules(args)
        config = default_settings(find_rules(args.rules or resumed or "international").size)
    else:
        config = load_config(None)
    size = config.hardware.size
    rules = find_rules(args.rules or ("international" if size == 10 else "russian"))
    if size != rules.size:
        from firmware.rules.geometry import a_board

        raise BoardError(f"{config.source}: {a_board(size)} cannot play {rules.name}")
    return config, rules


def _resumed_rules(args: argparse.Namespace) -> str | None:
    """The rule set of the game in play in the state directory ``run --sim`` will use."""
    from boardctl.service.journal_file import resumed_rules
    from boardctl.settings import default_settings
    from firmware.errors import RulesError
    from firmware.rules.sets import find_rules

    name = resumed_rules(_state_dir(args, default_settings(10)))
    try:
        return find_rules(name).name if name else None
    except RulesError:  # an unknown name: the start says why
        return None


def _script(args: argparse.Namespace, rules: RuleSet) -> EventScript:
    """``--events``: the event log the simulated hand acts out, every square on the board."""
    from boardctl.service.hardware import EventScript
    from firmware.errors import EventLogError
    from firmware.formats.events import read_events
    from firmware.limits import bounded_lines

    if not args.sim:
        raise BoardError("--events needs --sim (a real board is played by hand)")
    linenos: list[int] = []
    try:
        with open(args.events, "rb") as f:
            lines = bounded_lines(f, str(args.events), error=EventLogError)
            events = read_events(lines, str(args.events), linenos=linenos)
    except FileNotFoundError:
        raise BoardError(f"{args.events}: no such event log") from None
    except IsADirectoryError:
        raise BoardError(f"{args.events}: is a directory, not an event log") from None
    cells = set(rules.geometry.all_cells())
    for n, event in zip(linenos, events, strict=True):
        square = getattr(event, "square", None)
        if square is not None and square not in cells:  # before a journal is started
            raise BoardError(f"{args.events}: line {n}: square {square!r} is not on a "
                             f"{rules.size}x{rules.size} board")
    return EventScript(events)


def _setup(args: argparse.Namespace, config: Settings, rules: RuleSet,
           script: EventScript | None) -> GameSetup:
    """The new game's setup from the options (a game already in the journal wins)."""
    from boardctl.service.service import GameSetup
    from firmware.referee import check_touch_min

    touch_min = args.touch_min if args.touch_min is not None else config.touch_min
    check_touch_min(touch_min)  # a one-line error before anything starts
    setup = GameSetup(rules.name, args.time_control, args.fen, _tags(args),
                      started=script is not None and not script.has_start, settle=args.settle,
                      touch_min=touch_min)
    if script is not None and args.time_control is None:
        setup.clocked = script.has_presses  # as `boardctl replay` reads the same log
    return setup


def _start_mode(args: argparse.Namespace, config: Settings, arbiter: bool) -> StartMode:
    """How a new game starts (issue 36): ``--start``, else the config's ``start``, else by
    the press where an arbiter starts the round (a hall) or a log says when (``--events``),
    by the first move otherwise (a board on its own, against the computer)."""
    from firmware.formats.journal import StartMode

    chosen = args.start or config.start
    if chosen:
        return StartMode(chosen)
    return StartMode.PRESS if arbiter else StartMode.MOVE


def _socket_path(args: argparse.Namespace, state_dir: Path) -> Path:
    """``--socket``, else the runtime directory's, else the state directory's."""
    if args.socket is not None:
        return Path(args.socket)
    runtime = os.environ.get("RUNTIME_DIRECTORY")
    return Path(runtime.split(":")[0]) / "control.sock" if runtime else state_dir / "control.sock"


def _serve(service: Service, hall: HallBoard | None,
           on_stop: Sequence[Callable[[], None]] = ()) -> None:
    """Run until SIGTERM or SIGINT, the hall's link beside it; ``on_stop`` is called in the
    signal handler (the voice hushed: the clocks paused for the stop are not a pause to say)."""
    stop = threading.Event()

    def _stop(signum: int, frame: object) -> None:
        stop.set()
        for hush in on_stop:
            hush()
        # The referee may be asleep for up to a second (loop.IDLE_S): woken, it stops now.
        # The merge's condition is re-entrant, so the handler may take it on this thread.
        service.merge.wake()

    signal.signal(signal.SIGTERM, _stop)
    signal.signal(signal.SIGINT, _stop)
    if hall is not None:
        hall.attach(service)
    try:
        service.run(stop)
    finally:
        if hall is not None:
            hall.close()


def hall_link(args: argparse.Namespace, config: Settings, state_dir: Path) -> HallBoard | None:
    """The broker link (boardctl.hall.board) from --broker/--hall/--board or [broker], or None."""
    from boardctl.hall.board import HallBoard, broker_settings

    settings = broker_settings(args, config.broker, str(config.source))
    return HallBoard(settings, state_dir) if settings is not None else None


def _add_page(p: argparse.ArgumentParser) -> None:
    """``--http`` and ``--http-password-file``: the board's own page (docs/PAGE.md)."""
    w = p.add_argument_group("the board's own page (docs/PAGE.md)")
    w.add_argument("--http", metavar="HOST:PORT", help="serve the board's page and its JSON "
                   "API there, e.g. 0.0.0.0:8080 (config [http] listen)")
    w.add_argument("--http-password-file", type=Path, metavar="FILE", help="a file holding "
                   "the password every change from the page needs (config [http] "
                   "password_file); without one, anyone on the network may start a new game")


def board_page(args: argparse.Namespace, config: Settings, state_dir: Path) -> BoardPage | None:
    """The board's own page (boardctl.page) from --http/--http-password-file or [http], or
    None; listening already (a port in use is told before the board starts)."""
    from boardctl.page.server import BoardPage
    from boardctl.page.settings import page_settings

    settings = page_settings(args.http, args.http_password_file, config.http)
    return BoardPage(settings, state_dir) if settings is not None else None


def _check_numbers(args: argparse.Namespace) -> None:
    """--settle and --snapshot-every: finite and in range, or a clear error."""
    import math

    if args.settle is not None and not (math.isfinite(args.settle) and 0 <= args.settle <= 3600):
        raise BoardError(f"--settle must be between 0 and 3600 seconds, not {args.settle}")
    every = args.snapshot_every
    if not (math.isfinite(every) and 0.1 <= every <= 86400):
        raise BoardError(f"--snapshot-every must be between 0.1 and 86400 seconds, not {every}")


def _check_feed(url: str) -> None:
    """Refuse a --feed that can never open (a bad URL, a directory, a file in a missing
    directory) before the service starts; a serial device that is not there (yet) is fine:
    the feed port keeps trying to open it (hw.serialport)."""
    if "://" in url:
        import serial

        try:
            serial.serial_for_url(url, do_not_open=True)
        except ValueError as exc:
            raise BoardError(f"--feed {url}: {exc}") from None
        return
    path = Path(url)
    if path.is_dir():
        raise BoardError(f"--feed {url}: is a directory, not a file or a serial device")
    if not path.exists() and not url.startswith("/dev/") and not path.name.startswith("tty") \
            and not path.parent.is_dir():
        raise BoardError(f"--feed {url}: no directory {path.parent} to write the feed file in")


def run_export(args: argparse.Namespace) -> int:
    from boardctl.service.archive import export_game
    from boardctl.service.journal_file import current_path
    from boardctl.service.service import snapshot_of
    from firmware.formats.feed import frame
    from firmware.formats.records import FeedRecord, GameRecord, HeaderRecord

    path = args.journal
    if path is None:
        if not args.state_dir.is_dir():
            raise BoardError(f"{args.state_dir}: no such state directory")
        path = current_path(args.state_dir)
        if path is None:
            raise BoardError(f"{args.state_dir}: no game journal here")
    journal, rebuilt = export_game(path, salvage=args.salvage)
    status = 0
    if not journal.verified:
        logger.warning(f"{path}: a version-1 journal: its records carry no checksums, not verified")
    if journal.lost is not None:
        events = len(journal.events)
        logger.warning(f"salvaged {events} event{'' if events == 1 else 's'} "
                       f"(ply {len(rebuilt.session.moves)}); lost: {journal.lost}")
        status = 3
    if args.format == "pdn":
        sys.stdout.write(rebuilt.session.pdn())
        return status
    header = journal.header
    records: list[FeedRecord] = [
        HeaderRecord(header.board, "export", header.rules, header.id),
        GameRecord(header.rules, header.fen, header.time_control, dict(header.tags), header.id),
        *rebuilt.records, snapshot_of(rebuilt.session, header, rebuilt.at),
    ]
    for seq, rec in enumerate(records):
        sys.stdout.write(frame(rec, seq, header.id))
    return status


def run_demo(args: argparse.Namespace) -> int:
    import math

    from boardctl.demo import Demo

    if not math.isfinite(args.speed):
        raise BoardError(f"--speed must be a number of game seconds per second, not {args.speed}")
    if args.game is not None and args.game < 1:
        raise BoardError(f"--game counts from 1, not {args.game}")
    if args.state_dir is not None and args.state_dir.exists() and not args.state_dir.is_dir():
        raise BoardError(f"{args.state_dir}: not a directory (--state-dir names the journal's "
                         "directory)")
    return Demo(
        pdn=args.pdn,
        game=args.game,
        speed=args.speed,
        time_control=args.time_control,
        seed=args.seed,
        plies=args.moves,
        state_dir=args.state_dir,
        quiet=args.quiet,
    ).run()
