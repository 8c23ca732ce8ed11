"""The menus plugged into a running service (``boardctl run``): the game in play as they see
it, the choices kept or the board's own settings, the new game asked for through the control
path (the same ``new`` as the control socket's: boardctl.service.arbiter, the engine chosen
per game by its lineup), on a thread of its own so the referee never waits for an engine to
start."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from boardctl.menu.choices import FILE, MenuChoices, read_choices
from boardctl.menu.menu import Menu
from firmware.engine.levels import find_level

logger = logging.getLogger(__name__)


class GameInPlay:
    """The game in play (``boardctl.service.games.CurrentGame``) as the menus ask of it."""

    def __init__(self, game: Any, door: Any = None) -> None:
        self.game = game
        self.door = door

    def under_way(self) -> bool:
        session = self.game.session
        if session is None or session.result is not None:
            return False
        clock = session.clock
        return bool(session.moves) or (clock is not None and clock.started)

    def running(self) -> bool:
        session = self.game.session
        clock = None if session is None else session.clock
        if self.door is not None and self.door.owns_pause():
            return False  # the player's button (an online draw offer): a hold is the menus'
        return clock is not None and clock.running is not None and session.result is None

    def opponent_away(self) -> bool:
        return self.door is not None and bool(self.door.owns_pause())


def board_choices(setup: Any, lineup: Any) -> MenuChoices:
    """The board's own settings as the menus' choices: the new game's rule set and time
    control, the computer's side and level (its lineup's choice), when nothing is kept."""
    choice = getattr(lineup, "choice", None)
    if choice is None:
        return MenuChoices(rules=setup.rules, time_control=setup.time_control)
    computer = choice.side.value if choice.engine is not None else "off"
    return MenuChoices(rules=setup.rules, time_control=setup.time_control, computer=computer,
                       level=str(find_level(choice.level).number))


def plug_menu(service: Any, *, setup: Any, lineup: Any, state_dir: Path, hall: bool,
              address: Callable[[], str | None]) -> Menu:
    """The menus on ``service``'s buttons and faces, and in its ``status`` (``menu``)."""
    choice = getattr(lineup, "choice", None)
    engine = choice.engine if choice is not None and choice.engine else "builtin"
    path = state_dir / FILE
    choices = read_choices(path, board_choices(setup, lineup))

    def start_new(request: dict[str, Any]) -> None:
        threading.Thread(target=_new_game, args=(service, request), name="menu-new",
                         daemon=True).start()

    menu = Menu(choices, GameInPlay(service.game, service.door), service.face, size=service.hw.size,
                path=path, start_new=start_new, address=address, hall=hall, engine=engine)
    service.loop.buttons = menu  # the referee's turn hands it the presses first
    service.status_extras.append(lambda: {"menu": menu.status()})
    return menu


def _new_game(service: Any, request: dict[str, Any]) -> None:
    """The menu's new game (or resignation) through the control path (as a control
    client's ``new`` or ``resign``)."""
    answer = service.command(request)
    what = "new game" if request["cmd"] == "new" else request["cmd"]
    if not answer.get("ok"):
        logger.warning(f"menu: {what} refused: {answer.get('error')}")
    else:
        logger.info(f"menu: {what}" + (f" {answer['game']}" if answer.get("game") else ""))


def page_address(page: Any) -> Callable[[], str | None]:
    """The board's page's address as the faces show it (``HOST:PORT``, from the page's own
    first URL: ``--http`` or ``[http] listen``, the machine's address when it listens on
    every one), or a function giving None while the board serves no page: the menus then
    leave the item out."""
    if page is None or not getattr(page, "urls", None):
        return lambda: None
    text = str(page.urls[0]).removeprefix("http://").removeprefix("https://").rstrip("/")
    return lambda: text
