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
narrator's picture of the game. A record that does not read as its type says is left unsaid
and named once in the log; nothing here raises for what a record holds.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from typing import Any

from boardctl.voice import sentences
from boardctl.voice.reading import SpokenMove, from_route, from_text
from boardctl.voice.tenseconds import SIDES, TenSeconds
from boardctl.voice.track import GameTrack
from boardctl.voice.utterances import Utterance
from boardctl.voice.words import Words
from firmware.limits import clip
from firmware.rules.sets import RuleSet

logger = logging.getLogger(__name__)

ROLES = ("computer", "opponent")
#: What a move made, a take-back or a new game make stale among utterances still waiting.
AFTER_MOVE = frozenset({"engine-move", "remote-move", "irregularity", "cleared", "ten-seconds"})
AFTER_TAKEBACK = AFTER_MOVE | {"move"}
AFTER_NEW_GAME = AFTER_TAKEBACK | {"result", "pause", "resume", "takeback", "flag"}


class Unreadable(ValueError):
    """A record's field is missing or not what its type says."""


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
        self._unread: set[str] = set()
        self._handlers: dict[str, Callable[[Mapping[str, Any]], list[Utterance]]] = {
            "header": self._header, "game": self._game, "snapshot": self._snapshot,
            "move": self._move, "engine-move": self._instruct, "remote-move": self._instruct,
            "irregularity": self._irregularity_said, "cleared": self._cleared,
            "position": self._position, "result": self._result, "clock": self._clock,
            "takeback": self._takeback,
        }

    def hear(self, record: Mapping[str, Any], now: float) -> list[Utterance]:
        """What to say about one feed record (often nothing); ``now`` arms the 10 s watch."""
        if not isinstance(record, Mapping):
            self._unreadable("?", f"a record is {type(record).__name__}, not an object")
            return []
        kind = record.get("type")
        handler = self._handlers.get(kind) if isinstance(kind, str) else None
        if handler is None:
            return []
        try:
            said = handler(record)
            self.ten.hear(record, now)
        except Unreadable as exc:
            self._unreadable(str(kind), str(exc))
            return []
        return said

    def due(self, now: float) -> Utterance | None:
        """``White, ten seconds left`` once the running clock is there (not for the computer,
        which keeps its own time)."""
        side = self.ten.due(now)
        if side is None or self.roles.get(side) == "computer":
            return None
        return Utterance(self.words.text(f"ten_seconds.{side}"), "ten-seconds", essential=True)

    # -- the game's picture -------------------------------------------------------------

    def _header(self, rec: Mapping[str, Any]) -> list[Utterance]:
        self.track.set_rules(rec.get("rules"))
        return []

    def _game(self, rec: Mapping[str, Any]) -> list[Utterance]:
        self.track.set_rules(rec.get("rules"))
        if self.track.new_game(rec.get("game")):
            self._fresh_game = True
            self._told = self._irregularity = None
        self.track.start_at(rec.get("fen"))
        return []

    def _snapshot(self, rec: Mapping[str, Any]) -> list[Utterance]:
        self.track.set_rules(rec.get("rules"))
        moves = rec.get("moves")
        moves = moves if isinstance(moves, list) else []
        last = moves[-1] if moves and isinstance(moves[-1], Mapping) else {}
        ply = last.get("ply", 0)
        self.track.start_at(rec.get("fen"), ply if isinstance(ply, int) else 0)
        fresh, self._fresh_game = self._fresh_game, False
        if not fresh or moves or rec.get("result"):
            return []
        rules = self.words.text(f"rules.{self.track.rules.name}")
        return [Utterance(self.words.text("game.new", rules=rules), "game",
                          replaces=AFTER_NEW_GAME)]

    def _position(self, rec: Mapping[str, Any]) -> list[Utterance]:
        self.track.start_at(_text(rec, "fen", 400))
        self._irregularity = None
        return []

    # -- moves ----------------------------------------------------------------------------

    def _move(self, rec: Mapping[str, Any]) -> list[Utterance]:
        ply, side, text = _ply(rec), _side(rec), _text(rec, "move")
        spoken = from_text(self.track.rules, self.track.position(), text)
        self.track.after(ply, rec.get("fen"))
        self._irregularity = None
        told, self._told = self._told, None
        if told == (ply, side) or spoken is None:
            return []
        said = self.words.text("move.said", side=self._side_name(side),
                               move=self._move_words(spoken))
        return [Utterance(said, "move", replaces=AFTER_MOVE)]

    def _instruct(self, rec: Mapping[str, Any]) -> list[Utterance]:
        kind = str(rec["type"])
        role = "computer" if kind == "engine-move" else "opponent"
        ply, side = _ply(rec), _side(rec)
        self.roles[side] = role
        spoken = from_route(self.track.rules, self.track.position(), _squares(rec, "route"),
                            _squares(rec, "captured"))
        if spoken is None:
            spoken = from_text(self.track.rules, None, _text(rec, "move"))
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

    def _irregularity_said(self, rec: Mapping[str, Any]) -> list[Utterance]:
        kind = _text(rec, "kind", 40)
        leds = _leds(rec)
        words = self.words
        parts = [words.text(f"irregularity.{kind}")] if words.has(f"irregularity.{kind}") else []
        parts += sentences.led_sentences(words, self.track.rules, leds)
        text = words.sentences(parts)
        if not text or text == self._irregularity:
            return []
        self._irregularity = text
        return [Utterance(text, "irregularity", essential=True,
                          replaces=frozenset({"irregularity", "cleared"}))]

    def _cleared(self, rec: Mapping[str, Any]) -> list[Utterance]:
        if self._irregularity is None:
            return []
        self._irregularity = None
        return [Utterance(self.words.text("game.cleared"), "cleared",
                          replaces=frozenset({"irregularity"}), retracts=True)]

    def _result(self, rec: Mapping[str, Any]) -> list[Utterance]:
        result, reason = _text(rec, "result", 20), _text(rec, "reason", 400, default="")
        side = rec.get("side")
        flag = (str(side) if side in SIDES and rec.get("at") is not None
                and reason.startswith("time forfeit") else None)
        said = sentences.result_sentences(self.words, result, reason, flag)
        if not said:
            raise Unreadable(f"{clip(result, 20)!r} is not a result")
        return [Utterance(self.words.sentences(said), "flag" if flag else "result",
                          essential=True, replaces=frozenset({"ten-seconds", "pause", "resume"}))]

    def _clock(self, rec: Mapping[str, Any]) -> list[Utterance]:
        event = rec.get("event")
        if event not in ("pause", "resume"):
            return []
        return [Utterance(self.words.text(f"clock.{event}"), str(event),
                          replaces=frozenset({"pause", "resume"}))]

    def _takeback(self, rec: Mapping[str, Any]) -> list[Utterance]:
        self.track.take_back(_ply(rec))
        self._told = self._irregularity = None
        return [Utterance(self.words.text("game.takeback"), "takeback",
                          replaces=AFTER_TAKEBACK)]

    def _unreadable(self, kind: str, why: str) -> None:
        if kind not in self._unread and len(self._unread) < 64:
            self._unread.add(kind)
            logger.warning(f"voice: a {clip(kind, 40)!r} record left unsaid: {clip(why, 200)} "
                           "(said once)")


