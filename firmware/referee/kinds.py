"""The irregularities the referee reports (000 5.4), as a registry: each kind's feed name
(CONTRACT.md), what it means, and whose it is: the ones about the mover's own move, which a
clocked board judges only at the press (the player may still change the move with the piece in
hand, 000 3.11), and those his opponent's next move accepts (000 5.7)."""

from __future__ import annotations

import enum


class IrregularityKind(enum.StrEnum):
    """An irregularity's kind; its value is the feed's ``kind`` (a ``str``: it compares and
    serialises as its name)."""

    description: str
    #: About the mover's own move: a clocked board judges it at the press (000 3.11).
    mover: bool
    #: The opponent's next move accepts it (000 5.7).
    accepted_by_reply: bool

    def __new__(cls, value: str, description: str, mover: bool = False,
                accepted_by_reply: bool = False) -> IrregularityKind:
        member = str.__new__(cls, value)
        member._value_ = value
        member.description = description
        member.mover = mover
        member.accepted_by_reply = accepted_by_reply or mover
        return member

    ILLEGAL_MOVE = "illegal-move", "an illegal move of a man or king (000 5.4)", True
    MISSED_CAPTURE = "missed-capture", "another move made when a capture was due (000 5.4)", True
    WRONG_CAPTURE = "wrong-capture", "captured fewer or other pieces than possible (000 5.4)", True
    TOUCH_MOVE = "touch-move", "touched one piece, moved another (000 3.10, 004 §11)"
    WRONG_SIDE = "wrong-side", "moved an opponent's piece, or out of turn (000 5.4.5)"
    TWO_MOVES = "two-moves", "two moves in a row (000 5.4.1)"
    PRESS_WITHOUT_MOVE = "press-without-move", "the clock pressed without a move (004 §32)"
    INCOMPLETE_REMOVAL = ("incomplete-removal",
                          "captured pieces left on the board (000 5.4.10-12)", True)
    EXTRA_REMOVAL = "extra-removal", "a piece taken off that was not captured (000 5.4.13)", True
    BOARD_MISMATCH = ("board-mismatch",
                      "the board matches no reading (a piece on a light square, 003 5.3)")
    SETUP = "setup", "the start position is not set up (000 5.1, 5.2)"
    TAKE_BACK = "take-back", "the board shows the position before the last move (000 5.4.4)"
    OWN_PIECE_REMOVED = ("own-piece-removed", "a player took off his own piece (000 5.4.14)",
                         False, True)
    RESTORE = ("restore", "moves taken back by the arbiter: the board must show the position "
               "before them again (000 5.4)")
    NOT_ENGINE_MOVE = ("not-engine-move", "the board shows another move than the engine's, "
                       "which the person carries out for it: the person's to fix (the LEDs "
                       "show the way to the engine's move; issue 28)")
    NOT_REMOTE_MOVE = ("not-remote-move", "the board shows another move than the remote "
                       "opponent's (lidraughts, another board), which the person carries out "
                       "for it: the person's to fix (the LEDs show the way to it; issue 41)")
    MOVE_REFUSED = ("move-refused", "the server did not take the person's committed move (an "
                    "online game, issue 41): taken back, the LEDs show the way back, the board "
                    "waits for another")


#: Every kind's feed name, in CONTRACT.md's order.
KINDS = tuple(k.value for k in IrregularityKind)
#: Irregularities about the mover's own move.
MOVER_KINDS = frozenset(k for k in IrregularityKind if k.mover)
#: Irregularities of the mover's move that his opponent's next move accepts (000 5.7).
FAULT_KINDS = frozenset(k for k in IrregularityKind if k.accepted_by_reply)
#: A move out of turn (000 5.4.1, 5.4.5): the player to move may reply from it (000 5.7).
OUT_OF_TURN_KINDS = frozenset((IrregularityKind.TWO_MOVES, IrregularityKind.WRONG_SIDE))
