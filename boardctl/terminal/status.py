"""The control socket's ``status`` answer (boardctl.service.arbiter.status) into a
:class:`boardctl.terminal.view.BoardView`, with the sentences of what changed since the last
one: the same sentences feed records give, so ``--plain`` reads alike from either source."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from boardctl.terminal.view import MAX_MOVES, BoardView, analysis_text, irregularity_text


def apply_status(view: BoardView, status: Mapping[str, Any], now: float) -> list[str]:
    """``status`` in; the sentences of what it changed. ``view.version`` moves only when
    something drawn (the clocks' ticking aside) changed."""
    said: list[str] = []
    before = _drawn(view)
    game = status.get("game")
    if isinstance(game, str) and game != view.game:
        if view.game is not None:
            said.append(f"new game: {status.get('rules')}, time control "
                        f"{status.get('time_control') or 'none'}")
        view.moves = []
        view.result = None
    tags = status.get("tags")
    view.tags = {str(k): str(v) for k, v in tags.items()} if isinstance(tags, Mapping) else {}
    if isinstance(game, str):
        view.game = game
    if isinstance(status.get("board"), str):
        view.board = status["board"]
    if status.get("time_control") != view.time_control:
        view._set_time_control(status.get("time_control"))
    if status.get("fen") != view.fen:
        problem = view.set_position(status.get("rules"), status.get("fen"))
        if problem:
            said.append(problem)
    moves = status.get("moves")
    if isinstance(moves, list):
        said += _new_moves(view, [str(m) for m in moves[:MAX_MOVES]], status, now)
    view._read_clock(status.get("clock"), status.get("running"), now)
    leds = status.get("leds")
    view.leds = {str(k): str(v) for k, v in leds.items()} if isinstance(leds, Mapping) else {}
    said += _notices(view, status)
    if _drawn(view) != before:
        view.version += 1
    return said


def _new_moves(view: BoardView, moves: list[str], status: Mapping[str, Any],
               now: float) -> list[str]:
    said: list[str] = []
    kept = 0
    for old, new in zip(view.moves, moves, strict=False):
        if old != new:
            break
        kept += 1
    if kept < len(view.moves):  # plies taken back (the same game: a new one starts empty)
        del view.moves[kept:]
        said.append(f"taken back: {kept} plies left")
    if not view.moves and moves:
        # the side of the first move: the side to move now, counted back
        turn = str(status["turn"]) if status.get("turn") in ("white", "black") else "white"
        view.first_side = turn if len(moves) % 2 == 0 else ("black" if turn == "white"
                                                             else "white")
    for move in moves[len(view.moves):]:
        view.moves.append(move)
        side = view.first_side if len(view.moves) % 2 == 1 else (
            "black" if view.first_side == "white" else "white")
        said.append(f"{view.last_move()} by {side}")
    if said and isinstance(status.get("clock"), Mapping):
        view._read_clock(status.get("clock"), status.get("running"), now)
        said[-1] += f"; {view.times_text(now)}"
    return said


def _notices(view: BoardView, status: Mapping[str, Any]) -> list[str]:
    said: list[str] = []
    kind, side = status.get("irregularity"), None
    engine = status.get("engine")
    if not isinstance(kind, str) and isinstance(engine, Mapping) and isinstance(
            engine.get("irregularity"), Mapping):  # the board shows another move than its
        kind, side = engine["irregularity"].get("kind"), engine.get("side")
    squares = sorted(view.square_names(list(view.leds)), key=lambda sq: (len(sq), sq))
    text = irregularity_text(kind[:40], side, squares) if isinstance(kind, str) else None
    if text != view.irregularity:
        if text is not None:
            said.append(f"irregularity: {text}")
        elif view.irregularity is not None:
            said.append("the board is right again")
        view.irregularity = text
    result = status.get("result")
    text = f"{result} ({status.get('reason') or 'no reason given'})" if isinstance(
        result, str) else None
    if text != view.result:
        if text is not None:
            said.append(f"result {text}")
        view.result = text
    alarm = status.get("alarm")
    alarm = str(alarm)[:300] if alarm else None
    if alarm != view.alarm:
        said.append(f"ALARM: {alarm}" if alarm else "alarm over: the journal is written again")
        view.alarm = alarm
    warnings = _warnings(status)
    if warnings != view.warnings:
        if warnings:
            said.append(f"hardware: {', '.join(warnings)}")
        view.warnings = warnings
    said += _engine(view, status)
    said += _analysis(view, status)
    adjourned = bool(status.get("adjourned"))
    if adjourned != view.adjourned:
        said.append("adjourned: a sealed move stands" if adjourned else "adjournment over")
        view.adjourned = adjourned
    return said


def _engine(view: BoardView, status: Mapping[str, Any]) -> list[str]:
    """The engine's move waiting to be carried out (boardctl run --engine), with the LEDs
    that show it."""
    engine = status.get("engine")
    move = engine.get("move") if isinstance(engine, Mapping) else None
    text = None
    if (isinstance(move, Mapping) and isinstance(move.get("move"), str)
            and move.get("ply") == len(view.moves) + 1):
        text = f"{view.move_number(len(view.moves))} {move['move'][:40]}"
    said = _engine_says(view, engine) if isinstance(engine, Mapping) else []
    if text == view.engine_move:
        return said
    view.engine_move = text
    if text is None:
        return said
    return said + [f"the engine plays {text}: carry it out"
                   + (f" (LEDs: {view.led_text()})" if view.leds else "")]


def _engine_says(view: BoardView, engine: Mapping[str, Any]) -> list[str]:
    """The engine's error (and its side handed back), and a hint, each told once."""
    said = []
    error = engine.get("error")
    text = None
    if isinstance(error, str) and error:
        text = error[:200]
        if engine.get("handed_back"):
            text += ("; it is out until a new game: make its moves yourself and press "
                     "its clock")
    if text != view.engine_error:
        view.engine_error = text
        said.append(f"engine: {text}" if text else "engine: answering again")
    hint = engine.get("hint")
    hint = hint[:40] if isinstance(hint, str) and hint else None
    if hint != view.engine_hint:
        view.engine_hint = hint
        if hint:
            said.append(f"hint: {hint}"
                        + (f" (LEDs: {view.led_text()})" if view.leds else ""))
    return said


def _analysis(view: BoardView, status: Mapping[str, Any]) -> list[str]:
    """The engine's latest analysis line (boardctl run --analyse), told when it changes."""
    analysis = status.get("analysis")
    line = analysis.get("line") if isinstance(analysis, Mapping) else None
    text = None
    if isinstance(line, Mapping):
        ply, score, best, depth = (line.get(k) for k in ("ply", "score", "best", "depth"))
        win = line.get("win")
        if (isinstance(ply, int) and isinstance(score, int) and isinstance(depth, int)
                and isinstance(best, list)):
            text = analysis_text(view, ply, score, [str(m) for m in best], depth,
                                 win if isinstance(win, int) else None)
    if text == view.analysis:
        return []
    view.analysis = text
    return [f"analysis {text}"] if text is not None else []


def _warnings(status: Mapping[str, Any]) -> list[str]:
    """Degraded hardware and the feed port's losses, as the status tells them."""
    out = []
    missing = status.get("missing")
    if isinstance(missing, list):
        out += [f"missing: {str(m)[:60]}" for m in missing[:8]]
    port = status.get("feed_port")
    if isinstance(port, Mapping):
        if port.get("connected") is False:
            out.append("feed port: not connected")
        if isinstance(port.get("dropped"), int) and port["dropped"] > 0:
            out.append(f"feed port: {port['dropped']} lines dropped")
    broker = status.get("broker")
    if isinstance(broker, Mapping) and broker.get("state") not in (None, "ready"):
        out.append(f"broker: {str(broker.get('state'))[:30]}"
                   + (f" ({str(broker['error'])[:80]})" if broker.get("error") else ""))
    return out


def _drawn(view: BoardView) -> tuple[Any, ...]:
    return (view.fen, len(view.moves), view.running, tuple(sorted(view.leds.items())),
            view.irregularity, view.result, view.alarm, tuple(view.warnings), view.adjourned,
            view.board, view.time_control, view.engine_move, view.engine_error,
            view.engine_hint, view.analysis)
