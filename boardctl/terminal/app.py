"""The terminal screens (Textual): the board, the clocks, the moves, the notices, and for
``boardctl play`` a prompt; ``boardctl watch --sensors`` swaps the board for the reed matrix.

Fits 80x24 for both board sizes: the board (33 columns, 11 lines on 10x10) on the left, the
game's name, the clocks and the moves on the right; under them, across the whole width the
terminal has, the notices (the engine's move, the LEDs in words, the irregularity, the last
move, the answer to what was typed) and the alerts; the prompt at the bottom.
A :class:`boardctl.terminal.sources.Source` runs on a thread of its own and hands what it
reads to the app's thread (``call_from_thread``); the clocks tick from the last reading on a
timer that redraws only when a face's text changes.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

from rich.text import Text
from textual import events
from textual.app import App, ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widget import Widget
from textual.widgets import Input

from boardctl.terminal.board import board_text, board_width, square_at
from boardctl.terminal.status import apply_status
from boardctl.terminal.view import BoardView

#: Seconds between two looks at the clocks' faces (a redraw only when one changed).
TICK_S = 0.2


class BoardWidget(Widget):
    """The board; a click on a square is handed to the app's ``on_square``."""

    def __init__(self, view: BoardView, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.view = view

    def render(self) -> Text:
        return board_text(self.view)

    def on_click(self, event: events.Click) -> None:
        square = square_at(self.view.size, event.x, event.y)
        app = self.app
        if square is not None and isinstance(app, BoardApp):
            app.square_clicked(square)


class InfoWidget(Widget):
    """The game's name, both clocks (the running one marked), whose turn, the result."""

    def __init__(self, view: BoardView, clock: Callable[[], float], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.view = view
        self.clock = clock

    def render(self) -> Text:
        return info_text(self.view, self.clock())


def info_text(view: BoardView, now: float) -> Text:
    text = Text(no_wrap=True, overflow="ellipsis")
    title = " - ".join(x for x in (view.tags.get("White"), view.tags.get("Black")) if x)
    text.append(f"{view.board or 'board'}  {view.rules or '?'}", style="bold")
    text.append(f"  {view.time_control or 'no clock'}")
    if view.link:
        text.append(f"  [{view.link}]", style="bold red" if view.link != "online" else "")
    text.append("\n" + (title or " ") + "\n")
    faces = view.faces(now)
    for side in ("white", "black"):
        mark = " <" if view.running == side else "  "
        text.append(f"{side.capitalize():<6} {faces[side]:>9}{mark}\n",
                    style="bold reverse" if view.running == side else "bold")
    if view.result:
        text.append(f"Result {view.result}", style="bold")
    elif view.adjourned:
        text.append("Adjourned (a sealed move stands)")
    elif view.turn:
        text.append(f"{view.turn.capitalize()} to move, move {len(view.moves) // 2 + 1}")
    return text


class MovesWidget(Widget):
    """The moves, numbered, the latest at the bottom (as many as the height holds)."""

    def __init__(self, view: BoardView, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.view = view

    def render(self) -> Text:
        return Text("\n".join(move_rows(self.view)[-max(1, self.size.height):]),
                    no_wrap=True, overflow="ellipsis")


def move_rows(view: BoardView) -> list[str]:
    """``  12. 32-28        17-22``: one row a move number."""
    rows: list[str] = []
    for i, move in enumerate(view.moves):
        number = view.move_number(i)
        num = number.rstrip(".")
        if number.endswith("...") and i > 0:
            rows[-1] += f" {move}"
        elif number.endswith("..."):
            rows.append(f"{num:>3}. {'...':<12} {move}")
        else:
            rows.append(f"{num:>3}. {move:<12}")
    return rows or ["(no moves yet)"]


class NoticesWidget(Widget):
    """The LEDs in words, the last irregularity, alarms, hardware warnings, the last reply."""

    def __init__(self, view: BoardView, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.view = view
        self.message = ""

    def render(self) -> Text:
        return notices_text(self.view, self.message)


def alerts_text(view: BoardView) -> Text:
    """Alarms, hardware warnings and plies a power cut lost, across the whole width."""
    text = Text(overflow="fold")
    if view.alarm:
        text.append(f"ALARM: {view.alarm}\n", style="bold white on red")
    for warning in view.warnings:
        text.append(f"Hardware: {warning}\n", style="bold yellow")
    if view.gap:
        text.append(f"Power cut: {view.gap}\n", style="bold yellow")
    text.rstrip()
    return text


class AlertsWidget(Widget):
    def __init__(self, view: BoardView, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.view = view

    def render(self) -> Text:
        return alerts_text(self.view)


def notices_text(view: BoardView, message: str = "") -> Text:
    text = Text(overflow="fold")
    if view.engine_move:
        text.append(f"Engine plays {view.engine_move}: carry it out\n", style="bold")
    if view.engine_error:
        text.append(f"Engine: {view.engine_error}\n", style="bold yellow")
    if view.engine_hint:
        text.append(f"Hint: {view.engine_hint}\n", style="bold")
    if view.analysis:
        text.append(f"Analysis {view.analysis}\n", style="bold")
    if view.leds:
        text.append(f"LEDs: {view.led_text()}\n")
    if view.irregularity:
        text.append(f"Irregularity: {view.irregularity}\n", style="bold")
    last = view.last_move()
    if last:
        text.append(f"Last move: {last}\n")
    if message:
        text.append(message)
    return text


class BoardApp(App[int]):
    """``watch`` and ``play``: a source in, the screens out; ``prompt`` (play) takes typed
    lines and clicked squares and answers with a message."""

    CSS = """
    Screen { layout: vertical; }
    #top { height: 1fr; }
    #left { width: 35; }
    #board { height: 11; }
    #right { width: 1fr; padding-left: 1; }
    #info { height: 6; }
    #moves { height: 1fr; }
    #notices { height: auto; max-height: 8; }
    #alerts { height: auto; max-height: 5; }
    #prompt { dock: bottom; height: 1; border: none; padding: 0 1; }
    """
    BINDINGS = [("ctrl+c", "quit", "quit"), ("ctrl+q", "quit", "quit"),
                ("q", "quit_watching", "quit")]

    def __init__(self, view: BoardView, source: Any = None, *,
                 prompt: Callable[[str], str] | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__()
        self.view = view
        self.source = source
        self.prompt = prompt
        self.clock = clock
        self._faces: dict[str, str] = {}
        self._drawn = -1
        self._board_size = 0
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def compose(self) -> ComposeResult:
        with Horizontal(id="top"):
            with Vertical(id="left"):
                yield BoardWidget(self.view, id="board")
            with Vertical(id="right"):
                yield InfoWidget(self.view, self.clock, id="info")
                yield MovesWidget(self.view, id="moves")
        yield NoticesWidget(self.view, id="notices")
        yield AlertsWidget(self.view, id="alerts")
        if self.prompt is not None:
            yield Input(placeholder="a move (c3-d4, 32-28), a square, press, help, quit",
                        id="prompt")

    def on_mount(self) -> None:
        self._fit()
        self.set_interval(TICK_S, self.tick)
        if self.source is not None:
            self._thread = threading.Thread(target=self.source.run,
                                            args=(self.deliver, self._stop), daemon=True)
            self._thread.start()

    def deliver(self, kind: str, payload: Any) -> None:
        """From the source's thread: hand it to the app's."""
        if not self._stop.is_set():
            try:
                self.call_from_thread(self.take, kind, payload)
            except RuntimeError:  # the app has ended meanwhile
                pass

    def take(self, kind: str, payload: Any) -> list[str]:
        """On the app's thread: a feed record, a status answer or a link state in."""
        now = self.clock()
        if kind == "record":
            said = self.view.apply(payload, now)
        elif kind == "status":
            said = apply_status(self.view, payload, now)
        else:
            self.view.link = str(payload)[:60] if payload else None
            self.view.version += 1
            said = []
        self.redraw()
        return said

    def _fit(self) -> None:
        """The board's place for its size (8x8 or 10x10)."""
        self._board_size = self.view.size
        self.query_one("#left").styles.width = board_width(self.view.size) + 2
        self.query_one("#board").styles.height = self.view.size + 1

    def redraw(self) -> None:
        if self.view.version != self._drawn:
            self._drawn = self.view.version
            if self.view.size != self._board_size:
                self._fit()
            for widget_id in ("#board", "#notices", "#info", "#moves", "#alerts"):
                self.query_one(widget_id).refresh(layout=widget_id in ("#notices", "#alerts"))
            self._faces = self.view.faces(self.clock())

    def tick(self) -> None:
        faces = self.view.faces(self.clock())
        if faces != self._faces:
            self._faces = faces
            self.query_one("#info").refresh()

    def action_quit_watching(self) -> None:
        """``q`` ends ``watch`` (``play`` types it: its prompt takes the key first)."""
        if self.prompt is None:
            self.exit(0)

    def say(self, message: str) -> None:
        notices = self.query_one(NoticesWidget)
        notices.message = message
        notices.refresh(layout=True)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.input.value = ""
        self.answer(event.value)

    def square_clicked(self, square: str) -> None:
        if self.prompt is not None:
            self.answer(square)

    def answer(self, line: str) -> None:
        if self.prompt is None:
            return
        if line.strip().lower() in ("quit", "q", "exit"):
            self.exit(0)
            return
        self.say(self.prompt(line))

    def on_unmount(self) -> None:
        self._stop.set()
