"""Time controls: what each player gets, read from and written to the PDN/PGN ``TimeControl`` tag.

Notation (a superset of the PGN/PDN ``TimeControl`` tag; seconds, integers or up to 3 decimals):

=========================  ==================================================================
``?``                      unknown; the clock counts up
``-``                      no time control; the clock counts up
``300``                    sudden death: 300 s for the whole game (seed 000 10.3)
``4800+60``                Fischer: 4800 s, 60 s added after each of the player's moves
``B300+5``                 Bronstein delay: after each move the time used on it is given back,
                           at most 5 s
``D300+5``                 simple (US) delay: the clock waits 5 s before it counts down
``*180``                   hourglass: 180 s each; what one player uses the other gains
``40/9000``                40 moves in 9000 s, then again 40 moves in 9000 s, and so on
``50/7200:25/3600``        periods separated by ``:``; saved time carries over; when the last
                           period names a move count it repeats (seed 004 §32)
``40/5400+30:1800+30``     stages with their own increments (or delays: ``40/D5400+5:D1800+5``)
``4800+60@start``          Fischer as DGT clocks give it: each move's bonus is on the face when
                           the side's clock starts (move 1 shows 1:21:00); ``@move`` (the
                           default, the PGN meaning of ``+``) adds it when the move is made
=========================  ==================================================================

The two Fischer conventions (DGT 3000 and DGT 2010 manuals, "Fischer"/"Bonus": "the bonus time
is already added for the first move"; FIDE: "increment ... starting from move 1") grant the same
seconds; they differ only in when the current move's bonus is on the face: with ``@start`` a
player may use it on the move itself, so a flag falls one bonus later. ``[%clock]`` shows the
same number in both (the time after the move, its own bonus included).

A stage is ``[MOVES/][B|D]SECONDS[+BONUS]``; only the last stage may omit ``MOVES/`` (then it
lasts the rest of the game). ``str(control)`` writes this form back; parsing what ``str``
writes gives an equal control. ``PRESETS`` holds what federations use.
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass

from firmware.errors import TimeControlError

NS_PER_S = 1_000_000_000
#: Longest period accepted: 100 hours. Longer text is surely a typing error.
MAX_SECONDS = 100 * 3600
MAX_MOVES = 1000


class Bonus(enum.Enum):
    """What a stage gives per move, in :attr:`Stage.bonus_ns`."""

    NONE = ""
    FISCHER = "+"  # added after each move
    BRONSTEIN = "B"  # time used on the move given back, at most the bonus
    DELAY = "D"  # the clock waits that long each turn before counting down


class Kind(enum.Enum):
    STAGES = "stages"  # sudden death, Fischer, delays, moves per period
    HOURGLASS = "hourglass"
    NONE = "none"  # "-": no control, count up
    UNKNOWN = "unknown"  # "?": not known, count up


@dataclass(frozen=True, slots=True)
class Stage:
    """One period of a control: ``moves`` moves (None: the rest of the game) in ``seconds_ns``."""

    moves: int | None
    seconds_ns: int
    bonus: Bonus = Bonus.NONE
    bonus_ns: int = 0

    def __str__(self) -> str:
        text = f"{self.moves}/" if self.moves is not None else ""
        if self.bonus in (Bonus.BRONSTEIN, Bonus.DELAY):
            text += self.bonus.value
        text += format_seconds(self.seconds_ns)
        if self.bonus is not Bonus.NONE:
            text += "+" + format_seconds(self.bonus_ns)
        return text


@dataclass(frozen=True, slots=True)
class TimeControl:
    """A parsed time control; build one with :meth:`parse` or take one from :data:`PRESETS`."""

    kind: Kind
    stages: tuple[Stage, ...] = ()
    hourglass_ns: int = 0
    description: str = ""
    #: True: the Fischer bonus of a move is on the face when the side's clock starts (DGT);
    #: False: it is added when the move is made (PGN ``+``).
    bonus_at_start: bool = False

    @classmethod
    def parse(cls, text: str) -> TimeControl:
        """Read a control in the notation of this module; :class:`TimeControlError` if bad."""
        if not isinstance(text, str):
            raise TimeControlError(f"time control must be text, not {type(text).__name__}")
        raw = text.strip()
        if len(raw) > MAX_TEXT:
            raise TimeControlError(f"bad time control {raw[:40]!r}...: longer than {MAX_TEXT} "
                                   "characters")
        preset = PRESETS.get(raw.lower())
        if preset is not None:
            return preset
        return _parse_text(raw)

    def __str__(self) -> str:
        if self.kind is Kind.UNKNOWN:
            return "?"
        if self.kind is Kind.NONE:
            return "-"
        if self.kind is Kind.HOURGLASS:
            return "*" + format_seconds(self.hourglass_ns)
        text = ":".join(str(stage) for stage in self.stages)
        return text + "@start" if self.bonus_at_start else text

    @property
    def convention(self) -> str:
        """``start`` or ``move``: when Fischer bonuses reach the face (``""`` without them)."""
        if not self.fischer:
            return ""
        return "start" if self.bonus_at_start else "move"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, TimeControl):
            return NotImplemented
        return str(self) == str(other)

    def __hash__(self) -> int:
        return hash(str(self))

    @property
    def counts_up(self) -> bool:
        """True when there is no limit: the faces show the time used (``-`` and ``?``)."""
        return self.kind in (Kind.NONE, Kind.UNKNOWN)

    @property
    def fischer(self) -> bool:
        """True when some stage adds Fischer seconds per move (seed 000 7.2.9 draws apply
        only to games without them)."""
        return any(stage.bonus is Bonus.FISCHER and stage.bonus_ns > 0 for stage in self.stages)

    @property
    def repeats(self) -> bool:
        """True when the last period has a move count and so repeats (seed 004 §32)."""
        return self.kind is Kind.STAGES and self.stages[-1].moves is not None

    def initial_ns(self) -> int:
        """Time on each face at the start (0 for count-up controls)."""
        if self.kind is Kind.HOURGLASS:
            return self.hourglass_ns
        if self.kind is Kind.STAGES:
            return self.stages[0].seconds_ns
        return 0

    def stage_after(self, moves: int) -> tuple[int, Stage]:
        """The index and stage that a player's move number ``moves + 1`` belongs to."""
        if self.kind is not Kind.STAGES:
            raise TimeControlError(f"time control {self} has no periods")
        done = 0
        for index, stage in enumerate(self.stages):
            if stage.moves is None or moves < done + stage.moves:
                return index, stage
            done += stage.moves
        last = self.stages[-1]
        return len(self.stages) - 1, last

    def control_at(self, moves: int) -> Stage | None:
        """The stage whose time is added when a player completes his ``moves``-th move, or
        None if that move is not a control move (seed 004 §32: saved time carries over)."""
        if self.kind is not Kind.STAGES or moves <= 0:
            return None
        done = 0
        stages = self.stages
        for index, stage in enumerate(stages):
            if stage.moves is None:
                return None
            done += stage.moves
            if moves == done:
                return stages[index + 1] if index + 1 < len(stages) else stage
            if moves < done:
                return None
        last = stages[-1]
        assert last.moves is not None
        if (moves - done) % last.moves == 0:
            return last
        return None

    def describe(self) -> str:
        """A short human description, e.g. ``80 min + 60 s/move``."""
        if self.description:
            return self.description
        if self.kind is Kind.UNKNOWN:
            return "unknown time control (counting up)"
        if self.kind is Kind.NONE:
            return "no time control (counting up)"
        if self.kind is Kind.HOURGLASS:
            return f"hourglass {_human(self.hourglass_ns)}"
        parts = []
        for stage in self.stages:
            piece = _human(stage.seconds_ns)
            if stage.moves is not None:
                piece = f"{stage.moves} moves in {piece}"
            if stage.bonus is Bonus.FISCHER:
                piece += f" + {_human(stage.bonus_ns)}/move"
            elif stage.bonus is Bonus.BRONSTEIN:
                piece += f", Bronstein delay {_human(stage.bonus_ns)}"
            elif stage.bonus is Bonus.DELAY:
                piece += f", delay {_human(stage.bonus_ns)}"
            parts.append(piece)
        text = ", then ".join(parts)
        if self.repeats and len(self.stages) > 0:
            text += " (last period repeats)"
        if self.bonus_at_start:
            text += ", bonus on the face when the clock starts"
        return text


