"""A game: the moves played from a start position, and how the game ends.

``Game`` keeps the record (moves, and positions the arbiter set up mid-game), the positions for
repetition, and per position the counters of every draw rule of its rule set, so that
``outcome()`` says whether and how the game has ended and ``draw_counters()`` what a board shows
as "draw in N moves". ``pop()`` takes the last entry back.

End of game, all rule sets: a player with no pieces, or no legal move, loses (000 6.1.2-6.1.3,
003 7.2.2-7.2.3, 004 §15a, 002 "Mängu lõpp"); a result declared by the arbiter or the session
(agreement 000 7.2.1, 003 7.3.1, 004 §16a; resignation 000 6.1.1, 004 §15b; time forfeit
004 §32; the arbiter's decision 000 6.1.4) is reported as declared.

Draws by rule set (the seeds' paragraphs; "N moves" counts the moves of each player, so 2N
plies, unless a rule counts one player's moves):

- ``russian``, ``brazilian`` (seed 000 7.2; 4.16 changes only captures for Brazilian):
  threefold repetition with the same side to move (7.2.3); 3+ kings against a lone king not
  captured by the stronger side's 15th move from when that balance arose (7.2.4); 15 moves by
  kings only, no man moved and no capture (7.2.5); kings on both sides and no capture or
  crowning: 30 moves in 4-5 piece endings, 60 in 6-7 piece endings (7.2.6); 3 kings, 2 kings and
  a man, or a king and 2 men against a lone king on the main road (a1-h8): drawn unless the
  stronger side wins by its 5th move (7.2.7); 2 kings, a king and a man, or a king against a
  lone king: likewise by its 5th move (7.2.8); without Fischer increments (``fischer=False``)
  the positions of 7.2.7 and 7.2.8 are drawn at once (7.2.9) unless a win is evident; the
  evident win computed is the stronger side to move taking the lone king at once (then the
  7.2.7/7.2.8 count runs as with increments); any other win the player can show is the
  arbiter's call (``declare(None, ...)`` does not undo a board ending: build the game with
  ``fischer=True`` to let such a game go on).
  The seeds' "fails to reach a winning position" cannot be computed; it is read as: for 7.2.7,
  the lone king still holds the main road (driving it off ends that count; 7.2.4 goes on); for
  7.2.8, the lone king is still on the board.
- ``international64`` (seed 001 §6): threefold repetition (6.1); 15 moves by kings only without
  capture (6.2); one king against one or two kings: drawn when both have made 5 moves (6.3).
- ``international`` (seed 003 §6): threefold repetition (6.1); 25 moves by kings only without
  capture (6.2); 3 kings, 2 kings and a man, or a king and 2 men against a lone king: drawn when
  both have made 16 more moves, a piece taken meanwhile not restarting the count (6.3); 2 kings,
  a king and a man, or a king against a lone king: drawn when both have made 5 moves (6.4).
- ``russian1953``, ``international1953`` (seed 004 §16, §31): 3 kings (100 squares: 4 kings,
  §31) against a lone king not captured by the stronger side's 18th move from when that balance
  arose (§16c, §31) ends the game; threefold repetition (§16d) and 30 moves without a change in
  the pieces' number or value (§16b) are draws *on claim*: they appear as claimable counters and
  ``claim_draw()`` ends the game, but play may go on; ``claim_draw(move)`` is the claim of a
  player whose move would repeat the position a third time, made instead of the move (§16).
- ``home`` (seed 002): no capture in 15 moves in a row, or the same position three times.

A game goes on being recorded after it has ended (a board keeps sensing); ``outcome()`` reports
the first ending reached.
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from firmware.errors import IllegalMoveError, RulesError
from firmware.rules.position import Move, Position
from firmware.rules.sets import (
    Brazilian,
    Home,
    International,
    International64,
    International1953,
    RuleSet,
    Russian,
    Russian1953,
    Side,
    find_rules,
)

__all__ = ["DrawCounter", "Game", "Outcome", "Termination", "parse_result", "result_text"]


# --------------------------------------------------------------------------------------------
# Results


def international_results(rules: RuleSet) -> bool:
    """The 10x10 games write results 2-0 / 1-1 / 0-2 (PDN 3.0 pdntags.rst, GameType 20)."""
    return rules.size == 10


def result_text(rules: RuleSet, winner: Side | None) -> str:
    """A win or a draw (winner None) in the rule set's PDN result form."""
    if international_results(rules):
        return {Side.WHITE: "2-0", Side.BLACK: "0-2", None: "1-1"}[winner]
    return {Side.WHITE: "1-0", Side.BLACK: "0-1", None: "1/2-1/2"}[winner]


