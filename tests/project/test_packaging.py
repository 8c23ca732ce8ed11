"""What ``pip install .`` installs (README's quick start, install.sh on the Pi) is every package
of the tree: a package missing from pyproject.toml works in an editable checkout and fails on a
real install (it did: hw/mock, found on the pi-twin). pyproject.toml finds the packages by
pattern; this checks the patterns find every package folder, and nothing else."""

from __future__ import annotations

import tomllib
from pathlib import Path

from setuptools import find_packages

ROOT = Path(__file__).resolve().parents[2]


def test_every_package_is_installed() -> None:
    find = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"][
        "packages"]["find"]
    listed = set(find_packages(where=str(ROOT), include=find["include"]))
    found = {".".join(init.parent.relative_to(ROOT).parts)
             for top in ("firmware", "hw", "boardctl")
             for init in (ROOT / top).rglob("__init__.py")}
    assert {"hw.mock", "boardctl.voice", "boardctl.online"} <= found  # the check sees the tree
    assert listed == found
