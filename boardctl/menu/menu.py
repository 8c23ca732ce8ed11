"""The menus at the board (issue 40, docs/MENUS.md): the clock's three buttons and its two
faces set the next game when no phone or keyboard is at hand.

- Holding pause 2 s (:data:`HOLD_NS`) opens the menus at 2 s, the button still down (the
  buttons report the hold then, hw.buttons; its release is no event), the clock stopped (a
  running clock stops at the press, as any pause press stops it; a stopped clock runs again
  only at a short press's release, so a hold never starts it).
- White steps back, Black forward: through the items, or through the values of the item
  being chosen.
- A short pause press chooses: an item (its values), a value (kept: the choices file), the
  new game (started through the control path's ``new``, as ``boardctl new`` starts one).
- Holding pause again leaves, at 2 s as well.

The menus never open in a hall while its game is under way (the arbiter's clock), and in a
game under way they offer only the new game (and the address): nothing else changes a game
in play, but for resigning it against an opponent not at the board (online, another board:
``rE5n``, the control path's ``resign``, as the page's and ``boardctl resign``). Everything
runs on the referee's thread (the ``Buttons`` the referee's loop hands the presses to:
boardctl.service.loop); the new game is asked for on a thread of its own.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from boardctl.menu import items
from boardctl.menu.choices import MenuChoices, with_choice, write_choices
from boardctl.menu.items import Item, Value
from hw.buttons import HOLD_NS as HOLD_NS  # how long pause is held to open or leave them

logger = logging.getLogger(__name__)

STEPS = {"white": -1, "black": 1}


class Shown(Protocol):
    """Where the menus' faces go (boardctl.service.showing.BoardFace)."""

    overlay: tuple[str, str] | None


class Played(Protocol):
    """The game in play as the menus see it (boardctl.menu.plug.GameInPlay)."""

    def under_way(self) -> bool:
        """Started (a clock started or a move made) and not over."""
        ...

    def running(self) -> bool:
        """Its clock runs."""
        ...

    def opponent_away(self) -> bool:
        """An opponent not at the board (online, another board) plays it: the person may
        resign it from the menus."""
        ...


@dataclass
class Place:
    """Where the hand is in the menus: the items offered, the one shown, and, while one is
    being chosen, the value shown."""

    items: list[Item] = field(default_factory=list)
    item: int = 0
    values: list[Value] | None = None
    value: int = 0