def _parse_text(raw: str) -> TimeControl:
    if raw == "?":
        return TimeControl(Kind.UNKNOWN)
    if raw == "-":
        return TimeControl(Kind.NONE)
    if not raw:
        raise TimeControlError("empty time control; give e.g. 300, 4800+60 or 50/7200:25/3600")
    if raw.startswith("*"):
        seconds = _seconds(raw[1:], raw, "hourglass time")
        return TimeControl(Kind.HOURGLASS, hourglass_ns=seconds)
    at_start = False
    body, marker, convention = raw.partition("@")
    if marker:
        convention = convention.strip().lower()
        if convention not in ("start", "move"):
            raise TimeControlError(
                f"bad time control {raw!r}: after @ write start (bonus when the clock starts, "
                f"DGT) or move (bonus after the move)"
            )
        at_start = convention == "start"
        raw = body.strip()
    parts = raw.split(":")
    stages = tuple(_stage(part, raw) for part in parts)
    for stage in stages[:-1]:
        if stage.moves is None:
            raise TimeControlError(
                f"bad time control {raw!r}: only the last period may be without a move "
                f"count (write MOVES/SECONDS)"
            )
    control = TimeControl(Kind.STAGES, stages=stages, bonus_at_start=at_start)
    if marker and not control.fischer:
        raise TimeControlError(
            f"bad time control {raw!r}@{convention}: @start/@move name when a Fischer bonus "
            f"is given, and this control has none"
        )
    return control


