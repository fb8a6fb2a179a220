"""The house's walls: every import, in Python and in the Rust core, goes down a floor or stays on
its own, and no files import each other in a circle.

ARCHITECTURE.md gives the floors. An import written inside a function is an import like any
other here: hiding one there does not make a climb legal. The only door up is the package's
``__init__``, which hands the public names on to users.
"""

from __future__ import annotations

import ast
import re
from collections import defaultdict
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PKG = ROOT / "python" / "tcplab"
CORE = ROOT / "crates" / "tcplab-sim" / "src"

# The Python floors, lowest first: a module may import from its own floor or below.
PY_FLOORS: list[tuple[str, ...]] = [
    ("errors", "_atomic", "frames", "_core", "schema", "pcap"),
    ("models",),
    ("report",),
    ("api", "step"),
    ("path", "analytic", "topology"),
    ("sweep",),
    ("compare", "testbed", "conformance", "packetdrill"),
    ("studies",),
    ("cli", "_docs"),
]


def _py_modules() -> dict[str, Path]:
    """Every module of the package by dotted name (packages by their ``__init__``)."""
    out = {}
    for path in sorted(PKG.rglob("*.py")):
        rel = path.relative_to(PKG.parent).with_suffix("")
        parts = list(rel.parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def _py_imports(name: str, path: Path, modules: dict[str, Path]) -> list[tuple[int, str]]:
    """(line, module) for every tcplab module `name` imports, wherever the import is written."""
    is_pkg = path.name == "__init__.py"
    package = name if is_pkg else name.rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            # `from pkg import sub` imports the submodule when there is one.
            targets = [
                f"{mod}.{a.name}" if f"{mod}.{a.name}" in modules else mod for a in node.names
            ]
        else:
            continue
        for t in targets:
            while t and t not in modules:
                t = t.rpartition(".")[0]
            if t.startswith("tcplab") and t != name:
                found.append((node.lineno, t))
    return found


def _py_floor(module: str) -> int | None:
    """The floor of a module, from its first name below the package; None for the package."""
    parts = module.split(".")
    if len(parts) == 1:
        return None  # tcplab/__init__.py: the door to the users, above everything
    for i, names in enumerate(PY_FLOORS):
        if parts[1] in names:
            return i
    raise AssertionError(f"{module} is on no floor: add it to PY_FLOORS and ARCHITECTURE.md")


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one node (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_no_python_import_climbs_a_floor() -> None:
    modules = _py_modules()
    climbs = []
    for name, path in modules.items():
        here = _py_floor(name)
        if here is None:
            continue
        for line, target in _py_imports(name, path, modules):
            there = _py_floor(target)
            if there is not None and there > here:
                climbs.append(f"{path.relative_to(ROOT)}:{line}: {name} imports {target}")
    assert not climbs, "imports that climb a floor:\n" + "\n".join(climbs)


def test_nothing_but_the_entry_point_imports_the_command_line() -> None:
    modules = _py_modules()
    into_cli = [
        f"{path.relative_to(ROOT)}:{line}: {name} imports {target}"
        for name, path in modules.items()
        if not name.startswith("tcplab.cli")
        for line, target in _py_imports(name, path, modules)
        if target == "tcplab.cli" or target.startswith("tcplab.cli.")
    ]
    assert not into_cli, "\n".join(into_cli)


def test_no_python_circle() -> None:
    modules = _py_modules()
    graph = defaultdict(set)
    for name, path in modules.items():
        for _, target in _py_imports(name, path, modules):
            # The package's __init__ re-exports lazily for users: not a dependency of the
            # modules it names.
            if name != "tcplab":
                graph[name].add(target)
    assert _circles(graph) == []


# --- the Rust core

# Every `crate::a::b::...` path, in `use` lines and written inline; `use crate::{a, b::c}`.
_PATH = re.compile(r"\bcrate((?:::[A-Za-z_][A-Za-z0-9_]*)+)")
_USE_GROUP = re.compile(r"\buse\s+crate::\{([^;]*)\}", re.S)


def _rust_files() -> dict[str, Path]:
    """Every source file of the core by module path (`tcp::endpoint::send`)."""
    out = {}
    for path in sorted(CORE.rglob("*.rs")):
        parts = list(path.relative_to(CORE).with_suffix("").parts)
        if parts[-1] in ("mod", "lib"):
            parts.pop()
        out["::".join(parts)] = path
    return out


def _rust_edges(files: dict[str, Path]) -> dict[str, set[str]]:
    """The files each file uses through `crate::` paths (in `use` lines and inline), tests
    included: a test module's use is a use of the file it stands in."""
    graph: dict[str, set[str]] = defaultdict(set)
    for name, path in files.items():
        text = re.sub(r"//[^\n]*", "", path.read_text())
        paths = _PATH.findall(text)
        for group in _USE_GROUP.findall(text):
            paths += [p.strip().split("::{")[0] for p in re.split(r",(?![^{]*})", group)]
        for p in paths:
            segs = [s for s in p.split("::") if s and s != "self"]
            # The longest prefix that is a file is the file used.
            for n in range(len(segs), 0, -1):
                target = "::".join(segs[:n])
                if target in files:
                    if target != name and not name.startswith(target + "::"):
                        graph[name].add(target)
                    break
    return graph


def test_no_rust_circle() -> None:
    circles = _circles(_rust_edges(_rust_files()))
    assert circles == [], "files of the core that use each other in a circle:\n" + "\n".join(
        " -> ".join(c) for c in circles
    )


# The core's floors: what each folder may use besides itself. The scenario's ground-floor helpers
# (fields, units, the walk of declared fields) and the output's recorders (series, trace) are
# used from below; the rest of scenario/ and output/ sits above what it parses or reports.
_GROUND = {"engine", "error"}
_RECORDERS = {"output::series", "output::trace"}
_HELPERS = {"scenario::fields", "scenario::units", "scenario::walk"}
RUST_FLOORS = {
    "engine": _GROUND,
    "net": _GROUND | _RECORDERS,
    "tcp": _GROUND | {"net"} | _RECORDERS | _HELPERS,
    "apps": _GROUND | {"output"} | _HELPERS | {"scenario::schema"},
    "scenario": _GROUND | {"net", "tcp", "apps"},
    "output": _GROUND | {"net", "tcp", "apps", "scenario"},
}


@pytest.mark.parametrize("folder", sorted(RUST_FLOORS))
def test_rust_floors(folder: str) -> None:
    may_use = RUST_FLOORS[folder] | {folder}
    graph = _rust_edges(_rust_files())
    bad = [
        f"{src} uses {dst}"
        for src, dsts in sorted(graph.items())
        if src == folder or src.startswith(folder + "::")
        for dst in sorted(dsts)
        if not any(dst == m or dst.startswith(m + "::") for m in may_use)
    ]
    assert not bad, "\n".join(bad)


FILE_LIMITS = [
    # (folder, suffix, most lines): past these a file holds two ideas (ARCHITECTURE.md).
    (CORE, ".rs", 1200),
    (CORE / "tcp" / "endpoint", ".rs", 800),
    (PKG, ".py", 800),
]


@pytest.mark.parametrize(("folder", "suffix", "most"), FILE_LIMITS)
def test_no_file_holds_two_ideas(folder: Path, suffix: str, most: int) -> None:
    long = [
        f"{p.relative_to(ROOT)}: {n} lines"
        for p in sorted(folder.rglob(f"*{suffix}"))
        if (n := len(p.read_text().splitlines())) > most
    ]
    assert not long, f"files over {most} lines:\n" + "\n".join(long)