# -- a record's fields, checked -----------------------------------------------------------

def _text(rec: Mapping[str, Any], key: str, limit: int = 200, default: str | None = None) -> str:
    value = rec.get(key, default)
    if not isinstance(value, str) or len(value) > limit:
        raise Unreadable(f"{key!r} is not a text of at most {limit} characters")
    return value


def _side(rec: Mapping[str, Any]) -> str:
    side = rec.get("side")
    if side not in SIDES:
        raise Unreadable("'side' is not white or black")
    return str(side)


def _ply(rec: Mapping[str, Any]) -> int:
    ply = rec.get("ply")
    if isinstance(ply, bool) or not isinstance(ply, int) or not 0 <= ply <= 100_000:
        raise Unreadable("'ply' is not a ply number")
    return ply


def _squares(rec: Mapping[str, Any], key: str) -> list[str]:
    value = rec.get(key, [])
    if not isinstance(value, list) or len(value) > 64 or not all(isinstance(s, str)
                                                                 for s in value):
        raise Unreadable(f"{key!r} is not a list of squares")
    return value


def _leds(rec: Mapping[str, Any]) -> dict[str, str]:
    leds = rec.get("leds", {})
    if not isinstance(leds, Mapping) or len(leds) > 100:
        raise Unreadable("'leds' is not an object of squares")
    return {k: v for k, v in leds.items()
            if isinstance(k, str) and len(k) <= 4 and isinstance(v, str)}
