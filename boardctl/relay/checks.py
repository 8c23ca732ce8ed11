"""The relay's checks of the records it takes (pure: no I/O): each typed record
(``firmware.formats.records``, read once by ``firmware.formats.reader``) applied to its game,
checked on the rules core, and the bound on the moves held.

A record can pass its checksum and still be wrong (a buggy or foreign sender): the relay plays
every move on the rules core before it takes it. A rule set it does not know, a start position
that does not read, a move that is not legal where it stands or comes from the side not to
move, a snapshot whose moves do not play through: each is refused, counted
(:attr:`RecordChecks.refused`) and told in the relay's log (the first ten, then every
thousandth), and the game waits for the next snapshot, as after lost lines. Each move is played
here once: the record handed on to the live page carries the position it found (a move's
``fen``, a snapshot's moves' ``fen`` for those played), so the page draws it without playing it
again.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from boardctl.relay.games import RelayGame, _after, _clean, _details, _looks, _num, _same
from firmware.errors import BoardError
from firmware.formats.reader import dispatch
from firmware.formats.records import (
    ClockRecord,
    FeedRecord,
    GameRecord,
    MoveRecord,
    ResultRecord,
    SnapshotRecord,
    TakeBackRecord,
)
from firmware.rules.game import RESULTS, parse_result, result_text
from firmware.rules.position import Position
from firmware.rules.sets import find_rules

__all__ = ["MAX_MOVES", "RecordChecks"]

#: Moves held in all: a 200-board hall's eleven rounds are about 330,000.
MAX_MOVES = 1_000_000

#: What a record did to its game: changed it or not, and the record as taken (the positions
#: the rules core found put in), which the live page is told.
Taken = tuple[bool, FeedRecord]


class RecordChecks:
    """What the rules core says of a game's rule set, start and moves, and the bound on the
    moves held: each record is applied to its game here, checked (``RelayState`` holds one
    and hands it the records of the games it keys). ``log`` is told what is refused."""

    def __init__(self, log: Callable[[str], None] | None) -> None:
        #: Records (or parts: a start position, a snapshot's moves) refused as wrong.
        self.refused = 0
        #: Moves held in all games (at most :data:`MAX_MOVES`).
        self.held = 0
        self.log = log
        #: Whether anyone reads the positions found (the live page): FENs are written then.
        self.positions = False

    def refuse(self, game: RelayGame, what: str) -> None:
        self.refused += 1
        n = self.refused
        self.tell(n, f"relay: board {game.board}, game {game.game}: {what} ({n} refused so "
                     "far)")

    def tell(self, n: int, message: str) -> None:
        """Log the ``n``-th message of a kind: the first ten, then every thousandth."""
        if self.log is not None and (n <= 10 or n % 1000 == 0):
            self.log(message)

    def hold(self, game: RelayGame, moves: list[dict[str, Any]]) -> bool:
        """Make ``moves`` the game's moves, within :data:`MAX_MOVES` in all."""
        more = len(moves) - len(game.moves)
        if self.held + more > MAX_MOVES:
            self.refuse(game, f"moves refused: the relay holds {self.held} moves already")
            return False
        self.held += more
        game.moves = moves
        return True

    def setup(self, game: RelayGame, rules: Any, start_fen: Any, time_control: Any = None,
              tags: Any = None) -> bool:
        """Take a rule set, a start position, a time control and tags (each as a record or
        the store gives it: anything that is not text is left); True when the rule set or
        the start position changed (the moves must be played again)."""
        name, fen = rules, start_fen
        rules, start_fen = game.rules, game.start_fen
        if isinstance(name, str):
            try:
                rules = find_rules(name).name
            except BoardError:
                self.refuse(game, f"unknown rule set {_clean(name)[:40]!r} refused")
        if isinstance(fen, str) and _clean(fen):
            if rules is None:
                self.refuse(game, "a start position without a rule set refused")
            else:
                try:
                    start = Position.from_fen(rules, _clean(fen))
                    start_fen = None if start == Position.start(rules) else start.fen()
                except (BoardError, ValueError) as exc:
                    self.refuse(game, f"start position refused: {exc}")
        _details(game, time_control, tags)
        if rules is not None and rules != game.rules and start_fen == game.start_fen:
            start_fen = None  # a new rule set without a start position: its own start
        changed = (rules, start_fen) != (game.rules, game.start_fen)
        game.rules, game.start_fen = rules, start_fen
        return changed

    def recheck(self, game: RelayGame) -> None:
        """The moves played again after the rule set or the start position changed: those
        that no longer play are dropped until a snapshot says what they are."""
        game.position = None
        if not game.moves:
            return
        played = self.play(game, game.moves, from_start=True, what="move")
        if played is None:
            return
        position, good, _ = played
        if good < len(game.moves):
            self.hold(game, game.moves[:good])
            game.gap = True
        game.position = position

    def play(self, game: RelayGame, moves: list[dict[str, Any]], *, from_start: bool,
             what: str) -> tuple[Position, int, list[Position]] | None:
        """``moves`` played on the game (from its start, or on from its own moves when
        ``moves`` begins with them): the position after the moves that play, their count and
        the positions after those played here (those the game had already are not played
        again); the first that does not play refused and told; None with no rule set known."""
        position = game.start()
        if position is None:
            self.refuse(game, f"{what} refused: no rule set known yet")
            return None
        first = 0
        known = game.moves
        if (not from_start and game.position is not None and len(known) <= len(moves)
                and all(_same(a, b) for a, b in zip(known, moves[:len(known)], strict=True))):
            position, first = game.position, len(known)
        seen: list[Position] = []
        for k in range(first, len(moves)):
            after = _after(position, moves[k], k + 1)
            if isinstance(after, str):
                self.refuse(game, f"{what} refused at ply {k + 1} "
                                  f"({moves[k].get('move')!r}): {after}")
                return position, k, seen
            position = after
            seen.append(position)
        return position, len(moves), seen

    def fits(self, game: RelayGame, result: str) -> bool:
        """A result in its rule set's form (2-0/1-1/0-2 on 100 squares, 1-0/½-½/0-1 on 64;
        0-0 in both: firmware.rules.game); another form refused and told."""
        if result not in RESULTS or result == "0-0" or game.rules is None:
            return True
        rules = find_rules(game.rules)
        if result == result_text(rules, parse_result(result)[0]):
            return True
        self.refuse(game, f"result {result} refused: {rules.name} writes "
                          f"{result_text(rules, parse_result(result)[0])}")
        return False

    def fen_stands(self, game: RelayGame, fen: str, position: Position | None) -> bool:
        """A snapshot without moves shows its ``fen`` (the live page): True when it is the
        position the game stands in, else the snapshot is refused (False)."""
        try:
            claimed = Position.from_fen(game.rules, fen) if game.rules else None
        except (BoardError, ValueError):
            claimed = None
        if position is not None and claimed == position:
            return True
        self.refuse(game, f"snapshot refused: its fen {fen[:60]!r} is not the position of "
                          "its start and moves")
        return False

    def apply(self, game: RelayGame, record: FeedRecord) -> Taken:
        """A record applied to ``game``, checked: whether the game changed, and the record
        as taken (one no table names changes nothing: an irregularity, a cleared board)."""
        taken = dispatch(record, _APPLY, self, game)  # _APPLY[type](self, record, game)
        return taken if taken is not None else (False, record)

    def clock_since(self, game: RelayGame, white: Any, black: Any, running: Any) -> bool:
        """The clocks now (a ``clock`` line), on the last move's ``[%clock]`` (RelayGame);
        True when they changed."""
        white, black = _num(white), _num(black)
        if white is None or black is None or not game.moves:
            return False
        since = (len(game.moves), white, black, running if running in ("white", "black") else "")
        changed = since != game.clock_since
        game.clock_since = since
        return changed

    # -- one step per record class (_APPLY) -------------------------------------------------

    def _game(self, record: GameRecord, game: RelayGame) -> Taken:
        before = _looks(game)
        if self.setup(game, record.rules, record.fen, record.time_control, record.tags):
            self.recheck(game)
        return _looks(game) != before, record

    def _clock(self, record: ClockRecord, game: RelayGame) -> Taken:
        clock = record.clock or {}
        return self.clock_since(game, clock.get("white"), clock.get("black"),
                                record.running), record

    def _takeback(self, record: TakeBackRecord, game: RelayGame) -> Taken:
        """Plies taken back: the game is published again, tags kept."""
        gone = _take_back(game, record.ply)
        self.held -= gone
        return gone > 0, record

    def _result(self, record: ResultRecord, game: RelayGame) -> Taken:
        result = record.result
        if not self.fits(game, result) or result not in RESULTS or result == game.result:
            return False, record
        game.result = result
        game.reason = record.reason
        return True, record

    def _snapshot(self, record: SnapshotRecord, game: RelayGame) -> Taken:
        before = _looks(game)
        reset = self.setup(game, record.rules, record.start_fen, record.time_control,
                           record.tags)
        listed = record.moves
        if listed is not None:
            taken = [m.played() for m in listed]
            played = self.play(game, taken, from_start=reset, what="snapshot")
            if played is not None and played[1] == len(taken) and self.hold(game, taken):
                game.position = played[0]
                game.gap = False
                record = self._found(record, played[2])
            elif reset:
                self.recheck(game)
        elif reset:
            self.recheck(game)
        fen = _clean(record.fen) if record.fen is not None else ""
        if not listed and fen and not self.fen_stands(
                game, fen, game.start() if listed is not None or not game.moves
                else game.position):
            return _looks(game) != before, record  # nor its result taken
        result = record.result
        if result is not None and not self.fits(game, result):
            result = None
        game.result = result if result is not None and result in RESULTS else None
        game.reason = (record.reason or "") if game.result else None
        return _looks(game) != before, record

    def _found(self, record: SnapshotRecord, seen: list[Position]) -> SnapshotRecord:
        """The snapshot with the FEN after each move played here (the last ``len(seen)``)."""
        if not self.positions or not seen:
            return record
        moves = list(record.moves or ())
        first = len(moves) - len(seen)
        for k, position in enumerate(seen, first):
            moves[k] = replace(moves[k], fen=position.fen())
        return replace(record, moves=tuple(moves))

    def _move(self, record: MoveRecord, game: RelayGame) -> Taken:
        ply = record.ply
        if ply != len(game.moves) + 1 or game.gap:
            if ply > len(game.moves) + 1:
                game.gap = True  # lines were lost: wait for the next snapshot
            return False, record
        move = record.played()
        position = game.position
        if position is None:  # the first move, or the first after a change of rules
            played = self.play(game, game.moves, from_start=True, what="move")
            if played is None or played[1] < len(game.moves):
                game.gap = True  # wait for the next snapshot
                return False, record
            position = played[0]
        after = _after(position, move, ply)
        if isinstance(after, str):
            self.refuse(game, f"move refused at ply {ply} ({record.move!r}): {after}")
            game.gap = True  # wait for the next snapshot
            return False, record
        if self.held >= MAX_MOVES:
            self.refuse(game, f"move refused: the relay holds {self.held} moves already")
            game.gap = True
            return False, record
        self.held += 1
        game.moves.append(move)
        game.position = after
        return True, replace(record, fen=after.fen()) if self.positions else record


def _take_back(game: RelayGame, left: int) -> int:
    """A takeback line's plies taken off ``game`` (``left``: the plies it keeps); 0 for one
    the game cannot have. The board's clock line (clocks stopped, or an engine game's player's
    still running) comes before its takeback line: it is the clocks after the plies left."""
    if not 0 <= left < len(game.moves):
        return 0
    stood = game.clock_since
    if stood is not None and stood[0] == len(game.moves):
        game.clock_since = (left, *stood[1:])
    gone = len(game.moves) - left
    del game.moves[left:]
    game.position = None  # the next move plays the game through again
    game.result = game.reason = None
    return gone


#: What each record class does to its game.
_APPLY: dict[type[Any], Callable[..., Taken]] = {
    GameRecord: RecordChecks._game,
    SnapshotRecord: RecordChecks._snapshot,
    MoveRecord: RecordChecks._move,
    ClockRecord: RecordChecks._clock,
    TakeBackRecord: RecordChecks._takeback,
    ResultRecord: RecordChecks._result,
}
