"""A real browser for the tests of pages: Debian's Chromium, headless, driven through
Debian's ChromeDriver by Selenium (no browser or driver is downloaded: both paths are given).

Without them the page tests are skipped on a developer's machine and fail under CI
(``CI=true``): ``tests/install-system-deps.sh`` installs them.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = ("/usr/bin/chromium", "/usr/bin/chromium-browser")
CHROMEDRIVER = ("/usr/bin/chromedriver", "/usr/lib/chromium/chromedriver")


def _first(names: tuple[str, ...], which: str) -> str | None:
    found = shutil.which(which)
    if found:
        return found
    return next((p for p in names if os.access(p, os.X_OK)), None)


def require_browser() -> tuple[str, str]:
    """(chromium, chromedriver), or skip (fail under CI)."""
    chromium = _first(CHROMIUM, "chromium")
    driver = _first(CHROMEDRIVER, "chromedriver")
    if chromium is None or driver is None:
        message = ("chromium and chromium-driver are not installed "
                   "(run tests/install-system-deps.sh)")
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    try:
        import selenium  # noqa: F401
    except ImportError:
        message = "selenium is not installed (pip install -e '.[test]')"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return chromium, driver


def chrome(profile: Path, *, width: int = 1280, height: int = 900, mobile: bool = False,
           performance: bool = False) -> Any:
    """A headless Chromium session with its console log kept (``console_errors``);
    ``mobile``: a phone's screen of ``width`` x ``height`` CSS pixels (Chromium's device
    emulation: touch, a phone's user agent); ``performance``: the DevTools network events kept
    too (``driver.get_log("performance")``: bytes and hosts of every request)."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    chromium, driver = require_browser()
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--disable-quic", "--no-first-run", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--disable-extensions",
                f"--user-data-dir={profile}", f"--window-size={width},{height}"):
        options.add_argument(arg)
    if mobile:
        options.add_experimental_option("mobileEmulation", {
            "deviceMetrics": {"width": width, "height": height, "pixelRatio": 1.0,
                              "touch": True},
            "userAgent": "Mozilla/5.0 (Linux; Android 14; Pixel 7) AppleWebKit/537.36 "
                         "(KHTML, like Gecko) Chrome/120.0 Mobile Safari/537.36"})
    logs = {"browser": "ALL", **({"performance": "ALL"} if performance else {})}
    options.set_capability("goog:loggingPrefs", logs)
    return webdriver.Chrome(service=Service(executable_path=driver), options=options)


def console_errors(driver: Any) -> list[str]:
    """The SEVERE entries of the browser console since the last call (JavaScript errors,
    failed loads)."""
    return [e["message"] for e in driver.get_log("browser") if e.get("level") == "SEVERE"]


@pytest.fixture
def browser(tmp_path: Path) -> Iterator[Any]:
    """A headless Chromium for one test; quit (driver and browser processes) afterwards."""
    driver = chrome(tmp_path / "chromium-profile")
    try:
        yield driver
    finally:
        driver.quit()


def until(driver: Any, check: Any, timeout: float = 10.0) -> Any:
    """``check(driver)``'s first true value, asked every 0.05 s until ``timeout`` seconds."""
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, timeout, poll_frequency=0.05).until(check)
