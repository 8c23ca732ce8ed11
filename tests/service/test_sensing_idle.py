"""The cheap idle path (issue 10 item 5): the simulated matrix's cached column levels never go
stale, the sensing thread's doorbell wakes it for a press and only then, and the referee sleeps
long only when nothing can fall due."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from gpiozero.pins.mock import MockFactory
from support.service_helpers import sim_service

from boardctl.service.doorbell import Bell, Doorbell
from boardctl.service.service import HOUSEKEEPING_S, IDLE_S
from hw.config import MatrixConfig
from hw.lgmatrix import GroupMatrix
from hw.matrix import MatrixLayout, ReedMatrix
from hw.mock.matrix import SimulatedBoard, simulated_matrix
from hw.parts import Matrix

S = 10**9


def _board(groups: bool) -> tuple[SimulatedBoard, Matrix]:
    """The simulated board and the scanner a Pi would run: the gpiozero pin scan
    (RPi.GPIO) or lgpio's group scan over the simulated chip (lgpio, the default)."""
    matrix, board = simulated_matrix(10, MatrixConfig(), MockFactory(), groups=groups)
    assert isinstance(matrix, GroupMatrix if groups else ReedMatrix)
    return board, matrix


SCANNERS = pytest.mark.parametrize("groups", [False, True], ids=["pins", "groups"])


def _squares(layout: MatrixLayout, mask: int) -> set[str]:
    return {sq for bit, sq in enumerate(layout.squares) if sq is not None and mask >> bit & 1}


@SCANNERS
def test_cached_levels_follow_every_change_at_the_next_scan(groups: bool) -> None:
    board, scanner = _board(groups)
    layout = board.layout
    dark = [sq for sq in layout.squares if sq is not None]
    a, b = dark[0], dark[7]
    assert scanner.scan() == 0
    assert scanner.scan() == 0  # now from the cache
    board.place(a)
    assert _squares(layout, scanner.scan()) == {a}
    assert _squares(layout, scanner.scan()) == {a}
    board.place(b)
    board.lift(a)
    assert _squares(layout, scanner.scan()) == {b}
    board.stick(a, True)
    assert _squares(layout, scanner.scan()) == {a, b}
    board.stick(a, None)
    board.set_pieces([])
    assert scanner.scan() == 0
    # Bounce is read reading by reading, never from the cache.
    board.set_pieces([b])
    board.bounce(b, [False, True, False])
    seen = [_squares(layout, scanner.scan()) for _ in range(4)]
    assert seen == [set(), {b}, set(), {b}]
    # A shorted column reads low on every row.
    board.short_column(0)
    column0 = {sq for sq in dark if layout.position(sq)[1] == 0}
    assert _squares(layout, scanner.scan()) == column0 | {b}
    board.short_column(0, False)
    assert _squares(layout, scanner.scan()) == {b}


@SCANNERS
def test_a_piece_moved_on_another_thread_is_seen(groups: bool) -> None:
    board, scanner = _board(groups)
    dark = [sq for sq in board.layout.squares if sq is not None]
    done = threading.Event()

    def mover() -> None:
        for sq in dark:
            board.place(sq)
        done.set()

    scanner.scan()
    threading.Thread(target=mover).start()
    assert done.wait(10)
    assert _squares(board.layout, scanner.scan()) == set(dark)


@pytest.mark.parametrize("kind", [Bell, Doorbell])
def test_doorbell_wakes_only_when_rung(kind: type[Bell] | type[Doorbell]) -> None:
    bell = kind()
    try:
        assert bell.wait(1_000) is False  # 1 us: nobody rang
        bell.ring()
        bell.ring()  # two rings before a wait: one wake-up
        assert bell.wait(5 * S) is True
        assert bell.wait(1_000) is False
        ringer = threading.Timer(0.0, bell.ring)
        ringer.start()
        assert bell.wait(30 * S) is True
        ringer.join()
    finally:
        bell.close()
    bell.ring()  # after close: nothing written anywhere, no error
    assert bell.wait(1_000) is False


def test_referee_sleeps_long_only_with_nothing_due(tmp_path: Path) -> None:
    service, clock = sim_service(tmp_path / "state")
    service.boot()
    try:
        wait = service.loop.idle_wait(clock.now)
        assert HOUSEKEEPING_S < wait <= IDLE_S  # an idle board before the start
        service.command({"cmd": "start"})
        clock.now += S // 100
        service.step(clock.now)
        assert service.loop.idle_wait(clock.now) == HOUSEKEEPING_S  # the clock runs
    finally:
        service.close()