#: The longest control text read (the longest real one, a few stages, is some 40).
MAX_TEXT = 200

_STAGE = re.compile(
    r"^(?:(?P<moves>\d+)\s*/\s*)?(?P<kind>[BbDd])?\s*(?P<secs>[0-9.]+)\s*(?:\+\s*(?P<bonus>[0-9.]+))?$"
)
_NUMBER = re.compile(r"^\d+(?:\.\d{1,3})?$")


def _seconds(text: str, whole: str, what: str, allow_zero: bool = False) -> int:
    text = text.strip()
    if not _NUMBER.match(text):
        raise TimeControlError(
            f"bad time control {whole!r}: {what} {text!r} is not a number of seconds "
            f"(at most 3 decimals)"
        )
    whole_part, _, frac = text.partition(".")
    ns = int(whole_part) * NS_PER_S + int((frac + "000")[:3]) * 1_000_000
    if ns == 0 and not allow_zero:
        raise TimeControlError(f"bad time control {whole!r}: {what} must be more than 0")
    if ns > MAX_SECONDS * NS_PER_S:
        raise TimeControlError(f"bad time control {whole!r}: {what} {text} s is over 100 hours")
    return ns


def _stage(part: str, whole: str) -> Stage:
    match = _STAGE.match(part.strip())
    if not match:
        raise TimeControlError(
            f"bad time control {whole!r}: cannot read {part.strip()!r} "
            f"(expected [MOVES/][B|D]SECONDS[+BONUS], e.g. 40/5400+30)"
        )
    moves: int | None = None
    if match["moves"] is not None:
        moves = int(match["moves"])
        if not 1 <= moves <= MAX_MOVES:
            raise TimeControlError(
                f"bad time control {whole!r}: move count {moves} must be 1..{MAX_MOVES}"
            )
    seconds = _seconds(match["secs"], whole, "period")
    letter = (match["kind"] or "").upper()
    if match["bonus"] is None:
        if letter:
            raise TimeControlError(
                f"bad time control {whole!r}: {letter}{match['secs']} needs a delay, "
                f"e.g. {letter}{match['secs']}+5"
            )
        return Stage(moves, seconds)
    bonus_ns = _seconds(match["bonus"], whole, "increment/delay", allow_zero=True)
    bonus = {"": Bonus.FISCHER, "B": Bonus.BRONSTEIN, "D": Bonus.DELAY}[letter]
    return Stage(moves, seconds, bonus, bonus_ns)


def format_seconds(ns: int) -> str:
    """Seconds as the notation writes them: ``300``, ``2.5``."""
    whole, rest = divmod(ns, NS_PER_S)
    millis = rest // 1_000_000
    if millis == 0:
        return str(whole)
    return f"{whole}.{millis:03d}".rstrip("0")


def _human(ns: int) -> str:
    seconds = ns / NS_PER_S
    if seconds >= 3600 and seconds % 3600 == 0:
        return f"{int(seconds // 3600)} h"
    if seconds >= 60 and seconds % 60 == 0:
        return f"{int(seconds // 60)} min"
    return f"{format_seconds(ns)} s"


def _preset(text: str, description: str) -> TimeControl:
    control = _parse_text(text)
    return TimeControl(
        control.kind, control.stages, control.hourglass_ns, description, control.bonus_at_start
    )


_MINSPORT_RU = (
    "Rules of the sport 'shashki', Minsport of Russia order 722 of 10.09.2013, 2.1.11 "
    "(https://bazanpa.ru/minsport-rossii-prikaz-n722-ot10092013-h3505711/pravila/2/2.1/2.1.11)"
)
_DGT = "; Fischer bonus on the face at the clock's start, as DGT clocks give it"
_UNCONFIRMED = "NOT CONFIRMED: no regulation found that prescribes it; check the event's own"

