"""What the terminal tells of the engine's side besides its move: a ``not-engine-move`` as an
irregularity, its errors (and its side handed back to the person), a hint; from ``status``
answers (play, watch --state-dir) and from feed lines (watch over MQTT). And ``play``'s
prompt against the engine: a move for the engine refused while it thinks, a move on the
board but not taken said so (never "made"). Fake answers, no processes."""

from __future__ import annotations

from typing import Any

from support.records_helpers import typed

from boardctl.terminal.app import notices_text
from boardctl.terminal.play import Hand
from boardctl.terminal.status import apply_status
from boardctl.terminal.view import BoardView

FEN = "B:Wa1,c1,e1,g1,b2,d2,f2,h2,a3,d4,e3,g3:Bb6,d6,f6,h6,a7,c7,e7,g7,b8,d8,f8,h8"
BASE: dict[str, Any] = {"game": "g1", "rules": "russian", "turn": "black", "time_control": None,
                        "clock": None, "running": None, "irregularity": None,
                        "moves": ["c3-d4"], "fen": FEN, "ply": 1}
MOVE = {"ply": 2, "side": "black", "move": "d6-c5", "route": ["d6", "c5"], "captured": []}


def _engine(**extra: Any) -> dict[str, Any]:
    return {"name": "builtin", "side": "black", "thinking": False, "move": None,
            "irregularity": None, "error": None, "hint": None, "handed_back": False, **extra}


def test_status_tells_a_wrong_move_an_error_a_hand_back_and_a_hint() -> None:
    view = BoardView()
    apply_status(view, {**BASE, "leds": {}, "engine": _engine(thinking=True)}, 0.0)
    wrong = {"kind": "not-engine-move", "squares": ["c5", "d6", "f6", "g5"]}
    leds = {"c5": "restore", "d6": "remove", "f6": "restore", "g5": "wrong"}
    said = apply_status(view, {**BASE, "leds": leds,
                               "engine": _engine(move=MOVE, irregularity=wrong)}, 0.0)
    assert "irregularity: not-engine-move (black): c5, d6, f6, g5" in said
    assert "Irregularity: not-engine-move" in notices_text(view).plain
    said = apply_status(view, {**BASE, "leds": {}, "engine": _engine(move=MOVE)}, 0.0)
    assert "the board is right again" in said
    said = apply_status(view, {**BASE, "leds": {}, "engine": _engine(error="engine x exited")},
                        0.0)
    assert said == ["engine: engine x exited"]
    assert "Engine: engine x exited" in notices_text(view).plain
    said = apply_status(view, {**BASE, "leds": {}, "engine": _engine(
        error="engine x exited", handed_back=True)}, 0.0)
    assert len(said) == 1 and "make its moves yourself and press its clock" in said[0]
    said = apply_status(view, {**BASE, "moves": ["c3-d4", "d6-c5"], "turn": "white",
                               "leds": {"d4": "must-move", "b6": "last-move"},
                               "engine": _engine(hint="d4xb6")}, 0.0)
    assert "engine: answering again" in said
    assert "hint: d4xb6 (LEDs: d4 must move, b6 last move)" in said
    assert "Hint: d4xb6" in notices_text(view).plain
    assert apply_status(view, {**BASE, "moves": ["c3-d4", "d6-c5"], "turn": "white",
                               "leds": {}, "engine": _engine(hint="d4xb6")}, 0.0) == []


def test_feed_lines_tell_the_engine_s_move_and_errors() -> None:
    view = BoardView()
    view.apply(typed({"type": "game", "rules": "russian", "time_control": None}), 0.0)
    view.apply(typed({"type": "move", "ply": 1, "side": "white", "move": "c3-d4"}), 0.0)
    said = view.apply(typed({"type": "engine-move", **MOVE}), 0.0)
    assert said == ["the engine plays 1... d6-c5: carry it out (LEDs: d6 must move, "
                    "c5 land here)"]
    said = view.apply(typed({"type": "engine", "error": "engine x hung", "handed_back": True}),
                      0.0)
    assert said[0].startswith("engine: engine x hung; it is out until a new game")
    assert view.apply(typed({"type": "engine", "error": 5}), 0.0) == []
    assert view.apply(typed({"type": "engine-move", "ply": "x", "move": "d6-c5"}), 0.0) == []
    view.apply(typed({"type": "move", "ply": 2, "side": "black", "move": "d6-c5"}), 0.0)
    assert view.engine_move is None and view.leds == {}


