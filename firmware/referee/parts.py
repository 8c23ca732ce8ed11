"""The referee's parts as its steps see them (``reader``, ``turns``, ``acceptance``,
``judge``, ``release`` and ``arbiter`` are functions over them): what the sensors show and the
hand holds, this turn's touches, the irregularity pending, the position and its move table,
and how the game is conducted. :class:`firmware.referee.referee.Referee` is the one that
has them."""

from __future__ import annotations

from typing import Protocol

from firmware.referee.pending import Pending
from firmware.referee.play import Play
from firmware.referee.sensed import SensedBoard
from firmware.referee.touches import Touches
from firmware.rules.geometry import Geometry
from firmware.rules.sets import Side


class Parts(Protocol):
    """The referee's state, in named parts, and its settings. ``clocked``: a press releases
    the hand (a log with presses turns it on); ``started``: the arbiter has started the game
    (before it the set-up is checked, 000 5.2); ``over``: the game has ended (nothing more is
    judged); ``machine_sides``: sides whose moves a machine decides and a person carries out
    (an engine's: touch-move, 000 3.10, binds a player deciding his move, not the hand
    carrying out the engine's)."""

    geometry: Geometry
    sensors: SensedBoard
    touches: Touches
    pending: Pending
    play: Play
    clocked: bool
    started: bool
    over: bool
    machine_sides: frozenset[Side]
    settle_ns: int
    touch_ns: int
