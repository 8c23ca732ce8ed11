"""The layers of the code, checked on the source (STYLE.md lesson 15, issue 12): ``firmware``
(the brain) imports nothing from ``hw`` or ``boardctl``; ``hw`` (the body) nothing from
``boardctl``; the rules core nothing from the referee, the clock or the session; and no module
reaches itself through its imports (an import cycle), not even through imports made for
annotations only (``if TYPE_CHECKING:``); no package folder holds more than 20 modules (issue 26);
no class of the project derives from another of its classes (protocols and exceptions aside, and
the event log's records and the rule sets: the hands are parts composed, issue 26, and so are
the referee and the clock, issue 35). Lazy imports inside functions count."""

from __future__ import annotations

import ast
import functools
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("firmware", "hw", "boardctl")
#: The rules core: positions, moves and notation, whatever plays or referees the game.
RULES_CORE = ("firmware.errors", "firmware.rules")
#: Modules above the rules core that it must never import.
ABOVE_RULES = ("firmware.referee", "firmware.clock", "firmware.session", "firmware.formats")


@functools.cache
def modules() -> dict[str, Path]:
    found: dict[str, Path] = {}
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            parts = path.relative_to(ROOT).with_suffix("").parts
            name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            found[name] = path
    return found


def imports(path: Path, known: dict[str, Path]) -> tuple[set[str], set[str]]:
    """The project modules a file imports (``from a import b`` counts as ``a.b`` when that is
    a module, else as ``a``): those that run, and with them those under ``if TYPE_CHECKING:``
    (annotations only)."""
    run: set[str] = set()
    typed: set[str] = set()
    tree = ast.parse(path.read_text(encoding="utf-8"))
    typing_only = {id(n) for block in ast.walk(tree) if isinstance(block, ast.If)
                   and _type_checking(block) for stmt in block.body for n in ast.walk(stmt)}
    for node in ast.walk(tree):
        found: set[str] = set()
        if isinstance(node, ast.Import):
            found = {a.name for a in node.names if a.name.split(".")[0] in PACKAGES}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module.split(".")[0] not in PACKAGES:
                continue
            subs = {f"{node.module}.{a.name}" for a in node.names}
            found = (subs & known.keys()) or {node.module}
        typed |= found
        if id(node) not in typing_only:  # `if TYPE_CHECKING:` imports never run
            run |= found
    return run, typed


