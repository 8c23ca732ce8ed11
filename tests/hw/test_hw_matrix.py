"""The reed matrix scanner and debouncer on the simulated diode matrix (real gpiozero devices
on MockFactory, real scanner code)."""

from __future__ import annotations

from itertools import combinations
from pathlib import Path

import pytest
from gpiozero.pins.mock import MockFactory
from hypothesis import given, settings
from hypothesis import strategies as st
from support.records_helpers import shapes

from firmware.errors import HardwareError
from firmware.pdn import read_games
from firmware.rules.geometry import geometry
from firmware.rules.notation import parse_move
from firmware.rules.position import Position
from firmware.rules.sets import find_rules
from hw.config import MatrixConfig, default_config
from hw.debounce import Debouncer, SquareEvent
from hw.matrix import MatrixLayout, Scanner
from hw.mock.matrix import simulated_matrix

MS = 1_000_000
WK2003 = Path(__file__).resolve().parents[2] / "boardctl" / "data" / "wk2003.pdn"


def _board(factory: MockFactory, size: int = 10, diodes: bool = True, wiring: str = "dark"):
    cfg = default_config(size).matrix
    if wiring == "full":
        cfg = MatrixConfig(wiring="full", rows=cfg.rows[:size],
                           columns=(22, 23, 24, 26, 27, 2, 3, 7, 8, 9)[:size])
    return simulated_matrix(size, cfg, factory, diodes=diodes)


@pytest.mark.parametrize(("size", "wiring", "count"),
                         [(10, "dark", 50), (8, "dark", 32), (10, "full", 50), (8, "full", 32)])
def test_layout_names_every_dark_square_once(size: int, wiring: str, count: int) -> None:
    layout = MatrixLayout(size, wiring)
    named = [sq for sq in layout.squares if sq is not None]
    g = geometry(size)
    assert len(named) == len(set(named)) == count
    assert {g.number(sq) for sq in named} == set(g.squares)
    assert layout.bit("a1") == 0
    with pytest.raises(HardwareError, match="b1"):
        layout.bit("b1")


def test_scan_reads_exactly_the_pieces(mock_factory: MockFactory) -> None:
    matrix, board = _board(mock_factory)
    g = geometry(10)
    start = {g.algebraic(n) for n in list(range(1, 21)) + list(range(31, 51))}
    board.set_pieces(start)
    assert matrix.layout.occupied(matrix.scan()) == start
    board.set_pieces([])
    assert matrix.scan() == 0
    # every row is released after a scan: nothing driven between scans
    assert matrix.idle_columns() == []


@pytest.mark.parametrize(("size", "wiring"), [(10, "dark"), (8, "full")])
def test_no_ghost_at_fourth_corner_with_diodes(mock_factory: MockFactory, size: int,
                                               wiring: str) -> None:
    """Three corners of every rectangle of sensors occupied: with diodes, no fourth."""
    matrix, board = _board(mock_factory, size, wiring=wiring)
    layout = matrix.layout
    checked = 0
    for r1, r2 in combinations(range(layout.rows), 2):
        for c1, c2 in combinations(range(layout.columns), 2):
            corners = [layout.squares[r * layout.columns + c] for r in (r1, r2) for c in (c1, c2)]
            if None in corners:
                continue
            for missing in corners:
                three = {sq for sq in corners if sq is not None and sq != missing}
                board.set_pieces(three)
                assert layout.occupied(matrix.scan()) == three
                checked += 1
    assert checked >= 4 * 72


def test_without_diodes_the_model_shows_the_ghost(mock_factory: MockFactory) -> None:
    """The same three corners on a matrix without diodes read four: the test above can fail."""
    matrix, board = _board(mock_factory, diodes=False)
    board.set_pieces(["a1", "c1", "a3"])  # rows 0 and 2, columns 0 and 1
    assert matrix.layout.occupied(matrix.scan()) == {"a1", "c1", "a3", "c3"}


def test_bounce_is_filtered_and_events_carry_the_scan_time(mock_factory: MockFactory) -> None:
    matrix, board = _board(mock_factory)
    board.set_pieces(["c3"])
    deb = Debouncer(matrix.layout.squares, samples=3)
    t = 0
    for _ in range(3):
        assert deb.feed(matrix.scan(), t) == []
        t += 5 * MS
    assert deb.ready and deb.occupied() == {"c3"}
    # a piece set on d4 chatters for five reads, then stays; c3's contact flickers once
    board.place("d4")
    board.bounce("d4", [True, False, True, False, False])
    board.bounce("c3", [False, True, False])
    events: list[SquareEvent] = []
    times = []
    for _ in range(10):
        times.append(t)
        events += deb.feed(matrix.scan(), t)
        t += 5 * MS
    assert events == [SquareEvent("place", "d4", times[5])]
    assert deb.occupied() == {"c3", "d4"}


