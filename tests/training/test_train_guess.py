"""Guess the move (issue 42 item 2, ``boardctl run --train``): a master game's opening guessed
on the simulated board through the real service, the training player seated by its lineup as
``boardctl run`` seats it. Right and wrong guesses, one move shown after three wrong ones, the
other side's moves shown as the engine's and committed when the board shows them; the whole
session to its end, checked against the PDN it writes and the journal's game."""

from __future__ import annotations

import re
from pathlib import Path

from support.service_helpers import DATA, sim_service, wk_game
from support.training_helpers import Hand, only_pdn

from boardctl.service.games import rebuild
from boardctl.service.journal_file import current_path, load_journal
from boardctl.training.lineup import TrainingLineup
from boardctl.training.players import GuessPlayer
from boardctl.training.score import SessionFile
from boardctl.training.source import pick_line, read_lines
from firmware.formats.records import GuessRecord, RemoteMoveRecord, ResultRecord
from firmware.rules.notation import move_text
from firmware.rules.position import Move, Position
from firmware.rules.sets import Side, find_rules

PLIES = 10


def opening_file(tmp_path: Path) -> Path:
    """WK 2003 game 1's first ten plies, as a study of its opening is written."""
    text = DATA.read_text().split("\n\n\n")[0]
    head, body = text.split("\n\n", 1)
    moves = re.sub(r"\s+", " ", body).split(" ")
    kept = [w for w in moves if not w.endswith(".")][:PLIES]
    words = []
    for i, move in enumerate(kept):
        words += [f"{i // 2 + 1}.", move] if i % 2 == 0 else [move]
    path = tmp_path / "wk2003-1-opening.pdn"
    path.write_text(head + "\n\n" + " ".join(words) + " 1/2-1/2\n")
    return path


def other_move(position: Position, master: Move, k: int = 0) -> Move:
    """A legal move that is not the master's (the ``k``-th of them)."""
    return [m for m in position.legal_moves() if m != master][k]


def undo(hand: Hand, move: Move) -> None:
    """The hand puts a move taken back back: the piece home, the captured ones again."""
    hand.act("lift", hand.alg(move.end))
    hand.act("place", hand.alg(move.start))
    for sq in move.captured:
        hand.act("place", hand.alg(sq))
    hand.steps()


def test_a_master_game_guessed_with_right_and_wrong_guesses(tmp_path: Path) -> None:
    state = tmp_path / "state"
    rules = find_rules("international")
    path = opening_file(tmp_path)
    line = pick_line(read_lines(path, rules, option="--train"), 1, path)
    file = SessionFile(state / "training" / "train-test.pdn")
    lineup = TrainingLineup(lambda seat: GuessPlayer(seat, line, Side.WHITE, file),
                            rules.name)
    lines: list[str] = []
    service, clock = sim_service(state, None, tc=None, lines=lines, lineup=lineup)
    service.boot()
    hand = Hand(service, clock, lines)
    session = service.game.the_session
    start, master = wk_game(1)
    positions = [start]
    for move in master[:PLIES]:
        positions.append(positions[-1].play(move))
    wrong_at = {4: 1, 8: 3}  # ply (0-based) -> wrong guesses made there
    for ply in range(PLIES):
        before, move = positions[ply], master[ply]
        if ply % 2 == 1:  # Black: the master's move shown as the engine's, the hand follows
            told = hand.records(RemoteMoveRecord)[-1]
            assert (told.ply, told.move, told.source) == (ply + 1, move_text(before, move),
                                                          "train")
            assert hand.lit()[hand.alg(move.start)] == "must-move"
            hand.carry_out(move, None)  # committed by the line's press when the board shows it
            assert len(session.moves) == ply + 1
            continue
        for k in range(wrong_at.get(ply, 0)):
            guess = other_move(before, move, k)
            hand.carry_out(guess, "white")
            told = hand.records(GuessRecord)[-1]
            assert told == GuessRecord(ply + 1, move_text(before, guess), False)
            assert len(session.moves) == ply  # taken back
            assert "restore" in hand.lit().values()  # the LEDs show the way back
            undo(hand, guess)
            hand.steps(200)  # the referee's picture of the way back clears at rest
            assert hand.lit() == {} or ply == 8
        if wrong_at.get(ply, 0) >= 3:  # shown now: carried out, committed by the line
            told = hand.records(RemoteMoveRecord)[-1]
            assert (told.ply, told.side, told.move) == (ply + 1, "white", move_text(before, move))
            hand.carry_out(move, None)
        else:
            hand.carry_out(move, "white")
            assert hand.records(GuessRecord)[-1] == GuessRecord(ply + 1,
                                                                move_text(before, move), True)
        assert len(session.moves) == ply + 1
    assert hand.records(ResultRecord)[-1].result == "1-1"  # the file's 1/2-1/2
    status = hand.status()["training"]
    assert status["score"] == {"first": 3, "second": 1, "third": 0, "shown": 1}
    assert status["over"] and status["ply"] == PLIES
    service.close()
    pdn = only_pdn(state)
    words = " ".join(pdn.split())
    wrong8 = ", ".join(move_text(positions[8], other_move(positions[8], master[8], k))
                       for k in range(3))
    assert "[FEN" not in pdn and '[White "Ndjofang, J.M."]' in pdn
    wrong4 = move_text(positions[4], other_move(positions[4], master[4]))
    assert f"3. {move_text(positions[4], master[4])} {{guessed {wrong4}; right at try 2}}" \
        in words
    assert f"5. {move_text(positions[8], master[8])} {{guessed {wrong8}; shown}}" in words
    assert "{score: right at the first try 3, at the second 1, at the third 0, shown 1} 1-1" \
        in words
    assert pdn.rstrip().endswith("1-1")
    again = rebuild(load_journal(current_path(state))).session  # the journal's game: the line
    assert [m["move"] for m in again.moves] == [move_text(p, m) for p, m in
                                                zip(positions, master[:PLIES], strict=False)]


def test_a_training_resumed_after_a_restart_goes_on_where_the_game_stood(tmp_path: Path
                                                                         ) -> None:
    """The service stopped after two plies and started again on its state directory: the
    journal's game is the line's, its plies are not told again, the next guess counts."""
    state = tmp_path / "state"
    rules = find_rules("international")
    path = opening_file(tmp_path)
    line = pick_line(read_lines(path, rules, option="--train"), 1, path)
    start, master = wk_game(1)

    def run(lines: list[str]) -> tuple[Hand, object]:
        file = SessionFile(state / "training" / "train-test.pdn")
        lineup = TrainingLineup(lambda seat: GuessPlayer(seat, line, Side.WHITE, file),
                                rules.name)
        service, clock = sim_service(state, None, tc=None, lines=lines, lineup=lineup)
        service.boot()
        return Hand(service, clock, lines), service

    first: list[str] = []
    hand, service = run(first)
    hand.carry_out(master[0], "white")
    hand.carry_out(master[1], None)
    service.close()  # type: ignore[attr-defined]
    again: list[str] = []
    hand, service = run(again)
    hand.steps()
    assert hand.records(GuessRecord) == []  # the resumed plies are not told again
    after = start.play(master[0]).play(master[1])
    hand.carry_out(master[2], "white")
    assert hand.records(GuessRecord) == [GuessRecord(3, move_text(after, master[2]), True)]
    assert hand.status()["training"]["ply"] == 3
    told = hand.records(RemoteMoveRecord)[-1]  # the line goes on: Black's reply shown
    assert (told.ply, told.source) == (4, "train")
    service.close()  # type: ignore[attr-defined]
