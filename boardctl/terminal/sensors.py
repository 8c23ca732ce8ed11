"""``boardctl watch --sensors``: the reed matrix as the service's sensing thread sees it, for
whoever builds or repairs a board.

Read from the control socket's ``sensors`` answer (``closed``: the squares whose debounced
sensor is closed; ``expected``: those the referee believes occupied; ``faults``: hw.diagnose's
findings, ``{"kind", "squares", "message"}``). Each square of the grid shows ``#`` closed or
``.`` open; a square in a fault is marked ``!`` (shorted column, stuck), ``~`` one that
flickered in the last polls while nothing moved, and a square whose sensor and the referee
disagree is drawn on yellow (``+`` closed but should be empty, ``-`` open but a piece should
stand there: a move in progress shows the same, until it is finished).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from rich.text import Text

from boardctl.terminal.board import LABEL_W, cell_name

#: Polls remembered to find flickering sensors, and the flips among them that make one.
HISTORY = 20
FLICKER_FLIPS = 3


def _squares(value: Any) -> set[str]:
    return {str(s)[:4] for s in value[:200]} if isinstance(value, list) else set()


@dataclass
class SensorsView:
    size: int = 10
    closed: set[str] = field(default_factory=set)
    expected: set[str] = field(default_factory=set)
    faults: list[Mapping[str, Any]] = field(default_factory=list)
    history: deque[frozenset[str]] = field(default_factory=lambda: deque(maxlen=HISTORY))
    version: int = 0

    def apply(self, answer: Mapping[str, Any]) -> None:
        if answer.get("size") in (8, 10):
            self.size = answer["size"]
        self.closed = _squares(answer.get("closed"))
        self.expected = _squares(answer.get("expected"))
        faults = answer.get("faults")
        self.faults = [f for f in faults[:20] if isinstance(f, Mapping)] if isinstance(
            faults, list) else []
        self.history.append(frozenset(self.closed))
        self.version += 1

    def faulty(self) -> set[str]:
        return {str(sq) for f in self.faults for sq in _squares(f.get("squares"))}

    def flickering(self) -> set[str]:
        flips: dict[str, int] = {}
        previous: frozenset[str] | None = None
        for closed in self.history:
            if previous is not None:
                for sq in closed ^ previous:
                    flips[sq] = flips.get(sq, 0) + 1
            previous = closed
        return {sq for sq, n in flips.items() if n >= FLICKER_FLIPS}

    def cell(self, name: str, faulty: set[str], flicker: set[str]) -> tuple[str, str]:
        closed = name in self.closed
        mark = "#" if closed else "."
        if name in faulty:
            return f"!{mark}!", "bold #ffffff on #c00000"
        if name in flicker:
            return f"~{mark}~", "bold #000000 on #ff9000"
        if closed != (name in self.expected):
            return f"{'+' if closed else '-'}{mark} ", "bold #000000 on #e0e000"
        return f" {mark} ", "bold #ffffff on #404040" if closed else "#909090 on #202020"

    def text(self) -> Text:
        faulty, flicker = self.faulty(), self.flickering()
        text = Text(no_wrap=True, overflow="crop")
        for row in range(self.size):
            rank = self.size - 1 - row
            text.append(f"{rank + 1:>{LABEL_W - 1}} ", style="bold")
            for file in range(self.size):
                chars, style = self.cell(cell_name(self.size, file, rank), faulty, flicker)
                text.append(chars, style=style)
            text.append("\n")
        text.append(" " * LABEL_W + "".join(f" {chr(ord('a') + f)} "
                                            for f in range(self.size)), style="bold")
        return text

    def report(self) -> Text:
        """The counts and faults in words, under the grid."""
        text = Text(overflow="fold")
        extra = sorted(self.closed - self.expected)
        missing = sorted(self.expected - self.closed)
        text.append(f"{len(self.closed)} closed, {len(self.expected)} expected\n")
        if extra:
            text.append(f"closed, should be empty: {', '.join(extra[:16])}\n")
        if missing:
            text.append(f"open, a piece should stand: {', '.join(missing[:16])}\n")
        flicker = sorted(self.flickering())
        if flicker:
            text.append(f"flickering: {', '.join(flicker[:16])}\n", style="bold")
        for fault in self.faults:
            text.append(f"{fault.get('kind')}: {str(fault.get('message'))[:200]}\n",
                        style="bold red")
        if not (extra or missing or flicker or self.faults):
            text.append("every sensor agrees with the board\n")
        return text


def sensors_sentence(answer: Mapping[str, Any]) -> str:
    """``--plain``: the closed squares and the faults in one line."""
    view = SensorsView()
    view.apply(answer)
    return (f"closed: {', '.join(sorted(view.closed)) or 'none'}; "
            f"expected: {len(view.expected)}; "
            + ("faults: " + "; ".join(str(f.get("message"))[:200] for f in view.faults)
               if view.faults else "no faults"))


def sensors_app(source: Any) -> Any:
    """The Textual app of ``watch --sensors`` (imported here: only this screen needs it)."""
    import threading

    from textual.app import App, ComposeResult
    from textual.widget import Widget

    class Drawn(Widget):
        """A widget showing what ``draw`` gives (the grid, the report)."""

        def __init__(self, draw: Callable[[], Text], **kwargs: Any) -> None:
            super().__init__(**kwargs)
            self.draw = draw

        def render(self) -> Text:
            return self.draw()

    class SensorsApp(App[int]):
        CSS = "#grid { height: 11; } #report { height: 1fr; }"
        BINDINGS = [("ctrl+c", "quit", "quit"), ("q", "quit", "quit")]

        def __init__(self) -> None:
            super().__init__()
            self.view = SensorsView()
            self.link: str | None = None
            self._stop = threading.Event()

        def compose(self) -> ComposeResult:
            yield Drawn(self.view.text, id="grid")
            yield Drawn(self.view.report, id="report")

        def on_mount(self) -> None:
            if source is not None:
                threading.Thread(target=source.run, args=(self.deliver, self._stop),
                                 daemon=True).start()

        def deliver(self, kind: str, payload: Any) -> None:
            if not self._stop.is_set():
                try:
                    self.call_from_thread(self.take, kind, payload)
                except RuntimeError:
                    pass

        def take(self, kind: str, payload: Any) -> None:
            if kind == "sensors":
                self.view.apply(payload)
                self.query_one("#grid").styles.height = self.view.size + 1
            else:
                self.sub_title = str(payload or "")
            self.refresh(layout=True)
            for widget in self.query(Drawn):
                widget.refresh()

        def on_unmount(self) -> None:
            self._stop.set()

    return SensorsApp()
