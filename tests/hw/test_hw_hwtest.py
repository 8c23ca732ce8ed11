"""``boardctl hwtest --sim``: the builder's check on the simulated board, end to end through
the command line."""

from __future__ import annotations

from pathlib import Path

import pytest

from boardctl.cli import main


def test_clean_board_passes(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["hwtest", "--sim", "--once"]) == 0
    out = capsys.readouterr().out
    assert "sensors: no faults (50 sensors, board empty)" in out
    # a Pi's default path, here on the simulated chip (and said so)
    assert "sensor scan: lgpio group calls, to its C extension (a simulated chip's)" in out
    # the strip cannot answer: the walk asks the builder to look
    assert "leds: walked 50 squares on 100 pixels (sim): did each light in turn, from a1? " \
        "(an unconnected strip cannot be detected: look)" in out
    assert "white 0x70 88:88; black 0x71 88:88" in out
    assert "FAULT" not in out


def test_faults_are_named_and_fail_the_run(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["hwtest", "--sim", "--once", "--expect", "start", "--sim-stuck", "e5",
                 "--sim-short-column", "3", "--skip", "leds", "--skip", "faces"])
    out = capsys.readouterr().out
    assert code == 1
    assert "FAULT column-short: column 3 (GPIO26)" in out
    assert "FAULT stuck-closed: e5 read occupied" in out
    assert "leds:" not in out and "faces:" not in out
    # the board view shows the start position with e5 and the shorted column lit
    rank5 = next(line for line in out.splitlines() if line.startswith(" 5 "))
    assert rank5.split()[1:] == [".", ".", "o", "o", "."]


def test_small_board_from_a_config_file(tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    cfg = tmp_path / "board.toml"
    cfg.write_text("size = 8\n[leds]\nbackend = 'sim'\n[leds.layout]\ndark_only = true\n")
    assert main(["hwtest", "--sim", "--seconds", "0.05", "--config", str(cfg),
                 "--expect", "start"]) == 0
    out = capsys.readouterr().out
    assert "board 8x8" in out and "leds: walked 32 squares on 32 pixels" in out
    assert "live view" in out


def test_bad_input_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["hwtest", "--sim", "--once", "--sim-stuck", "b1"]) == 2
    err = capsys.readouterr().err
    assert err.strip() == "boardctl: error: --sim-stuck: 'b1' is not a dark square of a " \
                          "10x10 board"
    cfg = tmp_path / "bad.toml"
    cfg.write_text("[matrix]\nrows = [1]\n")
    assert main(["hwtest", "--sim", "--once", "--config", str(cfg)]) == 2
    assert "matrix.rows: expected 10 GPIO numbers, got 1" in capsys.readouterr().err


def test_live_view_prints_each_debounced_change(mock_factory: object) -> None:
    import io

    from boardctl.commands.hwtest import _live
    from hw.config import default_config
    from hw.debounce import Debouncer
    from hw.mock.matrix import simulated_matrix

    matrix, board = simulated_matrix(8, default_config(8).matrix)
    board.set_pieces(["a1", "h8"])
    out = io.StringIO()
    _live(matrix, Debouncer(matrix.layout.squares, 2, initial=matrix.layout.mask(["h8", "b2"])),
          None, seconds=0.05, hz=1000, out=out)
    lines = out.getvalue().splitlines()
    events = [line.split()[1:] for line in lines if line.strip().endswith(("a1", "b2", "h8"))]
    assert events == [["lift", "b2"], ["place", "a1"]]
    assert lines[-9].startswith(" 8") and lines[-9].split()[-1] == "o"  # h8 on the final view


def test_hwtest_names_a_running_modem_manager(capsys: pytest.CaptureFixture[str]) -> None:
    """The service cannot see other processes (ProtectProc=invisible), hwtest can: a real
    process named ModemManager (its comm set as the daemon's is) is warned of."""
    import subprocess
    import sys

    code = ("import sys, time\n"
            "open('/proc/self/comm', 'w').write('ModemManager')\n"
            "print('named', flush=True)\n"
            "time.sleep(60)\n")
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None and proc.stdout.readline() == "named\n"
        assert main(["hwtest", "--sim", "--once", "--skip", "leds", "--skip", "faces"]) == 0
    finally:
        proc.kill()
        proc.wait()
    out = capsys.readouterr().out
    assert "feed: WARNING: ModemManager is running and may grab the feed port /dev/ttyGS0" in out
    assert main(["hwtest", "--sim", "--once", "--skip", "leds", "--skip", "faces"]) == 0
    assert "ModemManager" not in capsys.readouterr().out
