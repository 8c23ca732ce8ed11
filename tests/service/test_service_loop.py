"""The service loop on simulated hardware and a virtual clock: one data path, journal, recovery."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from support.service_helpers import (
    S,
    VirtualClock,
    game_log,
    replayed,
    run_until,
    sim_service,
    wk_game,
)

from boardctl.relay.state import RelayState
from boardctl.service.hardware import EventScript, sim_hardware
from boardctl.service.journal_file import current_path, load_journal
from boardctl.service.service import GameSetup, Service, rebuild
from firmware.formats.feed import decode_line
from firmware.rules.sets import Side
from firmware.session.handling import handle_game
from firmware.session.session import BoardSession


def clocks_at(session, at: int) -> dict[str, float]:
    return {s.value: session.clock.remaining(s, at) / S for s in (Side.WHITE, Side.BLACK)}


def test_a_real_game_through_sensors_referee_clock_feed_and_relay(tmp_path: Path) -> None:
    events = game_log(14, seed=5)
    lines: list[str] = []
    service, clock = sim_service(tmp_path, events, lines=lines)
    service.boot()
    run_until(service, clock, events[-1].at / S + 2)
    want = replayed(events)
    got = service.session
    assert [m["move"] for m in got.moves] == [m["move"] for m in want.moves]
    for mine, theirs in zip(got.moves, want.moves, strict=True):
        for side in ("white", "black"):  # presses stamped by the real button code, <= 1 scan late
            assert mine["clock"][side] == pytest.approx(theirs["clock"][side], abs=0.011)
    records = [decode_line(line) for line in lines]
    assert all(r is not None for r in records)
    assert [r["seq"] for r in records] == list(range(len(records)))
    assert records[0]["type"] == "header" and records[0]["board"] == "3"
    relay = RelayState()
    for line in lines:
        relay.feed_line("port", line)
    (game,) = relay.games.values()
    assert [m["move"] for m in game.moves] == [m["move"] for m in want.moves]
    # The journal replayed gives the very same game (the one code path).
    journal = load_journal(current_path(tmp_path))
    again = rebuild(journal).session
    assert again.moves == got.moves and again.leds() == got.leds()
    service.close()


@pytest.mark.parametrize("seed", [11, 12, 13])
def test_crash_at_a_random_moment_then_recovery_is_exact(tmp_path: Path, seed: int) -> None:
    """The process dies (no close, nothing flushed beyond what was written); a new service on
    the same state directory has the same game, the clocks paused where the journal last
    recorded them, and the same LED picture."""
    events = game_log(10, seed=seed)
    service, clock = sim_service(tmp_path, events)
    service.boot()
    crash_at = random.Random(seed).uniform(1.0, events[-1].at / S)
    run_until(service, clock, crash_at)
    before = service.session
    journal = load_journal(current_path(tmp_path))
    t_rec = round(journal.last_t * S)
    assert crash_at * S - t_rec <= 1.01 * S  # heartbeat: at most a second lost
    expected_clock = clocks_at(before, t_rec) if before.clock.started else None
    # "kill -9": the first service is simply abandoned.
    again, clock2 = sim_service(tmp_path, None, clock=None)
    again.boot()
    after = again.session
    assert after.moves == before.moves
    assert after.position == before.position
    assert after.leds() == before.leds()
    again.step(clock2.now + 1)
    assert set(again.hw.leds.lit()) == set(before.leds())  # the strip shows it too
    if expected_clock is not None:
        assert after.clock.running is None  # paused
        assert clocks_at(after, t_rec) == expected_clock
        run_until(again, clock2, t_rec / S + 5)  # time passes: the clocks stay paused
        assert clocks_at(after, again.game_time(clock2.now)) == expected_clock
    again.close()
    # And once more: recovering a recovered journal changes nothing.
    third, _ = sim_service(tmp_path, None)
    third.boot()
    assert third.session.moves == before.moves
    third.close()


def test_crash_then_the_log_goes_on_gives_the_whole_game(tmp_path: Path) -> None:
    events = game_log(12, seed=21)
    want = replayed(events)
    rng = random.Random(4)
    clock = None
    t = 0.0
    for _ in range(3):
        service, clock = sim_service(tmp_path, events, clock=clock)
        service.boot()
        t = rng.uniform(t + 0.5, events[-1].at / S)
        run_until(service, clock, t)
    service, clock = sim_service(tmp_path, events, clock=clock)
    service.boot()
    run_until(service, clock, events[-1].at / S + 2)
    assert [m["move"] for m in service.session.moves] == [m["move"] for m in want.moves]
    final = service.session.moves[-1]["clock"]
    for side in ("white", "black"):
        assert final[side] == pytest.approx(want.moves[-1]["clock"][side], abs=0.05)
    service.close()


def test_torn_journal_tail_is_tolerated(tmp_path: Path) -> None:
    events = game_log(6, seed=2)
    service, clock = sim_service(tmp_path, events)
    service.boot()
    run_until(service, clock, events[-1].at / S + 2)
    moves = list(service.session.moves)
    path = current_path(tmp_path)
    with open(path, "ab") as f:
        f.write(b'{"type":"lift","t":99')
    again, _ = sim_service(tmp_path, None)
    again.boot()
    assert again.session.moves == moves
    again.close()


def test_control_requests_in_process(tmp_path: Path) -> None:
    service, clock = sim_service(tmp_path, None)
    service.boot()
    status = service.command({"cmd": "status"})
    assert status["ok"] and status["started"] is False and status["ply"] == 0
    assert service.command({"cmd": "pause"})["ok"]  # a clock not started yet: harmless
    assert service.command({"cmd": "start"})["running"] == "white"
    refused = service.command({"cmd": "start", "id": "again"})
    assert not refused["ok"] and refused["id"] == "again"  # the client's tag comes back
    assert service.command({"cmd": "status", "id": 7})["id"] == 7
    run_until(service, clock, 10)
    answer = service.command({"cmd": "clock-set", "side": "white", "seconds": 100})
    assert answer["ok"] and answer["clock"]["white"] == 100
    # set as the arbiter says, and said: below 15 minutes is past 004 §32's correction
    assert "white's time shortened to 100 s, below 15 minutes" in answer["warning"]
    more = service.command({"cmd": "clock-set", "side": "black", "seconds": 400})
    assert more["ok"] and "warning" not in more  # more time: nothing to say
    less = service.command({"cmd": "clock-set", "side": "black", "seconds": 360})
    assert less["ok"] and "warning" in less
    assert service.command({"cmd": "pause"})["running"] is None
    run_until(service, clock, 20)
    assert service.command({"cmd": "status"})["clock"]["white"] == 100
    assert service.command({"cmd": "resume"})["running"] == "white"
    bad = service.command('{"cmd": "result", "result": "3-0"}')
    assert not bad["ok"] and "not a result" in bad["error"]
    assert not service.command("garbage")["ok"]
    assert not service.command({"cmd": "adjourn", "sealed": "1-99"})["ok"]
    refused = service.command({"cmd": "new"})
    assert refused["ok"]  # no move made yet: a new game may replace it
    new_id = refused["game"]
    assert service.command({"cmd": "start"})["ok"]
    done = service.command({"cmd": "result", "result": "1-1", "reason": "agreement"})
    assert done["result"] == "1-1"
    tags = {"Round": "2", "White": "X", "Date": "1999.12.31"}  # the arbiter's date wins
    assert service.command({"cmd": "new", "tags": tags})["game"] != new_id
    assert service.command({"cmd": "start"})["ok"]
    run_until(service, clock, 3.5)  # the new game's own time line, from 0
    path = current_path(tmp_path)
    marks = [json.loads(line) for line in path.read_text().splitlines()]
    assert sum(1 for m in marks if m.get("note") == "clock") >= 3  # heartbeats resumed
    assert load_journal(path).header.tags == tags
    service.close()


def test_leds_show_an_irregularity_and_clear(tmp_path: Path) -> None:
    service, clock = sim_service(tmp_path, None)
    service.boot()
    service.command({"cmd": "start"})
    sim = service.hw.sim
    sim.lift("c3")  # 32: a White man ...
    run_until(service, clock, 1)
    sim.place("c7")  # ... set down among Black's men: not a legal square
    run_until(service, clock, 2)
    assert service.hw.buttons is not None
    service.hw.press("white")
    run_until(service, clock, 3)
    picture = service.session.leds()
    assert picture, "an irregular board lights squares"
    assert set(service.hw.leds.lit()) == set(picture)
    sim.lift("c7")
    sim.place("c3")
    run_until(service, clock, 5)
    assert service.session.leds() == {} or set(service.hw.leds.lit()) == set(service.session.leds())
    service.close()


def test_random_arbiter_requests_never_break_the_service(tmp_path: Path) -> None:
    """Hundreds of requests, well-formed or not, in any order during a game: every answer is
    a JSON object with ``ok``; the loop goes on and the journal replays to the same game."""
    import json

    from boardctl.service.control import COMMANDS

    events = game_log(8, seed=31)
    service, clock = sim_service(tmp_path, events)
    service.boot()
    rng = random.Random(5)
    junk = [None, -1, 0, 1, 2.5, 1e308, "", "white", "black", "32-28", "2-0", "1-1", "x" * 300,
            [], {}, {"White": "A"}, {"bad key": 1}, True, "international", "russian", "W:W1:B2"]
    t = 0.0
    for _ in range(300):
        cmd = rng.choice([*COMMANDS, "nonsense"])
        req: dict = {"cmd": cmd}
        for name in COMMANDS.get(cmd, {}):
            if rng.random() < 0.7:
                req[name] = rng.choice(junk)
        if cmd == "new" and rng.random() < 0.9:
            continue  # keep the game going most of the time
        answer = service.command(json.dumps(req))
        assert isinstance(answer.get("ok"), bool)
        assert "internal error" not in answer.get("error", ""), (req, answer)
        t += rng.uniform(0, 0.1)
        run_until(service, clock, t)
    journal = load_journal(current_path(tmp_path))
    assert rebuild(journal).session.moves == service.session.moves
    service.close()


def test_a_board_without_a_clock_commits_moves_at_rest(tmp_path: Path) -> None:
    """No time control and no presses: a move is made when the board rests on it (or the
    opponent starts), exactly as `boardctl replay` reads the same log."""


    position, moves = wk_game(2)
    events = handle_game(position, moves[:8], seed=9, clocked=False, t0=S // 2)

    clock = VirtualClock()
    script = EventScript(events)
    setup = GameSetup("international", None, started=not script.has_start,
                      clocked=script.has_presses)
    service = Service(tmp_path, setup, sim_hardware(10, clock=clock), clock=clock, script=script)
    service.boot()
    run_until(service, clock, events[-1].at / S + 3)
    want = BoardSession("international", None, started=not script.has_start, clocked=False)
    for e in events:
        want.handle(e)
    want.finish()
    assert [m["move"] for m in service.session.moves] == [m["move"] for m in want.moves]
    assert len(want.moves) == 8
    service.close()


def test_adjournment_keeps_the_sealed_move_secret_and_survives_a_crash(tmp_path: Path) -> None:
    events = game_log(4, seed=41)
    lines: list[str] = []
    service, clock = sim_service(tmp_path, events, lines=lines)
    service.boot()
    run_until(service, clock, events[-1].at / S + 1)
    assert len(service.session.moves) == 4
    position = service.session.position
    from firmware.rules.notation import move_text

    sealed = move_text(position, position.legal_moves()[0])
    answer = service.command({"cmd": "adjourn", "sealed": sealed})
    assert answer["ok"] and answer["adjourned"] and answer["running"] is None
    assert all(sealed not in line for line in lines)  # never in the feed (004 §34)
    assert sealed not in json_dumps(service.command({"cmd": "status"}))
    # The board is switched off overnight (no clean stop at all) ...
    again, clock2 = sim_service(tmp_path, None)
    again.boot()
    assert again.session.sealed is not None and again.session.clock.running is None
    assert not again.command({"cmd": "resume"})["ok"]  # adjourned: only resume-adjourned
    resumed = again.command({"cmd": "resume-adjourned"})
    assert resumed["ok"] and resumed["moves"][-1] == sealed and resumed["ply"] == 5
    assert resumed["running"] == position.turn.other.value  # the opponent's clock runs
    again.close()


def json_dumps(obj: object) -> str:
    import json

    return json.dumps(obj)