_RESULTS: dict[str, tuple[Side | None, bool]] = {
    "1-0": (Side.WHITE, True),
    "2-0": (Side.WHITE, True),
    "0-1": (Side.BLACK, True),
    "0-2": (Side.BLACK, True),
    "1/2-1/2": (None, True),
    "½-½": (None, True),
    "1-1": (None, True),
    "0-0": (None, False),
}

#: The PDN result texts a record may carry, in either form (8x8 and 10x10).
RESULTS = frozenset({"1-0", "0-1", "1/2-1/2", "2-0", "0-2", "1-1", "0-0"})


def parse_result(text: str) -> tuple[Side | None, bool]:
    """(winner, decided) of a PDN result in either form; ``0-0`` (both lose) is (None, False).

    RulesError for anything else, ``*`` included (not a result).
    """
    key = text.strip().replace(" ", "")
    try:
        return _RESULTS[key]
    except KeyError:
        raise RulesError(
            f"unknown result {text!r} (known: 1-0, 0-1, 1/2-1/2, 2-0, 0-2, 1-1, 0-0)"
        ) from None


class Termination(enum.Enum):
    """Why a game ended."""

    #: The side to move has no pieces left (000 6.1.2, 003 7.2.2, 004 §15a).
    NO_PIECES = "no pieces"
    #: The side to move has no legal move (000 6.1.3, 003 7.2.3, 004 §15a).
    NO_MOVES = "no moves"
    #: A draw rule of the rule set ran out on the board (000 7.2, 001 §6, 003 §6, 002).
    DRAW_RULE = "draw rule"
    #: A draw a player claimed (004 §16b, §16d).
    CLAIMED = "claimed"
    #: Declared off the board: agreement, resignation, time forfeit, the arbiter.
    DECLARED = "declared"


@dataclass(frozen=True, slots=True)
class Outcome:
    """How a game ended: ``result`` in the rule set's PDN form, ``reason`` in words (with the
    rule's paragraph), ``winner`` (None for a draw or a double loss), ``termination`` why."""

    result: str
    reason: str
    winner: Side | None
    termination: Termination = Termination.DECLARED


@dataclass(frozen=True, slots=True)
class DrawCounter:
    """A draw rule that is counting: ``moves_left`` moves (of ``side``, or of each player when
    ``side`` is None) until the draw; for repetition, how many more times the position may come
    back. 0 or less: the rule has run out (a draw, or a claim that stands). ``claim`` when the
    rule draws only if a player claims (004 §16b, §16d)."""

    name: str
    moves_left: int
    rule: str
    side: Side | None = None
    claim: bool = False


# --------------------------------------------------------------------------------------------
# Draw rules as data


@dataclass(frozen=True, slots=True)
class _Class:
    """An endgame whose balance starts a count (lone-king endings, few-piece endings)."""

    key: str
    name: str
    rule: str
    limit: int  # moves
    strong_only: bool  # count only the stronger side's moves; else each player's
    test: Callable[[Position], Side | None]  # the stronger side (or WHITE when symmetric)
    restart_on_change: bool = True  # a capture or crowning restarts the count
    carries_into: tuple[str, ...] = ()  # classes whose balance continues this count
    at_once_without_fischer: bool = False
    claim: bool = False


@dataclass(frozen=True, slots=True)
class _DrawRules:
    repetition_rule: str | None = None
    repetition_claim: bool = False
    king_moves: int | None = None
    king_rule: str = ""
    no_capture: int | None = None
    no_capture_rule: str = ""
    no_change: int | None = None  # moves without a change of material, on claim (004 §16b)
    no_change_rule: str = ""
    classes: tuple[_Class, ...] = ()


