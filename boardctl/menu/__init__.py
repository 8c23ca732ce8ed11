"""The menus at the board (issue 40, docs/MENUS.md): the clock's buttons and faces set the
next game. Named parts:

- ``menu`` (:class:`Menu`): where the hand is, the buttons read (the referee's loop hands it
  the presses: boardctl.service.loop.Buttons), the faces shown, the new game asked for;
- ``items``: the items and values, each with its face;
- ``choices``: the choices kept for the next start (``STATE_DIR/menu.json``, fsync'd);
- ``plug``: the menus plugged into a running service (``boardctl run``).
"""

from boardctl.menu.choices import MenuChoices
from boardctl.menu.menu import HOLD_NS, Menu

__all__ = ["HOLD_NS", "Menu", "MenuChoices"]