def test_lift_and_place_in_one_scan_come_lift_first(mock_factory: MockFactory) -> None:
    matrix, board = _board(mock_factory)
    board.set_pieces(["j10"])
    deb = Debouncer(matrix.layout.squares, samples=2, initial=matrix.scan())
    board.set_pieces(["a1"])
    assert deb.feed(matrix.scan(), 1) == []
    assert deb.feed(matrix.scan(), 2) == [SquareEvent("lift", "j10", 1),
                                          SquareEvent("place", "a1", 1)]
    assert deb.feed(matrix.scan(), 3) == []


def test_flicker_shorter_than_the_window_never_reports() -> None:
    deb = Debouncer(["a1"], samples=4, initial=0)
    pattern = [1, 1, 1, 0, 1, 1, 1, 0, 1, 1, 0]
    assert [e for i, raw in enumerate(pattern) for e in deb.feed(raw, i)] == []
    assert [e for i, raw in enumerate([1, 1, 1, 1], 20) for e in deb.feed(raw, i)] == [
        SquareEvent("place", "a1", 20)]


def test_stuck_sensor_and_shorted_column_are_found(mock_factory: MockFactory) -> None:
    from hw.diagnose import find_faults

    matrix, board = _board(mock_factory)
    assert find_faults(matrix, expected=set()) == []
    board.stick("e5", closed=True)
    faults = find_faults(matrix, expected=set())
    assert [(f.kind, f.squares) for f in faults] == [("stuck-closed", ("e5",))]
    assert "e5" in faults[0].message
    board.stick("e5", None)
    board.set_pieces(["a1", "c1"])
    board.stick("c1", closed=False)
    faults = find_faults(matrix, expected={"a1", "c1"})
    assert [(f.kind, f.squares) for f in faults] == [("stuck-open", ("c1",))]
    board.stick("c1", None)
    board.short_column(1)
    faults = find_faults(matrix, expected={"a1", "c1"})
    assert faults[0].kind == "column-short"
    assert "column 1" in faults[0].message and "GPIO23" in faults[0].message


def test_chattering_sensor_is_named(mock_factory: MockFactory) -> None:
    from hw.diagnose import find_faults

    matrix, board = _board(mock_factory)
    board.bounce("g7", [True, False] * 20)
    faults = find_faults(matrix, expected=set(), samples=40)
    assert [(f.kind, f.squares) for f in faults] == [("unstable", ("g7",))]


def test_wrong_pin_count_is_a_clear_error(mock_factory: MockFactory) -> None:
    from hw.matrix import ReedMatrix

    with pytest.raises(HardwareError, match="needs 10 row and 5 column pins"):
        ReedMatrix(MatrixLayout(10), [4, 5, 6], [22], pin_factory=mock_factory)


def test_scanner_step_uses_the_injected_clock(mock_factory: MockFactory) -> None:
    matrix, board = _board(mock_factory)
    now = [1_000]
    got: list[SquareEvent] = []
    scanner = Scanner(matrix, Debouncer(matrix.layout.squares, 1, initial=0), got.extend,
                      hz=200, clock=lambda: now[0])
    board.place("f6")
    scanner.step()
    assert got == [SquareEvent("place", "f6", 1_000)]
    assert got[0].to_event().record() == {"type": "place", "t": 1e-06, "square": "f6"}


Actions = list[tuple[str, str]]


def _physical_moves(rules_name: str, pdn: Path) -> tuple[set[str], list[Actions], set[str], str]:
    """A real game as a player's hands act it out: for each move, lift the moving piece, put
    it down on its last square, then take the captured pieces off in capture order. Returns
    the start squares, each move's actions, the end squares and the final FEN."""
    rules = find_rules(rules_name)
    g = geometry(rules.size)
    with open(pdn, encoding="utf-8", errors="replace") as f:
        game = next(iter(read_games(f, pdn.name)))
    pos = Position.start(rules)
    start = {g.algebraic(n) for n in pos.occupied()}
    moves: list[Actions] = []
    for text in game.moves:
        move = parse_move(pos, text.text)
        actions = [("lift", g.algebraic(move.start)), ("place", g.algebraic(move.end))]
        actions += [("lift", g.algebraic(c)) for c in move.captured]
        moves.append(actions)
        pos = pos.play(move)
    return start, moves, {g.algebraic(n) for n in pos.occupied()}, pos.fen()


def test_a_whole_game_through_the_scanner(mock_factory: MockFactory) -> None:
    """WK 2003 round 1 (Ndjofang-Heusdens, 80 moves) acted out on the simulated sensors, every
    placed piece bouncing, scanned at 200 Hz with 3-sample debouncing."""
    start, moves, end, _fen = _physical_moves("international", WK2003)
    actions = [action for move in moves for action in move]
    matrix, board = _board(mock_factory)
    board.set_pieces(start)
    deb = Debouncer(matrix.layout.squares, samples=3)
    clock = 0
    got: list[SquareEvent] = []
    scanner = Scanner(matrix, deb, got.extend, hz=200, clock=lambda: clock)
    for _ in range(3):
        scanner.step()
        clock += 5 * MS
    assert deb.occupied() == start
    expected = []
    for kind, square in actions:
        if kind == "lift":
            board.lift(square)
            board.bounce(square, [True, False, True])
        else:
            board.place(square)
            board.bounce(square, [False, True, False, False, True, False])
        first_stable = None
        for i in range(12):
            if first_stable is None and i == (3 if kind == "lift" else 6):
                first_stable = clock
            scanner.step()
            clock += 5 * MS
        expected.append(SquareEvent(kind, square, first_stable))
    assert got == expected
    assert deb.occupied() == end == board.pieces