def _lone_king(position: Position) -> Side | None:
    """The side facing a lone king (the side whose only piece is one king), else None."""
    for weak in (Side.WHITE, Side.BLACK):
        if position.count(weak) == 1 and position.count(weak, king=True) == 1:
            if position.count(weak.other) > 0:
                return weak.other
    return None


def _material(position: Position, side: Side) -> tuple[int, int]:
    return position.count(side, king=True), position.count(side, king=False)


def _strong_with(options: set[tuple[int, int]]) -> Callable[[Position], Side | None]:
    """The side facing a lone king with exactly one of the (kings, men) balances given."""

    def test(position: Position) -> Side | None:
        strong = _lone_king(position)
        if strong is not None and _material(position, strong) in options:
            return strong
        return None

    return test


def _kings_at_least(n: int) -> Callable[[Position], Side | None]:
    def test(position: Position) -> Side | None:
        strong = _lone_king(position)
        if strong is not None and position.count(strong, king=True) >= n:
            return strong
        return None

    return test


_MAIN_ROAD = frozenset({29, 25, 22, 18, 15, 11, 8, 4})  # a1 b2 c3 d4 e5 f6 g7 h8 on 8x8


def _on_main_road(test: Callable[[Position], Side | None]) -> Callable[[Position], Side | None]:
    def on_road(position: Position) -> Side | None:
        strong = test(position)
        if strong is None or position.rules.size != 8:
            return None
        if position.squares_of(strong.other) <= _MAIN_ROAD:
            return strong
        return None

    return on_road


def _kings_both_sides(low: int, high: int) -> Callable[[Position], Side | None]:
    def test(position: Position) -> Side | None:
        total = position.count(Side.WHITE) + position.count(Side.BLACK)
        if low <= total <= high and position.count(Side.WHITE, king=True) and position.count(
            Side.BLACK, king=True
        ):
            return Side.WHITE
        return None

    return test


_THREE = {(3, 0), (2, 1), (1, 2)}
_TWO = {(2, 0), (1, 1), (1, 0)}

_RUSSIAN = _DrawRules(
    repetition_rule="000 7.2.3",
    king_moves=15,
    king_rule="000 7.2.5",
    classes=(
        _Class("lone-king-15", "3+ kings against a lone king", "000 7.2.4", 15, True,
               _kings_at_least(3)),
        _Class("main-road-5", "against a lone king on the main road", "000 7.2.7", 5, True,
               _on_main_road(_strong_with(_THREE)), at_once_without_fischer=True),
        _Class("two-kings-5", "against a lone king", "000 7.2.8", 5, True,
               _strong_with(_TWO), at_once_without_fischer=True),
        _Class("endgame-30", "4-5 pieces, kings on both sides", "000 7.2.6", 30, False,
               _kings_both_sides(4, 5)),
        _Class("endgame-60", "6-7 pieces, kings on both sides", "000 7.2.6", 60, False,
               _kings_both_sides(6, 7)),
    ),
)

_INTERNATIONAL = _DrawRules(
    repetition_rule="003 6.1",
    king_moves=25,
    king_rule="003 6.2",
    classes=(
        _Class("lone-king-16", "against a lone king", "003 6.3", 16, False,
               _strong_with(_THREE), restart_on_change=False, carries_into=("lone-king-5",)),
        _Class("lone-king-5", "against a lone king", "003 6.4", 5, False,
               _strong_with(_TWO), restart_on_change=False),
    ),
)

_INTERNATIONAL64 = _DrawRules(
    repetition_rule="001 6.1",
    king_moves=15,
    king_rule="001 6.2",
    classes=(
        _Class("king-against-kings-5", "one king against one or two kings", "001 6.3", 5,
               False, _strong_with({(1, 0), (2, 0)}), restart_on_change=False),
    ),
)


