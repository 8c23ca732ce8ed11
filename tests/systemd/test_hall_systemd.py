"""The hall drop-in opens only what MQTT needs; the serial-only unit keeps no network."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def settings(path: Path) -> list[tuple[str, str]]:
    pairs = []
    for line in path.read_text().splitlines():
        if "=" in line and not line.lstrip().startswith(("#", "[")):
            key, _, value = line.partition("=")
            pairs.append((key.strip(), value.strip()))
    return pairs


def test_the_drop_in_opens_the_broker_only(tmp_path: Path) -> None:
    drop_in = settings(ROOT / "systemd" / "hall" / "hall.conf")
    assert ("PrivateNetwork", "no") in drop_in
    families = [v for k, v in drop_in if k == "RestrictAddressFamilies"]
    assert families == ["", "AF_UNIX AF_INET AF_INET6"]  # reset, then exactly these
    assert [k for k, _ in drop_in if k == "IPAddressAllow"]
    assert not [k for k, _ in drop_in if k == "IPAddressDeny"]  # the unit's deny=any stays
    unit = settings(ROOT / "systemd" / "boardctl.service")
    assert ("PrivateNetwork", "yes") in unit and ("IPAddressDeny", "any") in unit
    assert ("RestrictAddressFamilies", "AF_UNIX") in unit
    if shutil.which("systemd-analyze"):  # the unit with the drop-in still parses cleanly
        (tmp_path / "boardctl.service.d").mkdir()
        text = (ROOT / "systemd" / "boardctl.service").read_text()
        (tmp_path / "boardctl.service").write_text(
            text.replace("/usr/local/bin/boardctl run", "/bin/true"))
        shutil.copy(ROOT / "systemd" / "hall" / "hall.conf", tmp_path / "boardctl.service.d")
        done = subprocess.run(["systemd-analyze", "verify", "boardctl.service"],
                              env={"SYSTEMD_UNIT_PATH": f"{tmp_path}:", "PATH": "/usr/bin:/bin"},
                              cwd=tmp_path, capture_output=True, text=True, timeout=60)
        assert "hall.conf" not in done.stderr, done.stderr
