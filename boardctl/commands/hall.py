"""``boardctl hall``: a round-robin tournament in the hall, by seed 004 (the organizer's and the
arbiter's commands on the relay PC).

The tournament lives in one JSON file (``--state``, default ``tournament.json``): ``init``
makes it from a players list, ``draw`` draws the numbers, ``pairings`` prints the rounds from
the seed's tables, ``boards`` names the boards, ``start-round`` publishes each board's setup,
``result`` and ``withdraw`` are the arbiter's entries, ``crosstable`` scores the games.
"""

from __future__ import annotations

import argparse
import random
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from firmware.errors import BoardError, TournamentError

if TYPE_CHECKING:
    from firmware.tournament.state import Tournament

DEFAULT_STATE = Path("tournament.json")


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Add ``hall`` and its subcommands to the command line."""
    p = sub.add_parser(
        "hall", help="round-robin tournament: players, draw, pairings, setups, crosstable",
        description="A round robin by the tables of the 1953 rules (Kabe. Võistlusmäärused): "
        "pairings and colours for 3-24 players, single or double, scores by §37-§38.")
    hall = p.add_subparsers(dest="hall_command", metavar="SUBCOMMAND")
    hall.required = True

    def cmd(name: str, help_text: str) -> argparse.ArgumentParser:
        q: argparse.ArgumentParser = hall.add_parser(name, help=help_text,
                                                    description=help_text)
        q.add_argument("--state", type=Path, default=DEFAULT_STATE,
                       help=f"the tournament file (default {DEFAULT_STATE})")
        return q

    _register_setup(cmd)
    _register_play(cmd)


Command = Callable[[str, str], argparse.ArgumentParser]


def _register_setup(cmd: Command) -> None:
    """Before the first round: the file, the drawing, the pairings, the boards."""
    q = cmd("init", "make the tournament file from a players list")
    q.add_argument("--players", type=Path, required=True,
                   help="one name a line, or CSV with a header: name,rating,club")
    q.add_argument("--event", default="")
    q.add_argument("--site", default="")
    q.add_argument("--date", default="", help="PDN date, e.g. 2026.11.23")
    q.add_argument("--rules", default="russian", help="rule set of every game")
    q.add_argument("--time-control", help="time control of every game, e.g. 5400+30")
    q.add_argument("--double", action="store_true", help="double round robin")
    q.add_argument("--force", action="store_true", help="overwrite an existing file")
    q.set_defaults(func=run_init)

    q = cmd("draw", "draw the numbers (the 1953 rules' appendix)")
    q.add_argument("--seed", type=int, help="repeatable drawing (default: system randomness)")
    q.set_defaults(func=run_draw)

    q = cmd("pairings", "print a round (or all) with boards and colours")
    q.add_argument("--round", type=int, help="one round (default: all)")
    q.set_defaults(func=run_pairings)

    q = cmd("boards", "name the boards in playing order (MQTT board names)")
    q.add_argument("names", nargs="+", metavar="BOARD")
    q.set_defaults(func=run_boards)


def _register_play(cmd: Command) -> None:
    """During the tournament: rounds started on the boards, results, withdrawals, scores."""
    q = cmd("start-round", "publish each board's setup for round R (retained, QoS 1)")
    q.add_argument("round", type=int, metavar="R")
    _broker_options(q)
    q.set_defaults(func=run_start_round)

    q = cmd("clear-setups", "empty every board's retained setup (nothing left to apply)")
    _broker_options(q)
    q.set_defaults(func=run_clear_setups)

    q = cmd("result", "the arbiter's result for a game (forfeits: +- -+ --)")
    q.add_argument("--round", type=int, required=True)
    q.add_argument("white")
    q.add_argument("black")
    q.add_argument("result", help="1-0 0-1 1/2-1/2 0-0 +- -+ -- (or 'clear')")
    q.set_defaults(func=run_result)

    q = cmd("withdraw", "a player leaves the tournament (1953 rules §38)")
    q.add_argument("name")
    q.add_argument("--after-round", type=int, required=True,
                   help="the last round the player took part in (0: before the start)")
    q.set_defaults(func=run_withdraw)

    q = cmd("crosstable", "score the games: print, and write CSV and HTML")
    q.add_argument("--games", action="append", default=[], metavar="PDN",
                   help="PDN file or URL (e.g. http://relay:8080/HALL.pdn); repeatable")
    q.add_argument("--csv", type=Path, help="write the crosstable as CSV here")
    q.add_argument("--html", type=Path, help="write the crosstable as an HTML page here")
    q.set_defaults(func=run_crosstable)


def _broker_options(q: argparse.ArgumentParser) -> None:
    q.add_argument("--broker", required=True, metavar="URL", help="mqtt://HOST:PORT or mqtts://")
    q.add_argument("--hall", required=True, help="the hall's name in the topics")
    # Also under the names `boardctl run` and `boardctl relay` give them.
    q.add_argument("--username", "--broker-user", dest="username",
                   help="the organizer's broker user")
    q.add_argument("--password-file", "--broker-password-file", dest="password_file",
                   help="file whose first line is the password (default: "
                   "$KABELAUD_MQTT_PASSWORD, else $BOARDCTL_BROKER_PASSWORD)")
    q.add_argument("--cafile", "--broker-ca", dest="cafile", help="CA certificate for mqtts://")
    q.add_argument("--dry-run", action="store_true", help="print the messages, publish none")


def _publish(args: argparse.Namespace, messages: list[tuple[str, bytes]]) -> tuple[int, str]:
    """Publish (or with --dry-run print) the messages; their count and the broker's name."""
    from boardctl.hall.publish import Broker, parse_broker, password_from, publish

    host, port, tls = parse_broker(args.broker)
    if args.dry_run:
        for topic, payload in messages:
            print(topic, payload.decode())
        return 0, f"{host}:{port}"
    broker = Broker(host, port, tls, args.username, password_from(args.password_file),
                    args.cafile)
    count = publish(broker, messages, client_id=f"kabelaud-hall-{args.hall}"[:23])
    return count, f"{host}:{port}"


