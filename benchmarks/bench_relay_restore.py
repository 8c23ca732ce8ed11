"""How long a restarted relay takes to serve everything again (issue 30: within 2 s of the
restart), and what keeping its games costs while it runs: a hall of BOARDS boards, GAMES games
each of PLIES plies with clocks (real games from boardctl/data/wk2003.pdn), kept by the relay's
store (boardctl.relay.store) in a temporary folder, then read back and checked by a new relay.

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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--boards", type=int, default=200)
    parser.add_argument("--games", type=int, default=1)
    parser.add_argument("--plies", type=int, default=80)
    args = parser.parse_args()
    games = [[m.text for m in g.moves] for g in read_games(DATA.read_text(), "wk2003")]
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "H"
        relay = Relay([], store=GameStore(folder).open())
        relay.poll()
        moves = 0
        started = time.perf_counter()
        for b in range(args.boards):
            board, seq = f"b{b + 1}", 0
            relay.state.source(board, topic=True)
            relay.state.feed_line(board, encode_line(header_record(board, "r", None), seq))
            for g in range(args.games):
                game = games[(b + g) % len(games)][:args.plies]
                gid = f"g{g}"
                seq += 1
                relay.state.feed_line(board, encode_line(
                    {"type": "game", "game": gid, "rules": "international", "fen": None,
                     "time_control": "5400+30", "tags": {"Round": str(g + 1)}}, seq))
                for k, text in enumerate(game):
                    seq += 1
                    relay.state.feed_line(board, encode_line(
                        {"type": "move", "game": gid, "ply": k + 1,
                         "side": "white" if k % 2 == 0 else "black", "move": text,
                         "clock": {"white": 5000.0 - k, "black": 5000.0 - k}}, seq))
                    moves += 1
            relay.publish()  # each board's file written once here (a move a publish live)
        kept = time.perf_counter() - started
        size = sum(p.stat().st_size for p in folder.glob("*.json"))
        text = relay.text
        relay.close()
        started = time.perf_counter()
        again = Relay([], store=GameStore(folder).open())
        again.restore()
        back = time.perf_counter() - started
        assert again.text == text, "the restarted relay serves something else"
        again.close()
    print(f"{args.boards} boards, {args.boards * args.games} games, {moves} moves; "
          f"store {size / 1e6:.1f} MB in {args.boards} files")
    print(f"taking and keeping them: {kept:.2f} s ({kept / args.boards * 1000:.1f} ms a board "
          "file written)")
    print(f"restart to serving everything: {back:.2f} s (target: 2 s)")


if __name__ == "__main__":
    main()
