"""A misbehaving Hub engine for the client's fault tests: ``python hostile_engine.py MODE``.

Modes: ``exit`` (exits at once), ``die`` (handshakes, then exits on ``go``), ``hang`` (handshakes,
then never answers ``go``, not even ``stop``), ``mute`` (never finishes the handshake),
``lie`` (answers a move that is not legal), ``garbage`` (answers ``go`` with noise and no
``done``, but obeys ``stop`` with a garbled move), ``good`` (plays the first legal move)."""

from __future__ import annotations

import sys
import time

from firmware.engine.hub import move_text, parse_line, parse_position
from firmware.rules.sets import find_rules


def main() -> int:
    mode = sys.argv[1]
    rules = find_rules(sys.argv[2] if len(sys.argv) > 2 else "international")
    if mode == "exit":
        return 3
    position = None
    for raw in sys.stdin:
        try:
            line = parse_line(raw)
        except ValueError:
            continue
        out = []
        if line.command == "hub":
            if mode == "mute":
                time.sleep(60)
            out += ["id name=hostile", "wait"]
        elif line.command == "init":
            out.append("ready")
        elif line.command == "pos":
            position = parse_position(rules, line.args["pos"])
        elif line.command == "go":
            if mode == "die":
                return 4
            if mode == "hang":
                time.sleep(60)
            if mode == "lie":
                out.append("done move=1-2")
            if mode == "garbage":
                out += ["\x00\x01 ??", 'info depth="', "done"]
            if mode == "good" and position is not None:
                out.append("done move=" + move_text(position.legal_moves()[0]))
        elif line.command == "stop" and mode == "garbage":
            out.append("done move=xx-yy")
        elif line.command == "quit":
            return 0
        for text in out:
            print(text, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
