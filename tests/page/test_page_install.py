"""The page in the install: the unit's drop-in opens the network to private addresses only
(the unit itself keeps none), install.sh --page installs it, and the page's files ship in the
package (pyproject's package data)."""

from __future__ import annotations

import fnmatch
import shutil
import subprocess
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SYSTEMD = ROOT / "systemd"


def settings(path: Path) -> list[tuple[str, str]]:
    pairs = []
    for line in path.read_text().splitlines():
        if "=" in line and not line.lstrip().startswith(("#", "[")):
            key, _, value = line.partition("=")
            pairs.append((key.strip(), value.strip()))
    return pairs


def test_the_drop_in_opens_the_home_network_only(tmp_path: Path) -> None:
    drop_in = settings(SYSTEMD / "page" / "page.conf")
    assert ("PrivateNetwork", "no") in drop_in
    families = [v for k, v in drop_in if k == "RestrictAddressFamilies"]
    assert families == ["", "AF_UNIX AF_INET AF_INET6"]  # reset, then exactly these
    allowed = " ".join(v for k, v in drop_in if k == "IPAddressAllow").split()
    assert set(allowed) == {"localhost", "link-local", "10.0.0.0/8", "172.16.0.0/12",
                            "192.168.0.0/16", "fc00::/7"}  # private: never "any"
    assert not [k for k, _ in drop_in if k == "IPAddressDeny"]  # the unit's deny=any stays
    unit = settings(SYSTEMD / "boardctl.service")
    assert ("PrivateNetwork", "yes") in unit and ("IPAddressDeny", "any") in unit
    assert shutil.which("systemd-analyze"), "systemd-analyze is not installed"
    (tmp_path / "boardctl.service.d").mkdir()
    text = (SYSTEMD / "boardctl.service").read_text()
    (tmp_path / "boardctl.service").write_text(
        text.replace("/usr/local/bin/boardctl run", "/bin/true"))
    shutil.copy(SYSTEMD / "page" / "page.conf", tmp_path / "boardctl.service.d")
    done = subprocess.run(["systemd-analyze", "verify", "boardctl.service"],
                          env={"SYSTEMD_UNIT_PATH": f"{tmp_path}:", "PATH": "/usr/bin:/bin"},
                          cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert "page.conf" not in done.stderr, done.stderr


def test_install_page_installs_the_drop_in() -> None:
    install = SYSTEMD / "install.sh"
    proc = subprocess.run(["sh", str(install), "--dry-run", "--no-start", "--page"],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    (line,) = [x for x in proc.stdout.splitlines() if "boardctl.service.d/page.conf" in x]
    assert line.split()[-2].endswith("systemd/page/page.conf")
    assert "[http] listen" in proc.stdout
    plain = subprocess.run(["sh", str(install), "--dry-run", "--no-start"],
                           capture_output=True, text=True, timeout=60)
    assert "page.conf" not in plain.stdout  # the serial-only install stays locked down


def test_the_pages_files_ship_in_the_package() -> None:
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())
    globs = data["tool"]["setuptools"]["package-data"]["boardctl.page"]
    static = ROOT / "boardctl" / "page" / "static"
    files = [p.relative_to(static.parent).as_posix() for p in static.iterdir()]
    assert {"static/index.html", "static/page.js", "static/page.css"} <= set(files)
    for name in files:
        assert any(fnmatch.fnmatch(name, g) for g in globs), name
    from boardctl.page.replies import STATIC

    assert set(STATIC) <= {Path(f).name for f in files} | {"draughts.js"}