def test_the_engine_s_capture_on_100_squares_is_told_in_numbers_with_a_landing() -> None:
    """Issue 36: ``22x31`` was told ``b4 put back, c5 take off, d6 must move``: algebraic
    squares in a numbered game, and "put back" where nothing ever stood."""
    from boardctl.commands.control import describe
    from boardctl.engine.player import move_line, move_picture
    from firmware.rules.notation import parse_move
    from firmware.rules.position import Position

    position = Position.from_fen("international", "B:W27,45:B22")
    move = parse_move(position, "22x31")
    leds = move_picture(position, move, 0)  # the LEDs as the service shows them
    line = move_line(position, move, 1)
    status = {"game": "g2", "rules": "international", "turn": "black", "moves": [],
              "fen": position.fen(), "ply": 0, "leds": leds, "clock": None,
              "engine": _engine(move=line.members())}
    said = apply_status(BoardView(), status, 0.0)
    assert said[-1].endswith("22x31: carry it out (LEDs: 22 must move, 31 land here, "
                             "27 take off)")
    view = BoardView()
    view.apply(typed({"type": "game", "rules": "international", "fen": position.fen()}), 0.0)
    said = view.apply(line, 0.0)  # watch over the feed
    assert said[0].endswith("22x31: carry it out (LEDs: 22 must move, 31 land here, "
                            "27 take off)")
    assert "LEDs: 22 must move, 31 land here, 27 take off" in describe(status)  # status


def test_lit_squares_of_8x8_stay_algebraic_and_odd_names_pass() -> None:
    from boardctl.terminal.view import led_words, square_names

    assert led_words("russian", {"c5": "land", "d6": "must-move", "b4": "remove"}) == \
        "d6 must move, c5 land here, b4 take off"
    assert square_names("international", ["b4", "a1", "zz", 7]) == ["31", "46", "zz", "7"]
    assert square_names(None, ["b4"]) == ["b4"] and square_names("nonsense", ["b4"]) == ["b4"]


class FakeClient:
    """The control socket as play's hand sees it: answers from a script, acts recorded."""

    def __init__(self, answers: list[dict[str, Any]]) -> None:
        self.answers = answers
        self.acts: list[tuple[str, dict[str, Any]]] = []

    def ask(self, cmd: str, **args: Any) -> dict[str, Any]:
        if cmd == "status":
            return self.answers.pop(0) if len(self.answers) > 1 else self.answers[0]
        self.acts.append((cmd, args))
        return {"ok": True}


def test_a_move_for_the_engine_while_it_thinks_is_refused_with_nothing_done() -> None:
    client = FakeClient([{**BASE, "leds": {}, "engine": _engine(thinking=True)}])
    answer = Hand(client).line("d6-c5")  # type: ignore[arg-type]
    assert "the engine is still thinking" in answer and client.acts == []


def test_a_move_not_taken_is_never_said_made() -> None:
    wrong = {"kind": "not-engine-move", "squares": ["c5", "d6", "f6", "g5"]}
    client = FakeClient([{**BASE, "leds": {}, "engine": _engine(move=MOVE)},
                         {**BASE, "leds": {}, "engine": _engine(move=MOVE)},
                         {**BASE, "leds": {}, "engine": _engine(move=MOVE, irregularity=wrong)}])
    answer = Hand(client).line("f6-g5")  # type: ignore[arg-type]
    assert answer == ("f6-g5 is on the board but not taken: not-engine-move (the LEDs show "
                      "what to fix)")
    assert [a[1].get("square") for a in client.acts] == ["f6", "g5"]  # no press for it
    client = FakeClient([{**BASE, "leds": {}, "engine": _engine(move=MOVE)},
                         {**BASE, "leds": {}, "ply": 2, "engine": _engine()}])
    assert Hand(client).line("d6-c5") == "d6-c5 made"  # type: ignore[arg-type]
