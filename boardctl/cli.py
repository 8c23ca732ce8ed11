"""``boardctl``: one command line for the board, on the Pi and on any PC.

Each group of subcommands lives in ``boardctl.commands.<name>`` and exposes
``register(subparsers)``; the subcommand's handler takes the parsed arguments and returns the
exit code. Heavy imports happen inside handlers, so ``boardctl --help`` stays fast.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence

from firmware.errors import BoardError

#: Modules under boardctl.commands, in the order their subcommands are listed in --help.
COMMAND_MODULES = ("rules", "replay", "clock", "terminal", "hwtest", "service", "relay", "hall",
                   "control", "engine")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="boardctl",
        description="Sensor draughts board: play, referee, clock, broadcast, rules tools.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        module = importlib.import_module(f"boardctl.commands.{name}")
        module.register(sub)
    return parser


def parse(parser: argparse.ArgumentParser, argv: Sequence[str] | None) -> argparse.Namespace:
    """The arguments; an option that is none of boardctl's is named before a missing COMMAND
    (argparse says only "the following arguments are required: COMMAND" for ``boardctl
    --frobnicate``)."""
    args, extra = parser.parse_known_args(argv)
    if extra:
        parser.error(f"unrecognized arguments: {' '.join(extra)[:200]}"
                     + ("" if args.command else " (boardctl --help lists the commands)"))
    if args.command is None:
        parser.error("the following arguments are required: COMMAND (boardctl --help lists "
                     "them)")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parse(parser, argv)
    try:
        return int(args.func(args) or 0)
    except BoardError as exc:
        print(f"boardctl: error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        # The reader went away (`boardctl demo | head`): stop quietly, as Unix tools do.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 141
    except OSError as exc:
        # "FILE: No such file or directory" rather than "[Errno 2] No such file or ...: 'FILE'"
        text = f"{exc.filename}: {exc.strerror}" if exc.filename and exc.strerror else str(exc)
        print(f"boardctl: error: {text}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except Exception as exc:  # a bug or an input no check foresaw: one line, never a traceback
        if os.environ.get("BOARDCTL_DEBUG"):
            raise
        print(f"boardctl: error: {type(exc).__name__}: {str(exc)[:300]} (unexpected: please "
              "report it; BOARDCTL_DEBUG=1 shows where)", file=sys.stderr)
        return 70  # EX_SOFTWARE


if __name__ == "__main__":
    sys.exit(main())
