"""What the referee's thread does between events rather than on them (issue 10): the display's
copy of the clock only when the clock changed, and the next turn's move table built while no
event waits. Neither may change what the faces show or what the referee decides."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.service_helpers import RealClock, S, game_log, replayed, sim_service

from boardctl.service.showing import Display
from firmware.pdn import read_games
from firmware.rules.sets import Side
from firmware.session.handling import NOISY, handle_game
from firmware.session.session import BoardSession


def _faces(clock, at: int) -> tuple[object, ...]:  # type: ignore[no-untyped-def]
    sides = (Side.WHITE, Side.BLACK)
    return (clock.running, tuple(clock.remaining(s, at) for s in sides),
            tuple(clock.moves_made(s) for s in sides), tuple(clock.flags(at)))


@pytest.mark.parametrize("tc, after_s", [(None, 2), ("20", 30)])
def test_the_display_copies_the_clock_only_when_it_changed(
    tmp_path: Path, tc: str | None, after_s: int
) -> None:
    """After every turn of the referee the display's copy reads as the game's clock does (now
    and later), yet it is copied about once per press, not once per lift and place; on a
    20-second clock a flag falls, and the copy shows it with no copy of its own."""
    events = game_log(12, seed=3)
    service, clock = sim_service(tmp_path, events, **({"tc": tc} if tc else {}))
    lines: list[str] = []
    service.on_line = lines.append
    display = Display(service.hw, service.faces_ns, service.clock)  # posted to, not run
    service.face.display = display
    copies = 0
    publish = display.publish

    def counted(game_clock, origin):  # type: ignore[no-untyped-def]
        nonlocal copies
        copies += 1
        publish(game_clock, origin)

    display.publish = counted  # type: ignore[method-assign]
    service.boot()
    period = service.hw.scanner.period_ns
    checked = 0
    while service.game_time(clock.now) < events[-1].at + after_s * S:
        clock.now += period
        service.step(clock.now)
        game_clock = service.session.clock
        if game_clock is not None and game_clock.started:
            assert display._game_clock is not game_clock  # a copy, never the referee's own
            for later in (clock.now, clock.now + 3 * S):
                assert _faces(display._game_clock, later) == _faces(game_clock, later)
            checked += 1
    presses = sum(1 for e in events if e.type == "press")
    assert checked > 1000
    assert presses <= copies <= presses + 3  # the start, the presses (a flag would add one)
    assert copies < len(events) // 2
    if tc is None:
        assert [m["move"] for m in service.session.moves] == [m["move"] for m in
                                                               replayed(events).moves]
    else:  # the flag fell, on the feed and on the copy
        assert any('"time forfeit"' in line for line in lines)
        assert display._game_clock.flags(clock.now)
    service.close()


@pytest.mark.parametrize("clocked", [True, False])
def test_preparing_the_move_table_between_events_changes_no_decision(clocked: bool) -> None:
    """Referee.prepare() (the service calls it when no event waits) builds what the next lift
    needs; a session prepared after every event decides exactly as one never prepared."""
    data = Path(__file__).resolve().parents[2] / "boardctl" / "data" / "wk2003.pdn"
    game = next(read_games(data.read_text(), "wk2003.pdn")).replay()
    for seed in (1, 2):
        events = handle_game(game.start, game.moves[:40], seed=seed, clocked=clocked,
                             style=NOISY)
        tc = "300+5" if clocked else None
        plain = BoardSession("international", tc)
        prepared = BoardSession("international", tc)
        built = 0
        for e in events:
            want = plain.handle(e)
            had = prepared.referee.play.ready
            prepared.referee.prepare()
            built += not had and prepared.referee.play.ready
            assert prepared.handle(e) == want
        assert prepared.finish() == plain.finish()
        assert prepared.moves == plain.moves and len(plain.moves) == 40
        if clocked:  # a press commits: the next table waits for the next lift, or prepare()
            assert built == len(plain.moves) - 1  # every one built ahead (not the last's)
        else:  # the opponent's lift commits the move and reads the new table at once
            assert built == 0


def test_the_running_service_keeps_what_boot_made_out_of_the_collectors_sight(
    tmp_path: Path,
) -> None:
    """Service.run freezes the objects boot made (gc.freeze): a collection then walks only the
    game's young objects, and the GIL stops the sensing thread for less."""
    import gc
    import threading

    service, _ = sim_service(tmp_path, None, clock=RealClock())
    stop = threading.Event()
    gc.unfreeze()
    assert gc.get_freeze_count() == 0
    thread = threading.Thread(target=service.run, args=(stop,), daemon=True)
    thread.start()
    try:
        frozen = 0
        for _ in range(3000):  # up to 30 s on a loaded machine; usually the first few
            frozen = gc.get_freeze_count()
            if frozen or not thread.is_alive():
                break
            threading.Event().wait(0.01)
        assert frozen > 1000  # modules, tables, the game: far more than a handful
    finally:
        stop.set()
        thread.join(10)
        gc.unfreeze()
    assert not thread.is_alive()
