"""Puzzles (issue 42 item 3, ``boardctl run --puzzles``) through the real service and the
simulated hand, on the board's own puzzle set (boardctl/data/puzzles/, made from real games
by benchmarks/make_puzzles.py): each puzzle's position set up by the LEDs from whatever stands
on the board (the start position, then the last puzzle's end), the solution's replies shown
as the engine's, a wrong move told and taken back; one solved, two missed (one after a wrong
try, one after three, its move then shown); the next puzzle on a press. The whole session to
its end, checked against the PDN it writes."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.service_helpers import sim_service
from support.training_helpers import Hand, only_pdn

from boardctl.training.lineup import TrainingLineup
from boardctl.training.players import PuzzlePlayer
from boardctl.training.score import SessionFile
from boardctl.training.source import Line, puzzle_lines, read_lines
from firmware.formats.records import GuessRecord, RemoteMoveRecord, SetupRecord
from firmware.rules.notation import move_text
from firmware.rules.position import Move
from firmware.rules.sets import find_rules

PUZZLES = Path(__file__).resolve().parents[2] / "boardctl" / "data" / "puzzles" / \
    "combinations.pdn"


def set_up(hand: Hand) -> int:
    """Follow the feed's ``setup`` lines until the board shows the position: an empty square
    lifted, a square to fill placed, each in turn; the acts it took."""
    acts = 0
    while True:
        hand.steps(4)
        guide = hand.records(SetupRecord)[-1]
        assert hand.lit() == {**{sq: "restore" for sq in guide.fill},
                              **{sq: "remove" for sq in guide.empty}}
        if guide.empty:
            hand.act("lift", guide.empty[0])
        elif guide.fill:
            hand.act("place", guide.fill[0])
        else:
            return acts
        acts += 1
        assert acts < 100


def wrong_move(line: Line, ply: int, k: int) -> Move:
    position = line.start if ply == 0 else line.after[ply - 1]
    return [m for m in position.legal_moves() if m != line.moves[ply]][k]


def undo(hand: Hand, move: Move) -> None:
    hand.act("lift", hand.alg(move.end))
    hand.act("place", hand.alg(move.start))
    for sq in move.captured:
        hand.act("place", hand.alg(sq))
    hand.steps(200)  # the referee's way back clears at rest


def solve(hand: Hand, line: Line, wrong: int) -> None:
    """Play ``line`` through, ``wrong`` wrong tries at its first move first."""
    session = hand.service.game.the_session
    solver = line.start.turn.value
    for k in range(wrong):
        guess = wrong_move(line, 0, k)
        hand.carry_out(guess, solver)
        assert hand.records(GuessRecord)[-1] == GuessRecord(1, move_text(line.start, guess),
                                                            False)
        assert session.moves == []  # taken back
        undo(hand, guess)
    for ply, move in enumerate(line.moves):
        shown = ply % 2 == 1 or (ply == 0 and wrong >= 3)
        if shown:  # a reply (or a move missed three times): shown, the hand carries it out
            told = hand.records(RemoteMoveRecord)[-1]
            assert (told.ply, told.move, told.source) == (ply + 1, line.texts[ply], "puzzle")
            assert hand.lit()[hand.alg(move.start)] == "must-move"
            hand.carry_out(move, None)
        else:
            hand.carry_out(move, solver)
            assert hand.records(GuessRecord)[-1] == GuessRecord(ply + 1, line.texts[ply], True)
        assert len(session.moves) == ply + 1


def test_three_puzzles_set_up_by_the_leds_one_solved_two_missed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BOARDCTL_SIM_SETUP", "hand")
    rules = find_rules("international")
    lines = puzzle_lines(read_lines(PUZZLES, rules, option="--puzzles"), PUZZLES)[:3]
    assert len(lines) == 3
    state = tmp_path / "state"
    file = SessionFile(state / "training" / "puzzles-test.pdn")
    lineup = TrainingLineup(lambda seat: PuzzlePlayer(seat, lines, file), rules.name)
    said: list[str] = []
    service, clock = sim_service(state, None, tc=None, lines=said, lineup=lineup)
    service.boot()
    hand = Hand(service, clock, said)
    outcomes = []
    for number, (line, wrong) in enumerate(zip(lines, (0, 1, 3), strict=True), start=1):
        session = service.game.the_session
        assert session.start.fen() == line.start.fen() and session.tags["Puzzle"] == str(number)
        assert set_up(hand) > 0  # from the start position, then from the last puzzle's end
        solve(hand, line, wrong)
        status = hand.status()["training"]
        outcomes.append((status["solved"], status["missed"], status["over"]))
        if number < 3:
            hand.act("press", "white")  # the next puzzle
            hand.steps(4)
            assert service.game.the_session is not session
    assert outcomes == [(1, 0, True), (1, 1, True), (1, 2, True)]
    service.close()
    pdn = only_pdn(state)
    games = pdn.split("[Event ")[1:]
    assert len(games) == 3
    words = [" ".join(g.split()) for g in games]
    assert words[0].endswith(f"{line_end(lines[0])} {{right at try 1; solved}} *")
    wrong = move_text(lines[1].start, wrong_move(lines[1], 0, 0))
    assert "; missed}" in words[1] and f"{{guessed {wrong}; right at try 2}}" in words[1]
    assert "shown}" in words[2] and words[2].endswith("missed} *")
    for game, line in zip(games, lines, strict=True):
        assert f'[FEN "{line.start.fen()}"]' in game


def line_end(line: Line) -> str:
    return line.texts[-1]


def test_the_board_s_puzzles_name_their_source_and_play_through() -> None:
    """Each shipped puzzle: a real game's position (its tags and Source name it), a solution
    the rules play through, the solver's move first and last."""
    lines = puzzle_lines(read_lines(PUZZLES, find_rules("international"), option="--puzzles"),
                         PUZZLES)
    assert len(lines) >= 3
    for line in lines:
        assert line.tags["Source"].split(",")[0] in ("wk2003.pdn", "nk2003-amsterdam.pdn",
                                                      "DUTCH96H.pdn")
        assert line.tags.get("White") and line.tags.get("Black")
        assert len(line.moves) % 2 == 1 and line.side_at(len(line.moves) - 1) is line.start.turn


