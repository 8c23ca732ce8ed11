"""Adversarial handling generator for the referee tests
(tests/referee/test_referee_handling_styles.py).

Acts out legal moves on a simulated sensor board as a person would: lift/place events with
random human timings, several ways of performing each move, optional contact bounce, with a
clock (presses) or without (settle time or the opponent starting to move). Written without
reading the referee's own handling code, to test it with styles its author did not plan for.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Self

from firmware.rules.notation import move_text
from firmware.rules.position import Move, Position
from firmware.rules.sets import RuleSet, Side, find_rules

SETTLE = 1.5


@dataclass
class Style:
    """How one move is performed."""

    landings: bool = False  #: set the capturing piece down on each intermediate landing
    slide: bool = False  #: transient place/lift on each empty square passed over
    removal: str = "after"  #: "after" the piece lands, "inhand" while it is held, "during"
    order: str = "order"  #: captured pieces lifted in "order", "reverse" or "random"
    slow: bool = False  #: several seconds between removals
    change: bool = False  #: set the piece down on another legal end first, then correct
    first_single: bool = False  #: international: single captured man lifted before the jump
    quick_opponent: bool = False  #: unclocked: the opponent starts moving at once
    fumble: bool = False  #: a captured piece taken off, put back, taken off again
    adjust: bool = False  #: the piece is lifted and set down again on its end square


LEGIT_STYLES = ("landings", "slide", "removal", "order", "slow", "change", "first_single")


def random_style(rng: random.Random, rules: RuleSet) -> Style:
    return Style(
        landings=rng.random() < 0.4,
        slide=rng.random() < 0.4,
        removal=rng.choice(("after", "after", "inhand")),
        order=rng.choice(("order", "reverse", "random")),
        slow=rng.random() < 0.2,
        change=rng.random() < 0.25,
        first_single=rules.name.startswith("international") and rng.random() < 0.5,
        quick_opponent=rng.random() < 0.4,
        fumble=rng.random() < 0.15,
        adjust=rng.random() < 0.15,
    )


@dataclass
class Log:
    """An event log being written, with the board's occupancy tracked."""

    rules: RuleSet
    seed: int = 0
    bounce: bool = False
    clocked: bool = True
    events: list[dict[str, Any]] = field(default_factory=list)
    t: float = 0.0
    marks: list[tuple[int, str, Any]] = field(default_factory=list)
    speed: float = 1.0  #: scales the gaps between sensor events (0.2: a blitz player)
    interleave: bool = False  #: bounce bursts overlap the next events on other squares
    late: list[dict[str, Any]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.rng = random.Random(self.seed)
        self.g = self.rules.geometry
        self.by_coords = {self.g.coords(n): n for n in self.g.squares}

    # -- raw events -------------------------------------------------------------------------
    def start(self) -> Self:
        self.events.append({"type": "start", "t": round(self.t, 4)})
        return self

    def wait(self, lo: float, hi: float | None = None) -> None:
        self.t += lo if hi is None else self.rng.uniform(lo, hi)

    def sensor(self, kind: str, square: int, dt: float | None = None) -> None:
        """A lift or place on square ``square`` (number), ``dt`` after the last event."""
        gap = self.rng.uniform(0.15, 0.6) if dt is None else dt
        self.t += gap if self.speed == 1.0 else max(0.05, gap * self.speed)
        name = self.g.algebraic(square)
        self.events.append({"type": kind, "t": round(self.t, 4), "square": name})
        if self.bounce:
            other = "place" if kind == "lift" else "lift"
            t = self.t
            burst = []
            for _ in range(self.rng.randint(1, 2)):  # 2 or 4 toggles, 1-20 ms apart
                t += self.rng.uniform(0.001, 0.020 if not self.interleave else 0.011)
                burst.append({"type": other, "t": round(t, 4), "square": name})
                t += self.rng.uniform(0.001, 0.020 if not self.interleave else 0.011)
                burst.append({"type": kind, "t": round(t, 4), "square": name})
            if self.interleave:
                self.late += burst  # other squares' events may come in between
            else:
                self.events += burst
                self.t = t

    def lift(self, square: int, dt: float | None = None) -> None:
        self.sensor("lift", square, dt)

    def place(self, square: int, dt: float | None = None) -> None:
        self.sensor("place", square, dt)

    def press(self, side: Side | str, dt: float | None = None) -> None:
        self.t += self.rng.uniform(0.2, 0.9) if dt is None else dt
        name = side if isinstance(side, str) else ("white" if side is Side.WHITE else "black")
        self.events.append({"type": "press", "t": round(self.t, 4), "side": name})

    def raw(self, kind: str, dt: float = 0.3, **fields: Any) -> None:
        self.t += dt
        self.events.append({"type": kind, "t": round(self.t, 4), **fields})

    def all_events(self) -> list[dict[str, Any]]:
        return sorted(self.events + self.late, key=lambda e: e["t"])

    def write(self, path: Path) -> Path:
        path.write_text("".join(json.dumps(e) + "\n" for e in self.all_events()))
        return path

    # -- geometry ---------------------------------------------------------------------------
    def between(self, a: int, b: int) -> list[int]:
        """The squares strictly between a and b on their diagonal."""
        (fa, ra), (fb, rb) = self.g.coords(a), self.g.coords(b)
        n = abs(fb - fa)
        assert n == abs(rb - ra) and n > 0, (a, b)
        df, dr = (fb - fa) // n, (rb - ra) // n
        return [self.by_coords[(fa + i * df, ra + i * dr)] for i in range(1, n)]

    # -- performing a legal move ------------------------------------------------------------
    def perform(self, pos: Position, move: Move, style: Style | None = None) -> Position:
        """Act out ``move`` in ``pos`` (not the commit); the position after."""
        st = style or Style()
        rng = self.rng
        occupied = set(pos.occupied())
        captured = list(move.captured)
        removed: set[int] = set()
        legal = pos.legal_moves()
        piece = pos.piece_at(move.start)
        assert piece is not None

        def ambiguous_partial(off: set[int]) -> bool:
            # a board with only these captured pieces off would be another legal move's result
            return any(
                m.start == move.start and m.end == move.end and set(m.captured) == off
                for m in legal
            )

        order = list(captured)
        if st.order == "reverse":
            order.reverse()
        elif st.order == "random":
            rng.shuffle(order)

        def remove_all() -> None:
            for i, sq in enumerate(order):
                slow_ok = st.slow and not ambiguous_partial(removed)
                # (a partial removal is no legal result: a long gap must not commit anything)
                gap = rng.uniform(2.0, 4.0) if (slow_ok and i > 0) else rng.uniform(0.2, 0.7)
                self.lift(sq, gap)
                if st.fumble and i == 0:
                    self.place(sq, rng.uniform(0.2, 0.5))
                    self.lift(sq, rng.uniform(0.2, 0.5))
                occupied.discard(sq)
                removed.add(sq)

        single_first = (
            st.first_single
            and self.rules.name in ("international", "international64")
            and len(captured) == 1
            and not piece.king
            and not (pos.piece_at(captured[0]) or piece).king
        )
        if single_first:
            self.lift(captured[0])
            occupied.discard(captured[0])
            removed.add(captured[0])
        self.lift(move.start)
        occupied.discard(move.start)
        if st.removal == "inhand" and not single_first:
            remove_all()
        here = move.start
        route = list(move.route[1:])
        for i, landing in enumerate(route):
            last = i == len(route) - 1
            if st.removal == "during" and not single_first and i > 0 and not last:
                # two hands: a captured piece already jumped comes off mid-capture
                for sq in order[:]:
                    if sq in move.captured[:i] and sq not in removed:
                        self.lift(sq, rng.uniform(0.1, 0.3))
                        occupied.discard(sq)
                        removed.add(sq)
                        order.remove(sq)
            if st.slide:
                for sq in self.between(here, landing):
                    if sq not in occupied:
                        self.place(sq, rng.uniform(0.05, 0.15))
                        self.lift(sq, rng.uniform(0.05, 0.2))
            if last and st.change:
                alts = sorted(
                    {m.end for m in legal if m.start == move.start and m.end != move.end} - occupied
                )
                if alts:
                    alt = rng.choice(alts)
                    self.place(alt, rng.uniform(0.1, 0.5))
                    self.lift(alt, rng.uniform(0.2, 0.8))
            if last or st.landings:
                self.place(landing, rng.uniform(0.1, 0.5))
                if not last:
                    self.lift(landing, rng.uniform(0.1, 0.4))
            here = landing
        occupied.add(move.end)
        if st.adjust:
            self.lift(move.end, rng.uniform(0.2, 0.5))
            self.place(move.end, rng.uniform(0.1, 0.3))
        if captured and st.removal != "inhand" and not single_first:
            remove_all()  # (what "during" left on the board)
        return pos.play(move)

    def commit(self, pos_before: Position, quick: bool = False) -> None:
        """End a turn: a press with a clock; without, a settle or the opponent moving at once."""
        if self.clocked:
            self.press(pos_before.turn)
            self.wait(0.3, 2.5)
        elif quick:
            self.wait(0.0, 0.4)
        else:
            self.wait(SETTLE + 0.4, SETTLE + 3.0)


def expected_text(pos: Position, move: Move) -> str:
    return move_text(pos, move)


def rules(name: str) -> RuleSet:
    return find_rules(name)


class Script(Log):
    """A hand-written log with square names: ``s.lift("c3")``, ``s.place("d4")``."""

    def __init__(self, rules: str, *, clocked: bool = True, bounce: bool = False, seed: int = 0):
        super().__init__(find_rules(rules), seed=seed, bounce=bounce, clocked=clocked)

    def num(self, name: str) -> int:
        return self.g.number(name)

    def up(self, name: str, dt: float = 0.4) -> Self:
        self.lift(self.num(name), dt)
        return self

    def down(self, name: str, dt: float = 0.4) -> Self:
        self.place(self.num(name), dt)
        return self

    def move(self, *names: str, dt: float = 0.4) -> Self:
        """Lift the first square, place on the last (a plain move or jump, no removals)."""
        self.up(names[0], dt)
        self.down(names[-1], dt)
        return self

    def hit(self, side: str, dt: float = 0.5) -> Self:
        self.press(side, dt)
        return self

    def idle(self, seconds: float) -> Self:
        self.t += seconds
        return self

    def end(self) -> Self:
        """A last event well after any settle time."""
        self.t += 3.0
        self.raw("pause", dt=0.0)
        return self