def _load(args: argparse.Namespace) -> Tournament:
    from boardctl.hall.files import load_tournament

    return load_tournament(args.state)


def _save(args: argparse.Namespace, t: Tournament) -> None:
    from boardctl.hall.files import save_tournament

    save_tournament(args.state, t)


def run_init(args: argparse.Namespace) -> int:
    from boardctl.hall.files import load_players
    from firmware.clock.timecontrol import TimeControl
    from firmware.rules.sets import find_rules
    from firmware.tournament.state import Tournament, from_json, to_json

    if args.state.exists() and not args.force:
        raise BoardError(f"{args.state}: exists already (--force to start again)")
    players = load_players(args.players)
    rules = find_rules(args.rules).name
    if args.time_control is not None:
        TimeControl.parse(args.time_control)
    t = Tournament(players, args.event, args.site, args.date, rules, args.time_control,
                   2 if args.double else 1)
    t = from_json(to_json(t))  # the same checks as reading the file: sizes, names, texts
    _save(args, t)
    print(f"{len(players)} players, {t.rounds} rounds; next: boardctl hall draw")
    return 0


def run_draw(args: argparse.Namespace) -> int:
    from firmware.tournament.players import draw_numbers

    t = _load(args)
    if t.started:
        raise TournamentError("the numbers cannot be drawn again once a round has started")
    rng = random.Random(args.seed) if args.seed is not None else random.SystemRandom()
    t.numbers = draw_numbers([p.name for p in t.players], rng)
    _save(args, t)
    for number, name in sorted(t.by_number().items()):
        print(f"{number:3d}  {name}")
    return 0


def run_pairings(args: argparse.Namespace) -> int:
    t = _load(args)
    rounds = [t.check_round(args.round)] if args.round is not None else range(1, t.rounds + 1)
    gone = t.withdrawn()
    for rnd in rounds:
        games, bye = t.games(rnd)
        print(f"Round {rnd}")
        for g in games:
            note = ""
            if any(n in gone and rnd > gone[n] for n in (g.white, g.black)):
                note = "  (withdrawn, not played: 1953 rules §38)"
            print(f"  board {g.board}: {g.white} - {g.black}{note}")
        if bye is not None:
            print(f"  free: {bye}")
    return 0


