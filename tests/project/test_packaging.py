"""What ``pip install .`` installs (README's quick start, install.sh on the Pi) is every package
of the tree: a package missing from pyproject.toml's list works in an editable checkout and
fails on a real install (it did: hw/mock, found on the pi-twin)."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_every_package_is_installed() -> None:
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
                 ["packages"])
    found = {".".join(init.parent.relative_to(ROOT).parts)
             for top in ("firmware", "hw", "boardctl")
             for init in (ROOT / top).rglob("__init__.py")}
    assert "hw.mock" in found  # the check sees the tree
    assert listed == found
