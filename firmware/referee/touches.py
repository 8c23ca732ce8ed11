"""This turn's touches and lifts (000 3.9-3.11, 004 §11): which of the mover's own pieces he
lifted and held long enough to have touched them, in order, and how long; where the hand set
pieces down (the landing squares that tell capture routes apart, 000 4.9). A part of
:class:`firmware.referee.referee.Referee`, cleared at each new turn."""

from __future__ import annotations

from firmware.referee.sensed import BOUNCE_NS
from firmware.rules.position import Move


class Touches:
    """The touches and lifts of one turn. A lift of one's own piece opens a hold; its set-down
    closes it, and a hold of at least the shortest touch is a touch. A lift within
    :data:`BOUNCE_NS` of the set-down on the same square continues the same hold."""

    __slots__ = ("open_lifts", "touched", "lifted_at", "drops", "held", "landings", "place_at")

    def __init__(self) -> None:
        self.clear()

    def clear(self) -> None:
        #: The mover's own pieces in the hand: square -> when the hold began.
        self.open_lifts: dict[int, int] = {}
        #: The pieces touched, first first (touch-move binds the first, 000 3.10).
        self.touched: list[int] = []
        #: When each own piece was first lifted this turn.
        self.lifted_at: dict[int, int] = {}
        #: The last set-down of each own piece: (when its hold began, when it was set down),
        #: so that a bounce right after the set-down continues the same hold.
        self.drops: dict[int, tuple[int, int]] = {}
        #: How long each touched piece was held, ns (the touch-move feed line says it).
        self.held: dict[int, int] = {}
        #: Each set-down: (square, how long the piece stood there, ns; 0 while it stands).
        self.landings: list[tuple[int, int]] = []
        self.place_at: dict[int, int] = {}

    def lifted(self, sq: int, at: int, own: bool) -> None:
        """A piece lifted off ``sq`` at ``at``; ``own``: one of the mover's."""
        placed = self.place_at.pop(sq, None)
        if placed is not None and self.landings and self.landings[-1][0] == sq:
            self.landings[-1] = (sq, at - placed)
        if own and sq not in self.open_lifts:
            self.opened(sq, at)

    def opened(self, sq: int, at: int) -> None:
        """One of the mover's pieces lifted: a hold begins (or, a bounce, goes on)."""
        drop = self.drops.get(sq)
        bounce = drop is not None and at - drop[1] < BOUNCE_NS
        self.hold(sq, drop[0] if bounce and drop is not None else at, at)

    def hold(self, sq: int, since: int, at: int) -> None:
        """The piece lifted off ``sq`` at ``at`` is held since ``since``."""
        self.open_lifts[sq] = since
        self.lifted_at.setdefault(sq, at)

    def placed(self, sq: int, at: int) -> int | None:
        """A piece set down on ``sq`` at ``at``: how long the hold it closes lasted (None: no
        hold of the mover's was open there). A hold long enough is a touch (:meth:`touch`)."""
        lifted = self.open_lifts.pop(sq, None)
        if lifted is not None:
            self.drops[sq] = (lifted, at)
        self.landings.append((sq, 0))
        self.place_at[sq] = at
        return None if lifted is None else at - lifted

    def touch(self, sq: int, held: int) -> None:
        if sq not in self.touched:
            self.touched.append(sq)
        self.held[sq] = max(held, self.held.get(sq, 0))

    def first_touch(self, move: Move) -> int | None:
        """The first own piece with a legal move the player touched this turn, if it is not
        the piece he moved (000 3.10, 004 §11)."""
        if self.touched and self.touched[0] != move.start:
            first = self.touched[0]
            started = self.lifted_at.get(move.start)
            if started is None or self.lifted_at.get(first, started) < started:
                return first  # touched before the piece moved (a knock after it is not)
        return None