#: Controls federations use, each with the source it was checked against (``SOURCES``). Fischer
#: presets copy DGT clock settings (bonus at the clock's start, ``@start``).
PRESETS: dict[str, TimeControl] = {
    "fmjd-classical": _preset("4800+60@start", "FMJD classical: 80 min + 1 min/move"),
    "fmjd-classical-periods": _preset(
        "50/7200:25/3600", "FMJD classical: 2 h for 50 moves, then 1 h per 25 moves"
    ),
    "fmjd-rapid": _preset("1200+5@start", "FMJD rapid: 20 min + 5 s/move"),
    "fmjd-blitz": _preset("300+3@start", "FMJD blitz: 5 min + 3 s/move"),
    "fmjd-worldcup": _preset(
        "45/5400:1800+30@start", "FMJD World Cup: 90 min for 45 moves, then 30 min + 30 s/move"
    ),
    "russian-classical": _preset("2700", "Russian classical: 45 min per game"),
    "russian-classical-fischer": _preset("1800+30@start", "Russian classical: 30 min + 30 s/move"),
    "russian-classical-40": _preset("2400+5@start", "Russian classical: 40 min + 5 s/move"),
    "russian-rapid": _preset("480+4@start", "Russian rapid: 8 min + 4 s/move"),
    "russian-rapid-20": _preset("1200", "Russian rapid: 20 min per game (10-20 min allowed)"),
    "russian-blitz": _preset("180+2@start", "Russian blitz: 3 min + 2 s/move"),
    "1953-15": _preset("15/3600", "1953 rules (004 §32 a): 15 moves an hour"),
    "1953-18": _preset("18/3600", "1953 rules (004 §32 b): 18 moves an hour"),
    "1953-20": _preset("20/3600", "1953 rules (004 §32 c): 20 moves an hour"),
    "1953-25": _preset("25/3600", "1953 rules (004 §32), 100 squares: 25 moves an hour"),
}

#: Where each preset's value comes from. A value no source confirms says so.
SOURCES: dict[str, str] = {
    # Rotterdam World Cup 2019/2022 regulations ("FMJD rules ... Fisher system 1 hour and 20
    # minutes plus 1 minute per move"), Women's World Title Match 2015 regulations (1h20' + 1').
    "fmjd-classical": "FMJD events: Rotterdam World Cup 2019 and 2022 regulations "
    "(rotterdamdamt.nl), Women's World Title Match 2015 regulations (1h20' + 1'/move)" + _DGT,
    "fmjd-classical-periods": _UNCONFIRMED + " (older FMJD practice, moves per period as in "
    "004 §32)",
    "fmjd-rapid": "FMJD Women's World Title Match 2015 regulations, rapid game 20' + 5\"/move "
    "(women2015.4draughts.com); the earlier 900+5 preset had no source" + _DGT,
    "fmjd-blitz": "FMJD World Championship Blitz 2023 regulations, 5' + 3\" "
    "(wcblitz2023.fmjd.org); Women's World Title Match 2015" + _DGT,
    "fmjd-worldcup": "FMJD World Cup Hijken 2022: 90 min for the first 45 moves, then 30 min + "
    "30 s each move (damweek.hijkendtc.nl/world-cup); the bonus from move 46" + _DGT,
    "russian-classical": _MINSPORT_RU + ": 45 min to the end of the game",
    "russian-classical-fischer": _MINSPORT_RU + ": 30 min + 30 s per move" + _DGT,
    "russian-classical-40": _MINSPORT_RU + ": '40 min plus 5 s to the end of the game' (read "
    "as per move)" + _DGT,
    "russian-rapid": _MINSPORT_RU + ": rapid 8 min + 4 s per move" + _DGT,
    "russian-rapid-20": _MINSPORT_RU + ": rapid 10-20 min to the end of the game (upper end)",
    "russian-blitz": _MINSPORT_RU + ": blitz 3 min + 2 s per move" + _DGT,
    "1953-15": "Kabe. Võistlusmäärused (1953) §32 a",
    "1953-18": "Kabe. Võistlusmäärused (1953) §32 b",
    "1953-20": "Kabe. Võistlusmäärused (1953) §32 c",
    "1953-25": "Kabe. Võistlusmäärused (1953) §32 (100 squares)",
}