def test_scanner_thread_delivers_events(mock_factory: MockFactory) -> None:
    import threading

    matrix, board = _board(mock_factory)
    arrived = threading.Event()
    got: list[SquareEvent] = []

    def on_events(events: list[SquareEvent]) -> None:
        got.extend(events)
        arrived.set()

    scanner = Scanner(matrix, Debouncer(matrix.layout.squares, 2, initial=0), on_events, hz=500)
    scanner.start()
    try:
        board.place("h8")
        assert arrived.wait(5)
    finally:
        scanner.stop()
    assert [(e.kind, e.square) for e in got] == [("place", "h8")]
    assert scanner.scans >= 2


@settings(max_examples=150, deadline=None)
@given(st.integers(1, 4), st.lists(st.integers(0, 7), max_size=30))
def test_debouncer_matches_a_per_square_model(samples: int, scans: list[int]) -> None:
    """Random raw scans of three sensors against the plain definition: a square changes when
    its last ``samples`` readings all differ from its state; the event's time is the first of
    them."""
    names = ["a1", None, "c1", "b2"]  # bit 1 has no sensor: ignored
    deb = Debouncer(names, samples, initial=0)
    got = [e for t, raw in enumerate(scans) for e in deb.feed(raw << 1 | raw & 1, t)]
    expected = []
    for bit, name in enumerate(names):
        if name is None:
            continue
        state, run = 0, 0
        for t, raw in enumerate(scans):
            value = (raw << 1 | raw & 1) >> bit & 1
            run = run + 1 if value != state else 0
            if run == samples:
                state, run = value, 0
                kind = "place" if value else "lift"
                expected.append(SquareEvent(kind, name, t - samples + 1))
    order = {"lift": 0, "place": 1}
    assert sorted(got, key=lambda e: (e.at, order[e.kind], names.index(e.square))) == got
    assert sorted(got) == sorted(expected)


def test_board_model(tmp_path: Path) -> None:
    from hw.gpio import board_model

    model = tmp_path / "model"
    model.write_bytes(b"Raspberry Pi Zero 2 W Rev 1.0\0")
    assert board_model(model) == "Raspberry Pi Zero 2 W Rev 1.0"
    assert board_model(tmp_path / "absent") == ""
    # the header's gpiochip: by its label (tests/hw/test_hw_gpiochip.py)


def test_open_matrix_off_the_pi_says_what_to_do(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    import os

    from gpiozero import Device

    from hw.assemble import open_matrix

    if os.environ.get("GPIOZERO_PIN_FACTORY") or Path("/proc/device-tree/model").exists():
        pytest.skip("a GPIO backend is configured or this is a Pi")
    monkeypatch.setenv("LG_WD", str(tmp_path))  # lgpio, where installed, makes its pipe there
    previous = Device.pin_factory
    Device.pin_factory = None
    try:
        with pytest.raises(HardwareError, match=r"no GPIO backend.*--sim"):
            open_matrix(default_config(10))
    finally:
        Device.pin_factory = previous
    matrix, board = open_matrix(default_config(8), sim=True)
    board.place("h8")
    assert matrix.layout.occupied(matrix.scan()) == {"h8"}
    matrix.close()


def test_scanned_game_reaches_the_referee_intact(mock_factory: MockFactory) -> None:
    """The same game through scanner, debouncer and SquareEvent.to_event() into the shared
    BoardSession (no clock: each move settles): every move committed, the same final FEN."""
    from firmware.session.session import BoardSession

    start, moves, _end, fen = _physical_moves("international", WK2003)
    matrix, board = _board(mock_factory)
    board.set_pieces(start)
    session = BoardSession("international", started=True)
    records: list[dict[str, object]] = []
    clock = 0

    def to_referee(events: list[SquareEvent]) -> None:
        for e in events:
            records.extend(session.handle(e.to_event()))

    scanner = Scanner(matrix, Debouncer(matrix.layout.squares, 3, initial=matrix.scan()),
                      to_referee, clock=lambda: clock)
    for actions in moves:
        for kind, square in actions:
            (board.lift if kind == "lift" else board.place)(square)
            board.bounce(square, [kind == "lift", kind != "lift"])
            for _ in range(6):
                scanner.step()
                clock += 10 * MS
        clock += 2_000_000_000  # the hand leaves the board: the move settles
        records.extend(session.tick(clock))
    records = shapes(records)
    played = [r for r in records if r["type"] == "move"]
    assert [r["ply"] for r in played] == list(range(1, len(moves) + 1))
    assert played[-1]["fen"] == fen
    assert [r for r in records if r["type"] == "irregularity"] == []