def _soviet(kings: int) -> _DrawRules:
    para = "004 §16c" if kings == 3 else "004 §31"
    return _DrawRules(
        repetition_rule="004 §16d",
        repetition_claim=True,
        no_change=30,
        no_change_rule="004 §16b",
        classes=(
            _Class("lone-king-18", f"{kings} kings against a lone king", para, 18, True,
                   _kings_at_least(kings)),
        ),
    )


_HOME = _DrawRules(
    repetition_rule="002",
    no_capture=15,
    no_capture_rule="002",
)

#: The draw rules of each rule set, keyed by its class. A rule set not listed gets those of the
#: nearest listed class it derives from, else its board's main rules.
DRAW_RULES: dict[type[RuleSet], _DrawRules] = {
    Russian: _RUSSIAN,
    Brazilian: _RUSSIAN,
    International: _INTERNATIONAL,
    International64: _INTERNATIONAL64,
    Russian1953: _soviet(3),
    International1953: _soviet(4),
    Home: _HOME,
}


def _draw_rules(rules: RuleSet) -> _DrawRules:
    """The draw rules of a rule set (:data:`DRAW_RULES`)."""
    for cls in type(rules).__mro__:
        if cls in DRAW_RULES:
            return DRAW_RULES[cls]
    return _INTERNATIONAL if rules.size == 10 else _RUSSIAN


# --------------------------------------------------------------------------------------------
# Per-position state


@dataclass(frozen=True, slots=True)
class _State:
    king_run: int = 0  # plies of king moves without capture, no man moved
    since_capture: int = 0  # plies since the last capture
    since_change: int = 0  # plies since the last capture or crowning
    runs: dict[str, int] = field(default_factory=dict)  # endgame class -> plies in it
    ending: Outcome | None = None  # the first ending reached at or before this position


@dataclass(frozen=True, slots=True)
class _Entry:
    move: Move | None  # None: the start, or a position set up by the arbiter
    position: Position
    state: _State


