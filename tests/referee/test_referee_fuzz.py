"""Garbage on the board never crashes the referee: any sequence of lifts, places, presses and
arbiter decisions gives feed records of the CONTRACT.md shapes, and the LED picture names only
squares of the board with known meanings."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from support.records_helpers import FeedShapedSession as BoardSession  # records as feed lines

from firmware.errors import BoardError
from firmware.formats.events import NS, Accept, Event, Lift, Pause, Place, Press, Resume, Start
from firmware.referee import KINDS
from firmware.rules.sets import find_rules

MEANINGS = {"restore", "remove", "must-move", "wrong"}


def events(size: int) -> st.SearchStrategy[list[Event]]:
    names = find_rules("russian" if size == 8 else "international").geometry.all_cells()
    step = st.integers(0, 3 * NS)
    kind = st.sampled_from(["lift", "place", "lift", "place", "press", "accept", "pause",
                            "resume", "start"])  # fmt: skip
    return st.lists(st.tuples(step, kind, st.sampled_from(names), st.booleans()), max_size=60).map(
        lambda raw: _build(raw)
    )


def _build(raw: list[tuple[int, str, str, bool]]) -> list[Event]:
    out: list[Event] = []
    t = 0
    for dt, kind, square, white in raw:
        t += dt
        if kind == "lift":
            out.append(Lift(t, square))
        elif kind == "place":
            out.append(Place(t, square))
        elif kind == "press":
            out.append(Press(t, "white" if white else "black"))
        elif kind == "accept":
            out.append(Accept(t))
        elif kind == "pause":
            out.append(Pause(t))
        elif kind == "resume":
            out.append(Resume(t))
        else:
            out.append(Start(t))
    return out


def check_records(session: BoardSession, records: list[dict]) -> None:
    for r in records:
        if r["type"] == "irregularity":
            assert r["kind"] in KINDS and isinstance(r["squares"], list)
        elif r["type"] == "move":
            assert {"ply", "side", "move", "fen"} <= set(r)
    cells = set(session.rules.geometry.all_cells())
    for square, meaning in session.leds().items():
        assert square in cells and meaning in MEANINGS


@settings(max_examples=60, deadline=None)
@given(
    st.sampled_from(["russian", "international", "brazilian", "home"]),
    st.sampled_from([None, "300+2"]),
    st.booleans(),
    st.data(),
)
def test_garbage_never_crashes(
    rules: str, tc: str | None, started: bool, data: st.DataObject
) -> None:
    session = BoardSession(rules, tc, started=started)
    evs = data.draw(events(find_rules(rules).size))
    records: list[dict] = []
    for e in evs:
        try:
            records += session.handle(e)
        except BoardError:
            assert isinstance(e, Accept)  # only the arbiter's decisions may be refused
    records += session.finish()
    check_records(session, records)
    session.pdn()
    session.status()
