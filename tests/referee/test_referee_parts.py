"""The referee's parts, each alone (issue 35, STYLE.md lesson 19): what the sensors show and
the hand holds (``SensedBoard``), the turn's touches and lifts (``Touches``), the irregularity
pending (``Pending``, ``IrregularBase``), the position and its move table (``Play``)."""

from __future__ import annotations

import pytest

from firmware.errors import SquareError
from firmware.referee.decisions import Irregularity, LedMark
from firmware.referee.kinds import IrregularityKind
from firmware.referee.pending import IrregularBase, Pending
from firmware.referee.play import Play, position_from
from firmware.referee.sensed import BOUNCE_NS, SensedBoard
from firmware.referee.touches import Touches
from firmware.rules.notation import parse_move
from firmware.rules.position import Piece, Position
from firmware.rules.sets import Side, find_rules

MS = 1_000_000
RUSSIAN = find_rules("russian")
WHITE_KING = Piece(Side.WHITE, True)
BLACK_MAN = Piece(Side.BLACK, False)


def sensed_board(fen: str | None = None) -> tuple[SensedBoard, Position]:
    position = Position.from_fen(RUSSIAN, fen) if fen else Position.start(RUSSIAN)
    board = SensedBoard(RUSSIAN.geometry, position.occupied())
    board.new_turn(position)
    return board, position


def number(square: str) -> int:
    return RUSSIAN.geometry.number(square)


# -- SensedBoard ---------------------------------------------------------------------------


def test_a_piece_is_followed_through_the_hand_its_crown_with_it() -> None:
    board, _ = sensed_board("W:WKc3:Bh8")
    c3, d4 = number("c3"), number("d4")
    assert board.lift(c3, 1) == WHITE_KING and board.hand == [WHITE_KING]
    board.place(d4, Side.BLACK)  # the hand's piece, whoever is to move
    assert board.pieces[d4] == WHITE_KING and board.hand == [] and c3 not in board.squares
    board.place(c3, Side.BLACK)  # nothing in hand: a man of the side to move
    assert board.pieces[c3] == BLACK_MAN


def test_a_set_down_with_both_colours_in_hand_is_not_known() -> None:
    board, _ = sensed_board("W:Wc3:Bd4")
    c3, d4 = number("c3"), number("d4")
    board.lift(c3, 1)
    board.lift(d4, 2)
    board.place(d4, Side.WHITE)
    assert d4 in board.mixed  # which of the two went down is not known
    board.lift(d4, 3)
    assert d4 not in board.mixed


def test_the_lifts_of_one_instant_are_kept_together() -> None:
    board, _ = sensed_board()
    board.lift(number("c3"), 5)
    board.lift(number("d6"), 5)
    assert [sq for sq, _ in board.instant[1]] == [number("c3"), number("d6")]
    board.lift(number("e3"), 6)
    assert board.instant == (6, [(number("e3"), Piece(Side.WHITE, False))])


def test_sensor_names_light_squares_and_changes() -> None:
    board, _ = sensed_board()
    with pytest.raises(SquareError, match="not on an 8x8 board"):
        board.check("k9")
    assert board.dark("a1") == number("a1") and board.dark("b1") is None
    assert board.place_light("b1", Side.WHITE) and not board.place_light("b1", Side.WHITE)
    assert board.lift_light("b1") and not board.lift_light("b1")
    board.changed(7)
    assert (board.changed_at, board.judged) == (7, False)


def test_the_start_adopts_the_set_up_men_and_keeps_the_others() -> None:
    board, position = sensed_board()
    board.emptied()
    assert board.board() == frozenset() and board.pieces == {}
    c3, d4 = number("c3"), number("d4")
    board.place(c3, Side.WHITE)
    board.place(d4, Side.BLACK)  # no piece of the start stands there
    board.set_up(position)
    assert board.pieces == {c3: Piece(Side.WHITE, False), d4: BLACK_MAN}
    board.follow(position)  # each piece standing is the position's: d4 has none
    assert board.pieces == {c3: Piece(Side.WHITE, False)}


# -- Touches -------------------------------------------------------------------------------


def test_a_hold_is_measured_from_the_first_lift_bounces_included() -> None:
    touches = Touches()
    touches.lifted(21, 0, own=True)
    assert touches.placed(21, 150 * MS) == 150 * MS
    touches.lifted(21, 150 * MS + BOUNCE_NS - 1, own=True)  # a bounce: the same hold
    assert touches.placed(21, 300 * MS) == 300 * MS
    touches.lifted(21, 300 * MS + BOUNCE_NS, own=True)  # a new hold
    assert touches.placed(21, 400 * MS) == 100 * MS - BOUNCE_NS
    touches.lifted(5, 0, own=False)  # the opponent's piece: no hold of the mover's
    assert touches.placed(5, 10**9) is None


