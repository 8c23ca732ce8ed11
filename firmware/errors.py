"""The project's exceptions: one root, subclasses that are also the built-in they resemble."""

from __future__ import annotations


class BoardError(Exception):
    """Root of every error this project raises on purpose."""


class SquareError(BoardError, ValueError):
    """A square name or number that is not a dark square of the board."""


class RulesError(BoardError, ValueError):
    """An unknown rule set, or a position that the rules cannot hold."""


class FenError(BoardError, ValueError):
    """A FEN string that cannot be read."""


class IllegalMoveError(BoardError, ValueError):
    """A move that is not legal in the position."""


class AmbiguousMoveError(IllegalMoveError):
    """A move text that matches several legal moves."""


class PdnError(BoardError, ValueError):
    """A PDN file that cannot be read; the message names the file, the game and the move."""


class TimeControlError(BoardError, ValueError):
    """A time control text that cannot be read."""


class EventLogError(BoardError, ValueError):
    """An event log (JSON Lines) that cannot be read; the message names the line."""


class ConfigError(BoardError, ValueError):
    """A configuration file with a wrong key or value; the message names the key."""


class HardwareError(BoardError, RuntimeError):
    """A hardware device that cannot be opened or used."""


class TournamentError(BoardError, ValueError):
    """A tournament file, pairing or result that cannot be used; the message says which."""
