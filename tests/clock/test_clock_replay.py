"""The clock times travel with each move: ``boardctl replay --time-control`` writes the right
``[%clock]`` after every move and the right ``clock`` in feed lines (CONTRACT.md), worked out
by hand from the log's press times."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from boardctl.cli import main

# Russian opening, each move lifted, placed, then the clock pressed at the time given.
MOVES = [("c3", "d4", 4.0), ("f6", "g5", 12.25), ("g3", "f4", 70.0), ("g7", "f6", 80.0),
         ("b2", "c3", 81.5), ("h8", "g7", 200.0)]


def _log(tmp_path: Path) -> Path:
    records: list[dict[str, object]] = [{"type": "start", "t": 0.0}]
    for index, (lift, place, press) in enumerate(MOVES):
        side = "white" if index % 2 == 0 else "black"
        records.append({"type": "lift", "t": press - 1.0, "square": lift})
        records.append({"type": "place", "t": press - 0.5, "square": place})
        records.append({"type": "press", "t": press, "side": side})
    path = tmp_path / "game.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("control", "clocks"),
    [
        # Fischer 300+5: White 300-4+5=301, -57.75+5=248.25, -1.5+5=251.75;
        # Black 300-8.25+5=296.75, -10+5=291.75, -118.5+5=178.25.
        ("300+5", [(301, 300), (301, 296.75), (248.25, 296.75), (248.25, 291.75),
                   (251.75, 291.75), (251.75, 178.25)]),
        # 2 moves in 100 s, then 1 move per 30 s, repeating (004 §32): White 100-4=96,
        # 96-57.75+30=68.25 (control), 68.25-1.5+30=96.75; Black 100-8.25=91.75,
        # 91.75-10+30=111.75 (control); he needs 118.5 s for his 3rd move and his flag falls
        # at 81.5+111.75: the game ends there, the move is not recorded.
        ("2/100:1/30", [(96, 100), (96, 91.75), (68.25, 91.75), (68.25, 111.75),
                        (96.75, 111.75)]),
    ],
)
def test_replay_clock_after_every_move(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], control: str,
    clocks: list[tuple[float, float]],
) -> None:
    log = _log(tmp_path)
    assert main(["replay", "--rules", "russian", "--time-control", control,
                 "--format", "feed", str(log)]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    moves = [line for line in lines if line["type"] == "move"]
    assert [(m["clock"]["white"], m["clock"]["black"]) for m in moves] == clocks
    if control.startswith("2/100"):
        result = [line for line in lines if line["type"] == "result"]
        assert result and result[0]["reason"] == "time forfeit"
        assert result[0]["at"] == pytest.approx(81.5 + 111.75)

    assert main(["replay", "--rules", "russian", "--time-control", control, str(log)]) == 0
    pdn = capsys.readouterr().out
    assert f'[TimeControl "{control}"]' in pdn
    # The first move: White's clock stopped, Black's now runs (capital B).
    first_white, first_black = clocks[0]
    assert f"[%clock w0:0{int(first_white) // 60}:{int(first_white) % 60:02d} B" in pdn
    assert pdn.count("[%clock") == len(clocks)