def test_the_first_piece_touched_binds_unless_it_was_moved() -> None:
    c3_d4 = parse_move(Position.start(RUSSIAN), "c3-d4")
    touches = Touches()
    touches.lifted(number("a3"), 0, own=True)
    touches.touch(number("a3"), 300 * MS)
    touches.lifted(c3_d4.start, 1000, own=True)
    assert touches.first_touch(c3_d4) == number("a3") and touches.held[number("a3")] == 300 * MS
    knock = Touches()  # the moved piece lifted first, a knock on another after it
    knock.lifted(c3_d4.start, 0, own=True)
    knock.lifted(number("a3"), 10, own=True)
    knock.touch(number("a3"), 300 * MS)
    assert knock.first_touch(c3_d4) is None
    knock.clear()
    assert knock.touched == [] and knock.first_touch(c3_d4) is None


def test_each_landing_keeps_how_long_the_piece_stood_there() -> None:
    touches = Touches()
    touches.placed(10, 100)
    touches.lifted(10, 350, own=False)
    touches.placed(19, 400)
    assert touches.landings == [(10, 250), (19, 0)]


# -- Pending -------------------------------------------------------------------------------


def irregularity(kind: IrregularityKind, at: int = 1) -> Irregularity:
    return Irregularity(at, kind, Side.WHITE, (LedMark("c3", "restore"),))


def test_a_board_at_rest_is_reported_once() -> None:
    pending = Pending()
    key = (IrregularityKind.ILLEGAL_MOVE, frozenset({1, 2}), frozenset[str]())
    assert pending.report(irregularity(IrregularityKind.ILLEGAL_MOVE), key)
    assert not pending.report(irregularity(IrregularityKind.ILLEGAL_MOVE, 2), key)
    assert pending.notice is not None and pending.notice.at == 2  # shown anew all the same
    assert pending.clear() and pending.notice is None and pending.reported is None
    assert not pending.clear()


def test_a_touch_move_stays_shown_through_the_turn() -> None:
    pending = Pending()
    touch = IrregularityKind.TOUCH_MOVE
    pending.show(irregularity(touch), (touch, frozenset(), frozenset()))
    pending.quick_lift = 12
    assert not pending.clear()
    assert pending.notice is not None and pending.quick_lift is None
    pending.dismiss()
    assert pending.notice is None


def test_a_new_turn_forgets_the_kept_position_not_the_light_squares() -> None:
    pending = Pending()
    pending.light_reported = frozenset({"b1"})
    pending.base = IrregularBase(frozenset({1}), {}, Side.WHITE)
    pending.unreported = (frozenset({1}), {}, Play(Position.start(RUSSIAN)).table.read(
        frozenset({1})))
    pending.new_turn()
    assert (pending.base, pending.unreported, pending.notice) == (None, None, None)
    assert pending.light_reported == {"b1"}


def test_the_kept_position_is_the_other_side_s_to_move_from() -> None:
    start = Position.start(RUSSIAN)
    board, _ = sensed_board()
    c3, d4 = number("c3"), number("d4")
    board.lift(c3, 1)
    board.place(d4, Side.WHITE)
    base = IrregularBase(board.board(), dict(board.pieces), Side.WHITE)
    table = base.table(start)
    assert table.position.turn is Side.BLACK and table.occupied == board.board()
    assert table.position.piece_at(d4) == Piece(Side.WHITE, False)
    assert base.table(start) is table  # built once


# -- Play ----------------------------------------------------------------------------------


def test_the_move_table_is_built_once_per_position() -> None:
    start = Position.start(RUSSIAN)
    play = Play(start)
    assert play.ready and play.table is play.table
    move = parse_move(start, "c3-d4")
    play.candidate = (move,)
    after = play.after_candidate()
    assert after.position == start.play(move) and play.after_candidate() is after
    play.advance(start.play(move), start.occupied())
    assert not play.ready and play.ply == 1 and play.candidate is None
    assert play.previous == start.occupied()
    assert play.table.position == start.play(move) and play.ready


def test_adopt_takes_an_equal_position_only_before_its_table_is_built() -> None:
    start = Position.start(RUSSIAN)
    play = Play(start)
    twin = Position.start(RUSSIAN)
    play.adopt(twin)
    assert play.position is start  # the table was built from the first: it stays
    move = parse_move(start, "c3-d4")
    play.advance(start.play(move), None)
    twin = start.play(move)
    play.adopt(twin)
    assert play.position is twin


def test_an_accepted_board_is_no_ply_and_a_take_back_holds_play() -> None:
    start = Position.start(RUSSIAN)
    play = Play(start)
    play.advance(start, None, counts=False, table=play.table)
    assert play.ply == 0 and play.ready
    play.sync = (play.table, parse_move(start, "c3-d4"))
    play.take_back(start, 3)
    assert play.ply == 0 and play.restore and play.sync is None and play.previous is None


def test_the_sensed_board_as_a_position_crowns_a_man_on_its_far_row() -> None:
    start = Position.from_fen(RUSSIAN, "W:Wc3:Bh8")
    pieces = {number("h8"): Piece(Side.WHITE, False)}  # a white man carried to h8
    position = position_from(start, frozenset({number("h8"), number("a1")}), pieces,
                             Side.BLACK)
    assert position.turn is Side.BLACK
    assert position.piece_at(number("h8")) == WHITE_KING
    assert position.piece_at(number("a1")) == Piece(Side.WHITE, False)  # unknown: the mover's