class Menu:
    """The menus (module docstring). ``start_new(request)`` sends a request on the control
    path, on a thread of its own (a new game's ``new``, a ``resign``); ``address()`` the
    board's page's address, or None."""

    def __init__(self, choices: MenuChoices, played: Played, shown: Shown, *, size: int,
                 path: Path, start_new: Callable[[dict[str, Any]], None],
                 address: Callable[[], str | None] = lambda: None, hall: bool = False,
                 engine: str = "builtin") -> None:
        self.choices = choices
        self.played = played
        self.shown = shown
        self.size = size
        self.path = path
        self.start_new = start_new
        self.address = address
        self.hall = hall
        self.engine = engine
        self.place: Place | None = None  # None: closed
        #: A pause press taken, its release awaited; and whether it was the clock's.
        self._held = False
        self._clocks = False

    # -- the buttons (boardctl.service.loop.Buttons) ----------------------------------------

    def on_press(self, side: str, at: int) -> bool:
        if self.place is not None:
            if side in STEPS:
                self._step(STEPS[side])
            self._held = self._held or side == "pause"
            return True
        if side != "pause" or not self._may_open() or self.played.running():
            return False  # a running clock stops at the press itself
        self._held, self._clocks = True, True
        return True

    def on_release(self, side: str, held: int, at: int) -> bool:
        if side != "pause" or held >= HOLD_NS:  # a hold's release: its hold did it all
            return False
        taken, clocks = self._held, self._clocks
        self._held = self._clocks = False
        if self.place is not None:
            if taken:
                self._choose()
            return False
        return clocks  # a short press held back: the clock's after all

    def on_held(self, side: str, held: int, at: int) -> bool:
        if side != "pause" or held < HOLD_NS:
            return False
        taken, clocks = self._held, self._clocks
        self._held = self._clocks = False
        if self.place is not None:
            if taken:
                self.close()
            return False
        if self._may_open():
            self.open()
            return False
        return clocks  # a press held back that may no longer open the menus: the clock's

    # -- opening, stepping, choosing ------------------------------------------------------

    def open(self) -> None:
        offered = self._items()
        self.place = Place(offered)
        logger.info("menu opened")
        self._show()

    def close(self) -> None:
        self.place = None
        self.shown.overlay = None
        logger.info("menu closed")

    def _may_open(self) -> bool:
        """Never in a hall while its game is under way (the arbiter's clock), but for a game
        against another board over the hall's broker (no arbiter: the players' own)."""
        return not (self.hall and self.played.under_way() and not self.played.opponent_away())

    def _items(self) -> list[Item]:
        new = Item("new-game", "nEU", None, lambda: [Value("go", "Go")])
        address = self.address()
        more = [Item("address", "Addr", None, lambda: items.address_pages(address))] \
            if address else []
        if self.played.under_way():
            resign = [Item("resign", "rE5n", None, lambda: [Value("go", "Go")])] \
                if self.played.opponent_away() else []
            return [new, *resign, *more]
        return [
            Item("time-control", "CLoC", "time_control", lambda: items.time_values(
                self.choices.time_control)),
            Item("computer", "CoPU", "computer", items.computer_values),
            Item("level", "LEUL", "level", items.level_values),
            Item("rules", "rULE", "rules", lambda: items.rules_values(self.size)),
            new, *more,
        ]

    def _step(self, by: int) -> None:
        place = self.place
        assert place is not None
        if place.values is None:
            place.item = (place.item + by) % len(place.items)
        else:
            place.value = (place.value + by) % len(place.values)
        self._show()

    def _choose(self) -> None:
        place = self.place
        assert place is not None
        item = place.items[place.item]
        if place.values is None:  # the item chosen: its values, the one in force first
            place.values = item.values()
            place.value = self._current(item, place.values)
            self._show()
            return
        value = place.values[place.value]
        place.values = None
        if item.name in ("new-game", "resign"):
            self.close()
            self.start_new(self.new_request() if item.name == "new-game" else {"cmd": "resign"})
            return
        if item.key is not None:
            self._keep(item.key, None if value.name == items.NO_CLOCK and
                       item.key == "time_control" else value.name)
        self._show()

    def _keep(self, key: str, value: str | None) -> None:
        self.choices = with_choice(self.choices, key, value)
        try:
            write_choices(self.path, self.choices)
        except OSError as exc:  # the choice holds until the stop; said once a choice
            logger.warning(f"{self.path}: the menu's choices not kept ({exc.strerror or exc})")

    def _current(self, item: Item, values: list[Value]) -> int:
        chosen = self._chosen(item)
        for n, value in enumerate(values):
            if value.name == chosen:
                return n
        return 0

    def _chosen(self, item: Item) -> str | None:
        if item.key is None:
            return None
        chosen = getattr(self.choices, item.key)
        return items.NO_CLOCK if chosen is None and item.key == "time_control" else chosen

    # -- what the faces and status show ---------------------------------------------------

    def faces(self) -> tuple[str, str] | None:
        """White's face and Black's while the menus are open: the item and the value in force,
        or, choosing, the item (its point lit) and the value shown."""
        place = self.place
        if place is None:
            return None
        item = place.items[place.item]
        if place.values is not None:
            return item.face + ".", place.values[place.value].face
        values = item.values()
        return item.face, values[self._current(item, values)].face

    def _show(self) -> None:
        self.shown.overlay = self.faces()

    def status(self) -> dict[str, Any]:
        """``status``'s ``menu``: open or not, the item, the value being chosen, the choices."""
        place = self.place
        out: dict[str, Any] = {"open": place is not None, "choices": self._choices()}
        if place is not None:
            item = place.items[place.item]
            out["item"] = item.name
            out["items"] = [i.name for i in place.items]
            out["choosing"] = None if place.values is None else place.values[place.value].name
        return out

    def _choices(self) -> dict[str, Any]:
        c = self.choices
        return {"rules": c.rules, "time_control": c.time_control, "computer": c.computer,
                "level": c.level}

    def new_request(self) -> dict[str, Any]:
        """The control path's ``new`` for the next game with the choices (the game in play,
        if any, ended: ``force``)."""
        c = self.choices
        request: dict[str, Any] = {"cmd": "new", "force": True, "rules": c.rules,
                                   "time_control": c.time_control or "none"}
        if c.computer == "off":
            request["engine"] = None
        else:
            request.update(engine=self.engine, engine_side=c.computer, engine_level=c.level)
        return request

