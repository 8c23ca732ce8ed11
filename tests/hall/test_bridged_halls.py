"""Many halls on one relay (docs/SCALE.md): two halls' Mosquitto brokers bridge ``kabelaud/#``
to a central one with the shipped bridge configuration (docs/mosquitto/bridge.conf), a real
``boardctl relay --hall A --hall B`` process follows the central broker, and real
``boardctl run --sim`` boards play in both halls. Hall A's broker is stopped in the middle of
the games (the bridge cut, the boards' broker gone) until its boards have played on by
:data:`PLAYED_ON` plies the central relay cannot have: afterwards every game is complete on
the central relay, each hall at its own URLs. Then the central broker itself goes away (the
relay's link and both bridges cut) until hall B's boards have played on: once it is back every
game is complete too (what the bridges held is delivered; what reached the central broker
while the relay was still reconnecting comes with the boards' next snapshots, every
:data:`SNAPSHOT_EVERY` s here). Waiting is bounded polling on real processes."""

from __future__ import annotations

from pathlib import Path

from support.hall_helpers import Board, RelayProcess, wait_for, write_log
from support.mqtt_broker import Mosquitto
from support.service_helpers import game_log, wk_game

from boardctl.service.control import ControlError, request
from firmware.pdn import read_games
from firmware.rules.notation import move_text

ROOT = Path(__file__).resolve().parents[2]
PLIES = 16
#: The boards' ``--snapshot-every`` (10 s by default): how soon a snapshot fills what the
#: relay missed while it was reconnecting.
SNAPSHOT_EVERY = "2"
#: Plies hall A's boards play while their broker is away.
PLAYED_ON = 3


def bridge_conf(hall: str, central: Mosquitto) -> str:
    """docs/mosquitto/bridge.conf for ``hall``, pointed at the central broker (the queue limit
    is the test broker's own)."""
    text = (ROOT / "docs" / "mosquitto" / "bridge.conf").read_text()
    text = text.replace("central.example.org:1883", f"127.0.0.1:{central.port}")
    text = text.replace("HALL", hall)
    return "\n".join(line for line in text.splitlines()
                     if not line.startswith("max_queued_messages"))


def games_of(relay: RelayProcess, path: str) -> dict[str, list[str]]:
    code, body = relay.get(path)
    assert code == 200, path
    return {g.tags.get("Board", "?"): [m.text for m in g.moves]
            for g in read_games(body.decode(), path)}


def ply(board: Board) -> int:
    """The board's own ply, from its control socket (0 while it cannot answer)."""
    try:
        return int(request(board.state / "control.sock", "status", timeout=2)["ply"])
    except (ControlError, OSError, KeyError, TypeError, ValueError):
        return 0


def ahead(relay: RelayProcess, path: str, boards: dict[str, Board], plies: int
          ) -> dict[str, list[str]]:
    """Wait until each of ``boards`` has played ``plies`` beyond what the relay serves at
    ``path`` (a line already past the cut may still reach the relay meanwhile: the wait is on
    the boards getting ahead, not on the relay standing still); what the relay serves then."""
    def got_ahead() -> bool:
        served = games_of(relay, path)
        return all(ply(b) >= len(served.get(n, [])) + plies for n, b in boards.items())

    wait_for(got_ahead, 60, f"{path}'s boards playing {plies} plies on, unheard")
    return games_of(relay, path)


def test_bridged_halls_lose_nothing_when_a_hall_broker_or_the_central_one_is_away(
        tmp_path: Path) -> None:
    start, moves = wk_game(1)
    position, want = start, []
    for move in moves[:PLIES]:
        want.append(move_text(position, move))
        position = position.play(move)
    log = write_log(tmp_path / "game.jsonl",
                    game_log(PLIES, seed=3, think=(0.05, 0.15), change_mind=0.0))
    central = Mosquitto(tmp_path / "central").start()
    brokers = {h: Mosquitto(tmp_path / h, extra=bridge_conf(h, central)) for h in ("A", "B")}
    relay = RelayProcess(central.url, "A", tmp_path, "--hall", "B")
    boards: list[Board] = []
    try:
        for broker in brokers.values():
            broker.start()
        relay.start()
        assert "following kabelaud/B/+/feed" in relay.stderr()
        boards = [Board(brokers[h].url, h, b, tmp_path / f"{h}-{b}", log, "--round", "1",
                        "--snapshot-every", SNAPSHOT_EVERY)
                  for h in ("A", "B") for b in ("b1", "b2")]
        for board in boards:
            board.start()
        wait_for(lambda: all(len(g) >= 4 for g in games_of(relay, "/A.pdn").values())
                 and len(games_of(relay, "/A.pdn")) == 2, 60, "hall A's games under way")
        brokers["A"].stop()  # hall A's broker goes: its bridge and its boards' link are cut
        in_a = {b.state.name[2:]: b for b in boards if b.state.name.startswith("A-")}
        held = ahead(relay, "/A.pdn", in_a, PLAYED_ON)  # their moves wait behind the cut bridge
        brokers["A"].start()
        wait_for(lambda: games_of(relay, "/A.pdn") != held, 60, "hall A's moves delivered")
        # The central broker goes: the relay's link and both halls' bridges are cut.
        before = games_of(relay, "/B.pdn")
        assert all(len(g) <= PLIES - 4 for g in before.values()), before  # still going
        central.stop()
        in_b = {b.state.name[2:]: b for b in boards if b.state.name.startswith("B-")}
        ahead(relay, "/B.pdn", in_b, 2)
        central.start()
        for hall in ("A", "B"):
            wait_for(lambda h=hall: games_of(relay, f"/{h}.pdn") == {"b1": want, "b2": want},
                     90, f"every game of hall {hall} complete on the central relay")
        round_games = games_of(relay, "/B/round/1.pdn")
        assert round_games == {"b1": want, "b2": want}  # each hall's round at its own URL
        code, body = relay.get("/board/A-b1.json")  # the live page names it HALL-BOARD
        assert code == 200 and b'"ply":%d' % PLIES in body
        code, body = relay.get("/C.pdn")  # not a hall this relay follows: no such file
        assert code == 404
        code, body = relay.get("/games.pdn")  # every game of both halls
        assert code == 200 and len(list(read_games(body.decode(), "all"))) == 4
    finally:
        for board in boards:
            board.stop()
        relay.stop()
        for broker in brokers.values():
            broker.stop()
        central.stop()
