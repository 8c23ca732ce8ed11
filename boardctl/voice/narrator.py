"""Feed records in, utterances out: what the voice says about each record, in the player's
language (docs/VOICE.md has the whole list).

- ``move``: ``White: 32 to 28`` (the side as ``The computer`` or ``Your opponent`` when the
  engine or a remote player has that side); not said again when it is the engine's or remote
  side's move that was just told to be carried out.
- ``engine-move`` / ``remote-move``: ``The computer plays 32 takes 23, then 14. Take off the
  pieces on 19 and 28``; they also teach the narrator who plays that side.
- ``irregularity``: the kind, then what the LEDs ask (``Put a piece back on 32``); the same
  again is not repeated; ``cleared`` after one: ``The board is right again`` (neither is
  said when the irregularity was still waiting to be said).
- ``result``: a fallen flag or the reason, then the result; ``clock`` pause and resume;
  ``takeback``; a new game (its first ``snapshot`` with no moves): ``New game: dammen``.
- 10 s left on a running clock (not the computer's): :meth:`Narrator.due`.

Everything else (``header``, ``snapshot`` of a game under way, ``alarm``, ...) only keeps the
narrator's picture of the game. Records are the typed ones of ``firmware.formats.records``,
read once by the feed's one reader (``firmware.formats.reader``; an object handed over as a
dict is read by it too) and dispatched by class. A record the reader refuses, or whose
squares name none of this board's, is left unsaid and named once in the log; nothing here
raises for what a record holds.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from typing import Any

from boardctl.voice import sentences
from boardctl.voice.reading import SpokenMove, from_route, from_text
from boardctl.voice.track import GameTrack
from boardctl.voice.utterances import Utterance
from boardctl.voice.words import Words
from firmware.formats.reader import Refusal, dispatch, read_record
from firmware.formats.records import (
    ClearedRecord,
    ClockRecord,
    EngineMoveRecord,
    FeedRecord,
    GameRecord,
    HeaderRecord,
    IrregularityRecord,
    MoveRecord,
    PositionRecord,
    RemoteMoveRecord,
    ResultRecord,
    SnapshotRecord,
    TakeBackRecord,
)
from firmware.formats.tenseconds import SIDES, TenSeconds
from firmware.limits import clip
from firmware.rules.sets import RuleSet

logger = logging.getLogger(__name__)

ROLES = ("computer", "opponent")
#: What a move made, a take-back or a new game make stale among utterances still waiting.
AFTER_MOVE = frozenset({"engine-move", "remote-move", "irregularity", "cleared", "ten-seconds"})
AFTER_TAKEBACK = AFTER_MOVE | {"move"}
AFTER_NEW_GAME = AFTER_TAKEBACK | {"result", "pause", "resume", "takeback", "flag"}


class Unreadable(ValueError):
    """A record read, but naming nothing the voice can say (squares of no board)."""


class Narrator:
    """Records in, utterances out (module docstring); one thread uses it."""

    def __init__(self, words: Words, rules: RuleSet | str = "international",
                 roles: Mapping[str, str] | None = None) -> None:
        self.words = words
        self.track = GameTrack(rules)
        #: side -> "computer" | "opponent": who plays a side that is not at the board.
        self.roles: dict[str, str] = {s: r for s, r in (roles or {}).items()
                                      if s in SIDES and r in ROLES}
        self.ten = TenSeconds()
        self._told: tuple[int, str] | None = None  # (ply, side) of the move told to carry out
        self._irregularity: str | None = None  # the irregularity last said
        self._fresh_game = False
        self._game: str | None = None  # the game id of the record being heard
        self._unread: set[str] = set()

    def hear(self, record: FeedRecord | Mapping[str, Any], now: float,
             game: str | None = None) -> list[Utterance]:
        """What to say about one feed record (often nothing); ``now`` arms the 10 s watch;
        ``game``: the game id of its line. An object (a dict) is read by the feed's reader
        first (its ``game`` member the game id)."""
        if isinstance(record, Mapping):
            member = record.get("game")
            game = member if isinstance(member, str) else game
            read = read_record(record)
            if isinstance(read, Refusal):
                self.refused(str(read))
                return []
            record = read
        elif not hasattr(record, "type"):
            self.refused(f"a record is {type(record).__name__}, not an object")
            return []
        self._game = game
        try:
            said = dispatch(record, _HEARD, self) or []
        except Unreadable as exc:
            self.refused(f"{record.type} refused: {exc}")
            return []
        self.ten.hear(record, now)
        return said

    def due(self, now: float) -> Utterance | None:
        """``White, ten seconds left`` once the running clock is there (not for the computer,
        which keeps its own time)."""
        side = self.ten.due(now)
        if side is None or self.roles.get(side) == "computer":
            return None
        return Utterance(self.words.text(f"ten_seconds.{side}"), "ten-seconds", essential=True)

    # -- the game's picture -------------------------------------------------------------

    def _header(self, rec: HeaderRecord) -> list[Utterance]:
        self.track.set_rules(rec.rules)
        return []

    def _new_game(self, rec: GameRecord) -> list[Utterance]:
        self.track.set_rules(rec.rules)
        if self.track.new_game(rec.game or self._game):
            self._fresh_game = True
            self._told = self._irregularity = None
        self.track.start_at(rec.fen)
        return []

    def _snapshot(self, rec: SnapshotRecord) -> list[Utterance]:
        self.track.set_rules(rec.rules)
        moves = rec.moves or ()
        self.track.start_at(rec.fen, moves[-1].ply if moves else 0)
        fresh, self._fresh_game = self._fresh_game, False
        if not fresh or moves or rec.result:
            return []
        rules = self.words.text(f"rules.{self.track.rules.name}")
        return [Utterance(self.words.text("game.new", rules=rules), "game",
                          replaces=AFTER_NEW_GAME)]

    def _position(self, rec: PositionRecord) -> list[Utterance]:
        self.track.start_at(rec.fen)
        self._irregularity = None
        return []

    # -- moves ----------------------------------------------------------------------------

    def _move(self, rec: MoveRecord) -> list[Utterance]:
        ply, side = rec.ply, rec.side
        spoken = from_text(self.track.rules, self.track.position(), rec.move)
        self.track.after(ply, rec.fen)
        self._irregularity = None
        told, self._told = self._told, None
        if told == (ply, side) or spoken is None:
            return []
        said = self.words.text("move.said", side=self._side_name(side),
                               move=self._move_words(spoken))
        return [Utterance(said, "move", replaces=AFTER_MOVE)]

    def _instruct(self, rec: EngineMoveRecord | RemoteMoveRecord) -> list[Utterance]:
        kind = rec.type
        role = "computer" if isinstance(rec, EngineMoveRecord) else "opponent"
        ply, side = rec.ply, rec.side
        self.roles[side] = role
        spoken = from_route(self.track.rules, self.track.position(), list(rec.route),
                            list(rec.captured))
        if spoken is None:
            spoken = from_text(self.track.rules, None, rec.move)
        if spoken is None:
            raise Unreadable("its route and move name no squares of this board")
        self._told = (ply, side)
        words = self.words
        text = words.sentences([
            words.text(f"instruct.{role}", move=self._move_words(spoken)),
            sentences.take_off_sentence(words, self.track.rules, spoken.captured),
        ])
        return [Utterance(text, kind, essential=True, replaces=frozenset({kind}))]

    def _move_words(self, spoken: SpokenMove) -> str:
        return sentences.move_words(self.words, self.track.rules, spoken)

    def _side_name(self, side: str) -> str:
        return self.words.text(f"side.{self.roles.get(side, side)}")

    # -- the board, the clock, the end ----------------------------------------------------

    def _irregularity_said(self, rec: IrregularityRecord) -> list[Utterance]:
        kind = rec.kind
        leds = {k: v for k, v in (rec.leds or {}).items() if len(k) <= 4}
        words = self.words
        parts = [words.text(f"irregularity.{kind}")] if words.has(f"irregularity.{kind}") else []
        parts += sentences.led_sentences(words, self.track.rules, leds)
        text = words.sentences(parts)
        if not text or text == self._irregularity:
            return []
        self._irregularity = text
        return [Utterance(text, "irregularity", essential=True,
                          replaces=frozenset({"irregularity", "cleared"}))]

    def _cleared(self, rec: ClearedRecord) -> list[Utterance]:
        if self._irregularity is None:
            return []
        self._irregularity = None
        return [Utterance(self.words.text("game.cleared"), "cleared",
                          replaces=frozenset({"irregularity"}), retracts=True)]

    def _result(self, rec: ResultRecord) -> list[Utterance]:
        result, reason = rec.result, rec.reason or ""
        side = rec.flag_side
        flag = (side if side in SIDES and rec.flag_at is not None
                and reason.startswith("time forfeit") else None)
        said = sentences.result_sentences(self.words, result, reason, flag)
        if not said:
            raise Unreadable(f"{clip(result, 20)!r} is not a result")
        return [Utterance(self.words.sentences(said), "flag" if flag else "result",
                          essential=True, replaces=frozenset({"ten-seconds", "pause", "resume"}))]

    def _clock(self, rec: ClockRecord) -> list[Utterance]:
        event = rec.event
        if event not in ("pause", "resume"):
            return []
        return [Utterance(self.words.text(f"clock.{event}"), event,
                          replaces=frozenset({"pause", "resume"}))]

    def _takeback(self, rec: TakeBackRecord) -> list[Utterance]:
        self.track.take_back(rec.ply)
        self._told = self._irregularity = None
        return [Utterance(self.words.text("game.takeback"), "takeback",
                          replaces=AFTER_TAKEBACK)]

    def refused(self, why: str) -> None:
        """A record the reader refused (or one naming nothing sayable): named once a type."""
        kind = why.split(" ", 1)[0]
        if kind not in self._unread and len(self._unread) < 64:
            self._unread.add(kind)
            logger.warning(f"voice: a record left unsaid: {clip(why, 200)} (said once)")


#: What the narrator does with each record (firmware.formats.reader.dispatch).
_HEARD: dict[type[Any], Callable[..., list[Utterance]]] = {
    HeaderRecord: Narrator._header, GameRecord: Narrator._new_game,
    SnapshotRecord: Narrator._snapshot, PositionRecord: Narrator._position,
    MoveRecord: Narrator._move, EngineMoveRecord: Narrator._instruct,
    RemoteMoveRecord: Narrator._instruct, IrregularityRecord: Narrator._irregularity_said,
    ClearedRecord: Narrator._cleared, ResultRecord: Narrator._result,
    ClockRecord: Narrator._clock, TakeBackRecord: Narrator._takeback,
}
