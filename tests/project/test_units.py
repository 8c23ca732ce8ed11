"""Units a newcomer reads in one sitting (issue 12): every class under 250 lines and every
function under 60 in ``firmware``, ``hw`` and ``boardctl``, checked on the source. The perft
closures and the engine's search closure are the exceptions: their bodies are inlined for speed
(a call per node costs several per cent), with a comment at each saying so."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("firmware", "hw", "boardctl")
CLASS_LINES = 250
FUNCTION_LINES = 60
#: (file, function) allowed past FUNCTION_LINES, each with its reason in the code.
INLINED_FOR_SPEED = {
    ("firmware/rules/_movegen.py", "_make_perft"),
    ("firmware/rules/_movegen.py", "perft"),
    ("firmware/engine/tree.py", "_make_search"),
    ("firmware/engine/tree.py", "ab"),
}


def _units() -> list[tuple[str, str, str, int]]:
    """(kind, file, name, lines) of every class and function in the packages."""
    out = []
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
                    kind = "class" if isinstance(node, ast.ClassDef) else "function"
                    lines = (node.end_lineno or node.lineno) - node.lineno + 1
                    out.append((kind, rel, node.name, lines))
    return out


def test_the_check_sees_the_code() -> None:
    units = _units()
    assert len(units) > 500
    assert ("class", "firmware/rules/position.py", "Position") in {u[:3] for u in units}


@pytest.mark.parametrize("kind,limit", [("class", CLASS_LINES), ("function", FUNCTION_LINES)])
def test_units_fit_in_one_sitting(kind: str, limit: int) -> None:
    long = [f"{rel} {name}: {lines} lines" for k, rel, name, lines in _units()
            if k == kind and lines > limit and (rel, name) not in INLINED_FOR_SPEED]
    assert not long, f"{kind}es/functions over {limit} lines:\n" + "\n".join(long)


def test_the_exceptions_say_why() -> None:
    for rel, name in INLINED_FOR_SPEED:
        text = (ROOT / rel).read_text(encoding="utf-8")
        assert f"def {name}(" in text
        assert "inlined for speed" in text, f"{rel}: say why {name} is long"
