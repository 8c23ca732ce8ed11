"""``python -m boardctl.voice``: feed lines from stdin (or files) spoken, or written as WAV
files with ``--voice-out DIR``; each line is said before the next is read, so nothing is
dropped. ``--sample`` says a few lines of a game instead (is the audio out working?)::

    boardctl replay --rules international --format feed game.jsonl \\
        | python -m boardctl.voice --voice-lang nl
    python -m boardctl.voice --sample --voice-lang et
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable, Sequence

from boardctl import logs
from boardctl.voice.settings import add_arguments, from_arguments
from boardctl.voice.voice import Voice
from firmware.errors import BoardError
from firmware.formats.feed import encode_line

#: A few records of a game (international), for --sample.
SAMPLE: tuple[dict[str, object], ...] = (
    {"type": "game", "game": "sample", "rules": "international",
     "fen": "W:W31-50:B1-20"},
    {"type": "snapshot", "game": "sample", "rules": "international",
     "fen": "W:W31-50:B1-20", "moves": []},
    {"type": "move", "ply": 1, "side": "white", "move": "32-28",
     "fen": "B:W28,31,33-50:B1-20"},
    {"type": "engine-move", "ply": 2, "side": "black", "move": "18-23",
     "route": ["e7", "f6"], "captured": []},
    {"type": "irregularity", "kind": "illegal-move", "side": "white", "squares": ["d2"],
     "leds": {"d2": "restore"}},
    {"type": "result", "result": "1-1", "reason": "agreement"},
)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m boardctl.voice", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("files", nargs="*", help="feed lines (default: stdin)")
    parser.add_argument("--sample", action="store_true", help="say a few lines of a game")
    parser.add_argument("--rules", default="international",
                        help="rule set until the feed names one (default international)")
    add_arguments(parser)
    args = parser.parse_args(argv)
    logs.setup()
    try:
        voice = Voice(from_arguments(args), rules=args.rules).start()
    except BoardError as exc:
        print(f"python -m boardctl.voice: {exc}", file=sys.stderr)
        return 2
    try:
        lines = ([encode_line(r, n) for n, r in enumerate(SAMPLE)] if args.sample
                 else _lines(args.files))
        for line in lines:
            voice.send(line)
            voice.wait(600.0)
    except KeyboardInterrupt:
        pass
    except OSError as exc:
        print(f"python -m boardctl.voice: {exc}", file=sys.stderr)
        return 1
    finally:
        voice.close()
    status = voice.status()
    print(f"said {status['said']}, damaged lines {status['damaged']}"
          + (f"; quiet: {status['quiet']}" if status["quiet"] else ""), file=sys.stderr)
    return 0 if status["quiet"] is None else 1


def _lines(files: Sequence[str]) -> Iterable[str]:
    if not files:
        yield from sys.stdin
        return
    for name in files:
        with open(name, encoding="ascii", errors="replace") as f:
            yield from f


if __name__ == "__main__":
    sys.exit(main())
