"""The menus' parts alone: the hall's rule (never while its game is under way), the page's
address in pages of four characters, the choices file written whole and fsync'd and read
back, every damaged kind of it giving the defaults with one line."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import pytest

from boardctl.menu import HOLD_NS, Menu, MenuChoices
from boardctl.menu.choices import read_choices, write_choices
from boardctl.menu.items import (
    address_pages,
    computer_values,
    face_of,
    rules_values,
    time_values,
)
from firmware.clock.face import FaceText
from firmware.clock.timecontrol import PRESETS
from firmware.rules.sets import Side
from hw.mock.faces import simulated_faces


class Game:
    """The game in play as the menus ask of it (boardctl.menu.menu.Played)."""

    def __init__(self, under_way: bool = False, running: bool = False) -> None:
        self.started, self.runs = under_way, running

    def under_way(self) -> bool:
        return self.started

    def running(self) -> bool:
        return self.runs

    def opponent_away(self) -> bool:
        return False


class Faces:
    overlay: tuple[str, str] | None = None


def menu(tmp_path: Path, game: Game, **kwargs: Any) -> tuple[Menu, Faces, list[Any]]:
    faces, asked = Faces(), []
    return Menu(MenuChoices(), game, faces, size=10, path=tmp_path / "menu.json",
                start_new=asked.append, **kwargs), faces, asked


def test_in_a_hall_the_menus_never_open_while_the_game_is_under_way(tmp_path: Path) -> None:
    game = Game(under_way=True, running=True)
    hall, faces, _ = menu(tmp_path, game, hall=True)
    assert hall.on_press("pause", 0) is False  # the arbiter's pause: the clock's
    assert hall.on_held("pause", HOLD_NS, HOLD_NS) is False
    assert hall.on_release("pause", HOLD_NS + 1, HOLD_NS) is False  # no hold's release comes
    assert hall.place is None and faces.overlay is None
    game.runs = False  # stopped, still under way: still never
    assert hall.on_press("pause", 0) is False
    assert hall.on_held("pause", HOLD_NS, HOLD_NS) is False and hall.place is None
    game.started = False  # between games the hall's board has the menus too
    assert hall.on_press("pause", 0) is True
    assert hall.on_held("pause", HOLD_NS, HOLD_NS) is False and hall.place is not None
    assert faces.overlay == ("CLoC", "nonE")  # open at 2 s, the button still down
    assert hall.on_release("pause", HOLD_NS + 1, HOLD_NS + 1) is False  # if one came: nothing
    assert hall.place is not None and faces.overlay == ("CLoC", "nonE")


def test_a_short_press_held_back_is_the_clocks_and_a_hold_inside_a_game_offers_the_new_game(
        tmp_path: Path) -> None:
    game = Game(under_way=True)
    board, faces, asked = menu(tmp_path, game, address=lambda: "192.168.1.50:8080")
    assert board.on_press("pause", 0) is True
    assert board.on_release("pause", HOLD_NS - 1, HOLD_NS - 1) is True  # short: resume
    assert board.on_press("pause", 0) is True
    assert board.on_held("pause", HOLD_NS, HOLD_NS) is False
    assert board.status()["items"] == ["new-game", "address"]
    assert board.on_press("black", 1) is True and faces.overlay == ("Addr", "192.1")
    board.on_press("pause", 2)
    board.on_release("pause", 1, 3)  # the address chosen: its pages, stepped through
    shown = []
    for n in range(4):
        shown.append(faces.overlay)
        board.on_press("black", 4 + n)
    assert shown == [("Addr.", "192.1"), ("Addr.", "68.1.5"), ("Addr.", "0-80"),
                     ("Addr.", "80")]
    board.on_press("pause", 10)
    board.on_held("pause", HOLD_NS, 11)  # held 2 s: leaves, the button still down
    assert board.place is None and faces.overlay is None and asked == []


def test_the_faces_show_only_what_a_7_segment_face_can() -> None:
    """Every item's and value's face through the real face driver on its simulated chip:
    four digits at most, each a pattern of the driver's font (none unknown: ``?``)."""
    faces = [v.face for v in time_values("600+5") + rules_values(10) + rules_values(8)]
    faces += [v.face for v in address_pages("[::1]:8080") + computer_values()]
    faces += ["CLoC", "CoPU", "LEUL", "rULE", "nEU", "Go", "Addr", "nonE"]
    face = simulated_faces()
    for text in faces:
        assert len(text.replace(".", "").replace(":", "")) <= 4, text
        face.show(Side.WHITE, FaceText(text))
        shown = face.i2c.chips[0x70].text()
        assert "?" not in shown and shown.strip(), (text, shown)
    assert {v.name for v in time_values(None)} == {"none", *PRESETS}
    assert face_of("fmjd") == "F-Jd"


def test_the_choices_are_written_whole_fsynced_and_read_back(tmp_path: Path) -> None:
    path = tmp_path / "menu.json"
    synced: list[int] = []
    chosen = MenuChoices("russian", "russian-blitz", "black", "3")
    write_choices(path, chosen, fsync=synced.append)
    assert len(synced) == 2  # the file, then its directory
    assert not (tmp_path / "menu.json.tmp").exists()
    assert read_choices(path, MenuChoices()) == chosen
    assert json.loads(path.read_text())["time_control"] == "russian-blitz"


@pytest.mark.parametrize("content", [
    b"", b"\xff\xfe", b"[1, 2]", b'{"rules": 7}', b'{"rules": "chess"}',
    b'{"time_control": "ten minutes"}', b'{"computer": "red"}', b'{"level": "11"}',
    b'{"rules": "russian"' + b" " * 5000 + b"}", b'{"rules": "russian"',
])
def test_a_damaged_choices_file_gives_the_defaults_with_one_line(
        tmp_path: Path, content: bytes, caplog: pytest.LogCaptureFixture) -> None:
    path = tmp_path / "menu.json"
    path.write_bytes(content)
    defaults = MenuChoices("international", "fmjd-rapid", "white", "5")
    with caplog.at_level(logging.WARNING):
        assert read_choices(path, defaults) == defaults
    lines = [r.getMessage() for r in caplog.records]
    assert len(lines) == 1 and "\n" not in lines[0] and "defaults" in lines[0], lines
