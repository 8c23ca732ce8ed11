"""What the clock faces show: pure formatting for a 4-digit 7-segment face and the terminal.

What a player reads at a glance: ``h:mm:ss`` from one hour up, ``m:ss`` below, tenths under
20 s; the flag; which clock runs; the move number. Times are rounded down (a face shows
``0:00`` only when the time is gone, and the flag then shows).

The 4-digit face (HT16K33 backpack: digits 0-3, a colon between digits 1 and 2, a decimal
point after each digit) has these layouts, written as the text the adafruit driver's
``Seg7x4.print`` takes (``.`` lights the point of the digit before it, ``:``/``;`` set and
clear the colon, so every text names the colon explicitly):

==============  ===========  ==============================================================
time            face         text
==============  ===========  ==============================================================
>= 10 h         ``12H ``     hours only (periods that long are rare)
>= 1 h          ``1H25``     hours ``H`` minutes
>= 20 s         `` 5:07``    minutes:seconds
< 20 s          `` 19.9``    seconds.tenths
flag fallen     ``FLAG``
move number     ``n 23``     shown while paused, every other 2 s
engine's move   ``32.28``    start and final square (``C3.d4`` on 8x8), see below
score           `` 0.35``    an analysis: the side to move's score in men (:func:`segment_score`)
==============  ===========  ==============================================================

The decimal point of the last digit is lit on the face whose clock runs; a paused clock blinks.

An engine's move waiting to be carried out (:class:`MoveOnFaces`, docs/ENGINE.md): the
person's face shows it steadily, the engine's face alternates it (even seconds) with its running
clock (odd seconds); a fallen flag and a stopped clock show as without it.
"""

from __future__ import annotations

from dataclasses import dataclass

from firmware.clock.gameclock import Flag, GameClock
from firmware.rules.sets import Side

NS_PER_TENTH = 100_000_000
NS_PER_S = 1_000_000_000
TENTHS_BELOW_NS = 20 * NS_PER_S
#: While paused, the faces alternate time and move number every this many ns.
MOVE_NUMBER_PERIOD_NS = 2 * NS_PER_S


def format_time(ns: int, tenths: bool = True) -> str:
    """``1:23:45`` from an hour up, ``12:34`` below, ``0:19.9`` under 20 s (when ``tenths``)."""
    ns = max(0, ns)
    if tenths and ns < TENTHS_BELOW_NS:
        whole, rest = divmod(ns, NS_PER_S)
        return f"0:{whole:02d}.{rest // NS_PER_TENTH}"
    seconds = ns // NS_PER_S
    hours, rest_s = divmod(seconds, 3600)
    minutes, secs = divmod(rest_s, 60)
    if hours:
        return f"{hours}:{minutes:02d}:{secs:02d}"
    return f"{minutes}:{secs:02d}"


@dataclass(frozen=True, slots=True)
class FaceText:
    """One 4-digit face: the text for ``Seg7x4.print`` and whether the face blinks."""

    text: str
    blink: bool = False

    @property
    def digits(self) -> str:
        """The four characters a reader sees, points and colon left out (for tests and logs)."""
        return "".join(ch for ch in self.text if ch not in ".:;")


def segment_time(ns: int, running: bool = False, tenths: bool = True) -> FaceText:
    """The 4-digit layout of a time (see the module table)."""
    ns = max(0, ns)
    dot = "." if running else ""
    if tenths and ns < TENTHS_BELOW_NS:
        whole, rest = divmod(ns, NS_PER_S)
        return FaceText(f" {whole:>2d}.{rest // NS_PER_TENTH}{dot};")
    seconds = ns // NS_PER_S
    hours, rest_s = divmod(seconds, 3600)
    minutes, secs = divmod(rest_s, 60)
    if hours >= 10:
        return FaceText(f"{min(hours, 99):2d}H {dot};")
    if hours:
        return FaceText(f"{hours}H{minutes:02d}{dot};")
    return FaceText(f"{minutes:2d}:{secs:02d}{dot}")


def segment_flag() -> FaceText:
    return FaceText("FLAG;")


def segment_moves(moves: int) -> FaceText:
    """``n 23``: a move number on the face (``n---`` above 999)."""
    if moves > 999:
        return FaceText("n---;")
    return FaceText(f"n{moves:3d};")


def game_move_number(clock: GameClock) -> int:
    """The number of the move in play: White's completed moves, plus one while White is to
    move (the move number a scoresheet shows next)."""
    white = clock.moves_made(Side.WHITE)
    if clock.turn is Side.BLACK:
        return max(white, clock.moves_made(Side.BLACK) + 1)
    return white + 1


