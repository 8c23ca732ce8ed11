"""``boardctl engine --rules R [--level LEVEL]``: the built-in engine as a Hub engine on
stdin/stdout (docs/ENGINE.md, CONTRACT.md "Playing the computer on the board")."""

from __future__ import annotations

import argparse
import sys


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = sub.add_parser(
        "engine",
        help="run the built-in engine as a Hub-protocol engine on stdin/stdout",
        description="The built-in engine speaking the Hub protocol (Scan's protocol.txt) on "
        "standard input and output, for any rule set: 8x8 positions use 32 squares numbered "
        "as 10x10 is (docs/ENGINE.md).",
    )
    parser.add_argument("--rules", required=True, metavar="R", help="rule set name")
    parser.add_argument("--level", default="10", metavar="LEVEL",
                        help="1 (beginner) to 10 (full strength, the default), or beginner, "
                        "easy, medium, hard, full")
    parser.add_argument("--hash", type=float, default=None, metavar="MIB",
                        help="transposition table size in MiB (default 64)")
    parser.add_argument("--seed", type=int, default=None,
                        help="seed of the random choice among near-equal moves")
    parser.add_argument("hub", nargs="?", help=argparse.SUPPRESS)  # `ENGINE hub`, as Scan
    parser.set_defaults(func=run_engine)


def run_engine(args: argparse.Namespace) -> int:
    from boardctl.engine.server import HubServer
    from firmware.engine.common import DEFAULT_TT_MIB
    from firmware.engine.levels import find_level
    from firmware.errors import BoardError
    from firmware.rules.sets import find_rules

    rules = find_rules(args.rules)
    level = find_level(args.level).number
    mib = DEFAULT_TT_MIB if args.hash is None else args.hash
    if not 1 <= mib <= 4096:
        raise BoardError(f"--hash {args.hash} MiB out of 1-4096")
    if args.hub not in (None, "hub"):
        raise BoardError(f"unexpected argument {args.hub[:40]!r}")
    server = HubServer(rules.name, level, mib, args.seed, out=sys.stdout)
    return server.serve(sys.stdin.buffer)
