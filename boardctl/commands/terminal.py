"""``boardctl watch`` and ``boardctl play``: the board in a terminal (issue 29; the screens
are boardctl.terminal's)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from firmware.errors import BoardError


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    from boardctl.hall.mqtt import add_login_options

    p = sub.add_parser(
        "watch", help="a running board live in the terminal: a service on this machine or a "
        "hall board over MQTT",
        description="Show a running board live: position, clocks, moves, irregularities, "
        "alarms and hardware warnings. A service on this machine (--state-dir or --socket) "
        "or a hall board over MQTT (--broker, --hall, --board). Ctrl-C ends it.")
    p.add_argument("--state-dir", type=Path, help="the service's state directory "
                   "(its socket is STATE_DIR/control.sock)")
    p.add_argument("--socket", type=Path, help="the service's control socket "
                   "(default $BOARDCTL_SOCKET, else /run/boardctl/control.sock)")
    p.add_argument("--sensors", action="store_true", help="the reed matrix as the service "
                   "senses it (closed squares, stuck, shorted and flickering ones)")
    p.add_argument("--plain", action="store_true", help="one sentence a line instead of "
                   "the screen, the game summed up first (screen readers, logs)")
    h = p.add_argument_group("a hall board over MQTT (docs/HALL.md)")
    h.add_argument("--broker", metavar="URL", help="mqtt://HOST:PORT or mqtts://HOST:PORT")
    h.add_argument("--hall", help="the hall's short name")
    h.add_argument("--board", help="the board's name in the hall")
    add_login_options(h)
    p.set_defaults(func=run_watch)

    p = sub.add_parser(
        "play", help="play on the simulated board in the terminal",
        description="The whole service on a simulated board, in the terminal: type a move "
        "in the rule set's notation (c3-d4, 32-28, d2xh6), a square alone to lift or place "
        "one piece, 'press' for the clock, 'quit' to end; the mouse lifts and places too. "
        "Against the engine also 'hint', 'undo', 'draw', 'resign', 'new'.")
    p.add_argument("--rules", required=True, help="rule set (international, russian, ...)")
    p.add_argument("--time-control", "-t", help="time control (300+5, 50/7200:25/3600, ...)")
    p.add_argument("--engine", help="play the computer: the engine's name")
    p.add_argument("--engine-side", choices=("white", "black"), default="black",
                   help="the side the engine plays (default black)")
    p.add_argument("--engine-level", metavar="LEVEL", help="the built-in engine's level: 1 "
                   "(beginner) to 10 (full strength, the default), or beginner, easy, medium, "
                   "hard, full; a move takes at most 0.5 s up to level 4, 3 s at level 8, "
                   "8 s at 10 (docs/ENGINE.md)")
    p.add_argument("--engine-move-time", type=float, metavar="S", help="the engine's seconds "
                   "a move (default: from its clock, 2 s without a time control)")
    p.add_argument("--start", choices=("move", "press"), default="move",
                   help="how the game starts: 'move', by your first move (the default, as on a "
                   "chess computer; with the engine as White, by carrying out its first move), "
                   "or 'press', by a clock press")
    p.add_argument("--state-dir", type=Path, help="keep the game's journal here (default: "
                   "a temporary directory, removed at the end)")
    p.add_argument("--plain", action="store_true", help="a prompt and sentences instead of "
                   "the screen")
    p.set_defaults(func=run_play)



def _source(args: argparse.Namespace) -> Any:
    from boardctl.terminal.sources import MqttSource, SocketSource

    if args.broker or args.hall or args.board:
        if args.sensors:
            raise BoardError("watch --sensors reads a service on this machine (--state-dir "
                             "or --socket), not a board over MQTT")
        if not (args.broker and args.hall and args.board):
            raise BoardError("watch over MQTT needs --broker, --hall and --board")
        from boardctl.hall.board import read_password
        from boardctl.hall.mqtt import check_name, parse_broker

        config = parse_broker(args.broker, username=args.broker_user,
                              password=read_password(args.broker_password_file),
                              ca_file=args.broker_ca)
        return MqttSource(config, check_name(args.hall, "--hall"),
                          check_name(args.board, "--board"))
    from boardctl.service.control import default_socket

    path = args.socket if args.socket is not None else default_socket(args.state_dir)
    source = SocketSource(path, "sensors" if args.sensors else "status")
    source.first()  # the reason, at once, when the service cannot be reached
    return source


def run_watch(args: argparse.Namespace) -> int:
    from boardctl.terminal.view import BoardView

    source = _source(args)
    view = BoardView(board=args.board)
    if args.plain:
        from boardctl.terminal.plain import run_plain

        return run_plain(source, view, sys.stdout)
    _need_terminal()
    if args.sensors:
        from boardctl.terminal.sensors import sensors_app

        return int(sensors_app(source).run() or 0)
    from boardctl.terminal.app import BoardApp

    return int(BoardApp(view, source).run() or 0)


def _need_terminal() -> None:
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        raise BoardError("the screen needs a terminal; use --plain for lines")


def run_play(args: argparse.Namespace) -> int:
    from boardctl.terminal.play import play

    for flag in ("engine_level", "engine_move_time"):
        if getattr(args, flag) is not None and not args.engine:
            raise BoardError(f"--{flag.replace('_', '-')} needs --engine")
    if not args.plain:
        _need_terminal()
    return play(args)