def face_view(clock: GameClock, side: Side, at: int) -> FaceText:
    """What ``side``'s face shows at ``at``: flag, time, running point; blinking and the move
    number in turn with the time while paused or adjourned."""
    stopped = clock.started and clock.running is None
    if stopped and (at // MOVE_NUMBER_PERIOD_NS) % 2 == 1:
        return FaceText(segment_moves(game_move_number(clock)).text, blink=True)
    if clock.fallen(side, at) is not None and not clock.counts_up:
        return FaceText(segment_flag().text, blink=stopped)
    face = segment_time(
        clock.remaining(side, at), running=clock.running is side, tenths=not clock.counts_up
    )
    return FaceText(face.text, blink=stopped)


#: The engine's face alternates its move and its clock every this many ns.
MOVE_FACE_PERIOD_NS = NS_PER_S


@dataclass(frozen=True, slots=True)
class MoveOnFaces:
    """A move shown on the faces: the side that plays it (an engine) and its text. With
    ``other`` (an analysis, a game without a clock) both faces are told, the clocks not shown:
    ``side``'s face ``text``, the other face ``other``."""

    side: Side
    text: str
    other: str | None = None
    #: Shown on ``side``'s face alone (in turn with its time), the other face's time left
    #: as it is: a state of that side that lasts (a link down, a draw offer), not a move.
    alone: bool = False


#: What a score face shows while no score is known yet.
NO_SCORE = "----"


def segment_score(score: int | None, win: int | None = None) -> FaceText:
    """A score (hundredths of a man, for the side whose face it is) on one face: `` 0.35``,
    ``-1.20``, `` 12.5``; a forced win in M of its moves ``UU 5`` (two U's read as a W), a
    forced loss ``L  5`` (firmware.engine.scores); ``----`` while none is known."""
    if win is not None:
        moves = abs(win)
        count = f"{moves:2d}" if moves < 100 else "--"
        return FaceText(f"UU{count};" if win > 0 else f"L {count};")
    if score is None:
        return FaceText(f"{NO_SCORE};")
    men = score / 100
    if abs(men) < 10:
        return FaceText(f"{men:5.2f};".replace("-0.00", " 0.00"))
    if abs(men) < 100:
        return FaceText(f"{men:5.1f};")
    return FaceText(f"{NO_SCORE};")


def clockless_view(side: Side, move: MoveOnFaces) -> FaceText:
    """What ``side``'s face shows of ``move`` in a game without a clock (``move.other``)."""
    return FaceText(move.text if side is move.side else (move.other or "    ;"))


def segment_squares(start: str, end: str) -> FaceText:
    """Two square names, as the rule set writes them, on one face: two characters each, the
    point between (``32.28``, `` 9.13``, ``C3.d4``: the driver's font has the letters a-h)."""
    return FaceText(f"{start[-2:]:>2}.{end[-2:]:>2};")


def move_face_view(clock: GameClock, side: Side, at: int, move: MoveOnFaces) -> FaceText:
    """What ``side``'s face shows at ``at`` while ``move`` waits (module docstring)."""
    view = face_view(clock, side, at)
    stopped = clock.started and clock.running is None
    if stopped or view.text == segment_flag().text:
        return view
    if side is move.side and (at // MOVE_FACE_PERIOD_NS) % 2 == 1:
        return view
    if move.alone and side is not move.side:
        return view
    return FaceText(move.text)


def _times(clock: GameClock, at: int) -> list[tuple[Side, bool, str]]:
    """Each side, whether its clock runs, and its face as text."""
    return [
        (side, clock.running is side,
         format_time(clock.remaining(side, at), tenths=not clock.counts_up))
        for side in (Side.WHITE, Side.BLACK)
    ]


def _flag_of(clock: GameClock, at: int) -> Flag | None:
    flag = clock.flag(at)
    return None if flag is None or clock.counts_up else flag


def terminal_line(clock: GameClock, at: int, origin: int = 0) -> str:
    """One line for the terminal: ``> White 1:23:45 | Black 45:00 | move 23``, the running
    side marked, the first fallen flag (its time counted from ``origin``, e.g. the start) and
    the clock's state named."""
    parts = [f"{'>' if runs else ' '} {side.value.capitalize():5} {time:>9}"
             for side, runs, time in _times(clock, at)]
    text = " | ".join(parts) + f" | move {game_move_number(clock)}"
    flag = _flag_of(clock, at)
    if flag is not None:
        text += f" | FLAG {flag.side.value} at {format_time(flag.at - origin, tenths=False)}"
    state = _state(clock)
    return text + (f" | {state}" if state else "")


def compact_line(clock: GameClock, at: int) -> str:
    """The terminal line for a narrow terminal: ``>W 1:21:00 B 1:21:00 #1 paused``."""
    parts = [f"{'>' if runs else ''}{side.value[0].upper()} {time}"
             for side, runs, time in _times(clock, at)]
    text = " ".join(parts) + f" #{game_move_number(clock)}"
    flag = _flag_of(clock, at)
    if flag is not None:
        text += f" FLAG {flag.side.value[0].upper()}"
    state = _state(clock)
    return text + (f" {state}" if state else "")


def fit_line(clock: GameClock, at: int, width: int, origin: int = 0, prefix: str = "") -> str:
    """The status line that fits ``width`` columns (one column kept free, so that the cursor
    never wraps): the full line, else without ``prefix``, else the compact one, else cut."""
    room = max(1, width - 1)
    full = prefix + terminal_line(clock, at, origin)
    for text in (full, terminal_line(clock, at, origin), compact_line(clock, at)):
        if len(text) <= room:
            return text
    return compact_line(clock, at)[:room]


def plain_line(clock: GameClock, at: int, origin: int = 0) -> str:
    """One sentence for a screen reader: ``White 1:20:35, Black 1:21:00; White to move, move
    3.`` with the clock's state (paused, adjourned, flag) in words."""
    times = ", ".join(
        f"{side.value.capitalize()} {format_time(clock.remaining(side, at), tenths=False)}"
        for side in (Side.WHITE, Side.BLACK)
    )
    text = f"{times}; "
    if clock.turn is not None:
        text += f"{clock.turn.value.capitalize()} to move, "
    text += f"move {game_move_number(clock)}"
    flag = _flag_of(clock, at)
    if flag is not None:
        text += (f"; flag: {flag.side.value.capitalize()} out of time at "
                 f"{format_time(flag.at - origin, tenths=False)}")
    state = _state(clock)
    return text + (f"; {state}." if state else ".")


def _state(clock: GameClock) -> str:
    if clock.adjournment is not None:
        return "adjourned"
    if not clock.started:
        return "not started"
    if clock.running is None:
        return "paused"
    return ""
