"""Who plays the board's other side, for ``boardctl run``: the options of each kind of player
not at the board (the computer, the analysing engine, training, an opponent online or on
another board) and the lineup that seats it through the player door
(boardctl.service.door). :func:`add_player_options` adds the options; :func:`player_lineup`
gives the one lineup the options ask for (each refusing what it cannot be combined with, in
one line, before anything starts), or None."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from firmware.errors import BoardError

if TYPE_CHECKING:
    from boardctl.service.door import Lineup, Seat
    from boardctl.settings import Settings
    from firmware.rules.sets import RuleSet

#: The service's control path (``new`` games an opponent starts): a request, its answer.
Request = Callable[[dict[str, Any]], dict[str, Any]]


def add_player_options(p: argparse.ArgumentParser) -> None:
    """The players' option groups of ``boardctl run``."""
    _add_engine(p)
    _add_training(p)
    _add_opponent(p)


def player_lineup(args: argparse.Namespace, config: Settings, rules: RuleSet, state_dir: Path,
                  request: Request) -> Lineup | None:
    """The lineup of the player the options ask for: an opponent (``request``: the service's
    control path, for the new games it starts), the analysing engine, training, the computer;
    None: the person plays both sides."""
    return (_opponent_lineup(args, config, rules, request)
            or _analysis_lineup(args, config, rules) or _training_lineup(args, rules, state_dir)
            or _engine_lineup(args, config, rules))


