"""Human-handled event logs from a list of moves: every legitimate way of performing a move.

The referee must recognise a move however a player's hand performs it (issue 3 item 2):

- a simple move, the piece possibly brushing the squares it slides over (a sensor closing
  for a few tens of milliseconds, longer than any debounce window);
- a capture with or without setting the piece down on each landing square (000 4.9);
- the captured pieces lifted in capture order, in reverse (000 4.11) or in any order;
- in International (100 and 64 squares) a single captured man lifted before the jump
  (003 4.16);
- the piece set down on another square, lifted again and set down where it ends, before the
  press (released hand, 000 3.11);
- contact bounce: a reed switch chattering for a few milliseconds on every lift and place.

Timings come from a seeded ``random.Random``: the same seed gives the same log. With a clock
each move ends with its player's press; without, either the board rests longer than the settle
time or the opponent starts his move at once by lifting one of his own pieces.

Used by the tests, the benchmark and ``boardctl demo`` (a real PDN game through simulated
sensors).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from firmware.formats.events import Event, Lift, Place, Press, Start
from firmware.referee.analysis import _between
from firmware.rules.position import Move, Position

MS = 1_000_000
S = 1_000_000_000


#: Rule sets where a man taking a single man may take it off before the jump (003 4.16; 001
#: follows the 100-square rules).
CAPTURE_FIRST_RULES = frozenset({"international", "international64", "international1953"})

REMOVAL_ORDERS = ("capture", "reverse", "shuffle")


@dataclass(frozen=True, slots=True)
class Style:
    """How a player handles the pieces (probabilities per move, times in ns)."""

    bounce: float = 0.3  #: chance that a sensor chatters on a lift or place
    slide: float = 0.3  #: chance of brushing the squares passed over
    touch_landings: float = 0.5  #: chance of setting down on every landing square (000 4.9)
    removal: str = "any"  #: "capture", "reverse", "shuffle" or "any" (000 4.11)
    capture_first: float = 0.3  #: chance of 003 4.16 where the rules allow it
    change_mind: float = 0.15  #: chance of setting down elsewhere first (000 3.11)
    quick_reply: float = 0.5  #: without a clock: chance the opponent starts at once
    think_ns: tuple[int, int] = (300 * MS, 4 * S)


#: A careful player: no noise at all.
CLEAN = Style(bounce=0.0, slide=0.0, touch_landings=1.0, removal="capture", capture_first=0.0,
              change_mind=0.0, quick_reply=0.0)  # fmt: skip
#: The noisiest hand the tests use.
NOISY = Style(bounce=0.9, slide=0.8, touch_landings=0.5, removal="any", capture_first=0.5,
              change_mind=0.3, quick_reply=0.5)  # fmt: skip


class Hand:
    """Writes the events of one player's hand, keeping time."""

    def __init__(self, rules_size: int, rng: random.Random, t: int, style: Style) -> None:
        self.size = rules_size
        self.rng = rng
        self.t = t
        self.style = style
        self.events: list[Event] = []
        from firmware.rules.geometry import geometry

        self.alg = geometry(rules_size).algebraic

    def wait(self, lo: int, hi: int) -> None:
        self.t += self.rng.randint(lo, hi)

    def lift(self, sq: int) -> None:
        name = self.alg(sq)
        self.events.append(Lift(self.t, name))
        if self.rng.random() < self.style.bounce:
            for _ in range(self.rng.randint(1, 3)):
                self.wait(MS // 5, 4 * MS)
                self.events.append(Place(self.t, name))
                self.wait(MS // 5, 4 * MS)
                self.events.append(Lift(self.t, name))

    def place(self, sq: int) -> None:
        name = self.alg(sq)
        self.events.append(Place(self.t, name))
        if self.rng.random() < self.style.bounce:
            for _ in range(self.rng.randint(1, 3)):
                self.wait(MS // 5, 4 * MS)
                self.events.append(Lift(self.t, name))
                self.wait(MS // 5, 4 * MS)
                self.events.append(Place(self.t, name))

    def brush(self, squares: Sequence[int], empty: set[int]) -> None:
        """Slide over ``squares``: each empty one closes for a moment (30-150 ms)."""
        for sq in squares:
            self.wait(40 * MS, 200 * MS)
            if sq in empty:
                name = self.alg(sq)
                self.events.append(Place(self.t, name))
                self.wait(30 * MS, 150 * MS)
                self.events.append(Lift(self.t, name))


def perform(
    position: Position,
    move: Move,
    hand: Hand,
    *,
    clocked: bool,
    settle_ns: int = 15 * S // 10,
    quick: bool = False,
    removal: Sequence[int] | None = None,
    touch: bool | None = None,
    capture_first: bool | None = None,
) -> None:
    """Append the events of ``move`` played by a human hand to ``hand.events``. ``quick``:
    the player starts at once, before the settle time, by lifting the piece he moves.
    ``removal`` (the captured squares in the order they come off), ``touch`` (set down on each
    landing square) and ``capture_first`` (003 4.16) force a way instead of drawing it."""
    rng, style = hand.rng, hand.style
    empty = set(position.rules.geometry.squares) - set(position.occupied())
    if quick:
        hand.wait(50 * MS, settle_ns // 2)
    else:
        hand.wait(*style.think_ns)
    captured = list(move.captured)
    if _takes_first(position, move, hand, quick, capture_first):  # 003 4.16
        hand.lift(captured[0])  # the captured man comes off before the jump
        hand.wait(150 * MS, 600 * MS)
        empty.add(captured[0])
        captured = []
    hand.lift(move.start)
    empty.add(move.start)
    _change_mind(hand, move, empty, (3 * S if clocked else settle_ns // 2))
    slide = rng.random() < style.slide
    if touch is None:
        touch = rng.random() < style.touch_landings
    _travel(hand, move, empty, position.rules.size, slide, touch)
    for sq in _removal_order(hand, captured, removal):
        hand.wait(120 * MS, 450 * MS)
        hand.lift(sq)


def _takes_first(position: Position, move: Move, hand: Hand, quick: bool,
                 forced: bool | None) -> bool:
    """Does the hand take the one captured man off before the jump (003 4.16: a man's single
    capture, in the rule sets that allow it)? ``forced`` decides instead of the style."""
    piece = position.piece_at(move.start)
    allowed = (len(move.captured) == 1 and not (piece is not None and piece.king)
               and position.rules.name in CAPTURE_FIRST_RULES)
    if forced is not None:
        return forced and allowed
    return allowed and not quick and hand.rng.random() < hand.style.capture_first


def _change_mind(hand: Hand, move: Move, empty: set[int], longest: int) -> None:
    """Set down elsewhere first, then change one's mind (000 3.11): short enough without a
    clock that the board does not rest on it."""
    if hand.rng.random() < hand.style.change_mind:
        choices = sorted(empty - {move.end} - set(move.route))
        if choices:
            hand.wait(200 * MS, 600 * MS)
            other = hand.rng.choice(choices)
            hand.place(other)
            hand.wait(150 * MS, longest)
            hand.lift(other)


def _travel(hand: Hand, move: Move, empty: set[int], size: int, slide: bool,
            touch: bool) -> None:
    """The piece along its route: brushing the squares it slides over, set down on each
    landing square when ``touch``, put down on the last."""
    route = move.route
    for i, (a, b) in enumerate(zip(route, route[1:], strict=False)):
        if slide:
            hand.brush([sq for sq in _between(size, a, b) if sq not in move.captured], empty)
        hand.wait(100 * MS, 400 * MS)
        if i == len(route) - 2:
            hand.place(b)
        elif touch:
            hand.place(b)
            hand.wait(60 * MS, 400 * MS)
            hand.lift(b)


def _removal_order(hand: Hand, captured: list[int], removal: Sequence[int] | None) -> list[int]:
    """The order the captured pieces come off: ``removal`` when given, else the style's."""
    if captured and removal is not None:
        return [sq for sq in removal if sq in captured]
    if captured:
        order = hand.style.removal if hand.style.removal != "any" else hand.rng.choice(
            REMOVAL_ORDERS)
        if order == "reverse":
            captured.reverse()
        elif order == "shuffle":
            hand.rng.shuffle(captured)
    return captured


def handle_game(
    position: Position,
    moves: Sequence[Move],
    *,
    seed: int = 0,
    clocked: bool = True,
    style: Style = NOISY,
    start: bool = True,
    settle_ns: int = 15 * S // 10,
    t0: int = 0,
) -> list[Event]:
    """The event log of ``moves`` played from ``position`` by human hands."""
    rng = random.Random(seed)
    hand = Hand(position.rules.size, rng, t0, style)
    if start:
        hand.events.append(Start(hand.t))
    pos = position
    quick = False
    for i, move in enumerate(moves):
        perform(pos, move, hand, clocked=clocked, settle_ns=settle_ns, quick=quick)
        side = pos.turn
        pos = pos.play(move)
        if clocked:
            hand.wait(150 * MS, 900 * MS)
            hand.events.append(Press(hand.t, side.value))
            continue
        quick = i + 1 < len(moves) and rng.random() < style.quick_reply
        if not quick:
            hand.wait(settle_ns + 50 * MS, settle_ns + 2 * S)
    return hand.events


def events_from_pdn(
    text: str | bytes,
    *,
    index: int = 0,
    seed: int = 0,
    clocked: bool = True,
    style: Style = NOISY,
    source: str = "pdn",
) -> tuple[Position, list[Move], list[Event]]:
    """A real game from PDN text played through human hands (``boardctl demo``): its start
    position, its moves and the event log. PdnError if the game cannot be read."""
    from firmware.pdn import read_games

    for i, game in enumerate(read_games(text, source)):
        if i == index:
            played = game.replay()
            events = handle_game(played.start, played.moves, seed=seed, clocked=clocked,
                                 style=style)  # fmt: skip
            return played.start, played.moves, events
    from firmware.errors import PdnError

    raise PdnError(f"{source}: no game number {index + 1}")
