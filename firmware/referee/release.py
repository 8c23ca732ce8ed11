"""When the hand counts as released (000 3.9, 3.11; 004 §32): with a clock at the mover's
press; without one when the board rests on a legal result or the opponent starts to move;
and at the end of a log."""

from __future__ import annotations

from firmware.referee.acceptance import accepted_by_reply, keep_base, report_unreported
from firmware.referee.analysis import Board
from firmware.referee.decisions import Decision, Irregularity, PressRefused
from firmware.referee.judge import tick
from firmware.referee.kinds import OUT_OF_TURN_KINDS, IrregularityKind
from firmware.referee.parts import Parts
from firmware.referee.reader import progress_refusal, read, two_plies
from firmware.referee.turns import commit
from firmware.rules.sets import Side


def press(ref: Parts, side: Side, at: int) -> list[Decision]:
    """``side`` pressed its clock: commit its move if the board shows one (004 §32)."""
    out = tick(ref, at)
    ref.clocked = True  # the log has presses: the released hand ends at the press
    if not ref.started or ref.over:
        return out
    play, pending = ref.play, ref.pending
    if side is not play.position.turn and pending.base is None and pending.unreported:
        # The mover's irregular move was never pressed, and the opponent replied from it.
        reported = report_unreported(ref, at, ref.sensors.board())
        out += reported + (accepted_by_reply(ref, at) if reported else [])
    if side is not play.position.turn:
        return out + _out_of_turn(ref, side, at)
    sensed = ref.sensors.board()
    reading = read(play, ref.sensors, sensed)
    if reading.kind == "result":
        return out + commit(ref, reading.moves, at, pressed=True)
    same = _same_instant_reply(ref, sensed, at)
    if same is not None:
        return out + same
    if reading.kind == "same":
        irr = Irregularity(at, IrregularityKind.PRESS_WITHOUT_MOVE, side, ())
    elif reading.kind == "progress":
        irr = progress_refusal(play, sensed, at, side)
    elif reading.irregular in OUT_OF_TURN_KINDS:
        # The player to move pressed with the opponent's piece moved: he moved it (5.4.5).
        irr = Irregularity(at, IrregularityKind.WRONG_SIDE, side, reading.marks)
    else:
        irr = reading.irregularity(at, reading.side)
    if irr.marks:
        pending.notice = irr
    pending.reported = (irr.kind, sensed, frozenset(ref.sensors.light))
    keep_base(ref, irr, sensed)
    return out + [irr, PressRefused(at, side)]


def _out_of_turn(ref: Parts, side: Side, at: int) -> list[Decision]:
    """The side not to move pressed. The mover forgot to press and the opponent replied: both
    moves stand, the forgetful player's clock having run meanwhile (004 §32). Or he moved out
    of turn: a second move in a row (000 5.4.1), or first of all."""
    play = ref.play
    sensed = ref.sensors.board()
    if play.sync is not None or play.restore:
        return []
    plies = two_plies(play, ref.sensors, sensed)
    if plies is not None:
        return commit(ref, plies[0], at, pressed=True) + commit(ref, plies[1], at, pressed=True)
    if sensed not in play.table.flipped().results:
        return []
    kind = IrregularityKind.TWO_MOVES if play.ply > 0 else IrregularityKind.WRONG_SIDE
    marks = tuple(play.table.marks_towards(sensed, play.table.occupied))
    irr = Irregularity(at, kind, side, marks)
    ref.pending.show(irr, (kind, sensed, frozenset(ref.sensors.light)))
    keep_base(ref, irr, sensed)
    return [irr, PressRefused(at, side)]


def _same_instant_reply(ref: Parts, sensed: Board, at: int) -> list[Decision] | None:
    """The press and the opponent's first lift came at the same instant, the lift logged
    first: if the board with those pieces back shows the mover's legal result, the press
    commits it (004 §32) and the lifted pieces are the opponent's move under way."""
    sensors = ref.sensors
    when, lifted = sensors.instant
    if when != at or not lifted:
        return None
    # the opponent's pieces, or the man just moved that he takes off to capture (003 4.16)
    back = [(sq, p) for sq, p in lifted if sq not in sensors.squares]
    if not back:
        return None
    reading = read(ref.play, sensors, sensed | {sq for sq, _ in back})
    if reading.kind != "result":
        return None
    hand = [p for _, p in back if p is not None]
    for p in hand:
        if p in sensors.hand:
            sensors.hand.remove(p)
    out = commit(ref, reading.moves, at, pressed=True)
    sensors.hand.extend(hand)
    own = ref.play.table.own
    for sq, _ in back:  # the opponent's lifts open his turn (touch-move, 000 3.10)
        if sq in own:
            ref.touches.hold(sq, at, at)
    sensors.changed(at)
    return out


def follow(ref: Parts, at: int) -> list[Decision]:
    """Without a clock: when the board leaves the last legal result it showed for a picture
    the mover's move cannot explain but the opponent's reply can (he started at once, say
    by taking off the man just moved, 003 4.16), that result was the move."""
    play = ref.play
    if ref.clocked or not ref.started or ref.over or play.sync is not None or play.restore:
        return []
    sensed = ref.sensors.board()
    moves = play.table.results.get(sensed)
    if moves:
        if play.candidate is None or play.candidate[0] not in moves:
            play.candidate = tuple(moves)
            play.candidate_table = None
        return []
    if play.candidate is None or play.table.plausible(sensed):
        return []
    if not play.after_candidate().plausible(sensed):
        return []
    out = commit(ref, play.candidate, at, pressed=False)
    ref.sensors.judged = False  # the reply under way comes to rest in its turn
    return out


def opponent_starts(ref: Parts, sq: int, at: int) -> list[Decision]:
    """Without a clock, the opponent starting his move ends the move on the board (issue 3
    item 1): he lifts one of his own pieces, unless it is one a longer capture would take
    (000 4.11), or he takes off a piece he is about to capture (003 4.16; accepted under
    every rule set: the board cannot mistake it)."""
    play = ref.play
    moves = play.table.results.get(ref.sensors.board())
    if not moves:
        return []
    piece = play.position.piece_at(sq)
    if piece is not None and piece.side is play.position.turn.other:
        for m in play.table.moves:
            if sq in m.captured and any(
                m.start == c.start and m.end == c.end and set(c.captured) < set(m.captured)
                for c in moves
            ):
                return []
        out = commit(ref, tuple(moves), at, pressed=False)
        if moves[0].is_capture:
            # Lifted while the capturer may still be taking pieces off (before the move
            # was seen to rest): if the board rests with only it off, he took it (F4).
            ref.pending.quick_lift = sq
        return out
    if (
        piece is not None
        and all(sq != c.end for c in moves)
        and any(m.captured == (sq,) for m in play.position.play(moves[0]).legal_moves())
    ):
        return commit(ref, tuple(moves), at, pressed=False)
    return []


def finish(ref: Parts, at: int) -> list[Decision]:
    """The log ended: a board resting on a legal result is the last move made.

    With a clock too: the last move of a game is often left unpressed (the opponent
    resigns, the flag falls, the log was cut), and the board shows it complete."""
    out = tick(ref, at)
    if ref.started and not ref.over:
        ref.sensors.judged = True
        reading = read(ref.play, ref.sensors, ref.sensors.board())
        if reading.kind == "result":
            out += commit(ref, reading.moves, at, pressed=False)
    return out
