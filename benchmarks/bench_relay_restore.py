"""How long a restarted relay takes to serve everything again (issue 30: within 2 s of the
restart), and what keeping its games costs while it runs (issue 37): a hall of BOARDS boards
playing GAMES rounds, a game of PLIES plies with clocks a round (real games from
boardctl/data/wk2003.pdn), every round but the last one finished with its result, kept by the
relay's store (boardctl.relay.store) in a temporary folder, published after each ply of every
board (as a relay publishing at every group window of a busy hall), then read back and
checked by a new relay: once as a kill -9 leaves the store (appended, not compacted), once
after a clean stop (compacted).

    python benchmarks/bench_relay_restore.py [--boards 200] [--games 1] [--plies 80]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from boardctl.relay.relay import Relay
from boardctl.relay.store import GameStore
from firmware.formats.feed import encode_line, header_record
from firmware.pdn import read_games

DATA = Path(__file__).resolve().parents[1] / "boardctl" / "data" / "wk2003.pdn"


def play(relay: Relay, boards: int, rounds: int, plies: int) -> int:
    """Every board's games, a ply of every board between publishes; the moves played."""
    games = [[m.text for m in g.moves] for g in read_games(DATA.read_text(), "wk2003")]
    seq = dict.fromkeys(range(boards), 0)

    def send(b: int, record: dict[str, object]) -> None:
        seq[b] += 1
        relay.state.feed_line(f"b{b + 1}", encode_line(record, seq[b]))

    moves = 0
    for b in range(boards):
        relay.state.source(f"b{b + 1}", topic=True)
        relay.state.feed_line(f"b{b + 1}", encode_line(header_record(f"b{b + 1}", "r", None), 0))
    for r in range(rounds):
        gid = f"g{r}"
        for b in range(boards):
            send(b, {"type": "game", "game": gid, "rules": "international", "fen": None,
                     "time_control": "5400+30", "tags": {"Round": str(r + 1)}})
        for k in range(plies):
            for b in range(boards):
                game = games[(b + r) % len(games)]
                if k < len(game):
                    send(b, {"type": "move", "game": gid, "ply": k + 1,
                             "side": "white" if k % 2 == 0 else "black", "move": game[k],
                             "clock": {"white": 5000.0 - k, "black": 5000.0 - k}})
                    moves += 1
            relay.publish()
        if r < rounds - 1:  # the last round is in play
            for b in range(boards):
                send(b, {"type": "result", "game": gid, "result": "1-1"})
            relay.publish()
    return moves


def restart(folder: Path, text: str) -> tuple[float, float]:
    """Seconds (wall and CPU) from a new relay to serving everything; checks it serves
    ``text``."""
    started, cpu = time.perf_counter(), time.process_time()
    again = Relay([], store=GameStore(folder).open())
    again.restore()
    took = time.perf_counter() - started, time.process_time() - cpu
    assert again.text == text, "the restarted relay serves something else"
    assert again.store is not None
    again.store.close()  # as a kill -9 leaves it: not written anew
    return took


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--boards", type=int, default=200)
    parser.add_argument("--games", type=int, default=1, help="rounds, a game a board each")
    parser.add_argument("--plies", type=int, default=80)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "H"
        relay = Relay([], store=GameStore(folder).open())
        relay.poll()
        started = time.perf_counter()
        moves = play(relay, args.boards, args.games, args.plies)
        kept = time.perf_counter() - started
        store = relay.store
        assert store is not None
        size, written, syncs = (folder / "games.jsonl").stat().st_size, store.written, store.syncs
        text = relay.text
        store.close()  # killed -9: the file as appended
        killed = restart(folder, text)
        again = Relay([], store=GameStore(folder).open())
        again.restore()
        started = time.perf_counter()
        again.close()  # a clean stop: the file written anew, every game whole
        stop = time.perf_counter() - started
        compacted = (folder / "games.jsonl").stat().st_size
        clean = restart(folder, text)
    print(f"{args.boards} boards, {args.boards * args.games} games, {moves} moves; store "
          f"{size / 1e6:.1f} MB as appended ({written / moves:.0f} bytes and "
          f"{syncs / moves:.3f} fsyncs a move written), {compacted / 1e6:.1f} MB compacted")
    print(f"taking and keeping them: {kept:.2f} s ({kept / moves * 1e6:.0f} us a move, the "
          f"relay's state included); a clean stop (compacting): {stop:.2f} s")
    print(f"restart to serving everything: {killed[0]:.2f} s ({killed[1]:.2f} s CPU) after a "
          f"kill -9, {clean[0]:.2f} s ({clean[1]:.2f} s CPU) after a clean stop (target: 2 s)")


if __name__ == "__main__":
    main()
