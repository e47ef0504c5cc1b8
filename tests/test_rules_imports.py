"""The rules package imports like a library: plain top-level imports, no circle, nothing of ours
from outside it (STYLE.md: "rules imports nothing of ours")."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

import lordsofwar.rules

RULES_DIR = Path(lordsofwar.rules.__file__).parent
PACKAGE = "lordsofwar.rules"
MODULES = sorted(f"{PACKAGE}.{p.stem}" for p in RULES_DIR.glob("*.py") if p.stem != "__init__")


def _path(module: str) -> Path:
    return RULES_DIR / f"{module.rsplit('.', 1)[1]}.py"


def _tree(module: str) -> ast.Module:
    return ast.parse(_path(module).read_text(encoding="utf-8"), str(_path(module)))


def _imported(module: str, node: ast.Import | ast.ImportFrom) -> list[str]:
    """The modules of ours that one import statement loads, as dotted names.

    ``from lordsofwar.rules import engine`` loads the submodule ``engine``; a relative import is
    resolved against the rules package.
    """
    if isinstance(node, ast.Import):
        return [a.name for a in node.names if a.name.split(".")[0] == "lordsofwar"]
    if node.level:
        base = module.split(".")[: -node.level]
        source = ".".join(base + ([node.module] if node.module else []))
    else:
        source = node.module or ""
    if source.split(".")[0] != "lordsofwar":
        return []
    if source == PACKAGE:
        return [f"{PACKAGE}.{a.name}" if f"{PACKAGE}.{a.name}" in MODULES else PACKAGE for a in node.names]
    return [source]


def _all_imports(module: str) -> list[tuple[int, str]]:
    """Every import of ours anywhere in ``module``: top level, in functions, under
    ``if TYPE_CHECKING``. Pairs of (line, imported module)."""
    return [
        (node.lineno, target)
        for node in ast.walk(_tree(module))
        if isinstance(node, ast.Import | ast.ImportFrom)
        for target in _imported(module, node)
    ]


def _graph() -> dict[str, set[str]]:
    return {m: {t for _, t in _all_imports(m) if t in MODULES and t != m} for m in MODULES}


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle of ``graph`` as a path that ends where it starts, or None."""
    done: set[str] = set()
    path: list[str] = []

    def visit(m: str) -> list[str] | None:
        if m in path:
            return path[path.index(m) :] + [m]
        if m in done:
            return None
        path.append(m)
        for t in sorted(graph[m]):
            found = visit(t)
            if found:
                return found
        path.pop()
        done.add(m)
        return None

    for m in sorted(graph):
        found = visit(m)
        if found:
            return found
    return None


def test_the_rules_modules_are_found() -> None:
    names = {m.rsplit(".", 1)[1] for m in MODULES}
    assert {"actions", "cards", "engine", "errors", "mat", "notation", "state"} <= names


def test_cycle_finder_finds_a_circle() -> None:
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set(), "c": {"a", "b"}}) is None


def test_rules_modules_import_each_other_without_a_circle() -> None:
    """Counting every import, even one in a function or under ``if TYPE_CHECKING``."""
    cycle = _cycle(_graph())
    assert cycle is None, "import circle in lordsofwar.rules: " + " -> ".join(cycle or [])


def test_rules_import_nothing_of_ours_from_outside_the_rules() -> None:
    outside = [
        f"{_path(m).name}:{line} imports {target}"
        for m in MODULES
        for line, target in _all_imports(m)
        if target != PACKAGE and not target.startswith(PACKAGE + ".")
    ]
    assert outside == []


@pytest.mark.parametrize("module", MODULES)
def test_every_import_is_a_plain_import_at_the_top_of_the_module(module: str) -> None:
    """No import in a function, under a condition (``if TYPE_CHECKING``) or after the code."""
    tree = _tree(module)
    body = tree.body
    first_code = next(
        (
            s
            for i, s in enumerate(body)
            if not isinstance(s, ast.Import | ast.ImportFrom)
            and not (i == 0 and isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))
        ),
        None,
    )
    top = {id(s) for s in body if isinstance(s, ast.Import | ast.ImportFrom)}
    misplaced = [
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Import | ast.ImportFrom)
        and (id(node) not in top or (first_code is not None and node.lineno > first_code.lineno))
    ]
    assert misplaced == [], f"{_path(module).name}: imports not at the top, lines {misplaced}"
    assert "TYPE_CHECKING" not in _path(module).read_text(encoding="utf-8")


PLAY_AN_OPENING = """
import {module}

from lordsofwar.rules.cards import CORE
from lordsofwar.rules.engine import Event, legal_actions
from lordsofwar.rules.notation import deal, parse_action, position_to_json
from lordsofwar.rules.state import DRAW, HAND_LIMIT, PASS, Action, Position, Result, Termination, Variant

pos = deal([CORE.standard_deck("orcs"), CORE.standard_deck("dwarves")], 7, Variant())
assert type(pos) is Position and type(pos.copy()) is Position
first = pos.legal_actions()[0]
assert isinstance(first, Action) and first.kind == "deploy" and first in legal_actions(pos)
assert parse_action(str(first), pos) == first
after, events = pos.apply(str(first))
assert type(after) is Position and events[0]["type"] == "deploy" and pos.turn == 1
events = pos.push(first)
assert position_to_json(pos) == position_to_json(after)
assert DRAW in pos.legal_actions() and DRAW.kind == "draw" and PASS.kind == "pass"
assert len(pos.hands[1]) < HAND_LIMIT and pos.result is None and Result(1, Termination.UNITS, 20).winner == 1
assert isinstance(events[0], dict) and Event is not None
"""


@pytest.mark.parametrize("module", [PACKAGE, *MODULES])
def test_each_rules_module_imports_first_in_a_fresh_interpreter(module: str) -> None:
    """Whichever module is imported first, positions work through every public import path."""
    done = subprocess.run(
        [sys.executable, "-c", PLAY_AN_OPENING.format(module=module)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=RULES_DIR.parents[1],
    )
    assert done.returncode == 0, done.stderr
