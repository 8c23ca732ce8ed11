"""Setting up any position by the LEDs (issue 42 item 1): a ``new`` game with a FEN on a
board that shows the start position. Until the board shows the FEN's position the LEDs light
the squares to fill (``restore``) and to empty (``remove``), changing in the referee's turn
that takes the scan's change, and the feed says the same in ``setup`` lines, the last one
with both lists empty; men and kings as the FEN says. Then the game is played from it, and its
PDN starts from that FEN. The real service, its simulated hand, an injected clock."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.service_helpers import sim_service
from support.training_helpers import Hand

from boardctl.service.games import rebuild
from boardctl.service.journal_file import current_path, load_journal
from firmware.formats.records import SetupRecord
from firmware.referee.setup import setup_guide
from firmware.rules.notation import move_text
from firmware.rules.position import Position

#: The start position with two changes: White's 33 on 28, Black's 19 a king on 23.
FEN = ("W:W28,31,32," + ",".join(str(n) for n in range(34, 51)) + ":B"
       + ",".join(str(n) for n in range(1, 19)) + ",20,K23")


def test_a_new_fen_set_up_by_the_leds_from_the_start_position(tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch
                                                              ) -> None:
    monkeypatch.setenv("BOARDCTL_SIM_SETUP", "hand")  # the hand sets it up, not the arbiter
    lines: list[str] = []
    service, clock = sim_service(tmp_path, None, lines=lines)
    service.boot()
    hand = Hand(service, clock, lines)
    hand.steps(3)
    assert hand.records(SetupRecord) == []  # the start position stands: nothing to say
    answer = service.command({"cmd": "new", "fen": FEN})
    assert answer["ok"], answer
    hand.steps(6)  # the scans see the board as it stands against the new position
    a = hand.alg
    said = hand.records(SetupRecord)
    assert said[-1] == SetupRecord(fill=(a(23), a(28)), empty=(a(19), a(33)),
                                   pieces={a(23): "B", a(28): "w"})
    assert hand.lit() == {a(23): "restore", a(28): "restore", a(19): "remove",
                          a(33): "remove"}
    session = service.game.the_session
    target = Position.from_fen(session.rules, FEN)
    for kind, square in (("lift", 33), ("place", 28), ("lift", 19), ("place", 23)):
        referee = session.referee
        before, lit_before = referee.board(), hand.lit()
        hand.act(kind, a(square))
        turns = 0
        while referee.board() == before:  # one scan period at a time until it is taken
            hand.step()
            turns += 1
            assert turns < 10
        # the same turn that took the change lit the new guidance (one scan, no settle wait)
        guide = setup_guide(target, referee.board(), referee.light)
        assert hand.lit() == guide.leds() != lit_before
        assert hand.records(SetupRecord)[-1].fill == guide.fill
    assert hand.records(SetupRecord)[-1] == SetupRecord(fill=(), empty=(), pieces={})
    assert hand.lit() == {}
    assert not session.referee.started
    hand.act("press", "black")  # the game starts from the position set up
    hand.steps()
    move = target.legal_moves()[0]
    hand.carry_out(move, "white")
    assert [m["fen"] for m in session.moves] == [target.play(move).fen()]
    pdn = service.command({"cmd": "pdn"})["pdn"]
    assert f'[FEN "{target.fen()}"]' in pdn and "1. " in pdn
    service.close()
    again = rebuild(load_journal(current_path(tmp_path))).session  # the journal: same game
    assert again.pdn() == session.pdn()
    assert again.start.fen() == target.fen()


def test_a_board_showing_the_position_says_nothing(tmp_path: Path) -> None:
    """The simulated arbiter sets the pieces out (the default): no guidance is needed."""
    lines: list[str] = []
    service, clock = sim_service(tmp_path, None, lines=lines)
    service.boot()
    hand = Hand(service, clock, lines)
    assert service.command({"cmd": "new", "fen": FEN})["ok"]
    hand.steps(6)
    assert hand.records(SetupRecord) == [] and hand.lit() == {}
    service.close()


def test_an_adjourned_game_set_up_again_and_resumed(tmp_path: Path) -> None:
    """004 §34-35: an adjourned game's board set up again (two pieces had gone), then the
    sealed move played by ``resume-adjourned``, which the board must follow: ``setup`` lines
    for both, each ending with empty lists, and the game goes on."""
    from support.service_helpers import wk_game

    lines: list[str] = []
    service, clock = sim_service(tmp_path, None, lines=lines)
    service.boot()
    hand = Hand(service, clock, lines)
    start, moves = wk_game(1)
    hand.act("press", "black")  # the game starts
    hand.steps()
    hand.carry_out(moves[0], "white")
    hand.carry_out(moves[1], "black")
    session = service.game.the_session
    position = session.position
    sealed = moves[2]
    assert service.command({"cmd": "adjourn", "sealed": move_text(position, sealed)})["ok"]
    a = hand.alg
    gone = sorted(position.occupied())[:2]  # the board disturbed between the sessions
    for sq in gone:
        hand.act("lift", a(sq))
        hand.step()
    hand.steps(2)
    assert hand.records(SetupRecord)[-1].fill == tuple(a(sq) for sq in gone)
    assert hand.lit() == {a(sq): "restore" for sq in gone}
    for sq in gone:
        hand.act("place", a(sq))
    hand.steps(4)
    assert hand.records(SetupRecord)[-1] == SetupRecord(fill=(), empty=(), pieces={})
    assert service.command({"cmd": "resume-adjourned"})["ok"]
    hand.steps(2)
    after = position.play(sealed)
    assert hand.records(SetupRecord)[-1].fill == (a(sealed.end),)  # the board follows it
    hand.carry_out(sealed, None)
    assert hand.records(SetupRecord)[-1] == SetupRecord(fill=(), empty=(), pieces={})
    hand.carry_out(moves[3], "black")
    assert [m["fen"] for m in session.moves][-2:] == [after.fen(), after.play(moves[3]).fen()]
    service.close()
