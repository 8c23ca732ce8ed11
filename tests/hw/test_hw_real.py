"""Checks on a real board (gpiozero's tests/test_real_pins.py pattern): skipped unless
BOARDCTL_REAL_HW names the board's config file, e.g. on the Pi, with the board empty:

    BOARDCTL_REAL_HW=/etc/boardctl/config.toml pytest tests/hw/test_hw_real.py
"""

from __future__ import annotations

import os
import time

import pytest

CONFIG = os.environ.get("BOARDCTL_REAL_HW")
pytestmark = pytest.mark.skipif(not CONFIG, reason="BOARDCTL_REAL_HW is not set")


def test_empty_board_scans_clean() -> None:
    from boardctl.settings import load_config
    from hw.assemble import open_matrix
    from hw.diagnose import find_faults

    config = load_config(CONFIG).hardware
    matrix, _ = open_matrix(config)
    try:
        faults = find_faults(matrix, expected=set(), samples=50,
                             on_scan=lambda: time.sleep(1 / config.matrix.scan_hz))
        assert faults == [], "; ".join(f.message for f in faults)
    finally:
        matrix.close()


def test_scan_fits_the_budget() -> None:
    """A full scan takes at most 5% of a core at 100 Hz (500 us) on the board's own Pi."""
    from boardctl.settings import load_config
    from hw.assemble import open_matrix

    config = load_config(CONFIG).hardware
    matrix, _ = open_matrix(config)
    try:
        start = time.process_time()
        for _ in range(500):
            matrix.scan()
        per_scan_us = (time.process_time() - start) / 500 * 1e6
    finally:
        matrix.close()
    assert per_scan_us < 500, f"{per_scan_us:.0f} us per scan"


def test_led_strip_opens_and_shows() -> None:
    from boardctl.settings import load_config
    from hw.assemble import open_strip

    config = load_config(CONFIG).hardware
    if config.leds.backend == "none":
        pytest.skip("no LED strip configured")
    strip = open_strip(config.size, config.leds)
    try:
        strip.show({"a1": "restore"})
        assert strip.lit() == {"a1": config.leds.colours["restore"]}
    finally:
        strip.close()
