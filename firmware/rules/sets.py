"""Rule sets: one small declaration per rule set over the shared mechanics in the positions
and moves of ``firmware.rules.position``.

The names are the ones in CONTRACT.md. Each rule set names the seed it follows; where two seeds
disagree, the named one stands (RULES.md):

================== ===== ================================================================
name               board  seed
================== ===== ================================================================
international      10x10  003 (FMJD): majority capture, a man passing the far row stays a man
russian            8x8    000: free choice of capture, a man is crowned during a capture
brazilian          8x8    000 4.16: majority capture, no crowning during a capture
international64    8x8    001: the 100-square rules on 64 squares (as brazilian for moves)
russian1953        8x8    004 §1-16: as russian (§8, §9)
international1953  10x10  004 §17-31: majority capture (§24, §25), no crowning in a capture
home               8x8    002: men capture forwards only, kings fly, a king captures first
================== ===== ================================================================

Usage::

    rules = find_rules("russian")
    position = Position.start(rules)        # firmware.rules.position
"""

from __future__ import annotations

import enum
from typing import ClassVar

from firmware.errors import RulesError
from firmware.rules.geometry import Geometry, geometry


class Side(enum.Enum):
    """A player. White moves first (004 §5)."""

    WHITE = "white"
    BLACK = "black"

    # Members are singletons, equal only to themselves: the identity hash (in C) keys the
    # clock's and the referee's per-side dicts, where Enum's own (a Python function hashing
    # the name) showed in the referee's profile.
    __hash__ = object.__hash__

    @property
    def other(self) -> Side:
        return Side.BLACK if self is Side.WHITE else Side.WHITE

    @property
    def letter(self) -> str:
        """``W`` or ``B``, as in FEN."""
        return "W" if self is Side.WHITE else "B"


class RuleSet:
    """Mechanics shared by every rule set; subclasses set the class-level flags."""

    name: ClassVar[str] = ""
    size: ClassVar[int] = 8
    #: Men capture backwards as well as forwards (000 4.1, 003 4.2); not in ``home`` (002).
    men_capture_backwards: ClassVar[bool] = True
    #: Kings move and capture at a distance (000 3.8, 003 3.9, 004 §7, §9).
    flying_kings: ClassVar[bool] = True
    #: The capture taking the most pieces is compulsory, kings and men alike (003 4.13).
    majority_capture: ClassVar[bool] = False
    #: A man reaching the far row during a capture is crowned and carries on as a king (000 4.14).
    promote_during_capture: ClassVar[bool] = False
    #: When a king and a man can both capture, a king must (002).
    king_must_capture_first: ClassVar[bool] = False
    #: PDN GameType number (PDN 3.0: 20 international, 25 russian, 26 brazilian).
    game_type: ClassVar[int] = 20
    #: Notation is algebraic (8x8, 004 §14) rather than square numbers (10x10, 003 2.6).
    algebraic_notation: ClassVar[bool] = True
    #: The seed file this rule set follows.
    seed: ClassVar[str] = ""
    #: Draw offers are barred as the 1953 rules have it (004 §16): only the player on move
    #: offers a draw, and one whose offer was not accepted (declined, or lapsed by the
    #: opponent's next move) offers again only after the other player has offered one. The
    #: other seeds set no such bar: 000 7.2.1 and 003 7.3.1 know a draw by agreement and no
    #: more, 001 §6 names no draw by agreement at all.
    draw_offer_bar: ClassVar[bool] = False

    @property
    def geometry(self) -> Geometry:
        return geometry(self.size)

    @property
    def squares(self) -> int:
        """How many dark squares the board has (32 or 50)."""
        return self.size * self.size // 2

    def square_name(self, square: int) -> str:
        """A square as this rule set's notation writes it: ``c3`` on 8x8, ``32`` on 10x10."""
        if self.algebraic_notation:
            return self.geometry.algebraic(square)
        if not 1 <= square <= self.squares:
            self.geometry.algebraic(square)  # raises SquareError
        return str(square)

    def __repr__(self) -> str:
        return f"<RuleSet {self.name}>"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, RuleSet) and other.name == self.name

    def __hash__(self) -> int:
        return hash(self.name)


class International(RuleSet):
    """International draughts on 100 squares, FMJD rules (seed 003)."""

    name = "international"
    size = 10
    majority_capture = True
    game_type = 20
    algebraic_notation = False
    seed = "003"


class Russian(RuleSet):
    """Russian draughts, Estonian code (seed 000)."""

    name = "russian"
    promote_during_capture = True
    game_type = 25
    seed = "000"


class Brazilian(RuleSet):
    """Brazilian draughts: Russian board and notation, international captures (000 4.16)."""

    name = "brazilian"
    majority_capture = True
    game_type = 26
    seed = "000"


class International64(RuleSet):
    """International draughts on 64 squares (seed 001): the 100-square capture rules."""

    name = "international64"
    majority_capture = True
    game_type = 26
    seed = "001"


class Russian1953(Russian):
    """The 1953 Soviet rules for 64 squares (seed 004 §1-16): captures as in Russian (§8, §9)."""

    name = "russian1953"
    seed = "004"
    draw_offer_bar = True


class International1953(International):
    """The 1953 Soviet rules for 100 squares (seed 004 §17-31): most pieces (§24, §25)."""

    name = "international1953"
    seed = "004"
    draw_offer_bar = True


class Home(RuleSet):
    """The boxed-set leaflet (seed 002): men capture forwards only; a king captures first."""

    name = "home"
    men_capture_backwards = False
    king_must_capture_first = True
    game_type = 25
    seed = "002"


#: Every rule set by its CONTRACT.md name.
RULESETS: dict[str, RuleSet] = {
    cls.name: cls()
    for cls in (
        International,
        Russian,
        Brazilian,
        International64,
        Russian1953,
        International1953,
        Home,
    )
}


def find_rules(name: str | RuleSet) -> RuleSet:
    """The rule set called ``name`` (case and surrounding blanks ignored); RulesError if none."""
    if isinstance(name, RuleSet):
        return name
    key = str(name).strip().lower()
    try:
        return RULESETS[key]
    except KeyError:
        known = ", ".join(RULESETS)
        raise RulesError(f"unknown rule set {name!r} (known: {known})") from None
