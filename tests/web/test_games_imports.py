"""The games package imports without a circle: no games module is imported, even indirectly, by a
module it imports (counting every import: top level, in a function, under ``if TYPE_CHECKING``);
each module imports first in a fresh interpreter; and the clock rules import nothing but the
standard library."""

from __future__ import annotations

import ast
import functools
import subprocess
import sys
from pathlib import Path

import pytest

import lordsofwar

ROOT = Path(lordsofwar.__file__).parent
GAMES = "lordsofwar.web.games"


def _module_of(path: Path) -> str:
    parts = path.relative_to(ROOT.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_module_of(p): p for p in ROOT.rglob("*.py")}
GAMES_MODULES = sorted(m for m in MODULES if m.startswith(GAMES + "."))


def _imports(module: str) -> set[str]:
    """The modules of ours that ``module`` imports anywhere in it."""
    tree = ast.parse(MODULES[module].read_text(encoding="utf-8"))
    package = module if MODULES[module].name == "__init__.py" else module.rsplit(".", 1)[0]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name in MODULES}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            if source in MODULES:
                found.add(source)
            found |= {f"{source}.{a.name}" for a in node.names if f"{source}.{a.name}" in MODULES}
    return found - {module}


@functools.cache
def _graph() -> dict[str, set[str]]:
    return {m: _imports(m) for m in MODULES}


def _cycle_through(start: str, graph: dict[str, set[str]]) -> list[str] | None:
    """A path of imports from ``start`` back to itself, or None."""
    seen: set[str] = set()
    stack: list[tuple[str, list[str]]] = [(start, [start])]
    while stack:
        node, path = stack.pop()
        for nxt in sorted(graph.get(node, ())):
            if nxt == start:
                return [*path, start]
            if nxt not in seen:
                seen.add(nxt)
                stack.append((nxt, [*path, nxt]))
    return None


def test_the_cycle_finder_finds_a_circle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert _cycle_through("a", graph) == ["a", "b", "c", "a"]
    assert _cycle_through("d", graph) is None


def test_the_games_modules_are_found() -> None:
    names = {m.rsplit(".", 1)[1] for m in GAMES_MODULES}
    assert {"service", "router", "schemas", "clock", "writer", "bots", "analysis", "runtime", "hub"} <= names


@pytest.mark.parametrize("module", GAMES_MODULES)
def test_no_games_module_is_in_an_import_circle(module: str) -> None:
    cycle = _cycle_through(module, _graph())
    assert cycle is None, "import circle: " + " -> ".join(cycle or [])


def test_the_clock_rules_import_only_the_standard_library() -> None:
    tree = ast.parse(MODULES[f"{GAMES}.clock"].read_text(encoding="utf-8"))
    imported = {
        (node.module or "") if isinstance(node, ast.ImportFrom) else alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.Import | ast.ImportFrom)
        for alias in node.names
    }
    assert imported <= {"__future__", "datetime", "typing"}, imported


@pytest.mark.parametrize("module", GAMES_MODULES)
def test_each_games_module_imports_first_in_a_fresh_interpreter(module: str) -> None:
    done = subprocess.run(
        [sys.executable, "-c", f"import {module}"], capture_output=True, text=True, timeout=120, cwd=ROOT.parent
    )
    assert done.returncode == 0, done.stderr
