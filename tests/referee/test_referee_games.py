"""The referee against human-handled event logs: real games and random legal games, every way
of performing a move (issue 3 item 2), with random timings and seeds; hypothesis shrinks any
failure to the shortest game and simplest hand."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from support.records_helpers import FeedShapedSession as BoardSession  # records as feed lines

from firmware.formats.events import Event
from firmware.pdn import read_games
from firmware.rules.game import Game
from firmware.rules.position import Move, Position
from firmware.session.handling import CLEAN, NOISY, Style, handle_game

#: Sweeps of whole game collections or another implementation: not the fast core.
pytestmark = pytest.mark.integration

DATA = Path(__file__).resolve().parents[1] / "data" / "pdn"
RULES = ["international", "russian", "brazilian", "international64", "home", "russian1953",
         "international1953"]  # fmt: skip


def replay(start: Position, events: list[Event], clocked: bool) -> list[dict]:
    rules = start.rules
    fen = None if start == Position.start(rules) else start.fen()
    session = BoardSession(rules, "7200+30" if clocked else None, fen)
    records: list[dict] = []
    for event in events:
        records += session.handle(event)
    return records + session.finish()


def expected_fens(start: Position, moves: list[Move]) -> list[str]:
    fens, p = [], start
    for m in moves:
        p = p.play(m)
        fens.append(p.fen())
    return fens


def check(start: Position, moves: list[Move], events: list[Event], clocked: bool) -> None:
    records = replay(start, events, clocked)
    got = [r["fen"] for r in records if r["type"] == "move"]
    assert got == expected_fens(start, moves)
    assert [r for r in records if r["type"] == "irregularity"] == []


def real_game(name: str, index: int) -> tuple[Position, list[Move]]:
    game = list(read_games((DATA / name).read_bytes(), name))[index]
    replayed = game.replay(game.rules())
    return replayed.start, replayed.moves


@pytest.mark.parametrize(
    ("name", "index"),
    [
        ("international-world-championship-2003.pdn", 0),
        ("international-world-championship-2003.pdn", 5),
        ("international-candidates-1995.pdn", 2),
        ("russian-ussr-championship-1947.pdn", 3),
        ("russian-ussr-championship-1947.pdn", 40),
    ],
)
@pytest.mark.parametrize("clocked", [True, False])
def test_real_game_noisy_hands(name: str, index: int, clocked: bool) -> None:
    start, moves = real_game(name, index)
    events = handle_game(start, moves, seed=index * 2 + clocked, clocked=clocked, style=NOISY)
    check(start, moves, events, clocked)


def test_real_game_clean_hand_gives_the_game_text() -> None:
    start, moves = real_game("international-world-championship-2003.pdn", 1)
    events = handle_game(start, moves, seed=1, clocked=True, style=CLEAN)
    records = replay(start, events, True)
    texts = [r["move"] for r in records if r["type"] == "move"]
    from firmware.rules.notation import move_text

    p, want = start, []
    for m in moves:
        want.append(move_text(p, m))
        p = p.play(m)
    assert texts == want


def random_game(rules: str, seed: int, plies: int) -> tuple[Position, list[Move]]:
    """A random legal game, stopped where the rules end it (no move, or a draw rule)."""
    rng = random.Random(seed)
    game = Game(rules)
    for _ in range(plies):
        legal = game.position.legal_moves()
        if not legal or game.outcome() is not None:
            break
        game.push(rng.choice(legal))
    return game.start, game.moves


@pytest.mark.parametrize("rules", RULES)
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_random_games_every_rule_set(rules: str, seed: int) -> None:
    start, moves = random_game(rules, seed, 90)
    for clocked in (True, False):
        events = handle_game(start, moves, seed=seed, clocked=clocked, style=NOISY)
        check(start, moves, events, clocked)


styles = st.builds(
    Style,
    bounce=st.floats(0, 1),
    slide=st.floats(0, 1),
    touch_landings=st.floats(0, 1),
    removal=st.sampled_from(["capture", "reverse", "shuffle", "any"]),
    capture_first=st.floats(0, 1),
    change_mind=st.floats(0, 1),
    quick_reply=st.floats(0, 1),
)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    rules=st.sampled_from(RULES),
    game_seed=st.integers(0, 10_000),
    plies=st.integers(1, 60),
    hand_seed=st.integers(0, 10_000),
    clocked=st.booleans(),
    style=styles,
)
def test_any_hand_any_game(
    rules: str, game_seed: int, plies: int, hand_seed: int, clocked: bool, style: Style
) -> None:
    start, moves = random_game(rules, game_seed, plies)
    events = handle_game(start, moves, seed=hand_seed, clocked=clocked, style=style)
    check(start, moves, events, clocked)


@pytest.mark.slow
@pytest.mark.parametrize("rules", RULES)
def test_soak_many_seeds(rules: str) -> None:
    for seed in range(40):
        start, moves = random_game(rules, seed, 120)
        for clocked in (True, False):
            events = handle_game(start, moves, seed=seed, clocked=clocked, style=NOISY)
            check(start, moves, events, clocked)


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    rules=st.sampled_from(["international", "russian", "brazilian"]),
    game_seed=st.integers(0, 10_000),
    clocked=st.booleans(),
    at_ply=st.integers(0, 30),
    data=st.data(),
)
def test_displaced_and_restored_play_goes_on(
    rules: str, game_seed: int, clocked: bool, at_ply: int, data: st.DataObject
) -> None:
    """A piece knocked to another square and put back (000 5.3): play goes on, same game."""
    from firmware.formats.events import Lift, Place

    start, moves = random_game(rules, game_seed, 40)
    at_ply = min(at_ply, len(moves))
    head = handle_game(start, moves[:at_ply], seed=game_seed, clocked=clocked, style=NOISY)
    p = start
    for m in moves[:at_ply]:
        p = p.play(m)
    g = p.rules.geometry
    occupied = sorted(p.occupied())
    empty = sorted(set(g.squares) - set(occupied))
    x = data.draw(st.sampled_from(occupied))
    y = data.draw(st.sampled_from(empty))
    assume(all((m.start, m.end) != (x, y) for m in p.legal_moves()))  # that would be a move
    t = (head[-1].at if head else 0) + 3 * 10**9
    noise: list[Event] = [
        Lift(t, g.algebraic(x)),
        Place(t + 10**8, g.algebraic(y)),
        Lift(t + 4 * 10**9, g.algebraic(y)),
        Place(t + 4 * 10**9 + 10**8, g.algebraic(x)),
    ]
    tail = handle_game(p, moves[at_ply:], seed=game_seed + 1, clocked=clocked, style=NOISY,
                       start=False, t0=t + 7 * 10**9)  # fmt: skip
    records = replay(start, head + noise + tail, clocked)
    assert [r["fen"] for r in records if r["type"] == "move"] == expected_fens(start, moves)