def _add_engine(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("playing the computer (docs/ENGINE.md)")
    g.add_argument("--engine", metavar="ENGINE",
                   help="make the computer a player: builtin or hub:COMMAND (config [engine])")
    g.add_argument("--engine-side", choices=("white", "black"),
                   help="the engine's colour (default black)")
    g.add_argument("--engine-level", metavar="LEVEL",
                   help="the built-in engine's level, 1-10 or beginner, easy, medium, hard, "
                   "full (default 10, full: at most 8 s a move; docs/ENGINE.md)")
    g.add_argument("--engine-move-time", type=float, metavar="S",
                   help="seconds a move (default: from the engine's clock)")
    _add_analyse(g)


def _add_analyse(g: argparse._ArgumentGroup) -> None:
    g.add_argument("--analyse", action="store_true",
                   help="analysis: no clock; every position on the board studied by the engine "
                   "(--engine, default builtin): its score and best line on the feed, in "
                   "status and watch, the score on the clock faces, the best move on the LEDs "
                   "at a press; moves taken back by restoring the board (docs/ENGINE.md)")


def _analysis_lineup(args: argparse.Namespace, config: Settings,
                     rules: RuleSet) -> Lineup | None:
    """``--analyse``: the engine studying each game (boardctl.engine.analysis), or None.
    What an analysis cannot have (a clock, the engine's side, level or time) refused here."""
    if not getattr(args, "analyse", False):
        return None
    from boardctl.engine.analysis import AnalysisLineup
    from boardctl.engine.client import parse_engine

    for flag in ("time_control", "engine_side", "engine_level", "engine_move_time"):
        if getattr(args, flag) is not None:
            raise BoardError(f"--analyse takes no --{flag.replace('_', '-')} (an analysis has "
                             "no clock and the engine plays no side)")
    for flag in ("train", "puzzles"):
        if getattr(args, flag, None) is not None:
            raise BoardError(f"--analyse and --{flag} are two modes: choose one")
    engine = args.engine or config.engine.engine or "builtin"
    parse_engine(engine, rules.name)  # an unknown engine: one line, now
    return AnalysisLineup(engine)


def _add_training(p: argparse.ArgumentParser) -> None:
    t = p.add_argument_group("training on the board (docs/TRAINING.md)")
    t.add_argument("--train", type=Path, metavar="FILE.pdn",
                   help="guess the moves of a master game of this PDN file: the other side's "
                   "moves are shown on the LEDs, a wrong guess is taken back, after three the "
                   "master's move is shown")
    t.add_argument("--train-game", type=int, metavar="N",
                   help="the game of --train's file to guess (1-based; default the first)")
    t.add_argument("--train-side", choices=("white", "black"),
                   help="the side whose moves you guess (default white)")
    t.add_argument("--puzzles", type=Path, metavar="FILE.pdn",
                   help="solve the puzzles of this PDN file (its games with a FEN tag; the "
                   "LEDs guide the setup; the next puzzle on a clock press; the board's own "
                   "set: boardctl/data/puzzles/)")


def _add_opponent(p: argparse.ArgumentParser) -> None:
    from boardctl.online.settings import HELP

    o = p.add_argument_group("an opponent not at the board (docs/ONLINE.md)")
    o.add_argument("--opponent", metavar="WHO", help="lidraughts (its Bot API: the "
                   "--online-* options) or board:NAME (another board on the hall's broker); "
                   "config [online] opponent")
    o.add_argument("--opponent-side", choices=("white", "black"), help="with board:NAME: "
                   "the other board's colour, as --engine-side is the engine's (default "
                   "black; the other board is started with the other colour)")
    for flag, text in HELP.items():
        o.add_argument(flag, metavar=flag.rsplit("-", 1)[-1].upper(), help=text)


def _opponent_lineup(args: argparse.Namespace, config: Settings, rules: RuleSet,
                     request: Request) -> Lineup | None:
    """The opponent's lineup (boardctl.opponents.lineup) for ``--opponent`` (or the config's
    ``[online]``), None without one; its settings checked here, before anything starts (a
    token that the server refuses is one line later, and the board plays on offline)."""
    section = config.online
    who = args.opponent or section.opponent
    online = ("online_token_file", "online_url", "online_accept", "online_challenge",
              "online_time_control", "online_numbering")
    if not who:
        for flag in (*online, "opponent_side"):
            if getattr(args, flag, None) is not None:
                raise BoardError(f"--{flag.replace('_', '-')} needs --opponent")
        return None
    if args.engine or config.engine.engine or getattr(args, "analyse", False):
        raise BoardError("--opponent and --engine (or --analyse) are two players for one "
                         "side: give one")
    for flag in ("train", "puzzles"):
        if getattr(args, flag, None) is not None:
            raise BoardError(f"--opponent and --{flag} are two modes: choose one")
    from boardctl.opponents.lineup import OpponentLineup

    if who == "lidraughts":
        from boardctl.online.errors import OnlineError
        from boardctl.online.settings import OnlineSettings
        from boardctl.online.transport import DEFAULT_URL
        from boardctl.opponents.lidraughts import LidraughtsPlayer

        token_file = args.online_token_file or section.token_file
        if not token_file:
            raise BoardError("--opponent lidraughts needs --online-token-file (the BOT "
                             "account's token; docs/ONLINE.md)")
        try:
            settings = OnlineSettings.from_options(
                token_file,
                url=args.online_url or section.url or DEFAULT_URL,
                accept=args.online_accept or section.accept,
                challenge=args.online_challenge or section.challenge or None,
                time_control=args.online_time_control or section.time_control or None,
                rules=rules.name, numbering=args.online_numbering or section.numbering)
        except OnlineError as exc:
            raise BoardError(str(exc)) from None
        return OpponentLineup(lambda seat: LidraughtsPlayer(settings, seat, request))
    return _board_lineup(args, config, who)


def _board_lineup(args: argparse.Namespace, config: Settings, who: str) -> Lineup:
    """``--opponent board:NAME``: the other board of the hall (boardctl.opponents.board)."""
    from boardctl.hall.board import broker_settings
    from boardctl.hall.mqtt import check_name
    from boardctl.opponents.board import BoardOpponent, PeerFeed
    from boardctl.opponents.lineup import OpponentLineup
    from firmware.rules.sets import Side

    if not who.startswith("board:"):
        raise BoardError(f"--opponent {who[:80]!r}: not lidraughts or board:NAME")
    other = check_name(who[6:], "--opponent board:NAME")
    settings = broker_settings(args, config.broker, config.source)
    if settings is None:
        raise BoardError("--opponent board:NAME needs the hall's broker (--broker, --hall, "
                         "--board)")
    if other == settings.board:
        raise BoardError(f"--opponent board:{other}: that is this board")
    theirs = Side(args.opponent_side or config.online.side)

    def make(seat: Seat) -> BoardOpponent:
        feed = PeerFeed(settings.broker, settings.hall, settings.board, other, seat.wake)
        return BoardOpponent(feed, other, theirs, seat)

    return OpponentLineup(make)


def _engine_lineup(args: argparse.Namespace, config: Settings, rules: RuleSet) -> Lineup:
    """The computer's lineup (boardctl.engine.lineup): ``--engine`` (or the config's
    ``[engine]``) for the first game, or nobody; each ``new`` may choose again, a Hub engine
    only from the config's ``[engine] allowed`` (the one given here is allowed too). Checked
    here, before anything starts."""
    import math

    from boardctl.engine.client import parse_engine
    from boardctl.engine.lineup import EngineChoice, EngineLineup
    from boardctl.engine.player import check_side
    from firmware.engine.levels import find_level

    section = config.engine
    text = args.engine or section.engine
    if not text:
        for flag in ("engine_side", "engine_level", "engine_move_time"):
            if getattr(args, flag) is not None:
                raise BoardError(f"--{flag.replace('_', '-')} needs --engine")
    level = args.engine_level or section.level
    find_level(level)  # a one-line error before anything starts
    move_time = args.engine_move_time if args.engine_move_time is not None else (
        section.move_time or None)
    if move_time is not None and not (math.isfinite(move_time) and 0.01 <= move_time <= 3600):
        raise BoardError(f"--engine-move-time must be between 0.01 and 3600 s, not {move_time}")
    if text:
        parse_engine(text, rules.name, str(level))  # an unknown engine: one line, now
    side = check_side(args.engine_side or section.side)
    return EngineLineup(EngineChoice(text or None, side, str(level), move_time),
                        allowed=section.allowed)


def _training_lineup(args: argparse.Namespace, rules: RuleSet,
                     state_dir: Path) -> Lineup | None:
    """``--train`` or ``--puzzles`` (boardctl.training): the file read and checked here, before
    anything starts; the session's PDN goes to STATE_DIR/training/. None: no training."""
    import time

    from boardctl.training.lineup import TrainingLineup
    from boardctl.training.players import GuessPlayer, PuzzlePlayer
    from boardctl.training.score import SessionFile
    from boardctl.training.source import pick_line, puzzle_lines, read_lines
    from firmware.rules.sets import Side

    if args.train is None:
        for flag in ("train_game", "train_side"):
            if getattr(args, flag) is not None:
                raise BoardError(f"--{flag.replace('_', '-')} needs --train")
    if args.train is None and args.puzzles is None:
        return None
    if args.train is not None and args.puzzles is not None:
        raise BoardError("--train and --puzzles: one training at a time")
    if args.engine:
        raise BoardError("--engine and training: the training plays the other side itself")
    stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime())
    if args.train is not None:
        line = pick_line(read_lines(args.train, rules, option="--train"), args.train_game,
                         args.train)
        side = Side(args.train_side or "white")
        file = SessionFile(state_dir / "training" / f"train-{stamp}.pdn")
        return TrainingLineup(lambda seat: GuessPlayer(seat, line, side, file), rules.name)
    puzzles = puzzle_lines(read_lines(args.puzzles, rules, option="--puzzles"), args.puzzles)
    file = SessionFile(state_dir / "training" / f"puzzles-{stamp}.pdn")
    return TrainingLineup(lambda seat: PuzzlePlayer(seat, puzzles, file), rules.name)
