"""What the voice says about each feed record (issue 40 item 3.1), without espeak-ng: real
records from ``boardctl replay --format feed`` of shared games, moves read with their whole
route in the rule set's notation, the engine's and remote side's moves to carry out, the
irregularities' instructions, flags, 10 s left on an injected clock, results, pause and
resume, take-backs, and records that do not read."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import pytest
from voice_games import USSR1947, WK2003, played_game, short_game

from boardctl.voice.narrator import Narrator
from boardctl.voice.words import load
from firmware.rules.notation import move_text
from firmware.rules.position import Move, Position


def said(narrator: Narrator, records: list[dict[str, Any]], now: float = 0.0) -> list[str]:
    return [u.text for r in records for u in narrator.hear(r, now)]


def reading(position: Position, move: Move, side: str, capture: str = "takes",
            to: str = "to", then: str = "then") -> str:
    """The expected words, from the rules' own route (the narrator reads the feed's text)."""
    name = position.rules.square_name
    squares = [name(s) for s in move.route]
    text = f"{squares[0]} {capture if move.captured else to} {squares[1]}"
    text += "".join(f", {then} {s}" for s in squares[2:])
    return f"{side}: {text}" + (", and becomes a king" if move.promotes else "")


def test_a_short_game_in_english(tmp_path: Path) -> None:
    game = short_game(tmp_path)
    assert said(Narrator(load("en")), game.records) == [
        "New game: international draughts",
        "White: 32 to 28", "Black: 17 to 22", "White: 28 takes 17", "Black: 12 takes 21",
        "White: 31 to 26",
        "The computer plays 7 to 12",  # its move record after it is not said again
        "A capture was missed: capturing is compulsory. Put a piece back on 33. A piece "
        "stands wrongly on 22. The piece on 26 must move",
        "The board is right again",
        "White's flag has fallen. Black wins",
    ]


def test_the_same_game_in_each_language(tmp_path: Path) -> None:
    records = short_game(tmp_path).records
    first = {lang: said(Narrator(load(lang)), records) for lang in ("et", "ru", "nl", "fr")}
    assert first["et"][1] == "Valge: 32, 28" and first["et"][3] == "Valge: 28 lööb 17"
    assert first["ru"][1] == "Белые: 32 — 28" and first["ru"][3] == "Белые: 28 бьёт 17"
    assert first["nl"][0] == "Nieuwe partij: dammen" and first["nl"][3] == "Wit: 28 slaat 17"
    assert first["fr"][3] == "Les blancs : 28 prend 17"
    assert first["ru"][-1] == "У белых упал флажок. Чёрные выиграли"
    assert first["nl"][-1] == "De vlag van wit is gevallen; Zwart wint"
    assert all(len(texts) == 10 for texts in first.values())


def test_multi_captures_are_read_step_by_step(tmp_path: Path) -> None:
    """40 plies of WK 2003 game 1: every move as its route says, ``13x33`` (ply 36) with its
    landing square between (the feed writes start and end only)."""
    game = played_game(tmp_path, WK2003, "international", 40)
    expected, p = [], game.start
    for i, move in enumerate(game.moves):
        expected.append(reading(p, move, "White" if i % 2 == 0 else "Black"))
        p = p.play(move)
    texts = said(Narrator(load("en")), game.records)
    assert texts[1:] == expected
    assert "Black: 13 takes 24, then 33" in texts


def test_a_late_joiner_reads_the_text_as_written(tmp_path: Path) -> None:
    """Without the game's start (no ``game``, no snapshot yet) a move is said as the feed
    writes it; the first snapshot gives the position again."""
    game = played_game(tmp_path, WK2003, "international", 40)
    records = [r for r in game.records if r["type"] != "game" and r.get("moves") != []]
    narrator = Narrator(load("en"))
    texts = said(narrator, records)
    assert texts[0] == "White: 32 to 28"
    assert "Black: 13 takes 24, then 33" in texts  # snapshots came before ply 36


def test_russian_draughts_in_algebraic_notation(tmp_path: Path) -> None:
    game = played_game(tmp_path, USSR1947, "russian", 12)
    expected_en, expected_ru, p = [], [], game.start
    for i, move in enumerate(game.moves):
        white = i % 2 == 0
        expected_en.append(reading(p, move, "White" if white else "Black"))
        expected_ru.append(reading(p, move, "Белые" if white else "Чёрные", "бьёт", "—",
                                   "затем"))
        p = p.play(move)
    assert said(Narrator(load("en"), "russian"), game.records)[1:] == expected_en
    ru = said(Narrator(load("ru"), "russian"), game.records)
    letters = dict(zip("abcdefgh", ["а", "бэ", "цэ", "дэ", "е", "эф", "жэ", "аш"], strict=True))
    spelt = [" ".join(_spell(w, letters) for w in text.split(" ")) for text in expected_ru]
    assert ru[1:] == spelt
    assert ru[0] == "Новая партия: русские шашки"


def _spell(word: str, letters: dict[str, str]) -> str:
    if len(word) >= 2 and word[0] in letters and word[1:].rstrip(",").isdigit():
        return f"{letters[word[0]]} {word[1:]}"
    return word


def test_a_promotion_and_a_remote_opponent() -> None:
    fen = "W:WK46,7:B38"  # White's man on 7 goes to 1 or 2 and is crowned
    p = Position.from_fen("international", fen)
    crown = next(m for m in p.legal_moves() if m.start == 7 and m.end == 2)
    g = p.rules.geometry
    after = p.play(crown)
    records = [
        {"type": "game", "game": "g", "rules": "international", "fen": fen},
        {"type": "remote-move", "ply": 1, "side": "white", "move": move_text(p, crown),
         "route": [g.algebraic(s) for s in crown.route], "captured": [], "source": "b2"},
        {"type": "move", "ply": 1, "side": "white", "move": "7-2", "fen": after.fen()},
        {"type": "move", "ply": 2, "side": "black", "move": "38-43",
         "fen": after.play(next(m for m in after.legal_moves() if m.end == 43)).fen()},
        {"type": "move", "ply": 3, "side": "white", "move": "46-41", "fen": "?"},
    ]
    assert said(Narrator(load("en")), records) == [
        "Your opponent plays 7 to 2, and becomes a king",
        "Black: 38 to 43",
        "Your opponent: 46 to 41",  # a move of that side not told first
    ]


def test_the_engine_move_to_carry_out_names_the_pieces_to_take_off() -> None:
    p = Position.from_fen("international", "B:W22,32:B17")  # 17x37 over 22 and 32
    (capture,) = p.legal_moves()
    g = p.rules.geometry
    record = {"type": "engine-move", "ply": 9, "side": "black", "move": move_text(p, capture),
              "route": [g.algebraic(s) for s in capture.route],
              "captured": [g.algebraic(s) for s in capture.captured]}
    narrator = Narrator(load("en"))
    assert said(narrator, [record]) == [
        "The computer plays 17 takes 28, then 37. Take off the pieces on 22 and 32"]
    assert narrator.roles == {"black": "computer"}
    after = {"type": "move", "ply": 9, "side": "black", "move": "17x37", "fen": "?"}
    assert said(narrator, [after]) == []  # carried out as told: not said again
    assert said(narrator, [dict(after, ply=11)]) == ["The computer: 17 takes 37"]


def test_ten_seconds_left_on_the_running_clock(tmp_path: Path) -> None:
    """Armed by each move, clock and snapshot record at its arrival (the injected time),
    said once, not for the computer, not after a pause."""
    narrator = Narrator(load("en"))
    move = {"type": "move", "ply": 1, "side": "white", "move": "32-28", "fen": "?",
            "clock": {"white": 50.0, "black": 25.5}}
    narrator.hear(move, now=100.0)
    assert narrator.due(115.4) is None
    warning = narrator.due(115.5)
    assert warning is not None and warning.text == "Black, ten seconds left"
    assert warning.essential and narrator.due(200.0) is None  # once
    narrator.hear(dict(move, ply=3), now=300.0)
    narrator.hear({"type": "clock", "event": "pause", "clock": {"white": 50, "black": 20},
                   "running": None}, now=301.0)
    assert narrator.due(400.0) is None
    narrator.hear({"type": "clock", "event": "resume", "clock": {"white": 50, "black": 20},
                   "running": "black"}, now=500.0)
    assert narrator.ten.at == 510.0
    narrator.roles["black"] = "computer"
    assert narrator.due(511.0) is None
    narrator.hear({"type": "snapshot", "fen": "?", "moves": [], "running": "white",
                   "clock": {"white": 12.0, "black": 1.0}}, now=600.0)
    assert narrator.due(602.0) is not None  # a snapshot arms it too
    narrator.hear({"type": "result", "result": "2-0", "reason": "resignation"}, now=700.0)
    assert narrator.ten.at is None


def test_a_real_clock_run_down_gives_the_warning_from_its_snapshots(tmp_path: Path) -> None:
    game = short_game(tmp_path)
    narrator = Narrator(load("en"))
    at_12 = next(i for i, r in enumerate(game.records)
                 if r["type"] == "snapshot" and r.get("clock", {}).get("white") == 12.788)
    for r in game.records[:at_12 + 1]:
        narrator.hear(r, now=0.0)
    assert narrator.ten.side == "white" and narrator.ten.at == pytest.approx(2.788)
    warning = narrator.due(3.0)
    assert warning is not None and warning.text == "White, ten seconds left"


def test_results_pauses_and_take_backs(tmp_path: Path) -> None:
    game = played_game(tmp_path, WK2003, "international", 36)
    narrator = Narrator(load("en"))
    said(narrator, game.records)
    ply35 = next(r for r in game.records if r.get("ply") == 35 and r["type"] == "move")
    assert said(narrator, [
        {"type": "clock", "event": "pause", "clock": None, "running": None},
        {"type": "clock", "event": "resume", "clock": None, "running": None},
        {"type": "clock", "event": "clock-set", "clock": None, "running": None},
        {"type": "takeback", "ply": 34},
        ply35,
    ]) == ["The clocks are stopped", "The clocks run again", "Moves taken back",
           "White: 30 takes 19"]
    assert said(narrator, [
        {"type": "result", "result": "1-1", "reason": "agreement"},
        {"type": "result", "result": "2-0", "reason": "resignation"},
        {"type": "result", "result": "0-2", "reason": "white has no legal move"},
        {"type": "result", "result": "1-1", "reason": "25-move rule (003 6.2)"},
        {"type": "result", "result": "0-0", "reason": "arbiter"},
        {"type": "result", "result": "1-0", "reason": "default: late (004 §32)"},
    ]) == ["By agreement. The game is drawn", "Resignation. White wins",
           "No move left. Black wins", "A draw by the rules. The game is drawn",
           "The arbiter's decision. Both players lose", "Lost by default: too late. White wins"]


def test_a_take_back_restores_the_position_moves_are_read_in(tmp_path: Path) -> None:
    game = played_game(tmp_path, WK2003, "international", 36)
    narrator = Narrator(load("en"))
    said(narrator, game.records)
    ply36 = next(r for r in game.records if r.get("ply") == 36 and r["type"] == "move")
    assert said(narrator, [{"type": "takeback", "ply": 35}, ply36]) == [
        "Moves taken back", "Black: 13 takes 24, then 33"]


def test_an_irregularity_is_said_once_until_it_changes() -> None:
    narrator = Narrator(load("en"))
    wrong = {"type": "irregularity", "kind": "wrong-side", "side": "white",
             "squares": ["c5", "e5"], "leds": {"c5": "restore", "e5": "wrong"}}
    first = narrator.hear(wrong, 0.0)
    assert [u.text for u in first] == [
        "Not your move, or not your piece. Put a piece back on 27. A piece stands wrongly on 28"]
    assert first[0].essential and first[0].replaces == {"irregularity", "cleared"}
    assert narrator.hear(wrong, 0.0) == []
    more = dict(wrong, leds={"c5": "restore", "e5": "wrong", "g5": "wrong"})
    assert said(narrator, [more]) == [
        "Not your move, or not your piece. Put a piece back on 27. "
        "Pieces stand wrongly on 28 and 29"]
    assert said(narrator, [{"type": "cleared"}, {"type": "cleared"}]) == [
        "The board is right again"]
    unknown = {"type": "irregularity", "kind": "new-kind", "side": None, "squares": [],
               "leds": {"d4": "remove", "f4": "last-move"}}
    assert said(narrator, [unknown]) == ["Take the piece off 32"]


@pytest.mark.parametrize("record", [
    "not a record", 17, None,
    {"type": "move"},
    {"type": "move", "ply": True, "side": "white", "move": "32-28"},
    {"type": "move", "ply": 1, "side": "red", "move": "32-28"},
    {"type": "move", "ply": 1, "side": "white", "move": "x" * 10_000},
    {"type": "move", "ply": 1, "side": "white", "move": "99-98"},
    {"type": "move", "ply": 1, "side": "white", "move": [32, 28]},
    {"type": "engine-move", "ply": 2, "side": "black", "move": "?", "route": "e7"},
    {"type": "engine-move", "ply": 2, "side": "black", "move": "?", "route": ["zz", "e7"]},
    {"type": "irregularity", "kind": 5, "leds": {}},
    {"type": "irregularity", "kind": "setup", "leds": [1, 2]},
    {"type": "result", "result": "3-0", "reason": "?"},
    {"type": "result", "result": "1-0", "reason": None},
    {"type": "takeback", "ply": -1},
    {"type": "snapshot", "moves": "all", "fen": 7},
    {"type": "game", "rules": "chess", "fen": None, "game": ["g"]},
    {"type": ["move"]},
])
def test_records_that_do_not_read_are_left_unsaid(record: Any,
                                                  caplog: pytest.LogCaptureFixture) -> None:
    narrator = Narrator(load("en"))
    with caplog.at_level(logging.WARNING):
        assert narrator.hear(record, 0.0) == []
        assert narrator.hear(record, 0.0) == []
    lines = [r.getMessage() for r in caplog.records]
    assert len(lines) <= 1 and all("\n" not in line and len(line) < 400 for line in lines)
    assert said(narrator, [{"type": "move", "ply": 1, "side": "white", "move": "32-28",
                            "fen": "?"}]) == ["White: 32 to 28"]


def test_what_a_record_holds_cannot_grow_the_narrator() -> None:
    """FENs and game ids beyond a board's are not kept, plies kept are bounded, a clock
    reading that is not a game's arms nothing."""
    narrator = Narrator(load("en"))
    huge = "W:W" + ",".join(["31"] * 50_000)
    for ply in range(1, 3001):
        narrator.hear({"type": "move", "ply": ply, "side": "white", "move": "32-28",
                       "fen": huge if ply % 2 else f"W:W{ply % 50 + 1}:B1"}, 0.0)
    assert narrator.track.fen is not None and len(narrator.track.fen) < 20
    assert len(narrator.track._after) <= 2000
    narrator.hear({"type": "game", "game": "g" * 10_000, "rules": "r" * 10_000, "fen": huge},
                  0.0)
    assert narrator.track.game is None and narrator.track.fen is None
    for left in (float("inf"), float("nan"), -5.0, 1e12):
        narrator.hear({"type": "clock", "event": "resume", "running": "white",
                       "clock": {"white": left, "black": 60.0}}, 0.0)
        assert narrator.ten.at is None