def run_boards(args: argparse.Namespace) -> int:
    from firmware.tournament.state import BOARD_NAME

    t = _load(args)
    for name in args.names:
        if not BOARD_NAME.fullmatch(name):
            raise TournamentError(f"board name {name[:40]!r} must match [A-Za-z0-9_-]+")
    if len(set(args.names)) != len(args.names):
        raise TournamentError("a board is named twice")
    needed = len(t.players) // 2
    if len(args.names) < needed:
        raise TournamentError(f"{len(args.names)} boards named; a round has {needed} games")
    t.boards = list(args.names)
    _save(args, t)
    print(f"{len(t.boards)} boards: {' '.join(t.boards)}")
    return 0


def run_start_round(args: argparse.Namespace) -> int:
    from firmware.tournament.setup import round_setups

    t = _load(args)
    messages = round_setups(t, args.hall, t.check_round(args.round))
    count, where = _publish(args, [(m.topic, m.payload) for m in messages])
    if args.dry_run:
        return 0
    if args.round not in t.started:
        t.started = sorted({*t.started, args.round})
        _save(args, t)
    print(f"round {args.round}: {count} setups published to {where} (hall {args.hall})")
    return 0


def run_clear_setups(args: argparse.Namespace) -> int:
    from firmware.tournament.setup import clear_messages

    count, where = _publish(args, clear_messages(_load(args), args.hall))
    if not args.dry_run:
        print(f"{count} setups cleared on {where} (hall {args.hall})")
    return 0


def run_result(args: argparse.Namespace) -> int:
    from firmware.tournament.results import parse_result

    t = _load(args)
    rnd = t.check_round(args.round)
    white, black = t.player(args.white).name, t.player(args.black).name
    games, _ = t.games(rnd)
    game = next((g for g in games if {g.white, g.black} == {white, black}), None)
    if game is None:
        raise TournamentError(f"{white} and {black} are not paired in round {rnd}")
    key = (rnd, game.white, game.black)
    if args.result.strip().lower() == "clear":
        t.entries.pop(key, None)
    else:
        res = parse_result(args.result)
        t.entries[key] = res if game.white == white else res.reversed()
    _save(args, t)
    shown = t.entries[key].text if key in t.entries else "cleared"
    print(f"round {rnd}: {game.white} - {game.black} {shown}")
    return 0


def run_withdraw(args: argparse.Namespace) -> int:
    from firmware.tournament.state import Withdrawal

    t = _load(args)
    name = t.player(args.name).name
    if not 0 <= args.after_round <= t.rounds:
        raise TournamentError(f"--after-round: 0-{t.rounds}")
    if args.after_round == 0 and not t.started and len(t.players) % 2 == 1 and \
            len(t.players) > 3:
        # §38: left after the drawing, before the start, with an odd number of players: a new
        # drawing shortens the tournament by a round.
        t.players = [p for p in t.players if p.name != name]
        t.numbers = {}
        _save(args, t)
        print(f"{name} removed before the start; draw again (1953 rules §38): "
              "boardctl hall draw")
        return 0
    t.withdrawals = [w for w in t.withdrawals if w.name != name]
    t.withdrawals.append(Withdrawal(name, args.after_round))
    _save(args, t)
    print(f"{name} withdrew after round {args.after_round} (1953 rules §38)")
    return 0


def run_crosstable(args: argparse.Namespace) -> int:
    from boardctl.durable import write_atomically
    from boardctl.hall.files import build_crosstable
    from firmware.tournament.crosstable import render_csv, render_html, render_text

    t = _load(args)
    table = build_crosstable(t, args.games)
    if args.csv is not None:
        write_atomically(args.csv, render_csv(t, table))
    if args.html is not None:
        write_atomically(args.html, render_html(t, table))
    sys.stdout.write(render_text(t, table))
    return 0