class Game:
    """A game under one rule set (module docstring for the rules implemented).

    ``fischer`` says whether the time control adds seconds per move: Russian 7.2.9 draws some
    endings at once when it does not.
    """

    def __init__(
        self, rules: RuleSet | str, start: Position | None = None, fischer: bool = True
    ) -> None:
        self.rules = find_rules(rules)
        if start is not None and start.rules != self.rules:
            raise RulesError(
                f"the start position is a {start.rules.name} position, the game {self.rules.name}"
            )
        self.fischer = fischer
        self._draws = _draw_rules(self.rules)
        first = start if start is not None else Position.start(self.rules)
        self._entries: list[_Entry] = []
        self._declared: Outcome | None = None
        self._append(None, first, _State(runs=self._runs({}, first, True)))

    # -- the record ------------------------------------------------------------------------

    @property
    def start(self) -> Position:
        return self._entries[0].position

    @property
    def position(self) -> Position:
        """The position now."""
        return self._entries[-1].position

    @property
    def moves(self) -> list[Move]:
        """The moves played, in order (setups left out)."""
        return [e.move for e in self._entries[1:] if e.move is not None]

    @property
    def history(self) -> list[Position]:
        """Every position of the game, the start first, the current one last."""
        return [e.position for e in self._entries]

    def record(self) -> list[tuple[Move | None, Position]]:
        """The game after the start: (move, position after) per entry; a setup has no move."""
        return [(e.move, e.position) for e in self._entries[1:]]

    def push(self, move: Move, after: Position | None = None) -> Position:
        """Play a legal move; IllegalMoveError if it is not legal now. Returns the new position.
        ``after``: the position after ``move``, when the caller played it already from this
        game's position object (the referee did): used rather than played again, and so not
        checked for legality a second time."""
        before = self.position
        if after is None:
            after = before.play(move)  # IllegalMoveError if not legal here
        piece = before.piece_at(move.start)
        assert piece is not None
        prev = self._entries[-1].state
        king_move = piece.king and not move.is_capture
        changed = move.is_capture or move.promotes
        self._append(move, after, _State(
            king_run=prev.king_run + 1 if king_move else 0,
            since_capture=0 if move.is_capture else prev.since_capture + 1,
            since_change=0 if changed else prev.since_change + 1,
            runs=self._runs(prev.runs, after, changed),
        ))
        return after

    def setup(self, position: Position) -> None:
        """Continue from a position the arbiter accepted (PDN ``/FEN "..."/``): the draw counts
        and the repetition history start again from it."""
        if position.rules != self.rules:
            raise RulesError(f"a {position.rules.name} position in a {self.rules.name} game")
        self._append(None, position, _State(runs=self._runs({}, position, True)))

    def _append(self, move: Move | None, position: Position, state: _State) -> None:
        previous = self._entries[-1].state.ending if self._entries else None
        self._entries.append(_Entry(move, position, state))
        ending = previous if previous is not None else self._board_ending(position, state)
        if ending is not None:
            self._entries[-1] = _Entry(move, position, replace(state, ending=ending))

    def pop(self) -> Move | None:
        """Take back the last move or setup (returns the move, None for a setup)."""
        if len(self._entries) == 1:
            raise RulesError("no move to take back")
        return self._entries.pop().move

    # -- results -----------------------------------------------------------------------------

    def declare(self, result: str | None, reason: str) -> None:
        """A result decided off the board (agreement, resignation, time forfeit, the arbiter):
        ``result`` in either PDN form (``1-0``, ``2-0``, ``1/2-1/2``, ``1-1``, ``0-0``);
        None withdraws a declaration."""
        if result is None:
            self._declared = None
            return
        winner, decided = parse_result(result)
        text = result_text(self.rules, winner) if decided else "0-0"
        self._declared = Outcome(text, reason, winner, Termination.DECLARED)

    def outcome(self) -> Outcome | None:
        """How the game ended, or None while it goes on: a declared result first, else the
        first ending reached on the board."""
        if self._declared is not None:
            return self._declared
        return self._entries[-1].state.ending

    def draw_counters(self) -> list[DrawCounter]:
        """The draw rules counting now, nearest draw first."""
        entry = self._entries[-1]
        return sorted(self._counters(entry.position, entry.state), key=lambda c: c.moves_left)

    def claimable(self) -> list[DrawCounter]:
        """Draws the player to move may claim now (004 §16b, §16d): counters that have run
        out and draw only on claim."""
        return [c for c in self.draw_counters() if c.claim and c.moves_left <= 0]

    def claim_draw(self, move: Move | None = None) -> Outcome:
        """The player to move claims a draw (004 §16); RulesError if no claim stands.

        With ``move``: the claim of a player who could repeat the position a third time with
        that move and, as 004 §16 asks, claims instead of making it (the move is not played).
        """
        if move is not None:
            if move not in self.position.legal_moves():
                raise IllegalMoveError(f"{move} is not a legal move in {self.position.fen()}")
            rule = self._draws.repetition_rule
            after = self.position.play(move)
            seen = sum(1 for p in self._since_setup() if p == after)
            if rule is None or seen < 2:
                raise RulesError("that move does not repeat the position a third time")
            reason = f"threefold repetition on claim ({rule})"
        else:
            claims = self.claimable()
            if not claims:
                raise RulesError("no draw can be claimed in this position")
            reason = f"{claims[0].name} on claim ({claims[0].rule})"
        outcome = Outcome(result_text(self.rules, None), reason, None, Termination.CLAIMED)
        self._declared = outcome
        return outcome

    def _since_setup(self) -> list[Position]:
        out: list[Position] = []
        for entry in reversed(self._entries):
            out.append(entry.position)
            if entry.move is None:
                break
        return out

    def repetitions(self) -> int:
        """How many times the current position (same side to move) has stood on the board since
        the last capture, man move or setup (no earlier position can come back)."""
        last = self._entries[-1]
        count = 1
        if last.move is None:
            return count
        for entry in reversed(self._entries[-1 - last.state.king_run : -1]):
            if entry.position == last.position:
                count += 1
            if entry.move is None:
                break
        return count

    # -- internals ---------------------------------------------------------------------------

    def _runs(self, prev: dict[str, int], position: Position, changed: bool) -> dict[str, int]:
        """Plies spent in each endgame class whose count runs at ``position``."""
        classes = self._draws.classes
        runs: dict[str, int] = {}
        white, black = position.count(Side.WHITE), position.count(Side.BLACK)
        if not classes or (white > 1 and black > 1 and white + black > 7):
            return runs  # every class is a lone-king or a 4-7 piece ending
        for cls in classes:
            own = cls.test(position) is not None
            carried = cls.key in prev and any(
                self._class(k).test(position) is not None for k in cls.carries_into
            )
            if not (own or carried):
                continue
            if any(cls.key in other.carries_into and other.key in runs for other in classes):
                continue  # a count that carries into this balance goes on instead (003 6.3)
            if cls.key in prev and not (changed and cls.restart_on_change):
                runs[cls.key] = prev[cls.key] + 1
            else:
                runs[cls.key] = 0
        return runs

    def _class(self, key: str) -> _Class:
        for cls in self._draws.classes:
            if cls.key == key:
                return cls
        raise KeyError(key)

    def _board_ending(self, position: Position, state: _State) -> Outcome | None:
        turn = position.turn
        if position.count(turn) == 0:
            return Outcome(result_text(self.rules, turn.other), f"{turn.value} has no pieces left",
                           turn.other, Termination.NO_PIECES)
        if not position.has_legal_move():
            return Outcome(result_text(self.rules, turn.other),
                           f"{turn.value} has no legal move", turn.other, Termination.NO_MOVES)
        for counter in self._counters(position, state):
            if counter.moves_left <= 0 and not counter.claim:
                return Outcome(result_text(self.rules, None), f"{counter.name} ({counter.rule})",
                               None, Termination.DRAW_RULE)
        return None

    def _counters(self, position: Position, state: _State) -> list[DrawCounter]:
        d = self._draws
        out: list[DrawCounter] = []
        if d.repetition_rule:
            seen = self.repetitions()
            if seen >= 2:
                out.append(DrawCounter("threefold repetition", 3 - seen, d.repetition_rule,
                                       None, d.repetition_claim))
        if d.king_moves is not None and state.king_run:
            out.append(DrawCounter(f"{d.king_moves} king moves without capture",
                                   _each_left(d.king_moves, state.king_run), d.king_rule))
        if d.no_capture is not None:
            out.append(DrawCounter(f"{d.no_capture} moves without capture",
                                   _each_left(d.no_capture, state.since_capture),
                                   d.no_capture_rule))
        if d.no_change is not None:
            out.append(DrawCounter(f"{d.no_change} moves without change of material",
                                   _each_left(d.no_change, state.since_change),
                                   d.no_change_rule, None, True))
        for cls in d.classes:
            if cls.key not in state.runs:
                continue
            plies = state.runs[cls.key]
            strong = cls.test(position) or _lone_king(position)
            if cls.at_once_without_fischer and not self.fischer and not _win_evident(position):
                out.append(DrawCounter(f"{cls.name} without Fischer increments", 0, "000 7.2.9",
                                       strong, cls.claim))
                continue
            if cls.strong_only and strong is not None:
                entry_turn = position.turn if plies % 2 == 0 else position.turn.other
                made = (plies + (1 if entry_turn is strong else 0)) // 2
                out.append(DrawCounter(cls.name, cls.limit - made, cls.rule, strong, cls.claim))
            else:
                out.append(DrawCounter(cls.name, _each_left(cls.limit, plies), cls.rule, None,
                                       cls.claim))
        return out


def _win_evident(position: Position) -> bool:
    """000 7.2.9's exception, "unless the game has an evident continuation and the player can
    show the win": at least when the stronger side, to move, takes the lone king at once
    (a legal move leaving the other side no pieces)."""
    strong = _lone_king(position)
    if strong is None or position.turn is not strong:
        return False
    weak = strong.other
    return any(position.play(m).count(weak) == 0 for m in position.legal_moves())


def _each_left(limit: int, plies: int) -> int:
    """Moves left, each player's, when ``plies`` have been played of ``limit`` moves each."""
    return -((plies - 2 * limit) // 2)