def _type_checking(node: ast.If) -> bool:
    return ((isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING")
            or (isinstance(node.test, ast.Attribute) and node.test.attr == "TYPE_CHECKING"))


@functools.cache
def graphs() -> tuple[dict[str, set[str]], dict[str, set[str]]]:
    """The import graph (each module: the project modules it imports), and the same with the
    imports made for annotations only (a circle of concepts all the same); each file parsed
    once, when a test first asks (never at collection: every xdist worker collects)."""
    both = {name: imports(path, modules()) for name, path in modules().items()}
    return ({name: run for name, (run, _) in both.items()},
            {name: typed for name, (_, typed) in both.items()})
#: The most modules one package folder holds (issue 26): a folder's name should say what is in it.
MAX_MODULES = 20


def _within(name: str, prefixes: tuple[str, ...]) -> bool:
    return any(name == p or name.startswith(p + ".") for p in prefixes)


@pytest.mark.parametrize(("layer", "forbidden"), [
    (("firmware",), ("hw", "boardctl")),
    (("hw",), ("boardctl",)),
    (RULES_CORE, ABOVE_RULES),
])
def test_no_import_goes_up_a_layer(layer: tuple[str, ...], forbidden: tuple[str, ...]) -> None:
    wrong = sorted(f"{m} imports {d}" for m, deps in graphs()[0].items() if _within(m, layer)
                   for d in deps if _within(d, forbidden))
    assert wrong == []


def cycles(graph: dict[str, set[str]]) -> list[set[str]]:
    """Strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[set[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in graph.get(v, ()):
            if w not in graph:
                continue
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = set()
            while True:
                w = stack.pop()
                comp.add(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(comp)

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_cycle_finder_finds_a_cycle() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [{"a", "b", "c"}]


def test_no_import_cycle_not_even_for_annotations() -> None:
    graph, typed = graphs()
    assert any(graph[m] != typed[m] for m in graph)  # the check sees typing imports
    assert cycles(typed) == []


def test_no_package_folder_is_a_heap() -> None:
    crowded = {}
    for package in PACKAGES:
        for folder in [ROOT / package, *(p.parent for p in (ROOT / package).rglob("__init__.py"))]:
            count = len(list(folder.glob("*.py")))
            if count > MAX_MODULES:
                crowded[str(folder.relative_to(ROOT))] = count
    assert crowded == {}


def test_real_drivers_never_import_their_twins() -> None:
    """``hw/mock/`` holds the simulated twins (issue 12): only the assemblers choose them
    (``hw.assemble`` in ``hw``; ``boardctl`` builds simulated boards for ``--sim``)."""
    assert any(_within(d, ("hw.mock",)) for d in graphs()[0]["hw.assemble"])  # the check sees it
    wrong = sorted(f"{m} imports {d}" for m, deps in graphs()[0].items()
                   if _within(m, ("hw",)) and not _within(m, ("hw.mock", "hw.assemble"))
                   for d in deps if _within(d, ("hw.mock",)))
    assert wrong == []


def _base_names(node: ast.ClassDef) -> set[str]:
    return {b.id if isinstance(b, ast.Name) else b.attr if isinstance(b, ast.Attribute)
            else "" for b in node.bases}


def _exempt(classes: list[ast.ClassDef]) -> set[str]:
    """The protocols and the exceptions among ``classes``: an exception derives from a
    built-in one (``...Error``, ``...Exception``, ``...Warning``) or from another exception of
    theirs, however far down (``ChipNotFound(BackendUnavailable)``, ``BackendUnavailable
    (Exception)``)."""
    exempt = {n.name for n in classes if "Protocol" in _base_names(n)}
    errors = {n.name for n in classes if any(b.endswith(("Error", "Exception", "Warning"))
                                             for b in _base_names(n))}
    while True:
        more = {n.name for n in classes if _base_names(n) & errors} - errors
        if not more:
            return exempt | errors
        errors |= more


#: Where a class may derive from another of the project's (issue 35): the event log's record
#: types (one ``Event`` base) and the rule sets (python-chess's variants: small subclasses
#: with class-level flags, STYLE.md lesson 5).
TOWERS_ALLOWED = ("firmware/formats/events.py", "firmware/rules/sets.py")


def inherited(paths: list[Path], allowed: tuple[str, ...] = ()) -> list[str]:
    """Classes that derive from another class of ``paths`` (protocols and exceptions aside,
    and the classes of the files ``allowed``, relative to the root)."""
    classes = {p: [n for n in ast.walk(ast.parse(p.read_text(encoding="utf-8")))
                   if isinstance(n, ast.ClassDef)] for p in paths}
    every = [n for found in classes.values() for n in found]
    exempt = _exempt(every)
    own = {n.name for n in every if n.name not in exempt}
    out = []
    for path, found in classes.items():
        where = path.relative_to(ROOT).as_posix()
        if where in allowed:
            continue
        for node in found:
            for name in sorted(_base_names(node) & own):
                if node.name not in exempt:
                    out.append(f"{where}: {node.name}({name})")
    return out


def test_inheritance_finder_finds_a_chain(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("class Base:\n    pass\n\n\nclass Part(Exception):\n"
                                   "    pass\n\n\nclass Door(Protocol):\n    pass\n")
    (tmp_path / "b.py").write_text("import a\n\n\nclass Top(a.Base):\n    pass\n\n\n"
                                   "class Fault(a.Part):\n    pass\n\n\n"
                                   "class Worse(Fault):\n    pass\n\n\n"
                                   "class Wide(a.Door):\n    pass\n")
    (tmp_path / "c.py").write_text("import a\n\n\nclass Kept(a.Base):\n    pass\n")
    global ROOT
    root, ROOT = ROOT, tmp_path
    try:
        found = inherited(sorted(tmp_path.glob("*.py")), allowed=("c.py",))
        assert found == ["b.py: Top(Base)"]  # a protocol's or an exception's heirs are not
        assert inherited(sorted(tmp_path.glob("*.py"))) == ["b.py: Top(Base)", "c.py: Kept(Base)"]
    finally:
        ROOT = root


def test_the_hands_are_composed_not_inherited() -> None:
    """Issue 26: boardctl's objects are parts handed what they need, not layers of base
    classes (protocols and error classes aside)."""
    assert inherited(sorted((ROOT / "boardctl").rglob("*.py"))) == []


def test_the_brain_and_the_body_are_composed_not_inherited() -> None:
    """Issue 35 (STYLE.md lesson 19): no class of ``firmware`` or ``hw`` derives from another
    of the project's (the referee and the clock are parts composed, not floors of a tower),
    save protocols, exceptions, the event log's records and the rule sets."""
    paths = sorted(p for package in ("firmware", "hw") for p in (ROOT / package).rglob("*.py"))
    assert inherited(paths, TOWERS_ALLOWED) == []
    assert inherited(paths)  # the check sees the towers it allows
