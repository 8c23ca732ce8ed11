"""The link to the opponent not at the board down, on the LEDs (issue 41 item 3): the board's
two dark corners blink ``link-down`` (:func:`boardctl.opponents.shown.link_down_picture`),
under a move to carry out or an irregularity's marks; and end to end, a real ``boardctl run
--sim --opponent lidraughts`` against the stand-in, its ``status`` ``leds`` while the link is
cut and after it is back."""

from __future__ import annotations

import time
from typing import Any

import pytest
from support.lidraughts_standin import LidraughtsStandin
from support.online_board import OnlineBoard, board, standin

from boardctl.opponents.shown import LINK_BLINK_NS, LINK_DOWN, RemoteShown, link_down_picture
from firmware.formats.records import FeedRecord
from firmware.rules.geometry import geometry
from firmware.rules.sets import Side
from firmware.session.session import BoardSession
from hw.config import DEFAULT_COLOURS, LedLayout, led_pixels
from hw.leds import PixelMap

__all__ = ["board", "standin"]  # fixtures


@pytest.mark.parametrize(("size", "far", "numbers"), [(10, "j10", {46, 5}), (8, "h8", {29, 4})])
def test_the_corners_blink_on_both_sizes(size: int, far: str, numbers: set[int]) -> None:
    shape = geometry(size)
    for second in range(6):  # lit in even seconds, dark in odd ones, wherever in the second
        for into in (0, LINK_BLINK_NS // 2, LINK_BLINK_NS - 1):
            picture = link_down_picture(shape, second * LINK_BLINK_NS + into)
            assert picture == ({"a1": LINK_DOWN, far: LINK_DOWN} if second % 2 == 0 else {})
    assert {shape.number(sq) for sq in ("a1", far)} == numbers  # dark squares: PDN numbers


def test_a_dark_squares_only_strip_has_the_corners() -> None:
    for size in (8, 10):
        layout = LedLayout(dark_only=True)
        mapping = PixelMap(size, layout)
        lit = link_down_picture(geometry(size), 0)
        pixels = {mapping.pixel[sq] for sq in lit}
        assert len(pixels) == 2 and all(0 <= p < led_pixels(size, layout) for p in pixels)
    assert LINK_DOWN in DEFAULT_COLOURS


class Seated:
    """The service's side of the door as far as :class:`RemoteShown` uses it: the game, a
    white man on a1 (46) and a black one on 5 (j10), White to move."""

    def __init__(self) -> None:
        self.session = BoardSession("international", None, fen="W:W46:B5")
        self.lines: list[FeedRecord] = []

    def emit(self, record: FeedRecord) -> None:
        self.lines.append(record)

    def note(self, kind: str, at: int, **fields: Any) -> None:
        pass


def test_a_move_to_carry_out_and_a_refused_move_win_their_squares() -> None:
    """The opponent's move 46-41 (from a1, a corner): a1 stays ``must-move`` while the link is
    down and j10 blinks; a refused move's way back wins both corners."""
    seat = Seated()
    shown = RemoteShown(seat, Side.WHITE, "lidraughts")  # type: ignore[arg-type]
    assert shown.leds(0) == {}
    shown.link_down = True
    assert shown.leds(0) == {"a1": LINK_DOWN, "j10": LINK_DOWN}
    assert shown.leds(LINK_BLINK_NS) == {}
    move = next(m for m in seat.session.position.legal_moves() if m.start == 46)
    shown.show(seat.session, move, 0)
    assert shown.leds(0) == {"a1": "must-move", "b2": "land", "j10": LINK_DOWN}
    assert shown.leds(LINK_BLINK_NS) == {"a1": "must-move", "b2": "land"}
    shown.refused = {"j10": "must-move", "a1": "land"}
    assert shown.leds(0) == {"j10": "must-move", "a1": "land"}
    shown.link_down = False
    shown.refused = {}
    assert shown.leds(0) == {"a1": "must-move", "b2": "land"}


def lit_in_a_whole_second(board: OnlineBoard) -> dict[str, str]:
    """``status`` ``leds`` asked within one even second of the monotonic clock (the service's
    and this process's: CLOCK_MONOTONIC), when the link-down corners are lit if the link is
    down."""
    def ask() -> tuple[dict[str, str]] | None:
        before = time.monotonic_ns()
        leds = board.ask("status")["leds"]
        after = time.monotonic_ns()
        same = before // LINK_BLINK_NS == after // LINK_BLINK_NS
        return (dict(leds),) if same and (before // LINK_BLINK_NS) % 2 == 0 else None
    return dict(board.until(ask, "a status within a lit second")[0])


def test_the_leds_say_the_link_is_down_and_back(board: OnlineBoard,
                                                 standin: LidraughtsStandin) -> None:
    game = standin.create_game(bot_side=Side.WHITE, limit_s=300, increment_s=3)
    board.adopted(game.id)
    assert LINK_DOWN not in lit_in_a_whole_second(board).values()
    standin.unavailable = True  # the way out gone: every stream dropped, no answer
    standin.cut_streams()
    board.until(lambda: board.online()["link"] == "down", "the link said down")
    leds = lit_in_a_whole_second(board)
    assert {sq for sq, m in leds.items() if m == LINK_DOWN} == {"a1", "j10"}, leds
    standin.unavailable = False
    board.until(lambda: board.online()["link"] == "up", "the link back")
    leds = lit_in_a_whole_second(board)
    assert LINK_DOWN not in leds.values(), leds