def test_boardctl_run_puzzles_over_the_control_socket(tmp_path: Path) -> None:
    """``boardctl run --sim --puzzles`` as a process with its threads, the hand on its control
    socket: the first puzzle solved, said in ``status`` and in the PDN under the state
    directory."""
    import os
    import signal
    import subprocess
    import sys

    from support.hand_helpers import ask, wait

    from boardctl.service.control import request

    line = puzzle_lines(read_lines(PUZZLES, find_rules("international"), option="--puzzles"),
                        PUZZLES)[0]
    state = tmp_path / "state"
    proc = subprocess.Popen(
        [sys.executable, "-m", "boardctl", "run", "--sim", "--rules", "international",
         "--puzzles", str(PUZZLES), "--state-dir", str(state)],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=dict(os.environ))
    sock = state / "control.sock"
    try:
        assert ask(sock, "status")["training"]["puzzle"] == 1
        alg = line.start.rules.geometry.algebraic
        for ply, move in enumerate(line.moves):
            acts = [("lift", alg(move.start)), *(("lift", alg(sq)) for sq in move.captured),
                    ("place", alg(move.end))]
            for kind, square in acts:
                request(sock, "sim", type=kind, square=square)
            if ply % 2 == 0:
                request(sock, "sim", type="press", side=line.start.turn.value)
            assert wait(lambda n=ply: request(sock, "status")["ply"] > n), ply  # type: ignore[misc]
        assert wait(lambda: request(sock, "status")["training"]["solved"] == 1)
    finally:
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err
    pdn = only_pdn(state)
    assert f'[FEN "{line.start.fen()}"]' in pdn and "solved}" in pdn
