"""The arbiter's commands to a running board service, over its Unix socket.

``boardctl new|start|status|pause|resume|clock-set|moves-set|accept|adjourn|resume-adjourned|
result|takeback|pdn|sim|hint|resign|offer-draw|decline-draw``; each sends one request
(boardctl.service.control) and prints the answer. When the service is not running, a
one-line error says so (exit 2).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

TAGS = ("event", "site", "date", "round", "board", "white", "black")
#: How long ``new`` waits for its answer when it chooses an engine (started once for its name).
NEW_ENGINE_S = 30.0


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--socket", type=Path, help="the service's control socket "
                   "(default $BOARDCTL_SOCKET, else /run/boardctl/control.sock)")
    p.add_argument("--state-dir", type=Path,
                   help="the service's state directory (its socket is STATE_DIR/control.sock)")
    p.add_argument("--json", action="store_true", help="print the service's whole answer")


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Add the control commands."""
    _register_new(sub)
    _register_acts(sub)


def _register_new(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("new", help="set up a new game on the running board",
                       description="Set up the next game on the running board: its rules, "
                       "clock and start position, and who plays the computer's side. What is "
                       "not given stays as it was, the computer included.")
    p.add_argument("--rules", help="rule set (default: the current game's)")
    p.add_argument("--time-control", help="time control, 'none' for no clock")
    p.add_argument("--fen", help="start position")
    for tag in TAGS:
        p.add_argument(f"--{tag}", help=f"PDN {tag.capitalize()} tag")
    p.add_argument("--force", action="store_true",
                   help="abandon a game in play (its journal is kept)")
    g = p.add_argument_group("playing the computer (docs/ENGINE.md); each kept for the games "
                             "after until changed")
    g.add_argument("--engine", metavar="ENGINE",
                   help="builtin, hub:COMMAND (a COMMAND the config's [engine] allowed "
                   "lists, or the one the service started with), or none: no engine "
                   "(default: the current game's)")
    g.add_argument("--engine-side", choices=("white", "black"),
                   help="the computer's colour (default: as before)")
    g.add_argument("--engine-level", metavar="LEVEL",
                   help="the built-in engine's level, 1-10 or a name (default: as before)")
    _common(p)
    p.set_defaults(func=run_control, cmd="new")


#: The requests that take no argument, and their help.
SIMPLE_ACTS = {
    "start": "start the game (the set-up is checked first; White's clock runs)",
    "status": "show the game, the clocks and the board",
    "pause": "stop the clocks",
    "resume": "restart the clocks",
    "accept": "let an irregularity stand: play on from the board as it is",
    "resume-adjourned": "resume an adjourned game: the sealed move is played",
    "pdn": "print the game so far as PDN",
    "hint": "against the engine (run --engine), in your turn: ask for a hint (the LEDs "
            "show it; so does status), with the best moves and their scores once known; "
            "analysing (run --analyse): the best moves now",
    "resign": "against the engine: resign the game",
    "offer-draw": "against the engine: offer a draw (it accepts when it is not better); "
                  "against lidraughts or another board: offer one, or take up the "
                  "opponent's (another board under the 1953 rules: only on your move, and "
                  "after an offer not accepted only once the opponent has offered one)",
    "decline-draw": "against lidraughts or another board: decline the opponent's draw "
                    "offer (your next move declines it too)",
}


def _register_acts(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    for name, text in SIMPLE_ACTS.items():
        p = sub.add_parser(name, help=text)
        _common(p)
        p.set_defaults(func=run_control, cmd=name)

    p = sub.add_parser("clock-set", help="correct a player's remaining time")
    p.add_argument("side", choices=("white", "black"))
    p.add_argument("time", help="remaining time: seconds, M:SS or H:MM:SS")
    _common(p)
    p.set_defaults(func=run_control, cmd="clock-set")

    p = sub.add_parser("moves-set", help="correct a player's move count")
    p.add_argument("side", choices=("white", "black"))
    p.add_argument("moves", type=int)
    _common(p)
    p.set_defaults(func=run_control, cmd="moves-set")

    p = sub.add_parser("adjourn", help="adjourn the game with a sealed move (kept secret)")
    p.add_argument("sealed", help="the sealed move, in the game's notation")
    _common(p)
    p.set_defaults(func=run_control, cmd="adjourn")

    p = sub.add_parser("takeback", help="take back the last PLIES plies (a misread): the "
                       "LEDs show the position to put back; the clocks stop")
    p.add_argument("plies", type=int)
    _common(p)
    p.set_defaults(func=run_control, cmd="takeback")

    p = sub.add_parser("result", help="record a result by agreement, resignation or arbiter")
    p.add_argument("result", help="PDN result: 2-0 1-1 0-2 (100 squares) or 1-0 1/2-1/2 0-1")
    p.add_argument("--reason", default="agreement",
                   choices=("agreement", "resignation", "arbiter", "forfeit", "time forfeit"))
    _common(p)
    p.set_defaults(func=run_control, cmd="result")

    _register_sim(sub)


def _register_sim(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("sim", help="the simulated hand (boardctl run --sim only): lift or "
                       "place a piece on SQUARE, press SIDE's clock or let go of it")
    p.add_argument("act", choices=("lift", "place", "press", "release"))
    p.add_argument("where", metavar="SQUARE|SIDE", help="a square such as c3 (lift, place); "
                   "white, black or pause (press, release)")
    p.add_argument("--hold-ms", type=int, metavar="MS", help="press: hold the button MS ms "
                   "(on the hand's clock; pause held 2000 opens the menus at 2 s, the "
                   "button still down, docs/MENUS.md)")
    p.add_argument("--keep-down", action="store_true", help="press: keep the button down "
                   "after its hold (`boardctl sim release SIDE` lets go)")
    _common(p)
    p.set_defaults(func=run_control, cmd="sim")


def parse_time(text: str) -> float:
    """``90``, ``1:30``, ``1:02:03`` or ``90.5`` -> seconds, read as the clock's script reads
    its times (``boardctl.commands.clock.parse_duration``); BoardError if it is no time."""
    from boardctl.commands.clock import parse_duration
    from firmware.formats.events import NS

    return parse_duration(text) / NS


def _request_args(args: argparse.Namespace) -> dict[str, Any]:
    cmd = args.cmd
    if cmd == "new":
        from boardctl.service.control import NULL

        tags = {t.capitalize(): getattr(args, t) for t in TAGS if getattr(args, t)}
        engine = NULL if args.engine is not None and args.engine.strip() == "none" \
            else args.engine
        return {"rules": args.rules, "time_control": args.time_control, "fen": args.fen,
                "tags": tags or None, "force": args.force or None, "engine": engine,
                "engine_side": args.engine_side, "engine_level": args.engine_level}
    if cmd == "clock-set":
        return {"side": args.side, "seconds": parse_time(args.time)}
    if cmd == "moves-set":
        return {"side": args.side, "moves": args.moves}
    if cmd == "adjourn":
        return {"sealed": args.sealed}
    if cmd == "takeback":
        return {"plies": args.plies}
    if cmd == "result":
        return {"result": args.result, "reason": args.reason}
    if cmd == "sim":
        where = "side" if args.act in ("press", "release") else "square"
        held = {"hold_ms": args.hold_ms} if args.hold_ms is not None else {}
        down = {"release": False} if args.keep_down else {}
        return {"type": args.act, where: args.where, **held, **down}
    return {}


def _draw_said(answer: dict[str, Any]) -> str:
    if answer.get("draw") == "offered" and answer.get("online"):  # with the next move
        return "draw offered: it goes to the opponent with your next move"
    if answer.get("draw") == "offered":  # another board (docs/ONLINE.md "Two boards")
        return "draw offered: it stands until the opponent answers or moves"
    if answer.get("draw") == "accepted" and "score" not in answer:
        return "draw accepted: the opponent's offer taken up"
    score = answer.get("score")
    said = "the engine accepts: drawn by agreement" if answer.get("draw") == "accepted" \
        else "the engine declines"
    return said + (f" (its evaluation: {score})" if score is not None else "")


def _declined_said(answer: dict[str, Any]) -> str:
    return "draw offer declined"


def _hint_said(answer: dict[str, Any]) -> str:
    """The hint, with its alternatives and their scores once the engine has them."""
    from boardctl.terminal.view import score_words

    if answer.get("hint") in (None, "asked") or not isinstance(answer.get("alternatives"),
                                                              list):
        return ("hint asked: the LEDs show it when the engine has it (boardctl status tells "
                "it too)")
    lines = [f"{alt.get('move')} ({score_words(alt['score'], alt.get('win'))})"
             for alt in answer["alternatives"][:8]
             if isinstance(alt, dict) and isinstance(alt.get("score"), int)]
    return f"hint: {answer['hint']}" + (f"; the best moves: {', '.join(lines)}"
                                        if lines else "")


#: What the requests to the engine's side print (their answers are no status).
ENGINE_SAID = {
    "hint": _hint_said,
    "resign": lambda answer: "resigned: the engine wins" if "online" not in answer
    else "resignation sent: the game ends when the server says so",
    "offer-draw": _draw_said,
    "decline-draw": _declined_said,
}


def _analysis_lines(analysis: dict[str, Any]) -> list[str]:
    """The analysis part of a status answer (boardctl run --analyse)."""
    from boardctl.terminal.view import score_words

    ident = analysis.get("id") or {}
    name = " ".join(str(ident[k]) for k in ("name", "version") if ident.get(k)) or \
        analysis.get("engine")
    lines = [f"analysis: {name}" + (", thinking" if analysis.get("thinking") else "")]
    line = analysis.get("line")
    if isinstance(line, dict) and isinstance(line.get("score"), int):
        best = " ".join(str(m) for m in (line.get("best") or [])[:12])
        lines.append(f"analysis of ply {line.get('ply')}: "
                     f"{score_words(line['score'], line.get('win'))} for the side to move, "
                     f"depth {line.get('depth')}" + (f": {best}" if best else ""))
    if analysis.get("error"):
        lines.append(f"engine error: {analysis['error']}")
    return lines


def _engine_lines(engine: dict[str, Any], rules: str | None) -> list[str]:
    """The engine's part of a status answer (boardctl run --engine)."""
    from boardctl.terminal.view import square_names

    ident = engine.get("id") or {}
    name = " ".join(str(ident[k]) for k in ("name", "version") if ident.get(k)) or \
        engine.get("name")
    lines = [f"engine: {name} plays {engine.get('side')}, level {engine.get('level')}"
             + (", thinking" if engine.get("thinking") else "")
             + (", its side handed back to you" if engine.get("handed_back") else "")]
    move = engine.get("move")
    if isinstance(move, dict):
        lines.append(f"engine's move to carry out: {move.get('move')}")
    if engine.get("irregularity"):
        lines.append("not the engine's move on the board: " + ", ".join(
            square_names(rules, engine["irregularity"].get("squares") or [])))
    if engine.get("hint"):
        lines.append(f"hint: {engine['hint']}")
    if engine.get("error"):
        lines.append(f"engine error: {engine['error']}")
    return lines


def _clock(seconds: float | None) -> str:
    if seconds is None:
        return "-"
    s = int(seconds)
    return f"{s // 3600}:{s % 3600 // 60:02d}:{s % 60:02d}"


def describe(answer: dict[str, Any]) -> str:
    """A status answer as a few lines for a terminal (squares in the rule set's notation)."""
    from boardctl.terminal.view import led_words

    lines = [f"game {answer.get('game')} on board {answer.get('board')}: {answer.get('rules')}"
             + (f", {answer['time_control']}" if answer.get("time_control") else "")]
    tags = answer.get("tags") or {}
    if tags.get("White") or tags.get("Black"):
        lines.append(f"{tags.get('White', '?')} - {tags.get('Black', '?')}")
    state = "over" if answer.get("result") else (
        "adjourned" if answer.get("adjourned") else (
            "in play" if answer.get("started") else "waiting for the start"))
    lines.append(f"ply {answer.get('ply')}, {answer.get('turn')} to move, {state}")
    clock = answer.get("clock")
    if isinstance(clock, dict):
        running = answer.get("running")
        lines.append(f"clock: white {_clock(clock.get('white'))}"
                     f"{' (running)' if running == 'white' else ''}, "
                     f"black {_clock(clock.get('black'))}"
                     f"{' (running)' if running == 'black' else ''}"
                     f"{'' if running else ', stopped'}")
    if isinstance(answer.get("engine"), dict):
        lines += _engine_lines(answer["engine"], answer.get("rules"))
    if isinstance(answer.get("analysis"), dict):
        lines += _analysis_lines(answer["analysis"])
    if answer.get("irregularity"):
        lines.append(f"irregularity: {answer['irregularity']}")
    if isinstance(answer.get("leds"), dict) and answer["leds"]:
        lines.append(f"LEDs: {led_words(answer.get('rules'), answer['leds'])}")
    if answer.get("result"):
        lines.append(f"result: {answer['result']} ({answer.get('reason')})")
    moves = answer.get("moves") or []
    if moves:
        tail = moves[-6:]
        lines.append("last moves: " + " ".join(tail))
    lines.append(f"fen: {answer.get('fen')}")
    broker = answer.get("broker")
    if isinstance(broker, dict):
        link = broker.get("state")
        lines.append(f"broker {broker.get('broker')} as {broker.get('hall')}/{broker.get('board')}"
                     f": {'REFUSED, the name is taken' if link == 'refused' else link}, "
                     f"{broker.get('queued')} lines queued, {broker.get('dropped')} dropped"
                     + (f" ({broker['error']})" if broker.get("error") else ""))
    page = answer.get("page")
    if isinstance(page, dict) and page.get("url"):  # the board's own page (docs/PAGE.md)
        lines.append("page: " + ", ".join(str(u) for u in page.get("urls") or [page["url"]]))
    return "\n".join(lines)


def run_control(args: argparse.Namespace) -> int:
    from boardctl.service.control import default_socket, request

    path = args.socket or default_socket(args.state_dir)
    request_args = _request_args(args)
    # an engine newly chosen is started once to read its name: give it time
    timeout = NEW_ENGINE_S if isinstance(request_args.get("engine"), str) else 5.0
    answer = request(path, args.cmd, timeout, **request_args)
    if args.json:
        print(json.dumps(answer, indent=2, sort_keys=True))
    elif args.cmd == "pdn":
        sys.stdout.write(str(answer.get("pdn", "")))
    elif args.cmd == "sim":
        print(f"{args.act} {args.where} at {answer.get('t')} s")
    elif args.cmd in ENGINE_SAID:
        print(ENGINE_SAID[args.cmd](answer))
    else:
        print(describe(answer))
    if answer.get("warning") and not args.json:
        print(f"boardctl: warning: {answer['warning']}", file=sys.stderr)
    return 0
