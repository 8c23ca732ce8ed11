"""The menus at the board through a real ``boardctl run --sim`` process (issue 40 items 1-2):
the simulated hand holds and presses the clock's buttons over the control socket, ``status``
tells what the faces show, and every item is walked through: time control, the computer, its
level, the rule set, the new game, which then plays with the choices (the engine answers the
person's move, the time control is on the clock). The choices are kept for the next start;
a damaged choices file gives the defaults and one line; inside a game only the new game is
offered; a short pause press still stops and starts the clock."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

from support.hand_helpers import engines_move, persons_move, press, until
from support.processes import stop_by_pid

from boardctl.service.control import request

HOLD = 2000


def start(state: Path, *extra: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "boardctl", "run", "--sim", "--rules", "international",
         "--state-dir", str(state), "--engine-move-time", "0.05", "--engine", "builtin",
         "--engine-side", "black", *extra],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)


def status(sock: Path) -> dict[str, Any]:
    return request(sock, "status")


def faces(sock: Path) -> tuple[str, str]:
    shown = status(sock)["faces"]
    return shown["white"], shown["black"]


def step_to(sock: Path, what: str, key: str = "item") -> None:
    """Black steps forward until the menu shows ``what`` (an item, or a value being chosen:
    ``key`` "choosing"), at most once round."""
    for _ in range(30):
        shown = status(sock)["menu"].get(key)
        if shown == what:
            return
        press(sock, "black")
        until(lambda was=shown: status(sock)["menu"].get(key) != was)
    raise AssertionError(f"{what} never shown: {status(sock)['menu']}")


def choose(sock: Path, item: str, value: str, shown: tuple[str, str]) -> None:
    """The item chosen (short pause), its value stepped to and chosen; the faces asserted
    while choosing (``shown``: the item's face with its point, the value's) and after."""
    step_to(sock, item)
    press(sock, "pause")
    until(lambda: status(sock)["menu"]["choosing"] is not None)
    step_to(sock, value, "choosing")
    assert faces(sock) == shown
    press(sock, "pause")
    until(lambda: status(sock)["menu"]["choosing"] is None)
    assert faces(sock) == (shown[0].rstrip("."), shown[1])
    assert status(sock)["menu"]["choices"][item.replace("-", "_")] == value


def test_every_item_walked_and_the_next_game_plays_with_the_choices(tmp_path: Path) -> None:
    state = tmp_path / "state"
    sock = state / "control.sock"
    proc = start(state, "--engine-level", "5")
    try:
        first = until(lambda: status(sock))
        assert first["menu"]["open"] is False and first["faces"] == {"white": "", "black": ""}
        press(sock, "pause", HOLD)  # held 2 s: the menu opens on its first item
        until(lambda: status(sock)["menu"]["open"])
        menu = status(sock)["menu"]
        assert menu["items"] == ["time-control", "computer", "level", "rules", "new-game"]
        assert faces(sock) == ("CLoC", "nonE")  # the board's own: no clock
        press(sock, "white")  # White steps back: round to the last item
        until(lambda: status(sock)["menu"]["item"] == "new-game")
        assert faces(sock) == ("nEU", "Go")
        choose(sock, "time-control", "fmjd-blitz", ("CLoC.", "5.3"))
        choose(sock, "computer", "white", ("CoPU.", "UHtE"))
        choose(sock, "level", "1", ("LEUL.", "1"))
        choose(sock, "rules", "international1953", ("rULE.", "In53"))
        step_to(sock, "new-game")
        assert faces(sock) == ("nEU", "Go")
        press(sock, "pause")
        until(lambda: faces(sock) == ("nEU.", "Go"))
        press(sock, "pause")  # go: the game in play ends, the next starts with the choices
        game = until(lambda: status(sock)["game"] != first["game"] and status(sock))
        assert game["menu"]["open"] is False
        assert (game["rules"], game["time_control"]) == ("international1953", "fmjd-blitz")
        engine = until(lambda: status(sock).get("engine"))
        assert (engine["name"], engine["side"], engine["level"]) == ("builtin", "white", "1")
        # the time control on the clock (FMJD blitz: 5 min + 3 s, the bonus on the faces
        # at the start, as DGT clocks give it), on the faces
        assert game["clock"] == {"white": 300.0, "black": 300.0}
        assert faces(sock) == (" 5:03", " 5:03")
        # the engine (White) plays first: its move carried out, the person answers
        engines_move(sock)
        persons_move(sock, "black")
        assert len(status(sock)["moves"]) == 2
        assert status(sock)["running"] == "white"
    finally:
        assert stop_by_pid(proc) == 0
    # kept for the next start: the menu opens on the choices made
    proc = start(state)
    try:
        until(lambda: status(sock))
        press(sock, "pause", HOLD)
        until(lambda: status(sock)["menu"]["open"])
        menu = status(sock)["menu"]
        # a game under way (resumed, clocks paused): only the new game is offered
        assert menu["items"] == ["new-game"] and faces(sock) == ("nEU", "Go")
        assert menu["choices"] == {"rules": "international1953", "time_control": "fmjd-blitz",
                                   "computer": "white", "level": "1"}
        press(sock, "pause", HOLD)  # held again: the menu closes, nothing changed
        until(lambda: not status(sock)["menu"]["open"])
        assert len(status(sock)["moves"]) == 2
    finally:
        assert stop_by_pid(proc) == 0


def test_a_short_pause_press_stops_and_starts_the_clock_a_hold_never_starts_it(
        tmp_path: Path) -> None:
    state = tmp_path / "state"
    sock = state / "control.sock"
    proc = start(state, "--time-control", "600+5", "--engine-side", "black")
    try:
        until(lambda: status(sock))
        press(sock, "black")  # the person with Black starts White's clock (no engine: Black)
        until(lambda: status(sock)["running"] == "white")
        press(sock, "pause")
        until(lambda: status(sock)["running"] is None)
        press(sock, "pause")  # short: the clock runs again at its release
        until(lambda: status(sock)["running"] == "white")
        press(sock, "pause", HOLD)  # the press stops it; the hold opens the menu
        until(lambda: status(sock)["menu"]["open"])
        assert status(sock)["running"] is None
        press(sock, "black")
        press(sock, "pause", HOLD)  # leaves; the clock stays stopped
        until(lambda: not status(sock)["menu"]["open"])
        assert status(sock)["running"] is None
        press(sock, "pause", HOLD)  # a hold with the clock stopped: the menu, no start
        until(lambda: status(sock)["menu"]["open"])
        assert status(sock)["running"] is None
        press(sock, "pause", HOLD)
        until(lambda: not status(sock)["menu"]["open"])
        assert 0 < status(sock)["clock"]["white"] < 600  # it ran, and stands
    finally:
        assert stop_by_pid(proc) == 0


def test_the_menu_opens_and_leaves_at_2_s_while_pause_is_still_held(tmp_path: Path) -> None:
    """As a clock's menu: the player holds pause, the faces change at 2 s, he lets go; the
    release then does nothing (no choice, no second toggle, no clock started)."""
    state = tmp_path / "state"
    sock = state / "control.sock"
    proc = start(state, "--time-control", "600+5", "--engine-side", "black")
    try:
        until(lambda: status(sock))
        down = request(sock, "sim", type="press", side="pause", hold_ms=HOLD, release=False)
        assert down["release"] is False and down["hold_ms"] == HOLD
        until(lambda: status(sock)["menu"]["open"])  # the button still down
        assert faces(sock) == ("CLoC", "600.5")
        assert request(sock, "sim", type="release", side="pause")["sim"] == "release"
        press(sock, "black")  # after the release, in order: the release chose nothing
        until(lambda: status(sock)["menu"]["item"] == "computer")
        assert status(sock)["menu"]["choosing"] is None and faces(sock)[0] == "CoPU"
        request(sock, "sim", type="press", side="pause", hold_ms=HOLD, release=False)
        until(lambda: not status(sock)["menu"]["open"])  # left at 2 s, still down
        assert faces(sock)[0] != "CoPU"  # the clock's faces again
        request(sock, "sim", type="release", side="pause")
        press(sock, "black")  # the person with Black starts White's clock: the release
        until(lambda: status(sock)["running"] == "white")  # reopened nothing
        assert status(sock)["menu"]["open"] is False
    finally:
        assert stop_by_pid(proc) == 0


def test_a_damaged_choices_file_gives_the_defaults_and_one_line_and_the_leds_guide_the_start(
        tmp_path: Path) -> None:
    state = tmp_path / "state"
    sock = state / "control.sock"
    state.mkdir()
    (state / "menu.json").write_bytes(b'{"rules": "chess", "level": 99\x00')
    proc = start(state, "--time-control", "fmjd-rapid")
    try:
        first = until(lambda: status(sock))
        assert first["menu"]["choices"] == {"rules": "international", "time_control":
                                            "fmjd-rapid", "computer": "black", "level": "10"}
        # the menus' new game; a piece missing from the start position: the LEDs say where
        press(sock, "pause", HOLD)
        until(lambda: status(sock)["menu"]["open"])
        step_to(sock, "new-game")
        press(sock, "pause")
        until(lambda: status(sock)["menu"]["choosing"] == "go")
        press(sock, "pause")
        until(lambda: status(sock)["game"] != first["game"])
        request(sock, "sim", type="lift", square="b10")
        request(sock, "sim", type="place", square="e5")
        shown = until(lambda: (s := status(sock))["irregularity"] == "setup" and len(
            s["leds"]) == 2 and s)
        assert shown["leds"] == {"b10": "restore", "e5": "remove"}  # fill b10, empty e5
    finally:
        assert stop_by_pid(proc) == 0
        stderr = proc.stderr.read() if proc.stderr is not None else ""
    said = [line for line in stderr.splitlines() if "menu.json" in line]
    assert len(said) == 1 and "defaults" in said[0], stderr
    assert "Traceback" not in stderr


def test_the_page_s_address_on_the_faces_is_the_one_it_serves(tmp_path: Path) -> None:
    """With the board's own page (``--http``), the menus' last item is its address, as the
    page itself reports it in ``status`` (the port the system gave, here)."""
    state = tmp_path / "state"
    sock = state / "control.sock"
    proc = start(state, "--http", "127.0.0.1:0")
    try:
        first = until(lambda: status(sock))
        url = first["page"]["url"]
        address = url.removeprefix("http://").rstrip("/")
        assert address.startswith("127.0.0.1:") and not address.endswith(":0")
        press(sock, "pause", HOLD)
        until(lambda: status(sock)["menu"]["open"])
        assert status(sock)["menu"]["items"][-1] == "address"
        step_to(sock, "address")
        assert faces(sock)[0] == "Addr"
        press(sock, "pause")  # chosen: the address in pages of four characters
        pages = []
        for _ in range(8):
            until(lambda: faces(sock)[0] == "Addr.")
            white, black = faces(sock)
            if pages and black == pages[0]:
                break
            pages.append(black)
            press(sock, "black")
            until(lambda was=black: faces(sock)[1] != was)
        shown = "".join(p.replace(".", "") for p in pages).replace("-", ":")
        assert shown == address.replace(".", "")
    finally:
        assert stop_by_pid(proc) == 0
