"""The training players of the player door (issue 42; docs/TRAINING.md): guess the move of a
master game (:class:`GuessPlayer`, ``boardctl run --train``) and puzzles (:class:`PuzzlePlayer`,
``--puzzles``). Each is a :class:`~boardctl.service.door.Player` made with its
:class:`~boardctl.service.door.Seat` and acts through it alone; the line being played through
is a :class:`~boardctl.training.guessing.Guessing`, the score a
:class:`~boardctl.training.score.Score`, the session's PDN a
:class:`~boardctl.training.score.SessionFile`."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from boardctl.service.door import Seat
from boardctl.service.games import GameSetup
from boardctl.training.guessing import Guessing
from boardctl.training.score import Score, SessionFile, line_pdn
from boardctl.training.source import Line
from firmware.clock.face import MoveOnFaces, segment_squares
from firmware.errors import BoardError
from firmware.formats.journal import StartMode
from firmware.rules.sets import Side
from firmware.session.session import BoardSession

logger = logging.getLogger(__name__)


def line_setup(setup: GameSetup, line: Line) -> None:
    """A game of ``line``: its start, its tags (those the request gave win), moves committed
    by presses (the person's press is his guess), started by its first move."""
    setup.fen = line.fen
    for tag, value in line.tags.items():
        setup.tags.setdefault(tag, value)
    if setup.time_control is None:
        setup.clocked = True
    setup.start = StartMode.MOVE


def is_line(session: BoardSession, line: Line) -> bool:
    """Whether the game in play is one of ``line`` (a ``new`` of another start is not)."""
    return session.start.fen() == line.start.fen()


def line_comments(guessing: Guessing) -> dict[int, str]:
    return {ply: g.comment() for ply, g in sorted(guessing.plies.items())
            if g.right or g.shown}


class GuessPlayer:
    """Guess the move (``--train``): the person plays ``side`` of a master game's ``line``;
    the other side's moves are shown as the engine's (module docstring of
    :mod:`boardctl.training.guessing`)."""

    def __init__(self, seat: Seat, line: Line, side: Side, file: SessionFile) -> None:
        self.seat = seat
        self.line = line
        self.side = side
        self.file = file
        self.guessing = Guessing(seat, line, side, "train")
        self.score = Score()
        self._saved: tuple[int, int] | None = None

    def amend_setup(self, setup: GameSetup) -> None:
        line_setup(setup, self.line)

    def on_turn(self, at: int) -> None:
        session = self.seat.session
        if not is_line(session, self.line):
            return
        guessing = self.guessing
        guessing.follow(session, at)
        if guessing.over and not guessing.ended:
            guessing.end(at)
            logger.info(f"training: {self.line.title} played through: "
                        f"{self._score().text()}")
        said = (guessing.done, sum(len(g.wrong) for g in guessing.plies.values()))
        if said != self._saved:
            self._saved = said
            self.file.save(self.pdn())

    def _score(self) -> Score:
        score = Score()
        score.add(self.guessing.plies.values())
        return score

    def pdn(self) -> str:
        """The session's PDN: the line as far as played, the guesses as comments, the score
        after the last move."""
        guessing, line = self.guessing, self.line
        comments = line_comments(guessing)
        if guessing.done:
            last = guessing.done - 1
            summary = f"score: {self._score().text()}"
            comments[last] = f"{comments[last]}; {summary}" if last in comments else summary
        result = line.result if guessing.ended else None
        return line_pdn(self.seat.session.rules, {**line.tags, "Annotator": "boardctl --train"},
                        line.texts[:guessing.done], line.fen, result, comments)

    def on_press(self, side: str, at: int) -> bool:
        """The other side's clock button is the line's once the game runs."""
        return side == self.side.other.value and self.seat.session.referee.started

    def leds(self, now: int) -> Mapping[str, str]:
        return self.guessing.leds(now)

    def face_move(self) -> MoveOnFaces | None:
        """The score on the person's face (first-try hits, plies guessed) with the times."""
        score = self._score()
        total = score.first + score.second + score.third + score.shown
        return MoveOnFaces(self.side, segment_squares(str(score.first), str(total)).text)

    def sides(self) -> frozenset[Side]:
        shown = self.guessing.shown_side()
        return frozenset({self.side.other} | ({shown} if shown is not None else set()))

    def status(self) -> dict[str, Any]:
        guessing = self.guessing
        ply = guessing.done
        return {"training": {
            "mode": "train", "game": self.line.number, "side": self.side.value,
            "ply": ply, "plies": len(self.line.moves), "over": guessing.over,
            "tries": len(guessing.guesses(ply).wrong) if not guessing.over else 0,
            "score": self._score().members(), **self.file.status()}}

    def close(self) -> None:
        self.file.close()


class PuzzlePlayer:
    """Puzzles (``--puzzles``): each ``lines``' position set up by the LEDs from whatever
    stands on the board, the person finding the solution's moves for the side to move, the
    replies shown as the engine's; a wrong move told and taken back (the puzzle missed); the
    next puzzle on a press once one is played through."""

    def __init__(self, seat: Seat, lines: list[Line], file: SessionFile) -> None:
        self.seat = seat
        self.lines = lines
        self.file = file
        #: The puzzle set up last (its index), and each one's outcome: solved or not.
        self.index = -1
        self.guessing: Guessing | None = None
        self.outcomes: dict[int, bool] = {}
        self.texts: dict[int, str] = {}
        self._next = False

    @property
    def line(self) -> Line | None:
        return self.lines[self.index] if 0 <= self.index < len(self.lines) else None

    def amend_setup(self, setup: GameSetup) -> None:
        """Each new game is the next puzzle (after the last: the first again)."""
        self.index = (self.index + 1) % len(self.lines)
        line = self.lines[self.index]
        line_setup(setup, line)
        setup.tags.setdefault("Puzzle", str(self.index + 1))
        self.guessing = Guessing(self.seat, line, line.start.turn, "puzzle")

    def _current(self, session: BoardSession) -> Guessing | None:
        """The puzzle of the game in play (a resumed one found by its position)."""
        line = self.line
        if line is not None and is_line(session, line) and self.guessing is not None:
            return self.guessing
        for i, candidate in enumerate(self.lines):
            if is_line(session, candidate):
                self.index = i
                self.guessing = Guessing(self.seat, candidate, candidate.start.turn, "puzzle")
                return self.guessing
        return None

    def on_turn(self, at: int) -> None:
        session = self.seat.session
        if self._next:
            self._next = False
            try:
                self.seat.next_game()
            except BoardError as exc:
                logger.warning(f"puzzles: the next puzzle: {exc}")
            return
        guessing = self._current(session)
        if guessing is None:
            return
        guessing.follow(session, at)
        solved = not any(g.wrong for g in guessing.plies.values())
        if guessing.over and not guessing.ended:
            guessing.end(at)
            self.outcomes[self.index] = solved
            logger.info(f"puzzle {self.index + 1}: {'solved' if solved else 'missed'}")
            self._save(guessing, solved)

    def _save(self, guessing: Guessing, solved: bool) -> None:
        line = guessing.line
        comments = line_comments(guessing)
        last = len(line.moves) - 1
        said = "solved" if solved else "missed"
        comments[last] = f"{comments[last]}; {said}" if last in comments else said
        tags = {**line.tags, "Annotator": "boardctl --puzzles", "Puzzle": str(self.index + 1)}
        self.texts[self.index] = line_pdn(self.seat.session.rules, tags, line.texts, line.fen,
                                          line.result, comments)
        self.file.save("".join(self.texts[i] for i in sorted(self.texts)))

    def on_press(self, side: str, at: int) -> bool:
        """A puzzle played through: any clock button sets up the next. Before: the replying
        side's button is the solution's."""
        guessing = self.guessing
        if guessing is None or not self.seat.session.referee.started:
            return False
        if guessing.ended:
            self._next = True
            self.seat.wake()
            return True
        return side == guessing.side.other.value

    def leds(self, now: int) -> Mapping[str, str]:
        return self.guessing.leds(now) if self.guessing is not None else {}

    def sides(self) -> frozenset[Side]:
        guessing = self.guessing
        if guessing is None:
            return frozenset()
        shown = guessing.shown_side()
        return frozenset({guessing.side.other} | ({shown} if shown is not None else set()))

    def status(self) -> dict[str, Any]:
        guessing = self.guessing
        solved = sum(self.outcomes.values())
        said: dict[str, Any] = {
            "mode": "puzzles", "puzzle": self.index + 1, "puzzles": len(self.lines),
            "solved": solved, "missed": len(self.outcomes) - solved,
            "over": guessing is not None and guessing.ended, **self.file.status()}
        if guessing is not None:
            said.update(side=guessing.side.value, ply=guessing.done,
                        plies=len(guessing.line.moves),
                        tries=len(guessing.guesses(guessing.done).wrong))
        return {"training": said}

    def close(self) -> None:
        self.file.close()
