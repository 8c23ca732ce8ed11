"""The board page's state, made from the service's ``status`` answer (pure).

``GET /api/state`` answers it and the page's event stream pushes it (docs/PAGE.md)::

    {"game", "board", "rules", "size", "ply", "fen", "turn", "sq",
     "clock": {"white": ms, "black": ms, "running": "white"|"black"|null},
     "time_control", "white", "black", "started", "result", "reason", "adjourned",
     "moves": [PDN move, ...], "last": {"ply", "side", "move", "hl": [square numbers]} | null,
     "irregularity": NAME | null, "leds": {square: meaning}, "alarm": text | null,
     "opponent": null | {"kind": "engine"|"lidraughts"|"board", "side", ...},
       (an opponent not at the board: also "name", "link": "connecting"|"up"|"down"|"failed",
       "reason", "draw_offer": {"theirs", "mine"}, "playing")
     "engine": null | {"move", "thinking", "hint", "irregularity", "error", "handed_back"},
     "remote": null | {"ply", "side", "move", "route", "captured", "source"}}

``sq`` is the position for the diagram (boardctl.relay.live.diagram.pieces: one letter a dark
square in PDN order); clocks are whole milliseconds as CONTRACT.md says (``null`` without a time
control); ``engine`` is the engine's move to carry out, its hint and its state; ``remote`` the
last ``remote-move`` of the feed (an online opponent's, another board's, a training's) while it
is still to be carried out.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from boardctl.relay.live.diagram import move_squares, pieces, rule_set

#: A remote-move's source -> the opponent's kind (CONTRACT.md: ``lidraughts``, ``board``).
REMOTE_KINDS = {"lidraughts": "lidraughts", "board": "board"}
#: The engine's members the page shows.
ENGINE_SHOWN = ("name", "side", "level", "move", "thinking", "hint", "irregularity", "error",
                "handed_back")


def page_state(status: Mapping[str, Any], remote: Mapping[str, Any] | None = None
               ) -> dict[str, Any]:
    """The page's state from a ``status`` answer and the last ``remote-move`` line not yet
    carried out (None: none)."""
    rules_name = str(status.get("rules") or "")
    rules = rule_set(rules_name)
    moves = [str(m) for m in status.get("moves") or []]
    ply = _int(status.get("ply"), len(moves))
    given = status.get("tags")
    tags: Mapping[str, Any] = given if isinstance(given, Mapping) else {}
    fen = str(status.get("fen") or "")
    state: dict[str, Any] = {
        "game": status.get("game"), "board": status.get("board"), "rules": rules_name,
        "size": rules.size if rules is not None else 10, "ply": ply, "fen": fen,
        "turn": status.get("turn"), "sq": pieces(rules_name or None, fen or None),
        "clock": clock_ms(status), "time_control": status.get("time_control"),
        "white": str(tags.get("White") or ""), "black": str(tags.get("Black") or ""),
        "started": bool(status.get("started")), "result": status.get("result"),
        "reason": status.get("reason"), "adjourned": bool(status.get("adjourned")),
        "moves": moves, "last": last_move(rules_name, moves, ply, status.get("turn")),
        "irregularity": status.get("irregularity"), "leds": _leds(status.get("leds")),
        "alarm": status.get("alarm"),
    }
    engine = status.get("engine")
    state["engine"] = ({k: engine.get(k) for k in ENGINE_SHOWN}
                       if isinstance(engine, Mapping) else None)
    state["remote"] = dict(remote) if remote else None
    state["opponent"] = opponent(status, remote)
    return state


def clock_ms(status: Mapping[str, Any]) -> dict[str, Any]:
    """``{"white": ms, "black": ms, "running": side}``; the times None without a clock."""
    clock = status.get("clock")
    out: dict[str, Any] = {"white": None, "black": None, "running": status.get("running")}
    if isinstance(clock, Mapping):
        for side in ("white", "black"):
            value = clock.get(side)
            if isinstance(value, int | float) and not isinstance(value, bool):
                out[side] = round(value * 1000)
    return out


def last_move(rules_name: str, moves: list[str], ply: int,
              turn: Any) -> dict[str, Any] | None:
    """The last move as the diagram marks it: its ply, side (the one not to move now), text
    and squares."""
    if not moves:
        return None
    side = "black" if turn == "white" else "white"
    return {"ply": ply, "side": side, "move": moves[-1],
            "hl": move_squares(rules_name or None, moves[-1])}


def opponent(status: Mapping[str, Any], remote: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """Who plays the other side from off the board: the status's own ``opponent`` where the
    service names one, else its engine, else the source of the remote moves (None: two people
    at the board)."""
    online = status.get("online")
    if isinstance(online, Mapping):
        return lidraughts_opponent(online)
    named = status.get("opponent")
    if isinstance(named, Mapping):
        return board_opponent(named) if "board" in named else dict(named)
    engine = status.get("engine")
    if isinstance(engine, Mapping):
        return {"kind": "engine", "side": engine.get("side"), "level": engine.get("level"),
                "name": engine.get("name")}
    if remote:
        kind, _, name = str(remote.get("source") or "").partition(":")
        if kind in REMOTE_KINDS:
            side = remote.get("side")
            return {"kind": REMOTE_KINDS[kind], "side": side, "name": name or kind}
    return None


def lidraughts_opponent(online: Mapping[str, Any]) -> dict[str, Any]:
    """The lidraughts opponent from ``status``'s ``online``: the user the game is with (his
    side the person's other), the link's state, a draw offer standing, whether a game is in
    play (what resign and draw act on)."""
    game = online.get("game")
    game = game if isinstance(game, Mapping) else {}
    mine = game.get("side")
    side = {"white": "black", "black": "white"}.get(str(mine)) if mine else None
    name = game.get("opponent")
    return {"kind": "lidraughts", "side": side, "name": str(name) if name else None,
            "link": _text(online.get("link")), "reason": _text(online.get("reason")),
            "draw_offer": _offer(game.get("draw_offer")),
            "playing": bool(game) and not game.get("ended")}


def board_opponent(named: Mapping[str, Any]) -> dict[str, Any]:
    """The other board from ``status``'s ``opponent``: its name and side, its link (``down``
    while it is away or this board's subscriber is cut off), a draw offer standing."""
    here = named.get("connected") is True and named.get("peer") == "online"
    return {"kind": "board", "side": _text(named.get("side")), "name": _text(named.get("board")),
            "link": "up" if here else "down", "reason": None if here else _away(named),
            "draw_offer": _offer(named.get("draw_offer")), "playing": True}


def _away(named: Mapping[str, Any]) -> str:
    if named.get("connected") is not True:
        return "this board is cut off from the broker"
    return f"the other board is {_text(named.get('peer')) or 'unknown'}"


def _offer(value: Any) -> dict[str, bool]:
    offer = value if isinstance(value, Mapping) else {}
    return {"theirs": offer.get("theirs") is True, "mine": offer.get("mine") is True}


def _text(value: Any) -> str | None:
    return str(value)[:200] if value is not None else None


def _leds(value: Any) -> dict[str, str]:
    if not isinstance(value, Mapping):
        return {}
    return {str(sq): str(meaning) for sq, meaning in value.items()}


def _int(value: Any, default: int) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else default
